// Exhaustive BFS over any checker::Model, distributed over the ranks of a Transport
// (checker/bfs/transport.h: MPI processes, or threads in tests), with exactly the result of
// the single-process engine (checker/bfs/bfs.h): the same verdict, distinct-state count,
// states generated, depth, level sizes, bounds reached and counterexample, for any
// number of ranks.
//
// Ownership: a state belongs to rank fingerprint % ranks. Its owner holds its
// fingerprint in its part of the visited set, its (compressed) frontier entry, and its
// parent-log entry. Only the owner can tell whether a successor is new.
//
// Order: as in bfs.h, level l + 1 is ordered by key = (parent's position in level l,
// action index), each new state keeping the smallest key that reaches it. Positions are
// global (the position the state has in the single-process frontier), so keys compare
// the same on every rank and every rank count. Per wave of global parent positions
// [w0, w1) (the same waves on every rank, in order):
//   1. expand: each rank expands its frontier states of the wave and sends every
//      successor's (fingerprint, key) to the successor's owner (one batch per owner);
//   2. dedupe (owner): sort by (fingerprint, key), keep the smallest key of each
//      fingerprint not yet visited, insert those; send each surviving key back to the
//      rank that expanded its parent (the parent's owner);
//   3. position (parent's owner): it now knows how many new children each of its
//      parents has. The global position of child j of parent p is (new states of earlier
//      waves) + (children of the wave's parents before p) + j. The middle term is a
//      prefix sum over parents spread over all ranks: each rank sends (p, count) to the
//      rank holding p's slice of [w0, w1); that rank sums its slice in order, adds the
//      sum of the slices before it (exscan) and answers;
//   4. materialize (parent's owner): recompute each child from its parent and action,
//      check every property and collect bounds, and send (position, encoded state) to
//      the child's owner, which appends it to the next frontier in position order.
// A --max-states stop keeps the states of global position below the limit, as bfs.h
// keeps the first ones in frontier order. A violation is the one of smallest global
// position of its level, its first violated property: bfs.h's shortest counterexample.
// It is rebuilt by asking, level by level, which rank holds position p (each rank
// logs its states' positions, checker/store/position_log.h) and what its parent was.
//
// With BfsOptions::continue_after_violation (`check --continue --distributed`) the
// search goes on: per level every rank counts, per property, the violating states it
// materialized and the smallest global position among them; a reduction (sum, min)
// gives the level's figures, the same as bfs.h's, and after the search each violated
// property's counterexample is rebuilt as above. Classes (a PathLabeler) are the
// single-process engine's only.
//
// Limits and stops: --max-memory applies to each rank's own structures; an interrupt
// on any rank, or a rank over its memory limit, stops every rank at the next wave
// boundary (all ranks agree through a reduction).
//
// Checkpoints (BfsOptions::checkpoint; checker/bfs/distributed_checkpoint.h): at a level
// boundary rank 0's clock says whether one is due, and a reduction makes it every rank's
// decision; a stop writes one too: at once when it comes between levels, and when it
// comes after some waves of a level, the boundary before that level (the fingerprints
// those waves inserted, those of the next frontier's states, are left out, and the logs
// are cut at the level). Resuming gives every rank back its part, and the search goes on
// from the next level as if it had never stopped.
//
// One thread per rank: run one rank per core. Hot path (expand): no allocation per
// state; batch buffers keep their capacity from wave to wave.
#pragma once

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "checker/bfs/bfs.h"
#include "checker/bfs/bfs_types.h"
#include "checker/bfs/distributed_checkpoint.h"
#include "checker/bfs/transport.h"
#include "checker/counterexample.h"
#include "checker/hooks.h"
#include "checker/model.h"
#include "checker/por.h"
#include "checker/store/fingerprint.h"
#include "checker/store/parent_log.h"
#include "checker/store/position_log.h"
#include "checker/store/state_codec.h"
#include "checker/store/visited_set.h"

namespace isr::checker {

// What one rank did, for the summary (slowest rank, memory and traffic per rank).
struct RankStats {
  uint64_t distinct_states = 0;   // states this rank owns
  uint64_t states_generated = 0;  // successors this rank computed
  uint64_t peak_memory_bytes = 0;
  uint64_t bytes_sent = 0;
  double cpu_seconds = 0;
  double communication_seconds = 0;  // wall time inside the transport (waiting included)
};

template <class M>
struct DistributedBfsResult {
  BfsResult<M> result;  // the figures of the whole search, as bfs() reports them
  int ranks = 1;
  std::vector<RankStats> per_rank;
  uint64_t bytes_sent = 0;  // by all ranks
  uint64_t waves = 0;
};

namespace distributed_detail {

template <class T>
void put(std::vector<uint8_t>& out, const T& v) {
  const size_t n = out.size();
  out.resize(n + sizeof(T));
  std::memcpy(out.data() + n, &v, sizeof(T));
}

template <class T>
T get(const uint8_t*& in) {
  T v;
  std::memcpy(&v, in, sizeof(T));
  in += sizeof(T);
  return v;
}

inline double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

template <Model M>
class Engine {
 public:
  using State = typename M::State;
  using Action = typename M::Action;

  Engine(const M& model, const BfsOptions& options, Transport& transport)
      : model_(model), options_(options), t_(transport), ranks_(static_cast<size_t>(transport.size())),
        me_(static_cast<size_t>(transport.rank())) {
    if (checkpointing() && continue_) {
      throw std::invalid_argument("distributed bfs: checkpoints do not hold the violations of continue_after_violation");
    }
  }

  DistributedBfsResult<M> run() {
    start_ = Clock::now();
    last_report_ = start_;
    last_checkpoint_ = start_;
    cpu_start_ = process_cpu_seconds();
    initial_ = model_.initial_states();
    send_.resize(ranks_);
    replies_.resize(ranks_);
    if (!initial_.empty()) {
      codec_.emplace(initial_[0]);
      search();
      if (continue_) settle_outcomes();
    }
    return finish();
  }

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();

  struct Candidate {
    Fingerprint fp;
    uint64_t key;
    uint64_t source;
  };
  // A new child whose parent this rank owns: its key, its owner, its place in the
  // owner's list of keys.
  struct Child {
    uint64_t key;
    uint32_t owner;
    uint32_t index;
  };

  size_t owner_of(Fingerprint fp) const { return static_cast<size_t>(fp % ranks_); }

  // As bfs.h's successor_fingerprint: with POR, dead components cleared first
  // (checker/por.h), then the symmetry representative.
  Fingerprint fingerprint_of(State s) const {
    if constexpr (HasDeadComponents<M>) {
      if (options_.por) model_.por_clear_dead(s);
    }
    if (options_.symmetry) model_.canonicalize(s);
    return fingerprint(s);
  }

  // Bit p: property p is violated in s (continue_after_violation).
  uint64_t violation_mask(const State& s) const {
    const auto& properties = model_.properties();
    uint64_t mask = 0;
    for (size_t p = 0; p < properties.size(); ++p) {
      if (!properties[p].holds(model_, s)) mask |= uint64_t{1} << p;
    }
    return mask;
  }

  // continue_after_violation: notes a violating state at global `position` of this level.
  void note_violations(uint64_t mask, uint64_t position) {
    for (size_t p = 0; p < level_counts_.size(); ++p) {
      if (!((mask >> p) & 1u)) continue;
      ++level_counts_[p];
      level_first_[p] = std::min(level_first_[p], position);
    }
  }

  // continue_after_violation, collective: adds the level's violations of every rank.
  void account_level(int level) {
    const size_t n = level_counts_.size();
    t_.allreduce(level_counts_.data(), n, ReduceOp::Sum);
    t_.allreduce(level_first_.data(), n, ReduceOp::Min);
    for (size_t p = 0; p < n; ++p) {
      if (level_counts_[p] == 0) continue;
      if (violating_[p] == 0) first_[p] = {level, level_first_[p]};
      violating_[p] += level_counts_[p];
    }
    std::fill(level_counts_.begin(), level_counts_.end(), 0);
    std::fill(level_first_.begin(), level_first_.end(), kNone);
  }

  size_t first_violation(const State& s) const {
    const auto& properties = model_.properties();
    for (size_t p = 0; p < properties.size(); ++p) {
      if (!properties[p].holds(model_, s)) return p;
    }
    return kNone;
  }

  void clear_send() {
    for (auto& b : send_) b.clear();
  }
  void exchange() {
    t_.exchange(send_, received_, offsets_);
    note_memory();
  }

  void search() {
    if (continue_) {
      const size_t n = model_.properties().size();
      if (n > 64) throw std::length_error("bfs --continue: at most 64 properties");
      level_counts_.assign(n, 0);
      level_first_.assign(n, kNone);
      violating_.assign(n, 0);
      first_.assign(n, StatePosition{});
    }
    if (options_.checkpoint.resume) {
      resume_checkpoint();
    } else {
      if (checkpointing()) adopt_previous_manifest();
      explore_initial_states();
      if (verdict_ == Verdict::Violated || truncated_) return;
    }
    const int first_level = depth_ + 1;
    for (int level = first_level;; ++level) {
      uint64_t size = frontier_.size();
      t_.allreduce(&size, 1, ReduceOp::Sum);
      if (size == 0) return;  // every reachable state explored: holds
      level_size_ = size;
      if (stop_requested()) {
        if (checkpointing()) save_checkpoint(counters_now(), {}, parents_.levels());
        return;
      }
      // Not at the boundary this run started from: it is already in DIR.
      if (level > first_level && checkpoint_due()) save_checkpoint(counters_now(), {}, parents_.levels());
      if (!explore_level(level, size)) {
        if (stopped_in_level_ && checkpointing()) checkpoint_in_level();
        return;
      }
    }
  }

  // ---- Checkpoints (checker/bfs/distributed_checkpoint.h) ---------------------------------
  bool checkpointing() const { return !options_.checkpoint.dir.empty(); }

  // Collective: rank 0's clock decides, so that every rank writes at the same boundary.
  bool checkpoint_due() {
    if (!checkpointing()) return false;
    uint64_t due = me_ == 0 && Clock::now() - last_checkpoint_ >= options_.checkpoint.every ? 1 : 0;
    t_.allreduce(&due, 1, ReduceOp::Max);
    return due != 0;
  }

  // The counters between levels (generated_, por_reduced_ and waves_ as they were at the
  // start of the level being explored: boundary_*).
  RankCheckpointCounters counters_now() const {
    RankCheckpointCounters c;
    c.generated = generated_;
    c.distinct = distinct_;
    c.owned = owned_;
    c.depth = depth_;
    c.bounds_mask = bounds_mask_;
    c.por_reduced = por_reduced_;
    c.waves = waves_;
    c.level_sizes = level_sizes_;
    return c;
  }

  // A fresh run into a DIR that holds a checkpoint already: its files stay usable until
  // this run's first checkpoint replaces the manifest, so number after it.
  void adopt_previous_manifest() {
    try {
      const DistributedManifest m = read_manifest(options_.checkpoint.dir);
      generation_ = m.generation;
      generation_ranks_ = m.ranks;
    } catch (const CheckpointError&) {
      // none, or unreadable: nothing of it to keep
    }
  }

  // Collective: every rank writes its part of generation generation_ + 1; once all have,
  // rank 0 replaces the manifest; once it has, the previous generation's files go.
  // CheckpointError on every rank when any rank failed (the previous checkpoint stays).
  void save_checkpoint(RankCheckpointCounters c, const std::vector<Fingerprint>& exclude, size_t levels) {
    note_memory();
    c.peak_memory = peak_memory_;
    c.seconds = prior_seconds_ + std::chrono::duration<double>(Clock::now() - start_).count();
    const std::string& dir = options_.checkpoint.dir;
    const uint64_t generation = generation_ + 1;
    std::string error;
    uint64_t v[2] = {0, 0};  // failed, bytes
    try {
      v[1] = write_rank_checkpoint<State>(options_.checkpoint, me_, ranks_, generation, c,
                                          {visited_, exclude, parents_, positions_, levels, frontier_, frontier_pos_});
    } catch (const CheckpointError& e) {
      v[0] = 1;
      error = e.what();
    }
    t_.allreduce(&v[0], 1, ReduceOp::Max);
    t_.allreduce(&v[1], 1, ReduceOp::Sum);
    if (v[0] == 0 && me_ == 0) {
      try {
        v[1] += write_manifest(dir, {options_.checkpoint.identity, ranks_, generation, c.depth, c.distinct});
      } catch (const CheckpointError& e) {
        v[0] = 1;
        error = e.what();
      }
    }
    t_.allreduce(&v[0], 1, ReduceOp::Max);
    if (v[0] != 0) {
      remove_rank_checkpoint(dir, me_, ranks_, generation);
      throw CheckpointError(error.empty() ? "another rank could not write its checkpoint into " + dir : error);
    }
    if (generation_ > 0) {
      for (uint64_t k = me_; k < generation_ranks_; k += ranks_) remove_rank_checkpoint(dir, k, generation_ranks_, generation_);
    }
    uint64_t bytes = v[1];
    t_.allreduce(&bytes, 1, ReduceOp::Max);  // rank 0 added the manifest's
    generation_ = generation;
    generation_ranks_ = ranks_;
    ++checkpoint_report_.written;
    checkpoint_report_.written_depth = c.depth;
    checkpoint_report_.written_states = c.distinct;
    checkpoint_report_.written_bytes = bytes;
    last_checkpoint_ = Clock::now();
  }

  // A stop after some waves of a level: the boundary before it. Those waves inserted the
  // fingerprints of the next frontier's states (and, past --max-states, of states not
  // kept: then no checkpoint is written, the search being over anyway).
  void checkpoint_in_level() {
    if (level_new_ > remaining_) return;  // the same on every rank (global figures)
    std::vector<Fingerprint> exclude;
    exclude.reserve(next_.size());
    State s;
    for (size_t i = 0; i < next_.size(); ++i) {
      codec_->decode(next_.at(i), s);
      exclude.push_back(fingerprint_of(s));
    }
    std::sort(exclude.begin(), exclude.end());
    RankCheckpointCounters c = counters_now();
    c.generated = boundary_generated_;
    c.por_reduced = boundary_por_reduced_;
    c.waves = boundary_waves_;
    save_checkpoint(std::move(c), exclude, static_cast<size_t>(depth_) + 1);
  }

  void resume_checkpoint() {
    const DistributedManifest m = read_manifest(options_.checkpoint.dir);
    if (m.identity != options_.checkpoint.identity) {
      throw CheckpointError("checkpoint " + checkpoint_path(options_.checkpoint.dir, kManifestFile) +
                            " belongs to another run: " + m.identity);
    }
    if (m.ranks != ranks_) {
      throw CheckpointError("checkpoint " + checkpoint_path(options_.checkpoint.dir, kManifestFile) + " was written by " +
                            std::to_string(m.ranks) + " ranks, not " + std::to_string(ranks_));
    }
    const RankCheckpointCounters c = read_rank_checkpoint<State>(
        options_.checkpoint, m, me_, {visited_, parents_, positions_, frontier_, frontier_pos_});
    generated_ = c.generated;
    distinct_ = c.distinct;
    owned_ = c.owned;
    depth_ = c.depth;
    bounds_mask_ = c.bounds_mask;
    peak_memory_ = c.peak_memory;
    por_reduced_ = c.por_reduced;
    waves_ = c.waves;
    prior_seconds_ = c.seconds;
    level_sizes_ = c.level_sizes;
    generation_ = m.generation;
    generation_ranks_ = m.ranks;
    checkpoint_report_.resumed = true;
    checkpoint_report_.resumed_depth = c.depth;
    checkpoint_report_.resumed_states = c.distinct;
  }

  void explore_initial_states() {
    generated_ = initial_.size();
    parents_.begin_level();
    positions_.begin_level();
    // Every rank dedupes the (few) initial states the same way; each keeps its own.
    VisitedSet seen;
    uint64_t position = 0;
    uint64_t violation = kNone;
    for (size_t i = 0; i < initial_.size(); ++i) {
      if (options_.max_states != 0 && position >= options_.max_states) {
        truncated_ = true;
        break;
      }
      const Fingerprint fp = fingerprint_of(initial_[i]);
      if (!seen.insert(fp)) continue;
      if (owner_of(fp) == me_) {
        visited_.insert(fp);
        parents_.append(0, static_cast<uint32_t>(i));
        positions_.append(position);
        frontier_pos_.push_back(position);
        scratch_.clear();
        codec_->encode(initial_[i], scratch_);
        frontier_.append(scratch_.data(), scratch_.size());
        bounds_mask_ |= bounds_hit(model_, initial_[i]);
        if (continue_) {
          note_violations(violation_mask(initial_[i]), position);
        } else {
          const size_t p = first_violation(initial_[i]);
          if (p != kNone && violation == kNone) violation = position << 8 | p;
        }
      }
      ++position;
    }
    owned_ = frontier_.size();
    distinct_ = position;
    level_sizes_.push_back(position);
    note_memory();
    if (continue_) account_level(0);
    t_.allreduce(&violation, 1, ReduceOp::Min);
    if (violation != kNone) {
      violated(0, violation >> 8, static_cast<size_t>(violation & 0xFF));
      return;
    }
    if (truncated_) {
      verdict_ = Verdict::Incomplete;
      stop_reason_ = StopReason::MaxStates;
    }
  }

  // Agrees with every rank on whether to stop (interrupt or memory), and reports
  // progress on rank 0. Returns true when the search must stop.
  bool stop_requested() {
    uint64_t v[4] = {options_.interrupt && options_.interrupt->load() ? 1u : 0u,
                     options_.max_memory_bytes != 0 && memory_now() > options_.max_memory_bytes ? 1u : 0u,
                     generated_, memory_now()};
    t_.allreduce(v, 4, ReduceOp::Sum);
    global_generated_ = v[2];
    global_memory_ = v[3];
    maybe_report(false);
    if (v[0] == 0 && v[1] == 0) return false;
    verdict_ = Verdict::Incomplete;
    stop_reason_ = v[0] != 0 ? StopReason::Interrupted : StopReason::MaxMemory;
    return true;
  }

  // Returns false when the search ends at this level.
  bool explore_level(int level, uint64_t level_size) {
    boundary_generated_ = generated_;
    boundary_por_reduced_ = por_reduced_;
    boundary_waves_ = waves_;
    parents_.begin_level();
    positions_.begin_level();
    next_.clear();
    next_pos_.clear();
    remaining_ = options_.max_states != 0 ? options_.max_states - distinct_ : kNone;
    level_new_ = 0;
    level_violation_ = kNone;
    const uint64_t wave_size = options_.wave_states != 0 ? options_.wave_states : kBfsWaveParents * ranks_;
    size_t cursor = 0;  // first local frontier state of the wave
    for (uint64_t w0 = 0; w0 < level_size; w0 += wave_size) {
      const uint64_t w1 = std::min(level_size, w0 + wave_size);
      size_t end = cursor;
      while (end < frontier_pos_.size() && frontier_pos_[end] < w1) ++end;
      expand(cursor, end);
      if (stop_requested()) {
        stopped_in_level_ = true;
        return false;
      }
      dedupe();
      position_children(w0, w1, cursor);
      receive_children();
      cursor = end;
      ++waves_;
    }
    if (continue_) account_level(level);
    uint64_t v[2] = {level_violation_, level_mask_};
    t_.allreduce(&v[0], 1, ReduceOp::Min);
    t_.allreduce(&v[1], 1, ReduceOp::BitOr);
    bounds_mask_ |= static_cast<uint32_t>(v[1]);
    level_mask_ = 0;
    std::swap(frontier_, next_);
    std::swap(frontier_pos_, next_pos_);
    owned_ += frontier_.size();
    if (level_new_ == 0) return false;  // holds
    const bool truncated = level_new_ > remaining_;
    const uint64_t kept = truncated ? remaining_ : level_new_;
    if (kept == 0) {
      verdict_ = Verdict::Incomplete;
      stop_reason_ = StopReason::MaxStates;
      return false;
    }
    distinct_ += kept;
    level_sizes_.push_back(kept);
    if (!truncated) depth_ = level;
    maybe_report(false);
    if (v[0] != kNone) {
      violated(level, v[0] >> 8, static_cast<size_t>(v[0] & 0xFF));
      return false;
    }
    if (truncated) {
      truncated_ = true;
      verdict_ = Verdict::Incomplete;
      stop_reason_ = StopReason::MaxStates;
      return false;
    }
    return true;
  }

  // Step 1: successors of local frontier states [first, last) to their owners.
  void expand(size_t first, size_t last) {
    clear_send();
    recent_.assign(kBfsRecentSlots, 0);
    State s;
    for (size_t i = first; i < last; ++i) {
      codec_->decode(frontier_.at(i), s);
      const uint64_t parent = frontier_pos_[i];
      if constexpr (kHasPor<M>) {
        if (options_.por) {
          expand_reduced(s, parent);
          continue;
        }
      }
      uint64_t index = 0;
      model_.for_each_action(s, [&](const Action& a) {
        const uint64_t action_index = index++;
        if (action_index > bfs_key::kActionMask) {
          throw std::length_error("bfs: more than 2^24 actions enabled in one state");
        }
        offer(parent, action_index, fingerprint_of(model_.next_state(s, a)));
      });
      generated_ += index;
    }
    note_memory();
  }

  // Files one successor for its owner, unless this rank filed it already in this wave
  // (then with a smaller key).
  void offer(uint64_t parent, uint64_t action_index, Fingerprint fp) {
    Fingerprint& recent = recent_[fp & (kBfsRecentSlots - 1)];
    if (recent == fp) return;
    recent = fp;
    auto& out = send_[owner_of(fp)];
    put(out, fp);
    put(out, bfs_key::make(parent, action_index));
  }

  // POR (checker/por.h), as bfs.h's expand_reduced: the enabled actions the model
  // declares irrelevant are not expanded, under their indices in the full action order
  // (so materialize and the counterexample are unchanged). Stubborn sets need the cycle
  // proviso's look-up of the whole visited set, which is spread over the ranks; the
  // engine refuses such models (see distributed_bfs), so a state is expanded with every
  // relevant action, exactly as bfs does for models without stubborn sets.
  void expand_reduced(const State& s, uint64_t parent) {
    por_actions_.clear();
    model_.for_each_action(s, [&](const Action& a) { por_actions_.push_back(a); });
    const size_t n = por_actions_.size();
    if (n > bfs_key::kActionMask + 1) throw std::length_error("bfs: more than 2^24 actions enabled in one state");
    const AmpleChoice choice = select_ample(model_, s, por_actions_.data(), n, por_scratch_, por_ample_, por_relevant_);
    if (choice.dropped_irrelevant) ++por_reduced_;
    for (const uint32_t i : por_relevant_) offer(parent, i, fingerprint_of(model_.next_state(s, por_actions_[i])));
    generated_ += por_relevant_.size();
  }

  // Step 2, on the owner: the new fingerprints, each with its smallest key.
  void dedupe() {
    exchange();
    candidates_.clear();
    for (size_t s = 0; s < ranks_; ++s) {
      const uint8_t* p = received_.data() + offsets_[s];
      const uint8_t* end = received_.data() + offsets_[s + 1];
      while (p < end) {
        const Fingerprint fp = get<Fingerprint>(p);
        const uint64_t key = get<uint64_t>(p);
        candidates_.push_back(Candidate{fp, key, s});
      }
    }
    std::sort(candidates_.begin(), candidates_.end(), [](const Candidate& a, const Candidate& b) {
      return a.fp != b.fp ? a.fp < b.fp : a.key < b.key;
    });
    for (auto& u : unique_) u.clear();
    for (auto& r : replies_) r.clear();
    for (size_t i = 0; i < candidates_.size();) {
      const Candidate& c = candidates_[i];
      size_t j = i + 1;
      while (j < candidates_.size() && candidates_[j].fp == c.fp) ++j;
      if (!visited_.contains(c.fp)) {
        unique_[VisitedSet::shard_of(c.fp)].push_back(c.fp);
        replies_[c.source].push_back(c.key);
      }
      i = j;
    }
    incoming_.resize(VisitedSet::kShards);
    for (size_t shard = 0; shard < VisitedSet::kShards; ++shard) incoming_[shard] = unique_[shard].size();
    visited_.begin_batch(incoming_);
    note_memory();
    for (size_t shard = 0; shard < VisitedSet::kShards; ++shard) {
      visited_.insert_batch(shard, unique_[shard].data(), unique_[shard].size());
    }
    visited_.end_batch(unique_);
    clear_send();
    for (size_t s = 0; s < ranks_; ++s) {
      std::sort(replies_[s].begin(), replies_[s].end());
      for (const uint64_t key : replies_[s]) put(send_[s], key);
    }
  }

  // Steps 3 and 4, on the parents' owner: global positions of the new children, then
  // the children themselves to their owners. `first` is the wave's first local state.
  void position_children(uint64_t w0, uint64_t w1, size_t first) {
    exchange();
    children_.clear();
    for (size_t s = 0; s < ranks_; ++s) {
      const uint8_t* p = received_.data() + offsets_[s];
      const uint8_t* end = received_.data() + offsets_[s + 1];
      for (uint32_t index = 0; p < end; ++index) {
        children_.push_back(Child{get<uint64_t>(p), static_cast<uint32_t>(s), index});
      }
    }
    std::sort(children_.begin(), children_.end(), [](const Child& a, const Child& b) { return a.key < b.key; });

    // (parent, children) to the rank holding the parent's slice of the wave.
    clear_send();
    const uint64_t width = w1 - w0;
    auto holder = [&](uint64_t parent) {
      return static_cast<size_t>((static_cast<Uint128>(parent - w0) * ranks_) / width);
    };
    for (size_t i = 0; i < children_.size();) {
      const uint64_t parent = bfs_key::parent(children_[i].key);
      size_t j = i + 1;
      while (j < children_.size() && bfs_key::parent(children_[j].key) == parent) ++j;
      put(send_[holder(parent)], parent);
      put(send_[holder(parent)], static_cast<uint64_t>(j - i));
      i = j;
    }
    exchange();
    // The holder: prefix sums over its slice, in parent order.
    slice_.clear();
    for (size_t s = 0; s < ranks_; ++s) {
      const uint8_t* p = received_.data() + offsets_[s];
      const uint8_t* end = received_.data() + offsets_[s + 1];
      for (uint64_t index = 0; p < end; ++index) {
        const uint64_t parent = get<uint64_t>(p);
        const uint64_t count = get<uint64_t>(p);
        slice_.push_back(SliceEntry{parent, count, s, index, 0});
      }
    }
    std::sort(slice_.begin(), slice_.end(), [](const SliceEntry& a, const SliceEntry& b) { return a.parent < b.parent; });
    uint64_t sum = 0;
    for (auto& e : slice_) {
      e.before = sum;
      sum += e.count;
    }
    const uint64_t slice_start = t_.exscan_sum(sum);
    uint64_t wave_total = sum;
    t_.allreduce(&wave_total, 1, ReduceOp::Sum);
    std::sort(slice_.begin(), slice_.end(), [](const SliceEntry& a, const SliceEntry& b) {
      return a.source != b.source ? a.source < b.source : a.index < b.index;
    });
    clear_send();
    for (const auto& e : slice_) put(send_[e.source], level_new_ + slice_start + e.before);
    exchange();

    // Materialize, in key order; each owner receives its children in its keys' order.
    clear_send();
    std::vector<size_t> read(ranks_, 0);  // next answer to read, per holder
    State parent_state;
    State child;
    size_t local = first;
    for (size_t i = 0; i < children_.size();) {
      const uint64_t parent = bfs_key::parent(children_[i].key);
      size_t j = i + 1;
      while (j < children_.size() && bfs_key::parent(children_[j].key) == parent) ++j;
      const size_t h = holder(parent);
      const uint8_t* answer = received_.data() + offsets_[h] + read[h]++ * sizeof(uint64_t);
      const uint64_t base = get<uint64_t>(answer);
      while (frontier_pos_[local] != parent) ++local;
      bool decoded = false;
      for (size_t k = i; k < j; ++k) {
        const Child& c = children_[k];
        const uint64_t position = base + (k - i);
        auto& out = send_[c.owner];
        put(out, position);
        if (position >= remaining_) continue;  // beyond --max-states: not kept
        if (!decoded) {
          codec_->decode(frontier_.at(local), parent_state);
          actions_.clear();
          model_.for_each_action(parent_state, [&](const Action& a) { actions_.push_back(a); });
          decoded = true;
        }
        child = model_.next_state(parent_state, actions_.at(bfs_key::action(c.key)));
        level_mask_ |= bounds_hit(model_, child);
        if (continue_) {
          note_violations(violation_mask(child), position);
        } else if (level_violation_ == kNone || position < (level_violation_ >> 8)) {
          const size_t violated_property = first_violation(child);
          if (violated_property != kNone) level_violation_ = position << 8 | violated_property;
        }
        codec_->encode(child, out);
      }
      i = j;
    }
    level_new_ += wave_total;
  }

  // Step 4, on the owner: the wave's new states, merged into position order.
  void receive_children() {
    exchange();
    heads_.assign(offsets_.begin(), offsets_.end() - 1);
    next_key_.assign(ranks_, 0);
    while (true) {
      size_t best = ranks_;
      uint64_t best_position = kNone;
      for (size_t s = 0; s < ranks_; ++s) {
        if (heads_[s] >= offsets_[s + 1]) continue;
        uint64_t position;
        std::memcpy(&position, received_.data() + heads_[s], sizeof(position));
        if (position < best_position) {
          best = s;
          best_position = position;
        }
      }
      if (best == ranks_) break;
      heads_[best] += sizeof(uint64_t);
      const uint64_t key = replies_[best][next_key_[best]++];
      if (best_position >= remaining_) continue;
      const uint8_t* encoded = received_.data() + heads_[best];
      const size_t n = StateCodec<State>::encoded_size(encoded);
      heads_[best] += n;
      next_.append(encoded, n);
      next_pos_.push_back(best_position);
      parents_.append(bfs_key::parent(key), bfs_key::action(key));
      positions_.append(best_position);
    }
    note_memory();
  }

  // Collective: the path to global position `position` of `level`, re-executed.
  Counterexample<M> path_to(int level, uint64_t position) {
    Counterexample<M> path;
    std::vector<uint32_t> actions(static_cast<size_t>(level));
    for (int l = level; l >= 0; --l) {
      uint64_t v[2] = {kNone, kNone};
      if (const auto local = positions_.find(static_cast<size_t>(l), position)) {
        const ParentLog::Entry e = parents_.entry(static_cast<size_t>(l), *local);
        v[0] = e.parent_index;
        v[1] = e.action_index;
      }
      t_.allreduce(v, 2, ReduceOp::Min);
      if (v[1] == kNone) throw std::logic_error("distributed bfs: no rank holds a state of the counterexample");
      if (l == 0) {
        path = execute_path(model_, static_cast<uint32_t>(v[1]), actions);
      } else {
        actions[static_cast<size_t>(l - 1)] = static_cast<uint32_t>(v[1]);
        position = v[0];
      }
    }
    return path;
  }

  // continue_after_violation, collective, after the search: each property's verdict and
  // counterexample, and the first violation in BFS order as the overall one.
  void settle_outcomes() {
    const auto& properties = model_.properties();
    const bool stopped = verdict_ == Verdict::Incomplete;
    outcomes_.resize(properties.size());
    StatePosition first;
    size_t first_property = 0;
    for (size_t p = 0; p < properties.size(); ++p) {
      PropertyOutcome<M>& o = outcomes_[p];
      o.property = std::string(properties[p].name);
      o.violating_states = violating_[p];
      if (violating_[p] == 0) {
        o.verdict = stopped ? Verdict::Incomplete : Verdict::Holds;
        continue;
      }
      o.verdict = Verdict::Violated;
      o.counterexample = path_to(first_[p].level, first_[p].index);
      o.counterexample.property = o.property;
      // Every rank re-executed the same path: each can check it ends in a violation.
      if (properties[p].holds(model_, o.counterexample.states.back())) {
        throw std::logic_error(
            "distributed bfs: re-executing a path did not reach a violating state "
            "(is next_state or for_each_action nondeterministic?)");
      }
      if (!first.found() || first_[p] < first) {
        first = first_[p];
        first_property = p;
      }
    }
    if (!first.found()) return;
    property_ = outcomes_[first_property].property;
    counterexample_ = outcomes_[first_property].counterexample;
    if (!stopped) verdict_ = Verdict::Violated;
  }

  // Rebuilds the counterexample ending at global position `position` of `level`.
  void violated(int level, uint64_t position, size_t property) {
    verdict_ = Verdict::Violated;
    const uint64_t violating = position;
    counterexample_ = path_to(level, position);
    property_ = std::string(model_.properties()[property].name);
    counterexample_.property = property_;
    // The owner of the violating state checks that re-executing the path reproduces it.
    uint64_t mismatch = 0;
    if (const auto local = positions_.find(static_cast<size_t>(level), violating)) {
      State s;
      codec_->decode(frontier_.at(*local), s);
      mismatch = same_bytes(counterexample_.states.back(), s) ? 0 : 1;
    }
    t_.allreduce(&mismatch, 1, ReduceOp::Max);
    if (mismatch != 0) {
      throw std::logic_error(
          "bfs: re-executing the counterexample did not reproduce the violating state "
          "(is next_state or for_each_action nondeterministic?)");
    }
  }

  uint64_t memory_now() const {
    uint64_t n = visited_.bytes() + parents_.bytes() + positions_.bytes() + frontier_.bytes() + next_.bytes();
    n += (frontier_pos_.capacity() + next_pos_.capacity()) * sizeof(uint64_t);
    for (const auto& b : send_) n += b.capacity();
    for (const auto& r : replies_) n += r.capacity() * sizeof(uint64_t);
    for (const auto& u : unique_) n += u.capacity() * sizeof(Fingerprint);
    n += received_.capacity() + candidates_.capacity() * sizeof(Candidate) + children_.capacity() * sizeof(Child);
    n += slice_.capacity() * sizeof(SliceEntry) + recent_.capacity() * sizeof(Fingerprint);
    return n;
  }
  void note_memory() { peak_memory_ = std::max(peak_memory_, memory_now()); }

  void maybe_report(bool force) {
    if (!options_.progress || me_ != 0) return;
    const auto now = Clock::now();
    if (!force && now - last_report_ < options_.progress_interval) return;
    last_report_ = now;
    BfsProgress p;
    p.states_generated = global_generated_;
    p.distinct_states = distinct_;
    p.depth = depth_;
    p.frontier = level_size_;
    p.seconds = std::chrono::duration<double>(now - start_).count();
    p.states_per_second = p.seconds > 0 ? static_cast<double>(p.states_generated) / p.seconds : 0;
    p.memory_bytes = global_memory_;
    for (const uint64_t n : violating_) {
      p.properties_violated += n > 0;
      p.violating_states += n;
    }
    options_.progress(p);
  }

  DistributedBfsResult<M> finish() {
    note_memory();
    RankStats mine;
    mine.distinct_states = owned_;
    mine.states_generated = generated_;
    mine.peak_memory_bytes = peak_memory_;
    mine.cpu_seconds = process_cpu_seconds() - cpu_start_;
    mine.communication_seconds = t_.seconds_communicating();
    mine.bytes_sent = t_.bytes_sent();
    uint64_t words[8] = {mine.distinct_states, mine.states_generated, mine.peak_memory_bytes, mine.bytes_sent,
                         static_cast<uint64_t>(mine.cpu_seconds * 1e6),
                         static_cast<uint64_t>(mine.communication_seconds * 1e6), visited_.bytes(),
                         parents_.bytes() + positions_.bytes()};
    std::vector<uint64_t> all;
    t_.allgather(words, 8, all);

    DistributedBfsResult<M> d;
    d.ranks = static_cast<int>(ranks_);
    d.waves = waves_;
    BfsResult<M>& r = d.result;
    uint64_t visited_bytes = 0;
    uint64_t log_bytes = 0;
    uint64_t generated = initial_.size();
    for (size_t k = 0; k < ranks_; ++k) {
      const uint64_t* w = all.data() + k * 8;
      RankStats s;
      s.distinct_states = w[0];
      s.states_generated = w[1] - initial_.size();  // every rank counted the initial states
      s.peak_memory_bytes = w[2];
      s.bytes_sent = w[3];
      s.cpu_seconds = static_cast<double>(w[4]) * 1e-6;
      s.communication_seconds = static_cast<double>(w[5]) * 1e-6;
      visited_bytes += w[6];
      log_bytes += w[7];
      generated += s.states_generated;
      d.bytes_sent += s.bytes_sent;
      r.peak_memory_bytes += s.peak_memory_bytes;
      d.per_rank.push_back(s);
    }
    r.verdict = verdict_;
    r.stop_reason = verdict_ == Verdict::Incomplete ? stop_reason_ : StopReason::None;
    r.property = property_;
    r.counterexample = std::move(counterexample_);
    r.distinct_states = distinct_;
    r.states_generated = generated;
    r.depth = depth_;
    r.level_sizes = level_sizes_;
    r.seconds = prior_seconds_ + std::chrono::duration<double>(Clock::now() - start_).count();
    if (r.seconds > 0) {
      r.states_per_second = static_cast<double>(generated) / r.seconds;
      r.distinct_per_second = static_cast<double>(distinct_) / r.seconds;
    }
    r.visited_set_bytes = visited_bytes;
    r.parent_log_bytes = log_bytes;
    if (distinct_ > 0) r.bytes_per_state = static_cast<double>(visited_bytes + log_bytes) / static_cast<double>(distinct_);
    r.collision_probability =
        std::min(1.0, static_cast<double>(generated) * static_cast<double>(distinct_) / 18446744073709551616.0);
    r.collision_probability_64 = r.collision_probability;
    r.fingerprint_bits = 64;  // the distributed engine partitions and stores 64-bit fingerprints
    uint64_t mask = bounds_mask_;
    t_.allreduce(&mask, 1, ReduceOp::BitOr);
    r.bounds_mask = static_cast<uint32_t>(mask);
    r.bounds_reached = bound_names_in(model_, r.bounds_mask);
    r.threads = 1;
    r.symmetry = options_.symmetry;
    r.por = options_.por && kHasPor<M>;
    uint64_t reduced = por_reduced_;
    t_.allreduce(&reduced, 1, ReduceOp::Sum);
    r.por_reduced = reduced;
    r.continued = continue_;
    r.outcomes = std::move(outcomes_);
    r.checkpoint = checkpoint_report_;
    return d;
  }

  struct SliceEntry {
    uint64_t parent;
    uint64_t count;
    uint64_t source;
    uint64_t index;
    uint64_t before;
  };

  const M& model_;
  const BfsOptions& options_;
  Transport& t_;
  const size_t ranks_;
  const size_t me_;
  std::vector<State> initial_;
  std::optional<StateCodec<State>> codec_;

  VisitedSet visited_;
  ParentLog parents_;
  PositionLog positions_;
  EncodedStates<State> frontier_;  // this rank's states of the level being expanded
  EncodedStates<State> next_;
  std::vector<uint64_t> frontier_pos_;  // their global positions, increasing
  std::vector<uint64_t> next_pos_;

  // Buffers reused from wave to wave.
  std::vector<std::vector<uint8_t>> send_;
  std::vector<uint8_t> received_;
  std::vector<size_t> offsets_;
  std::vector<size_t> heads_;
  std::vector<size_t> next_key_;
  std::vector<Fingerprint> recent_;
  std::vector<Candidate> candidates_;
  std::vector<std::vector<Fingerprint>> unique_ = std::vector<std::vector<Fingerprint>>(VisitedSet::kShards);
  std::vector<size_t> incoming_;
  std::vector<std::vector<uint64_t>> replies_;  // per parent owner: surviving keys, sorted
  std::vector<Child> children_;
  std::vector<SliceEntry> slice_;
  std::vector<Action> actions_;
  // POR scratch (expand_reduced), capacity kept from state to state.
  std::vector<Action> por_actions_;
  PorScratch por_scratch_;
  std::vector<uint32_t> por_ample_;
  std::vector<uint32_t> por_relevant_;
  uint64_t por_reduced_ = 0;
  std::vector<uint8_t> scratch_;

  uint64_t remaining_ = kNone;        // states this level may still add (--max-states)
  uint64_t level_new_ = 0;            // new states of this level so far (all ranks)
  uint64_t level_violation_ = kNone;  // position << 8 | property, smallest position
  uint64_t level_mask_ = 0;

  // continue_after_violation: per property, this level's violating states on this rank
  // and the smallest global position among them, then the totals of every rank.
  const bool continue_ = options_.continue_after_violation;
  std::vector<uint64_t> level_counts_;
  std::vector<uint64_t> level_first_;
  std::vector<uint64_t> violating_;
  std::vector<StatePosition> first_;
  std::vector<PropertyOutcome<M>> outcomes_;

  Verdict verdict_ = Verdict::Holds;
  StopReason stop_reason_ = StopReason::None;
  bool truncated_ = false;
  std::string property_;
  Counterexample<M> counterexample_;
  uint64_t generated_ = 0;  // on this rank (the initial states counted once per rank)
  uint64_t global_generated_ = 0;
  uint64_t global_memory_ = 0;
  uint64_t distinct_ = 0;  // all ranks
  uint64_t owned_ = 0;     // this rank's
  uint64_t waves_ = 0;
  uint64_t level_size_ = 0;  // states of the level being expanded (all ranks)
  int depth_ = 0;
  std::vector<uint64_t> level_sizes_;
  uint32_t bounds_mask_ = 0;
  uint64_t peak_memory_ = 0;
  double cpu_start_ = 0;
  Clock::time_point start_;
  Clock::time_point last_report_;

  // Checkpoints: the figures at the start of the level being explored, the generation
  // the manifest names (0: none) and its rank count, the runs before this one's time.
  uint64_t boundary_generated_ = 0;
  uint64_t boundary_por_reduced_ = 0;
  uint64_t boundary_waves_ = 0;
  bool stopped_in_level_ = false;
  uint64_t generation_ = 0;
  uint64_t generation_ranks_ = 0;
  double prior_seconds_ = 0;
  Clock::time_point last_checkpoint_;
  CheckpointReport checkpoint_report_;
};

}  // namespace distributed_detail

// Explores every state reachable from the model's initial states, spread over the
// transport's ranks (see the file comment). Collective: every rank calls it with the
// same model and options; every rank gets the whole result. options.threads is unused
// (one thread per rank); options.progress is called on rank 0 only.
template <Model M>
DistributedBfsResult<M> distributed_bfs(const M& model, const BfsOptions& options, Transport& transport) {
  if constexpr (HasStubbornSets<M>) {
    // Their cycle proviso asks whether a successor was seen anywhere: a look-up on
    // every rank, per state. Irrelevant actions and dead components are local to a state.
    if (options.por) throw std::invalid_argument("distributed_bfs: POR with stubborn sets is not supported");
  }
  distributed_detail::Engine<M> engine(model, options, transport);
  return engine.run();
}

}  // namespace isr::checker
