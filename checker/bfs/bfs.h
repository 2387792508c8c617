// Exhaustive, level-synchronous breadth-first search over any checker::Model.
//
// Determinism: the result (verdict, counts, depth, level sizes, counterexample) is the
// same for every thread count, because each level reproduces exactly the order of a
// sequential BFS:
//   1. expand  (parallel, frontier chunks): compute every successor, fingerprint it (its
//      canonical form under symmetry), drop those already visited in earlier levels (or
//      leave that to step 2: choose_lookup), and file the rest as candidates keyed by
//      (parent position, action index) into buckets per visited-set shard;
//   2. dedupe  (parallel, per shard): among candidates with equal fingerprints keep the
//      smallest key (the one a sequential BFS would meet first) and, unless it was
//      visited, insert it;
//   3. order   (coordinator): merge the survivors by key: the next frontier's order;
//      steps 1-3 run on waves of at most kBfsWaveParents frontier states, in order, to
//      bound the memory of candidates;
//   4. materialize (parallel, chunks): recompute each new state from its parent and
//      action index (cheaper than storing every candidate's state or action), check
//      every property, collect bounds, and store it compressed (checker/store/state_store.h)
//      as the next frontier.
// The frontier holds real states; only fingerprints are canonical. So a counterexample
// rebuilt from the parent log is a real execution with real node identities.
//
// The search stops at the first level containing a violation and reports the violating
// state that comes first in frontier order, and its first violated property: a shortest
// counterexample, the same one whatever the thread count. With
// BfsOptions::continue_after_violation it goes on: materialize notes every property each
// new state violates (and, with a PathLabeler, the token of the edge that reached it),
// and the coordinator then feeds them, in frontier order, to a ViolationLog
// (checker/bfs/violation_log.h); at the end each property gets its verdict and the
// counterexample to its first violating state.
//
// Hot path (expand): no allocation per state. Per-thread buckets keep their capacity
// from level to level; states are copied on the stack.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "checker/bfs/bfs_types.h"
#include "checker/bfs/checkpoint.h"
#include "checker/bfs/parallel_profile.h"
#include "checker/bfs/violation_log.h"
#include "checker/bfs/worker_pool.h"
#include "checker/counterexample.h"
#include "checker/hooks.h"
#include "checker/model.h"
#include "checker/path_labeler.h"
#include "checker/por.h"
#include "checker/symmetry.h"
#include "checker/store/fingerprint.h"
#include "checker/store/parent_log.h"
#include "checker/store/spilling_visited_set.h"
#include "checker/store/state_store.h"
#include "checker/store/visited_set.h"

namespace isr::checker {

// ---- The public part of the search's order ------------------------------------------
// What an engine that must order every level exactly as bfs() does needs
// (checker/bfs/distributed_bfs.h), and what tests check directly. Everything in bfs_detail
// below is private to this file.

// Successor keys. A successor is identified by its parent's position in the frontier and
// the action's position in for_each_action order, packed so that comparing keys compares
// pairs: a level is ordered by key, and each new state keeps the smallest key reaching it.
namespace bfs_key {

inline constexpr int kActionBits = 24;
// The largest action index a key holds (more enabled actions in one state is an error).
inline constexpr uint64_t kActionMask = (uint64_t{1} << kActionBits) - 1;
inline uint64_t make(uint64_t parent, uint64_t action) { return (parent << kActionBits) | action; }
inline uint64_t parent(uint64_t key) { return key >> kActionBits; }
inline uint32_t action(uint64_t key) { return static_cast<uint32_t>(key & kActionMask); }

// Sorts keys increasingly in linear time: keys map order-preservingly to
// ((parent - first parent) << action bits) | action, which a wave keeps to ~20-30 bits,
// and an LSD radix sort on 11-bit digits takes two or three passes (std::sort of the
// survivors was a tenth of the toy model's profile). `tmp` is scratch.
inline void sort(std::vector<uint64_t>& keys, std::vector<uint64_t>& tmp) {
  const size_t n = keys.size();
  if (n < 256) {
    std::sort(keys.begin(), keys.end());
    return;
  }
  uint64_t first = std::numeric_limits<uint64_t>::max();
  uint64_t last = 0;
  uint64_t actions = 0;
  for (const uint64_t k : keys) {
    first = std::min(first, parent(k));
    last = std::max(last, parent(k));
    actions |= k & kActionMask;
  }
  const int action_bits = actions == 0 ? 0 : 64 - __builtin_clzll(actions);
  const uint64_t span = last - first;
  const int parent_bits = span == 0 ? 0 : 64 - __builtin_clzll(span);
  if (parent_bits + action_bits > 63) {
    std::sort(keys.begin(), keys.end());
    return;
  }
  for (uint64_t& k : keys) k = ((parent(k) - first) << action_bits) | (k & kActionMask);
  constexpr int kDigit = 11;
  constexpr size_t kBuckets = size_t{1} << kDigit;
  tmp.resize(n);
  size_t counts[kBuckets];
  for (int shift = 0; shift < parent_bits + action_bits; shift += kDigit) {
    std::fill(counts, counts + kBuckets, size_t{0});
    for (const uint64_t k : keys) ++counts[(k >> shift) & (kBuckets - 1)];
    size_t sum = 0;
    for (size_t& c : counts) {
      const size_t here = c;
      c = sum;
      sum += here;
    }
    for (const uint64_t k : keys) tmp[counts[(k >> shift) & (kBuckets - 1)]++] = k;
    keys.swap(tmp);
  }
  const uint64_t action_mask = (uint64_t{1} << action_bits) - 1;
  for (uint64_t& k : keys) k = make((k >> action_bits) + first, k & action_mask);
}

}  // namespace bfs_key

// A small direct-mapped cache of this level's candidate fingerprints: a state reached
// twice by the same thread is filed once (a thread meets keys in increasing order, so
// the first one it files is its smallest).
// 4096 slots of 64-bit fingerprints, 2048 of 128-bit: 32 KiB either way, the L1 data
// cache (at 64 KiB the 128-bit cache missed L1 often enough to cost ~3-4% on the toy).
inline constexpr size_t kBfsRecentSlots = 4096;

// Frontier states expanded per wave (see Engine::search(); the distributed engine's waves
// are this many per rank): bounds the candidate buffers to about 16 bytes x successors of
// this many states.
inline constexpr size_t kBfsWaveParents = size_t{1} << 18;

namespace bfs_detail {

// A successor not seen in earlier levels. Its action is found again from the key when
// the state is materialized, which keeps candidates at 16 bytes (24 with 128-bit
// fingerprints) for any model.
template <class Fp>
struct Candidate {
  Fp fp;
  uint64_t key;
};

// Visited-set lookups are cache misses on large sets. Successors wait in a small ring
// after their slot is prefetched, so that several misses overlap.
inline constexpr size_t kLookahead = 16;

// VisitedLookup::Adaptive looks successors up while deduplicating (once per distinct
// candidate, in order) when at most this share of the previous level's filed
// successors was already visited, and while expanding otherwise (see choose_lookup).
inline constexpr double kDedupeLookupMaxHits = 0.3;

// Waves with fewer new states than this are merged, and levels with fewer have their
// parent-log entries encoded, on the coordinator: a phase on the workers would cost more
// in waking them than it saves. Larger ones split into this many parts per thread (the
// workers take parts as they come, so one slow thread holds up little).
inline constexpr size_t kParallelOrderMin = size_t{1} << 14;
inline constexpr size_t kOrderPartsPerThread = 4;

template <class Action, class Fp>
struct alignas(64) Worker {
  std::vector<std::vector<Candidate<Fp>>> buckets;  // per visited-set shard
  std::vector<Candidate<Fp>> scratch;
  std::vector<uint32_t> counts;  // bucket starts while sorting a shard's candidates
  std::vector<uint32_t> cursor;
  std::vector<uint64_t> survivors;  // keys of new states
  std::vector<uint64_t> key_scratch;  // sorting survivors
  std::vector<size_t> heads;          // merging survivors (more than two workers)
  std::vector<Fp> recent;
  std::vector<Action> actions;      // the enabled actions of one parent (materialize, POR)
  // Partial-order reduction (expand, BfsOptions::por): the ample subset and its scratch.
  PorScratch por;
  std::vector<uint32_t> ample;
  std::vector<uint32_t> relevant;
  std::vector<Fp> ample_fps;
  uint64_t por_reduced = 0;
  uint64_t por_proviso = 0;
  Candidate<Fp> pending[kLookahead];
  size_t pending_count = 0;
  size_t pending_head = 0;
  uint64_t generated = 0;  // successors computed in this level's expand phase
  uint64_t offered = 0;    // of those, not dropped by the recent-cache (this level)
  uint64_t visited_hits = 0;  // of those, already in the visited set (this level)
  uint64_t violation_index = std::numeric_limits<uint64_t>::max();
  size_t violation_property = 0;
  uint32_t bounds_mask = 0;
  uint32_t usage_mask = 0;
  // Read by the coordinator while the phase runs.
  std::atomic<uint64_t> generated_published{0};
  std::atomic<uint64_t> buffer_bytes{0};
  std::atomic<uint64_t> stored_bytes{0};  // next-frontier chunks filled in this phase

  uint64_t bucket_bytes() const {
    uint64_t n = recent.capacity() * sizeof(Fp) + buckets.capacity() * sizeof(buckets[0]);
    for (const auto& b : buckets) n += b.capacity() * sizeof(Candidate<Fp>);
    n += scratch.capacity() * sizeof(Candidate<Fp>) + (counts.capacity() + cursor.capacity()) * sizeof(uint32_t);
    n += (survivors.capacity() + key_scratch.capacity()) * sizeof(uint64_t) + actions.capacity() * sizeof(Action);
    n += (ample.capacity() + relevant.capacity() + por.per_group.capacity()) * sizeof(uint32_t) +
         ample_fps.capacity() * sizeof(Fp) + por.group_of.capacity() * sizeof(int) +
         por.enablers.capacity() * sizeof(PorSet);
    return n;
  }
};

template <Model M, class Fp>
class Engine {
 public:
  using State = typename M::State;
  using Action = typename M::Action;
  using Set = SpillingVisitedSet<Fp>;
  using Store = StateStore<State>;
  using W = Worker<Action, Fp>;

  Engine(const M& model, const BfsOptions& options, const PathLabeler<M>* labeler)
      : model_(model),
        options_(options),
        labeler_(options.continue_after_violation ? labeler : nullptr),
        fingerprint_bytes_(state_prefix_bytes(model)) {
    if (options.threads < 1) throw std::invalid_argument("bfs: threads must be >= 1");
    if (continue_) log_.reset(model.properties().size());
    if (!options.checkpoint.dir.empty() && !options.spill_dir.empty()) {
      throw std::invalid_argument("bfs: checkpoints hold the in-memory visited set only, not a spilled one");
    }
    if (!options.checkpoint.dir.empty() && continue_) {
      throw std::invalid_argument("bfs: checkpoints do not hold the violation log of continue_after_violation");
    }
  }

  BfsResult<M> run() {
    start_ = Clock::now();
    last_report_ = start_;
    last_checkpoint_ = start_;
    initial_ = model_.initial_states();
    if (initial_.empty()) return finish();
    frontier_ = std::make_unique<Store>(initial_[0], options_.frontier_delta);
    next_ = std::make_unique<Store>(initial_[0], options_.frontier_delta);
    if (spilling()) {
      // Half of the budget for the visited set's memory part; the frontier moves out
      // whole once a level passes an eighth (docs/checker.md, "Larger than memory").
      visited_.spill_to(options_.spill_dir, options_.max_memory_bytes / 2);
      frontier_->spill_to(options_.spill_dir);
      next_->spill_to(options_.spill_dir);
    }
    WorkerPool pool(options_.threads);
    pool_ = &pool;
    for (int t = 0; t < options_.threads; ++t) {
      auto w = std::make_unique<W>();
      w->buckets.resize(Set::kShards);
      w->recent.assign(kBfsRecentSlots / (sizeof(Fp) / 8), Fp{});
      workers_.push_back(std::move(w));
    }
    const double coordinator_cpu = WorkerPool::thread_cpu_seconds();
    if (profiling()) profile_.threads = options_.threads;
    search();
    if (continue_) settle_outcomes();
    // The coordinator's own work (merging, parent log, growing the set) is sequential.
    const double coordinator = WorkerPool::thread_cpu_seconds() - coordinator_cpu;
    critical_path_seconds_ = pool.critical_path_seconds() + coordinator;
    if (profiling()) {
      // What the named sections did not take of the coordinator's serial CPU.
      double named = 0;
      for (const auto& t : profile_.sections) named += t.cpu;
      auto& other = profile_.sections[ParallelProfile::Other];
      other.cpu = std::max(0.0, coordinator - profile_.coordinator_during_phases - named);
      other.runs = 1;
    }
    pool_ = nullptr;
    return finish();
  }

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();

  // check --spill: the visited set and the frontier move to disk to stay under max_memory.
  bool spilling() const { return !options_.spill_dir.empty() && options_.max_memory_bytes != 0; }

  // ---- BfsOptions::profile (checker/bfs/parallel_profile.h) -----------------------------
  bool profiling() const { return options_.profile; }

  // Times one serial section of the coordinator; reads no clock when not profiling.
  class SectionTimer {
   public:
    SectionTimer(ParallelProfile* profile, ParallelProfile::Section section)
        : profile_(profile), section_(section), start_(profile ? WorkerPool::thread_cpu_seconds() : 0) {}
    ~SectionTimer() {
      if (profile_ == nullptr) return;
      auto& t = profile_->sections[section_];
      ++t.runs;
      t.cpu += WorkerPool::thread_cpu_seconds() - start_;
    }
    SectionTimer(const SectionTimer&) = delete;
    SectionTimer& operator=(const SectionTimer&) = delete;

   private:
    ParallelProfile* profile_;
    ParallelProfile::Section section_;
    double start_;
  };
  SectionTimer timed(ParallelProfile::Section section) {
    return SectionTimer(profiling() ? &profile_ : nullptr, section);
  }

  // Runs one parallel phase on every worker (a barrier at its end), ticking meanwhile.
  void run_phase(ParallelProfile::Phase phase, const std::function<void(int)>& task) {
    const double before = profiling() ? WorkerPool::thread_cpu_seconds() : 0;
    pool_->run(task, [&] { tick(); });
    if (!profiling()) return;
    profile_.coordinator_during_phases += WorkerPool::thread_cpu_seconds() - before;
    const std::vector<double>& cpu = pool_->last_phase_cpu();
    const double busiest = *std::max_element(cpu.begin(), cpu.end());
    auto& p = profile_.phases[phase];
    ++p.barriers;
    p.critical += busiest;
    for (const double c : cpu) {
      p.work += c;
      p.wait += busiest - c;
    }
  }
  // Frontier states per wave when spilling: the candidate buffers (~24 bytes per successor
  // of a wave) stay within about a sixteenth of the budget for up to ~20 successors a state.
  size_t spill_wave_states() const {
    return std::clamp<size_t>(options_.max_memory_bytes / (16 * 24 * 20), 1024, kBfsWaveParents);
  }

  Fp fingerprint_of(const State& s) const {
    State copy = s;
    return successor_fingerprint(copy);
  }

  // Bit p: property p is violated in s (continue_after_violation; ViolationLog::reset
  // allows at most 64 properties).
  uint64_t violation_mask(const State& s) const {
    const auto& properties = model_.properties();
    uint64_t mask = 0;
    for (size_t p = 0; p < properties.size(); ++p) {
      if (!properties[p].holds(model_, s)) mask |= uint64_t{1} << p;
    }
    return mask;
  }

  // Returns the index of the first violated property, or kNone.
  size_t first_violation(const State& s) const {
    const auto& properties = model_.properties();
    for (size_t p = 0; p < properties.size(); ++p) {
      if (!properties[p].holds(model_, s)) return p;
    }
    return kNone;
  }

  void stop(StopReason reason) {
    int expected = static_cast<int>(StopReason::None);
    abort_.compare_exchange_strong(expected, static_cast<int>(reason));
  }
  StopReason abort_reason() const { return static_cast<StopReason>(abort_.load()); }

  void search() {
    if (options_.interrupt && options_.interrupt->load()) stop(StopReason::Interrupted);
    if (options_.checkpoint.resume) {
      resume_checkpoint();
    } else {
      explore_initial_states();
    }
    if (verdict_ == Verdict::Violated || truncated_) return;
    for (int level = depth_ + 1;; ++level) {
      if (frontier_->size() == 0) return;  // every reachable state explored: holds
      tick();
      if (abort_reason() != StopReason::None) {
        verdict_ = Verdict::Incomplete;
        stop_reason_ = abort_reason();
        checkpoint_on_stop(false);
        return;
      }
      if (checkpointing()) boundary_ = counters_now();
      auto mark = Clock::now();
      auto lap = [&mark](double& total) {
        const auto now = Clock::now();
        total += std::chrono::duration<double>(now - mark).count();
        mark = now;
      };
      // Waves of frontier states, in order: a wave's new states all come after those of
      // the waves before it (their keys are larger), so deduplicating and inserting wave
      // by wave keeps the sequential order, while the candidate buffers only ever hold
      // one wave's successors.
      new_.clear();
      for (auto& w : workers_) w->offered = w->visited_hits = 0;
      const size_t frontier_size = frontier_->size();
      const size_t wave_size = options_.wave_states != 0 ? options_.wave_states
                               : spilling() ? spill_wave_states()
                                            : kBfsWaveParents;
      for (size_t wave = 0; wave < frontier_size; wave += wave_size) {
        expand(wave, std::min(frontier_size, wave + wave_size));
        lap(phases_.expand);
        // An interrupt is honoured between waves at once, not at the next tick.
        if (options_.interrupt && options_.interrupt->load()) stop(StopReason::Interrupted);
        if (abort_reason() != StopReason::None) {
          verdict_ = Verdict::Incomplete;
          stop_reason_ = abort_reason();
          checkpoint_on_stop(true);
          return;
        }
        dedupe();
        lap(phases_.dedupe);
        order();
      }
      uint64_t offered = 0;
      uint64_t hits = 0;
      for (const auto& w : workers_) {
        offered += w->offered;
        hits += w->visited_hits;
      }
      choose_lookup(offered, hits);
      if (new_.empty()) {
        frontier_->reset(0);
        return;
      }
      if (options_.max_states != 0 && distinct_ + new_.size() > options_.max_states) {
        new_.resize(options_.max_states - distinct_);
        truncated_ = true;
        if (new_.empty()) {
          verdict_ = Verdict::Incomplete;
          stop_reason_ = StopReason::MaxStates;
          return;
        }
      }
      record_parents();
      lap(phases_.order);
      materialize();
      if (spilling() && next_->bytes() > options_.max_memory_bytes / 8) spilled_frontier_ += next_->spill();
      if (continue_) {
        const auto section = timed(ParallelProfile::Account);
        account_level(level);
      }
      lap(phases_.materialize);
      distinct_ += new_.size();
      level_sizes_.push_back(new_.size());
      store_bytes_ = frontier_->bytes() + next_->bytes();
      peak_store_bytes_ = std::max(peak_store_bytes_, store_bytes_);
      std::swap(frontier_, next_);
      if (!truncated_) depth_ = level;
      maybe_report(false);
      if (violation_index_ != kNone) {
        violated(level, violation_index_, violation_property_);
        return;
      }
      if (truncated_) {
        verdict_ = Verdict::Incomplete;
        stop_reason_ = StopReason::MaxStates;
        return;
      }
      if (checkpointing() && Clock::now() - last_checkpoint_ >= options_.checkpoint.every) {
        save_checkpoint(counters_now(), {});
      }
    }
  }

  // ---- Checkpoints (checker/bfs/checkpoint.h) --------------------------------------------
  bool checkpointing() const { return !options_.checkpoint.dir.empty(); }

  // The counters as they are between levels.
  CheckpointCounters counters_now() const {
    CheckpointCounters c;
    c.generated = generated_;
    c.distinct = distinct_;
    c.depth = depth_;
    c.bounds_mask = bounds_mask_;
    c.usage_mask = usage_mask_;
    c.lookup_in_expand = lookup_in_expand_ ? 1 : 0;
    c.frontier_encoded_bytes = frontier_encoded_bytes_;
    c.frontier_states = frontier_states_;
    for (const auto& w : workers_) {
      c.por_reduced += w->por_reduced;
      c.por_proviso += w->por_proviso;
    }
    c.level_sizes = level_sizes_;
    return c;
  }

  void save_checkpoint(CheckpointCounters c, const std::vector<Fp>& exclude) {
    peak_memory_ = std::max(peak_memory_, memory_now());
    c.peak_memory = peak_memory_;
    c.seconds = prior_seconds_ + seconds_since_start();
    const uint64_t bytes = write_checkpoint<State, Fp>(options_.checkpoint, c, visited_.memory(), exclude, parents_, *frontier_);
    ++checkpoint_report_.written;
    checkpoint_report_.written_depth = c.depth;
    checkpoint_report_.written_states = c.distinct;
    checkpoint_report_.written_bytes = bytes;
    last_checkpoint_ = Clock::now();
  }

  // A stop (interrupt, time or memory limit) writes the last level boundary: in the middle
  // of a level, without the fingerprints its finished waves inserted (new_'s states,
  // recomputed from their parents in the frontier).
  void checkpoint_on_stop(bool mid_level) {
    if (!checkpointing()) return;
    std::vector<Fp> exclude;
    if (mid_level) {
      typename Store::Reader reader(*frontier_);
      std::vector<Action> actions;
      uint64_t parent_index = kNone;
      exclude.reserve(new_.size());
      for (const uint64_t key : new_) {
        const State& parent = reader.get(bfs_key::parent(key));
        if (bfs_key::parent(key) != parent_index) {
          parent_index = bfs_key::parent(key);
          actions.clear();
          model_.for_each_action(parent, [&](const Action& a) { actions.push_back(a); });
        }
        State successor = model_.next_state(parent, actions.at(bfs_key::action(key)));
        exclude.push_back(successor_fingerprint(successor));
      }
      std::sort(exclude.begin(), exclude.end());
    }
    save_checkpoint(mid_level ? boundary_ : counters_now(), exclude);
  }

  void resume_checkpoint() {
    const CheckpointCounters c = read_checkpoint<State, Fp>(options_.checkpoint, {visited_.memory(), parents_, *frontier_});
    generated_ = c.generated;
    distinct_ = c.distinct;
    depth_ = c.depth;
    level_sizes_ = c.level_sizes;
    bounds_mask_ = c.bounds_mask;
    usage_mask_ = c.usage_mask;
    if (options_.visited_lookup == VisitedLookup::Adaptive) lookup_in_expand_ = c.lookup_in_expand != 0;
    frontier_encoded_bytes_ = c.frontier_encoded_bytes;
    frontier_states_ = c.frontier_states;
    peak_memory_ = c.peak_memory;
    workers_[0]->por_reduced = c.por_reduced;
    workers_[0]->por_proviso = c.por_proviso;
    prior_seconds_ = c.seconds;
    visited_bytes_ = visited_.bytes();
    store_bytes_ = frontier_->bytes() + next_->bytes();
    checkpoint_report_.resumed = true;
    checkpoint_report_.resumed_depth = c.depth;
    checkpoint_report_.resumed_states = c.distinct;
  }

  void explore_initial_states() {
    generated_ = initial_.size();
    parents_.begin_level();
    std::vector<State> distinct;
    for (size_t i = 0; i < initial_.size(); ++i) {
      if (options_.max_states != 0 && distinct.size() >= options_.max_states) {
        truncated_ = true;
        break;
      }
      if (!visited_.insert(fingerprint_of(initial_[i]))) continue;
      distinct.push_back(initial_[i]);
      parents_.append(0, static_cast<uint32_t>(i));
    }
    frontier_->reset(distinct.size());
    for (size_t i = 0; i < distinct.size(); ++i) frontier_->append(i / Store::kChunk, distinct[i]);
    for (size_t c = 0; c < frontier_->chunks(); ++c) frontier_->seal(c);
    count_frontier(*frontier_);
    distinct_ = distinct.size();
    level_sizes_.push_back(distinct.size());
    visited_bytes_ = visited_.bytes();
    store_bytes_ = frontier_->bytes() + next_->bytes();
    for (size_t i = 0; i < distinct.size(); ++i) {
      bounds_mask_ |= bounds_hit(model_, distinct[i]);
      usage_mask_ |= usage_seen(model_, distinct[i]);
      if (continue_) {
        // Initial states have the empty signature.
        const uint64_t mask = violation_mask(distinct[i]);
        if (mask != 0) log_.record({0, i}, mask, nullptr, labeler_ ? labeler_->measure(distinct[i]) : 0);
        if (labeler_) frontier_masks_.push_back(mask);
        continue;
      }
      const size_t p = first_violation(distinct[i]);
      if (p != kNone) {
        violated(0, i, p);
        return;
      }
    }
    frontier_signature_.assign(distinct.size(), 0);
    // An initial state violating a property enters that class with the empty signature.
    frontier_class_.assign(distinct.size() * log_.properties().size(), 0);
    if (truncated_) {
      verdict_ = Verdict::Incomplete;
      stop_reason_ = StopReason::MaxStates;
    }
  }

  size_t chunk_size(size_t items) const {
    const size_t per_thread = items / (static_cast<size_t>(options_.threads) * 8) + 1;
    return std::clamp<size_t>(per_thread, 1, 256);
  }

  // Expands frontier positions [first, last).
  void expand(size_t first, size_t last) {
    const size_t n = last;
    const size_t chunk = chunk_size(last - first);
    next_item_.store(first);
    in_expand_ = true;
    run_phase(ParallelProfile::Expand,
        [&](int t) {
          W& w = *workers_[static_cast<size_t>(t)];
          typename Store::Reader reader(*frontier_);
          for (auto& b : w.buckets) b.clear();
          std::fill(w.recent.begin(), w.recent.end(), Fp{});
          w.generated = 0;
          w.generated_published.store(0, std::memory_order_relaxed);
          while (abort_.load(std::memory_order_relaxed) == 0) {
            const size_t begin = next_item_.fetch_add(chunk);
            if (begin >= n) break;
            const size_t end = std::min(n, begin + chunk);
            for (size_t i = begin; i < end; ++i) expand_one(w, reader.get(i), i);
            drain(w);
            w.generated_published.store(w.generated, std::memory_order_relaxed);
            w.buffer_bytes.store(w.bucket_bytes(), std::memory_order_relaxed);
          }
        });
    in_expand_ = false;
    for (const auto& w : workers_) generated_ += w->generated;
  }

  void expand_one(W& w, const State& s, size_t parent) {
    if constexpr (kHasPor<M>) {
      if (options_.por) {
        expand_reduced(w, parent, s);
        return;
      }
    }
    uint64_t index = 0;
    model_.for_each_action(s, [&](const Action& a) {
      const uint64_t action_index = index++;
      if (action_index > bfs_key::kActionMask) {
        throw std::length_error("bfs: more than 2^24 actions enabled in one state");
      }
      // The successor itself is dropped (materialize recomputes the new ones), so it can
      // be canonicalized in place.
      State successor = model_.next_state(s, a);
      offer(w, parent, action_index, successor_fingerprint(successor));
    });
    w.generated += index;
  }

  // The fingerprint of a state, computed in place (the copy is dropped): with POR, dead
  // components cleared first (checker/por.h, HasDeadComponents), then the symmetry
  // representative (hashed where the model built it, checker/symmetry.h
  // HasCanonicalForm), over the bytes the model's configuration can use (hooks.h).
  Fp successor_fingerprint(State& successor) const {
    if constexpr (HasDeadComponents<M>) {
      if (options_.por) model_.por_clear_dead(successor);
    }
    if constexpr (HasCanonicalForm<M>) {
      if (options_.symmetry) {
        CanonicalScratch<State> scratch;
        return fingerprint_prefix_as<Fp>(model_.canonical_form(successor, scratch), fingerprint_bytes_);
      }
    } else {
      if (options_.symmetry) model_.canonicalize(successor);
    }
    return fingerprint_prefix_as<Fp>(successor, fingerprint_bytes_);
  }

  // Files one successor through the recent-cache and the prefetch ring (or, when the
  // lookup waits for the dedupe phase, straight into its bucket).
  void offer(W& w, size_t parent, uint64_t action_index, Fp fp) {
    Fp& recent = w.recent[low_word(fp) & (kBfsRecentSlots / (sizeof(Fp) / 8) - 1)];
    if (recent == fp) return;
    recent = fp;
    ++w.offered;
    const Candidate<Fp> c{fp, bfs_key::make(parent, action_index)};
    if (!lookup_in_expand_) {
      w.buckets[Set::shard_of(fp)].push_back(c);
      return;
    }
    visited_.prefetch(fp);
    if (w.pending_count < kLookahead) {
      w.pending[(w.pending_head + w.pending_count++) % kLookahead] = c;
    } else {
      file_if_new(w, w.pending[w.pending_head]);
      w.pending[w.pending_head] = c;
      w.pending_head = (w.pending_head + 1) % kLookahead;
    }
  }

  // The POR hook (checker/por.h): expands the ample subset of s's enabled actions,
  // keeping their indices in the full for_each_action order (so the parent log,
  // materialize and counterexamples are unchanged). Cycle proviso (C3): when a strict
  // stubborn subset has a successor already in the visited set (an earlier level, this
  // level, or an earlier wave of the next), every relevant action is expanded instead.
  // The visited set does not change during a wave's expand phase, so the decision is
  // the same for every thread count.
  void expand_reduced(W& w, size_t parent, const State& s) {
    w.actions.clear();
    model_.for_each_action(s, [&](const Action& a) { w.actions.push_back(a); });
    const size_t n = w.actions.size();
    if (n > bfs_key::kActionMask + 1) throw std::length_error("bfs: more than 2^24 actions enabled in one state");
    const AmpleChoice choice = select_ample(model_, s, w.actions.data(), n, w.por, w.ample, w.relevant);
    const std::vector<uint32_t>* expand = &w.ample;
    if (choice.stubborn) {
      w.ample_fps.clear();
      bool proviso = false;
      for (const uint32_t i : w.ample) {
        State successor = model_.next_state(s, w.actions[i]);
        const Fp fp = successor_fingerprint(successor);
        w.ample_fps.push_back(fp);
        if (visited_.contains(fp)) proviso = true;
      }
      w.generated += w.ample.size();
      if (!proviso) {
        ++w.por_reduced;
        for (size_t k = 0; k < w.ample.size(); ++k) offer(w, parent, w.ample[k], w.ample_fps[k]);
        return;
      }
      ++w.por_proviso;
      expand = &w.relevant;
    } else if (choice.dropped_irrelevant) {
      ++w.por_reduced;
    }
    for (const uint32_t i : *expand) {
      State successor = model_.next_state(s, w.actions[i]);
      offer(w, parent, i, successor_fingerprint(successor));
    }
    w.generated += expand->size();
  }

  // Files the successors still waiting in the lookahead ring, oldest first.
  void drain(W& w) {
    for (; w.pending_count > 0; --w.pending_count) {
      file_if_new(w, w.pending[w.pending_head]);
      w.pending_head = (w.pending_head + 1) % kLookahead;
    }
    w.pending_head = 0;
  }

  void file_if_new(W& w, const Candidate<Fp>& c) {
    if (visited_.contains(c.fp)) {
      ++w.visited_hits;
      return;
    }
    w.buckets[Set::shard_of(c.fp)].push_back(c);
  }

  void dedupe() {
    next_item_.store(0);
    run_phase(ParallelProfile::Dedupe,
        [&](int t) {
          W& w = *workers_[static_cast<size_t>(t)];
          w.survivors.clear();
          while (true) {
            const size_t shard = next_item_.fetch_add(1);
            if (shard >= Set::kShards) break;
            dedupe_shard(w, shard);
          }
          if (options_.comparison_sort) {
            std::sort(w.survivors.begin(), w.survivors.end());
          } else {
            bfs_key::sort(w.survivors, w.key_scratch);
          }
          w.buffer_bytes.store(w.bucket_bytes(), std::memory_order_relaxed);
        });

    // Insert the new fingerprints, growing the set first if needed (see visited_set.h).
    std::vector<size_t> incoming(Set::kShards);
    for (size_t shard = 0; shard < Set::kShards; ++shard) incoming[shard] = unique_[shard].size();
    grow_visited_set(incoming);
    visited_bytes_ = visited_.bytes();
    next_item_.store(0);
    run_phase(ParallelProfile::Insert,
        [&](int) {
          while (true) {
            const size_t shard = next_item_.fetch_add(1);
            if (shard >= Set::kShards) break;
            visited_.insert_batch(shard, unique_[shard].data(), unique_[shard].size());
          }
        });
    {
      const auto section = timed(ParallelProfile::EndBatch);
      visited_.end_batch(unique_);
      if (spilling()) {
        // The memory part's budget is half of what the other structures leave (half:
        // growing the set holds the old and the new table at once), never less than a
        // sixteenth of the whole: the parent log is never spilled and grows with the
        // states, so a fixed half of the budget let a larger search pass it.
        const uint64_t others = memory_now() - std::min<uint64_t>(memory_now(), visited_bytes_);
        const uint64_t left = options_.max_memory_bytes - std::min(options_.max_memory_bytes, others);
        visited_.set_budget(std::max(left / 2, options_.max_memory_bytes / 16));
        visited_.maybe_spill();
      }
    }
    visited_bytes_ = visited_.bytes();
    for (const auto& u : unique_) visited_bytes_ += u.capacity() * sizeof(Fp);
  }

  // Before a batch: grows the visited set if the batch needs it, on the workers (the
  // layout one thread would give: visited_set.h, plan_batch()).
  void grow_visited_set(const std::vector<size_t>& incoming) {
    bool growing = false;
    {
      const auto section = timed(ParallelProfile::Growth);
      growing = visited_.plan_batch(incoming);
    }
    if (!growing) return;
    const size_t tasks = visited_.growth_tasks();
    next_item_.store(0);
    run_phase(ParallelProfile::Grow, [&](int) {
      while (true) {
        const size_t task = next_item_.fetch_add(1);
        if (task >= tasks) break;
        visited_.prepare_growth(task);
      }
    });
    size_t groups = 0;
    {
      const auto section = timed(ParallelProfile::Growth);
      groups = visited_.layout_growth(static_cast<size_t>(options_.threads));
      // What the groups copy out is counted until finish_growth().
      visited_bytes_ = visited_.bytes();
      peak_memory_ = std::max(peak_memory_, memory_now());
    }
    // Every group on its own worker, all at once (group g waits for group g - 1's copy).
    if (groups > 0) {
      run_phase(ParallelProfile::Grow, [&](int t) {
        if (static_cast<size_t>(t) < groups) visited_.move_growth(static_cast<size_t>(t));
      });
    }
    const auto section = timed(ParallelProfile::Growth);
    visited_.finish_growth();
  }

  static bool candidate_less(const Candidate<Fp>& a, const Candidate<Fp>& b) {
    return a.fp != b.fp ? a.fp < b.fp : a.key < b.key;
  }

  // Gathers the shard's candidates from every worker into w.scratch, sorted by (fp, key).
  // Fingerprints are uniform below the shard's bits, so one counting pass on the next
  // bits spreads them into buckets of about two, which insertion sort finishes: linear
  // time, where a comparison sort was a fifth of the toy model's profile (issue 14).
  // With options_.comparison_sort the std::sort it replaced, for measuring.
  void gather_sorted(W& w, size_t shard) {
    size_t n = 0;
    for (const auto& other : workers_) n += other->buckets[shard].size();
    w.scratch.resize(n);
    if (n == 0) return;
    if (options_.comparison_sort || n < 32) {
      size_t at = 0;
      for (const auto& other : workers_) {
        const auto& bucket = other->buckets[shard];
        std::copy(bucket.begin(), bucket.end(), w.scratch.begin() + static_cast<std::ptrdiff_t>(at));
        at += bucket.size();
      }
      std::sort(w.scratch.begin(), w.scratch.end(), candidate_less);
      return;
    }
    int bits = 1;
    while ((size_t{2} << bits) < n && bits < 20) ++bits;
    const int shift = 64 - Set::kShardBits - bits;
    const uint64_t mask = (uint64_t{1} << bits) - 1;
    auto bucket_of = [&](const Candidate<Fp>& c) { return static_cast<size_t>((high_word(c.fp) >> shift) & mask); };
    w.counts.assign((size_t{1} << bits) + 1, 0);
    for (const auto& other : workers_) {
      for (const auto& c : other->buckets[shard]) ++w.counts[bucket_of(c) + 1];
    }
    for (size_t b = 1; b < w.counts.size(); ++b) w.counts[b] += w.counts[b - 1];
    w.cursor.assign(w.counts.begin(), w.counts.end() - 1);
    for (const auto& other : workers_) {
      for (const auto& c : other->buckets[shard]) w.scratch[w.cursor[bucket_of(c)]++] = c;
    }
    for (size_t b = 0; b + 1 < w.counts.size(); ++b) {
      for (size_t i = w.counts[b] + 1; i < w.counts[b + 1]; ++i) {
        const Candidate<Fp> c = w.scratch[i];
        size_t j = i;
        for (; j > w.counts[b] && candidate_less(c, w.scratch[j - 1]); --j) w.scratch[j] = w.scratch[j - 1];
        w.scratch[j] = c;
      }
    }
  }

  void dedupe_shard(W& w, size_t shard) {
    unique_[shard].clear();
    gather_sorted(w, shard);
    if (w.scratch.empty()) return;
    std::vector<Fp>& unique = unique_[shard];
    const size_t n = w.scratch.size();
    const bool lookup = !lookup_in_expand_;
    for (size_t i = 0; i < n;) {
      const Candidate<Fp>& first = w.scratch[i];
      size_t j = i + 1;
      while (j < n && w.scratch[j].fp == first.fp) ++j;
      // Looked up in fingerprint order, the probes sweep the shard's slots forwards
      // (home slots are monotone in the fingerprint) instead of jumping at random.
      if (lookup && i + kLookahead < n) visited_.prefetch(w.scratch[i + kLookahead].fp);
      if (lookup && visited_.contains(first.fp)) {
        w.visited_hits += j - i;
      } else {
        unique.push_back(first.fp);
        w.survivors.push_back(first.key);
      }
      i = j;
    }
  }

  // Decides where the next level looks its successors up (BfsOptions::visited_lookup).
  // Looking up in expand drops visited successors before they are filed, at the price
  // of one random probe per successor; looking up in dedupe files them all but probes
  // once per distinct fingerprint, in order. Which is cheaper depends on the share h of
  // filed successors that were already visited: a toy model whose successors are all
  // on the next level has h = 0 (every probe a wasted cache miss), the Kafka models
  // h ~ 0.5-0.9 (filing them would also grow the candidate buffers by 1 / (1 - h)).
  void choose_lookup(uint64_t offered, uint64_t hits) {
    switch (options_.visited_lookup) {
      case VisitedLookup::Expand: lookup_in_expand_ = true; return;
      case VisitedLookup::Dedupe: lookup_in_expand_ = false; return;
      case VisitedLookup::Adaptive: break;
    }
    if (offered == 0) return;
    lookup_in_expand_ = static_cast<double>(hits) > kDedupeLookupMaxHits * static_cast<double>(offered);
  }

  // Merges the workers' survivor lists (each sorted by key) into the next level's order:
  // appends the wave's new states to new_ in key order. A large wave is merged on the
  // workers (on the coordinator it was ~2% of the toy model's CPU, issue 27 item 2):
  // quantiles of the longest list split the keys into parts, binary searches find each
  // part's slice of every list, and each part is merged into its place in new_. Keys are
  // unique (one successor, one fingerprint, one shard), so the order is the same.
  void order() {
    const size_t threads = workers_.size();
    const size_t base = new_.size();
    size_t total = 0;
    const std::vector<uint64_t>* longest = &workers_[0]->survivors;
    for (const auto& w : workers_) {
      total += w->survivors.size();
      if (w->survivors.size() > longest->size()) longest = &w->survivors;
    }
    if (total == 0) return;
    // Exactly what the level needs so far: new_ counts in the engine's memory figure.
    new_.reserve(base + total);
    if (threads == 1) {
      const auto section = timed(ParallelProfile::Merge);
      new_.insert(new_.end(), longest->begin(), longest->end());
      return;
    }
    const size_t parts = total < kParallelOrderMin ? 1 : threads * kOrderPartsPerThread;
    {
      const auto section = timed(ParallelProfile::Merge);
      // part_bounds_[j * threads + t]: where part j starts in worker t's list.
      part_bounds_.resize((parts + 1) * threads);
      part_at_.resize(parts + 1);
      for (size_t j = 0; j <= parts; ++j) {
        part_at_[j] = base;
        const uint64_t splitter = (*longest)[std::min(longest->size() - 1, j * longest->size() / parts)];
        for (size_t t = 0; t < threads; ++t) {
          const auto& list = workers_[t]->survivors;
          const size_t at = j == 0       ? 0
                            : j == parts ? list.size()
                                         : static_cast<size_t>(std::lower_bound(list.begin(), list.end(), splitter) -
                                                               list.begin());
          part_bounds_[j * threads + t] = at;
          part_at_[j] += at;
        }
      }
      new_.resize(base + total);
    }
    if (parts == 1) {
      const auto section = timed(ParallelProfile::Merge);
      merge_part(*workers_[0], 0);
      return;
    }
    next_item_.store(0);
    run_phase(ParallelProfile::Order, [&](int t) {
      while (true) {
        const size_t part = next_item_.fetch_add(1);
        if (part >= parts) break;
        merge_part(*workers_[static_cast<size_t>(t)], part);
      }
    });
  }

  // Merges part `part` of every worker's survivors into new_ (see order()).
  void merge_part(W& w, size_t part) {
    const size_t threads = workers_.size();
    uint64_t* out = new_.data() + part_at_[part];
    if (threads == 2) {
      const auto& a = workers_[0]->survivors;
      const auto& b = workers_[1]->survivors;
      std::merge(a.begin() + static_cast<std::ptrdiff_t>(part_bounds_[part * 2]),
                 a.begin() + static_cast<std::ptrdiff_t>(part_bounds_[part * 2 + 2]),
                 b.begin() + static_cast<std::ptrdiff_t>(part_bounds_[part * 2 + 1]),
                 b.begin() + static_cast<std::ptrdiff_t>(part_bounds_[part * 2 + 3]), out);
      return;
    }
    w.heads.assign(part_bounds_.begin() + static_cast<std::ptrdiff_t>(part * threads),
                   part_bounds_.begin() + static_cast<std::ptrdiff_t>((part + 1) * threads));
    const size_t* ends = part_bounds_.data() + (part + 1) * threads;
    for (size_t k = part_at_[part]; k < part_at_[part + 1]; ++k) {
      size_t best = threads;
      uint64_t best_key = kNone;
      for (size_t t = 0; t < threads; ++t) {
        if (w.heads[t] < ends[t] && (best == threads || workers_[t]->survivors[w.heads[t]] < best_key)) {
          best = t;
          best_key = workers_[t]->survivors[w.heads[t]];
        }
      }
      *out++ = best_key;
      ++w.heads[best];
    }
  }

  // The level's parent-log entries, in new_'s order. A large level is encoded on the
  // workers, a slice each (ParentLog::encode), and the coordinator appends the slices
  // (with one thread too: so that a 1-thread profile counts as serial only what stays
  // serial with more).
  void record_parents() {
    const size_t n = new_.size();
    const size_t slices = n < kParallelOrderMin ? 0 : workers_.size() * kOrderPartsPerThread;
    if (slices == 0) {
      const auto section = timed(ParallelProfile::ParentLog);
      parents_.begin_level();
      for (const uint64_t key : new_) parents_.append(bfs_key::parent(key), bfs_key::action(key));
      return;
    }
    if (parent_bytes_.size() < slices) parent_bytes_.resize(slices);
    next_item_.store(0);
    run_phase(ParallelProfile::Order, [&](int) {
      while (true) {
        const size_t slice = next_item_.fetch_add(1);
        if (slice >= slices) break;
        std::vector<uint8_t>& out = parent_bytes_[slice];
        out.clear();
        const size_t begin = n * slice / slices;
        const size_t end = n * (slice + 1) / slices;
        uint64_t previous = begin == 0 ? 0 : bfs_key::parent(new_[begin - 1]);
        for (size_t i = begin; i < end; ++i) {
          const uint64_t parent = bfs_key::parent(new_[i]);
          ParentLog::encode(out, previous, parent, bfs_key::action(new_[i]));
          previous = parent;
        }
      }
    });
    const auto section = timed(ParallelProfile::ParentLog);
    parents_.begin_level();
    for (size_t slice = 0; slice < slices; ++slice) {
      const size_t begin = n * slice / slices;
      const size_t end = n * (slice + 1) / slices;
      parents_.append_encoded(parent_bytes_[slice], end - begin, end == 0 ? 0 : bfs_key::parent(new_[end - 1]));
    }
  }

  // Work unit: one chunk of the state store, so that each chunk has a single writer.
  void materialize() {
    const size_t n = new_.size();
    next_->reset(n);
    const size_t chunks = next_->chunks();
    if (continue_) {
      masks_.assign(n, 0);
      if (labeler_) {
        tokens_.assign(n, 0);
        measures_.assign(n, 0);
      }
    }
    next_item_.store(0);
    for (auto& w : workers_) {
      w->violation_index = kNone;
      w->stored_bytes.store(0, std::memory_order_relaxed);
    }
    run_phase(ParallelProfile::Materialize,
        [&](int t) {
          W& w = *workers_[static_cast<size_t>(t)];
          typename Store::Reader reader(*frontier_);
          const State* parent = nullptr;
          State state;
          uint64_t parent_index = kNone;
          while (true) {
            const size_t chunk = next_item_.fetch_add(1);
            if (chunk >= chunks) break;
            const size_t begin = chunk * Store::kChunk;
            const size_t end = std::min(n, begin + Store::kChunk);
            for (size_t i = begin; i < end; ++i) {
              const uint64_t p = bfs_key::parent(new_[i]);
              if (p != parent_index) {
                parent = &reader.get(p);
                parent_index = p;
                w.actions.clear();
                model_.for_each_action(*parent, [&](const Action& a) { w.actions.push_back(a); });
              }
              const Action& action = w.actions.at(bfs_key::action(new_[i]));
              state = model_.next_state(*parent, action);
              next_->append(chunk, state);
              w.bounds_mask |= bounds_hit(model_, state);
              w.usage_mask |= usage_seen(model_, state);
              if (continue_) {
                // Each worker writes its own chunks' slots; account_level reads them in order.
                masks_[i] = violation_mask(state);
                if (labeler_) {
                  tokens_[i] = labeler_->step(*parent, action, state);
                  if (masks_[i] != 0) measures_[i] = labeler_->measure(state);
                }
                continue;
              }
              // This worker's chunks come in increasing order: once it has a violation,
              // later states cannot be the first one.
              if (w.violation_index != kNone) continue;
              const size_t violated_property = first_violation(state);
              if (violated_property != kNone) {
                w.violation_index = i;
                w.violation_property = violated_property;
              }
            }
            next_->seal(chunk);
            w.stored_bytes.fetch_add(next_->chunk_bytes(chunk), std::memory_order_relaxed);
          }
        });
    violation_index_ = kNone;
    for (const auto& w : workers_) {
      bounds_mask_ |= w->bounds_mask;
      usage_mask_ |= w->usage_mask;
      if (w->violation_index < violation_index_) {
        violation_index_ = w->violation_index;
        violation_property_ = w->violation_property;
      }
      w->stored_bytes.store(0, std::memory_order_relaxed);
    }
    count_frontier(*next_);
  }

  // continue_after_violation: this level's violations and signatures, in frontier order
  // (so the trie's ids and every tally are those of a sequential BFS). With a labeler, a
  // state violating property p belongs to p's class of its parent when the parent
  // violates p too (it was reached through that violation), and else enters the class
  // of its own signature: a class is the mechanism by which the path entered the
  // violation, and counts every violating state reached through it.
  void account_level(int level) {
    const size_t n = new_.size();
    if (!labeler_) {
      for (size_t i = 0; i < n; ++i) {
        if (masks_[i] != 0) log_.record({level, i}, masks_[i], nullptr, 0);
      }
      return;
    }
    const size_t properties = log_.properties().size();
    next_signature_.resize(n);
    next_class_.assign(n * properties, 0);
    for (size_t i = 0; i < n; ++i) {
      const uint64_t parent = bfs_key::parent(new_[i]);
      next_signature_[i] = log_.trie().extend(frontier_signature_[parent], tokens_[i]);
      const uint64_t mask = masks_[i];
      if (mask == 0) continue;
      for (size_t p = 0; p < properties; ++p) {
        if (!((mask >> p) & 1u)) continue;
        next_class_[i * properties + p] = ((frontier_masks_[parent] >> p) & 1u)
                                              ? frontier_class_[parent * properties + p]
                                              : next_signature_[i];
      }
      log_.record({level, i}, mask, &next_class_[i * properties], measures_[i]);
    }
    frontier_signature_.swap(next_signature_);
    frontier_class_.swap(next_class_);
    frontier_masks_.swap(masks_);
  }

  // The path to the state at `at`, re-executed from the parent log.
  Counterexample<M> path_to(StatePosition at) const {
    uint64_t index = at.index;
    std::vector<uint32_t> actions(static_cast<size_t>(at.level));
    for (int l = at.level; l >= 1; --l) {
      const ParentLog::Entry e = parents_.entry(static_cast<size_t>(l), index);
      actions[static_cast<size_t>(l - 1)] = e.action_index;
      index = e.parent_index;
    }
    return execute_path(model_, parents_.entry(0, index).action_index, actions);
  }

  Counterexample<M> counterexample_for(StatePosition at, size_t property) const {
    Counterexample<M> path = path_to(at);
    path.property = std::string(model_.properties()[property].name);
    if (model_.properties()[property].holds(model_, path.states.back())) {
      throw std::logic_error(
          "bfs: re-executing a path from the parent log did not reach a violating state "
          "(is next_state or for_each_action nondeterministic?)");
    }
    return path;
  }

  // continue_after_violation, after the search: each property's verdict and shortest
  // counterexample, the classes, and the overall verdict and counterexample (the first
  // violation in BFS order, as a search without continue reports it).
  void settle_outcomes() {
    const auto& properties = model_.properties();
    const bool stopped = verdict_ == Verdict::Incomplete;
    outcomes_.resize(properties.size());
    StatePosition first;
    size_t first_property = 0;
    for (size_t p = 0; p < properties.size(); ++p) {
      PropertyOutcome<M>& o = outcomes_[p];
      const ViolationLog::PerProperty& pp = log_.properties()[p];
      o.property = std::string(properties[p].name);
      o.violating_states = pp.states;
      if (pp.states == 0) {
        o.verdict = stopped ? Verdict::Incomplete : Verdict::Holds;
        continue;
      }
      o.verdict = Verdict::Violated;
      o.counterexample = counterexample_for(pp.first, p);
      if (!first.found() || pp.first < first) {
        first = pp.first;
        first_property = p;
      }
    }
    if (first.found()) {
      property_ = outcomes_[first_property].property;
      counterexample_ = outcomes_[first_property].counterexample;
      if (!stopped) verdict_ = Verdict::Violated;
    }
    if (labeler_) settle_classes();
  }

  // Merges the (property, signature) tallies whose class keys are equal; orders each
  // property's classes by their first state.
  void settle_classes() {
    struct Merged {
      size_t property;
      std::string key;
      uint32_t node = 0;
      ViolationLog::Tally tally;
    };
    std::map<std::pair<size_t, std::string>, Merged> merged;
    for (const auto& [id, t] : log_.tallies()) {
      const size_t p = static_cast<size_t>(id >> 32);
      const uint32_t node = static_cast<uint32_t>(id & 0xffffffffu);
      std::string key = labeler_->class_key(log_.trie().signature(node));
      auto [it, added] = merged.try_emplace({p, key}, Merged{p, key, node, t});
      if (added) continue;
      Merged& m = it->second;
      m.tally.states += t.states;
      m.tally.measure_max = std::max(m.tally.measure_max, t.measure_max);
      if (t.first < m.tally.first) {
        m.tally.first = t.first;
        m.tally.measure_first = t.measure_first;
        m.node = node;
      }
    }
    std::vector<const Merged*> order;
    for (const auto& [k, m] : merged) order.push_back(&m);
    std::sort(order.begin(), order.end(), [](const Merged* a, const Merged* b) {
      return a->property != b->property ? a->property < b->property : a->tally.first < b->tally.first;
    });
    for (const Merged* m : order) {
      PropertyOutcome<M>& o = outcomes_[m->property];
      ++o.classes;
      if (options_.max_classes != 0 && o.classes > options_.max_classes) {
        ++o.classes_left_out;
        continue;
      }
      ViolationClass<M> c;
      c.property = o.property;
      c.key = m->key;
      c.signature = log_.trie().signature(m->node);
      c.violating_states = m->tally.states;
      c.measure_first = m->tally.measure_first;
      c.measure_max = m->tally.measure_max;
      c.counterexample = counterexample_for(m->tally.first, m->property);
      classes_.push_back(std::move(c));
    }
  }

  // Per-structure figures: the frontier's bytes per stored state over the whole search.
  void count_frontier(const Store& level) {
    frontier_encoded_bytes_ += level.encoded_bytes();
    frontier_states_ += level.size();
  }

  // `index` is the position of the violating state in level `level` (now in frontier_).
  void violated(int level, uint64_t index, size_t property) {
    verdict_ = Verdict::Violated;
    State violating;
    frontier_->get(index, violating);
    std::vector<uint32_t> actions(static_cast<size_t>(level));
    for (int l = level; l >= 1; --l) {
      const ParentLog::Entry e = parents_.entry(static_cast<size_t>(l), index);
      actions[static_cast<size_t>(l - 1)] = e.action_index;
      index = e.parent_index;
    }
    const uint32_t initial = parents_.entry(0, index).action_index;
    counterexample_ = execute_path(model_, initial, actions);
    property_ = std::string(model_.properties()[property].name);
    counterexample_.property = property_;
    if (!same_bytes(counterexample_.states.back(), violating)) {
      throw std::logic_error(
          "bfs: re-executing the counterexample did not reproduce the violating state "
          "(is next_state or for_each_action nondeterministic?)");
    }
  }

  uint64_t memory_now() const {
    // Structures being filled by workers are read through what they publish (estimated
    // while a phase runs, exact at phase boundaries).
    uint64_t n = visited_bytes_ + parents_.bytes() + store_bytes_;
    n += new_.capacity() * sizeof(uint64_t);
    for (const auto& b : parent_bytes_) n += b.capacity();
    if (continue_) {
      n += log_.bytes() + (masks_.capacity() + frontier_masks_.capacity()) * sizeof(uint64_t) +
           (tokens_.capacity() + measures_.capacity() + frontier_signature_.capacity() +
            frontier_class_.capacity() + next_class_.capacity() +
            next_signature_.capacity()) * sizeof(uint32_t);
    }
    for (const auto& w : workers_) {
      n += w->buffer_bytes.load(std::memory_order_relaxed) + w->stored_bytes.load(std::memory_order_relaxed) +
           sizeof(W);
    }
    return n;
  }

  uint64_t generated_now() const {
    uint64_t n = generated_;
    if (in_expand_) {
      for (const auto& w : workers_) n += w->generated_published.load(std::memory_order_relaxed);
    }
    return n;
  }

  // Runs on the coordinating thread, between and during phases.
  void tick() {
    const uint64_t memory = memory_now();
    peak_memory_ = std::max(peak_memory_, memory);
    if (options_.max_memory_bytes != 0 && memory > options_.max_memory_bytes && !spilling()) stop(StopReason::MaxMemory);
    if (options_.interrupt && options_.interrupt->load()) stop(StopReason::Interrupted);
    if (options_.time_limit.count() > 0 && Clock::now() - start_ >= options_.time_limit) stop(StopReason::TimeLimit);
    maybe_report(false);
  }

  double seconds_since_start() const {
    return std::chrono::duration<double>(Clock::now() - start_).count();
  }

  void maybe_report(bool force) {
    if (!options_.progress) return;
    const auto now = Clock::now();
    if (!force && now - last_report_ < options_.progress_interval) return;
    last_report_ = now;
    BfsProgress p;
    p.states_generated = generated_now();
    p.distinct_states = distinct_;
    p.frontier = frontier_ ? frontier_->size() : 0;
    p.depth = depth_;
    p.seconds = seconds_since_start();
    p.states_per_second = p.seconds > 0 ? static_cast<double>(p.states_generated) / p.seconds : 0;
    p.memory_bytes = memory_now();
    if (continue_) {
      p.properties_violated = log_.violated_count();
      p.violating_states = log_.violating_states();
    }
    options_.progress(p);
  }

  BfsResult<M> finish() {
    peak_memory_ = std::max(peak_memory_, memory_now());
    BfsResult<M> r;
    r.verdict = verdict_;
    r.stop_reason = verdict_ == Verdict::Incomplete ? stop_reason_ : StopReason::None;
    r.property = property_;
    r.counterexample = std::move(counterexample_);
    r.distinct_states = distinct_;
    r.states_generated = generated_;
    r.depth = depth_;
    r.level_sizes = level_sizes_;
    r.seconds = prior_seconds_ + seconds_since_start();
    r.checkpoint = checkpoint_report_;
    if (r.seconds > 0) {
      r.states_per_second = static_cast<double>(generated_) / r.seconds;
      r.distinct_per_second = static_cast<double>(distinct_) / r.seconds;
    }
    r.peak_memory_bytes = peak_memory_;
    r.visited_set_bytes = visited_.bytes();
    r.parent_log_bytes = parents_.bytes();
    // Per fingerprint held (a search stopped by max_states holds a few more than it
    // counts) plus per parent-log entry.
    if (distinct_ > 0) {
      r.bytes_per_state = static_cast<double>(r.visited_set_bytes) / static_cast<double>(visited_.size()) +
                          static_cast<double>(r.parent_log_bytes) / static_cast<double>(distinct_);
    }
    // Union bound over pairs (generated successor, distinct state): see docs/checker.md.
    const double pairs = static_cast<double>(generated_) * static_cast<double>(distinct_);
    r.fingerprint_bits = kFingerprintBits<Fp>;
    r.collision_probability = std::min(1.0, std::ldexp(pairs, -kFingerprintBits<Fp>));
    r.collision_probability_64 = std::min(1.0, std::ldexp(pairs, -64));
    r.visited_set_fingerprints = visited_.size();
    r.spill_visited_bytes = visited_.disk_bytes();
    r.visited_spills = visited_.spills();
    r.spill_frontier_bytes = spilled_frontier_;
    r.frontier_peak_bytes = std::max(peak_store_bytes_, frontier_ ? frontier_->bytes() + next_->bytes() : 0);
    if (frontier_states_ > 0) {
      r.frontier_bytes_per_state =
          static_cast<double>(frontier_encoded_bytes_) / static_cast<double>(frontier_states_);
    }
    r.state_bytes = sizeof(State);
    r.candidate_bytes = new_.capacity() * sizeof(uint64_t);
    for (const auto& w : workers_) r.candidate_bytes += w->bucket_bytes();
    for (const auto& u : unique_) r.candidate_bytes += u.capacity() * sizeof(Fp);
    r.candidate_record_bytes = sizeof(Candidate<Fp>);
    r.phase_seconds = phases_;
    r.critical_path_seconds = critical_path_seconds_;
    r.parallel_profile = profile_;
    r.bounds_mask = bounds_mask_;
    r.bounds_reached = bound_names_in(model_, bounds_mask_);
    r.usage_mask = usage_mask_;
    r.usage_recorded = HasUsage<M>;
    r.threads = options_.threads;
    r.symmetry = options_.symmetry;
    r.por = options_.por && kHasPor<M>;
    for (const auto& w : workers_) {
      r.por_reduced += w->por_reduced;
      r.por_proviso += w->por_proviso;
    }
    r.continued = continue_;
    r.outcomes = std::move(outcomes_);
    r.classes = std::move(classes_);
    return r;
  }

  const M& model_;
  const BfsOptions& options_;
  const PathLabeler<M>* labeler_;
  const size_t fingerprint_bytes_;  // the bytes fingerprints cover (hooks.h, HasStatePrefix)
  const bool continue_ = options_.continue_after_violation;
  WorkerPool* pool_ = nullptr;
  std::vector<std::unique_ptr<W>> workers_;

  std::vector<State> initial_;
  Set visited_;
  std::vector<std::vector<Fp>> unique_ = std::vector<std::vector<Fp>>(Set::kShards);
  ParentLog parents_;
  std::unique_ptr<Store> frontier_;  // the level being expanded (after a level: the newest)
  std::unique_ptr<Store> next_;
  uint64_t store_bytes_ = 0;
  uint64_t peak_store_bytes_ = 0;
  uint64_t frontier_encoded_bytes_ = 0;  // summed over levels
  uint64_t frontier_states_ = 0;
  std::vector<uint64_t> new_;  // keys of the next level's states, in frontier order
  // Merging a wave and encoding a level's parent-log entries on the workers (order(),
  // record_parents()): the parts' bounds in each worker's survivors, the parts' places
  // in new_, the encoded slices. Capacities are kept from level to level.
  std::vector<size_t> part_bounds_;
  std::vector<size_t> part_at_;
  std::vector<std::vector<uint8_t>> parent_bytes_;
  std::atomic<size_t> next_item_{0};
  std::atomic<int> abort_{0};
  bool in_expand_ = false;
  // Where this level looks successors up in the visited set (choose_lookup).
  bool lookup_in_expand_ = options_.visited_lookup != VisitedLookup::Dedupe;

  Verdict verdict_ = Verdict::Holds;
  StopReason stop_reason_ = StopReason::None;
  bool truncated_ = false;
  std::string property_;
  Counterexample<M> counterexample_;
  uint64_t violation_index_ = kNone;
  size_t violation_property_ = 0;

  // continue_after_violation (account_level): per new state of this level its violated
  // properties, and with a labeler its edge's token and measure; per state of the
  // frontier and of the next level its signature node, and per violated property its
  // class (a signature node).
  ViolationLog log_;
  std::vector<uint64_t> masks_;
  std::vector<uint32_t> tokens_;
  std::vector<uint32_t> measures_;
  std::vector<uint32_t> frontier_signature_;
  std::vector<uint64_t> frontier_masks_;  // with a labeler: the frontier's violation masks
  std::vector<uint32_t> frontier_class_;  // with a labeler: per frontier state and property
  std::vector<uint32_t> next_class_;
  std::vector<uint32_t> next_signature_;
  std::vector<PropertyOutcome<M>> outcomes_;
  std::vector<ViolationClass<M>> classes_;

  uint64_t generated_ = 0;
  uint64_t distinct_ = 0;
  int depth_ = 0;
  std::vector<uint64_t> level_sizes_;
  uint32_t bounds_mask_ = 0;
  uint32_t usage_mask_ = 0;
  typename BfsResult<M>::Phases phases_;
  uint64_t visited_bytes_ = 0;
  uint64_t peak_memory_ = 0;
  uint64_t spilled_frontier_ = 0;  // frontier bytes moved to disk, over every level
  double critical_path_seconds_ = 0;
  ParallelProfile profile_;  // filled with BfsOptions::profile
  Clock::time_point start_;
  Clock::time_point last_report_;
  // Checkpoints: the counters at the start of the level being explored, the time of the
  // last one written, the wall time of the runs before a resume.
  CheckpointCounters boundary_;
  Clock::time_point last_checkpoint_;
  double prior_seconds_ = 0;
  CheckpointReport checkpoint_report_;
};

}  // namespace bfs_detail

// Explores every state reachable from the model's initial states (see file comment).
// `labeler` groups violating states into classes; it is used only with
// options.continue_after_violation.
template <Model M>
BfsResult<M> bfs(const M& model, const BfsOptions& options = {}, const PathLabeler<M>* labeler = nullptr) {
  if (options.fingerprint_bits == 128) {
    bfs_detail::Engine<M, Fingerprint128> engine(model, options, labeler);
    return engine.run();
  }
  if (options.fingerprint_bits != 64) throw std::invalid_argument("bfs: fingerprint_bits must be 64 or 128");
  bfs_detail::Engine<M, Fingerprint> engine(model, options, labeler);
  return engine.run();
}

}  // namespace isr::checker
