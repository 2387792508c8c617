// The random-walk engine ("simulate"): many independent random walks over any Model,
// checking every property on every state, then shrinking the first counterexample.
//
// Where BFS proves a property up to a bound, random walks go deep cheaply and find bugs
// that need long schedules. A walk starts from a random initial state and repeatedly
// takes a weighted-random enabled action until a property fails, `depth` steps are
// taken, or no action is enabled (a deadlock: counted, not a violation).
//
// Reproducibility (same seed => same result for any thread count):
//  - walk i draws from its own generator, seeded from (seed, i) only (checker/walk/rng.h);
//  - walks are handed out in index order and their statistics are merged strictly in
//    index order (walks finished early wait in a small reorder buffer), so the counted
//    walks are always 0 .. k-1;
//  - the first violation merged is the one with the smallest walk index; walks with a
//    larger index are abandoned and never counted.
// Only an interrupt or a time limit makes the outcome depend on timing, and the result
// says so.
//
// The hot path (one step) does not allocate: each thread owns its buffers, which only
// grow during the first walks.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <xxhash.h>

#include "checker/action_kind_index.h"
#include "checker/model.h"
#include "checker/walk/rng.h"
#include "checker/walk/shrink.h"
#include "checker/walk/walk_result.h"
#include "checker/walk/walk_state_sketch.h"

namespace isr::checker {

// A usage error message when `weights` names a kind the model does not have or gives a
// weight that is negative or not finite; nullopt when they are fine.
template <Model M>
std::optional<std::string> validate_weights(
    const M& model, const std::map<std::string, double, std::less<>>& weights) {
  std::vector<std::string_view> kinds = model.action_kinds();
  std::string valid;
  for (std::string_view k : kinds) valid += (valid.empty() ? "" : ", ") + std::string(k);
  for (const auto& [name, weight] : weights) {
    if (std::find(kinds.begin(), kinds.end(), name) == kinds.end()) {
      return "weights: unknown action kind \"" + name + "\" (valid kinds: " + valid + ")";
    }
    if (!(weight >= 0) || weight == std::numeric_limits<double>::infinity()) {
      return "weights: the weight of \"" + name + "\" must be a finite number >= 0, got " +
             std::to_string(weight);
    }
  }
  return std::nullopt;
}

template <Model M>
class RandomWalker {
 public:
  using State = typename M::State;
  using Action = typename M::Action;

  // Throws std::invalid_argument when the weights are invalid (see validate_weights) or
  // the model has no initial state.
  RandomWalker(const M& model, WalkOptions options)
      : model_(model), options_(std::move(options)), sketch_(options_.distinct_state_capacity) {
    if (auto error = validate_weights(model_, options_.weights)) {
      throw std::invalid_argument(*error);
    }
    initial_states_ = model_.initial_states();
    if (initial_states_.empty()) throw std::invalid_argument("the model has no initial state");
    kind_names_ = ActionKindIndex<M>(model_).names();
    // One extra slot for kinds the model forgot to list: weight 1, reported apart.
    weights_.assign(kind_names_.size() + 1, 1.0);
    for (std::size_t k = 0; k < kind_names_.size(); ++k) {
      if (auto it = options_.weights.find(kind_names_[k]); it != options_.weights.end()) {
        weights_[k] = it->second;
      }
    }
    uniform_ = std::all_of(weights_.begin(), weights_.end(), [](double w) { return w == 1.0; });
    threads_ = options_.threads == 0 ? std::max(1u, std::thread::hardware_concurrency())
                                     : options_.threads;
    if (options_.walks < threads_) {
      threads_ = static_cast<unsigned>(std::max<uint64_t>(options_.walks, 1));
    }
    ring_.resize(8 * static_cast<std::size_t>(threads_));
    for (Slot& slot : ring_) reserve(slot.record);
    taken_.assign(kind_names_.size() + 1, 0);
    enabled_.assign(kind_names_.size() + 1, 0);
    histogram_width_ =
        std::max<uint64_t>(1, (options_.depth + kHistogramBuckets) / kHistogramBuckets);
    histogram_.assign((options_.depth / histogram_width_) + 1, 0);
  }

  WalkResult<M> run() {
    const auto start = std::chrono::steady_clock::now();
    deadline_ = options_.time_limit.count() > 0
                    ? start + options_.time_limit
                    : std::chrono::steady_clock::time_point::max();
    if (threads_ == 1) {
      work();
    } else {
      // Workers take walks from shared counters, so fewer of them walk the same walks: a
      // thread the system refuses (too many for the address space) costs speed only,
      // and the stats say so (a std::thread left unjoined would std::terminate).
      std::vector<std::thread> workers;
      for (unsigned t = 0; t < threads_; ++t) {
        try {
          workers.emplace_back([this] { work(); });
        } catch (const std::system_error& e) {
          threads_refused_ = "only " + std::to_string(workers.size()) + " of " + std::to_string(threads_) +
                             " threads could be started (" + e.code().message() + "); the walks ran on " +
                             std::to_string(std::max<std::size_t>(workers.size(), 1));
          break;
        }
      }
      if (workers.empty()) work();
      for (std::thread& w : workers) w.join();
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    WalkResult<M> result;
    result.seed = options_.seed;
    result.stats = stats(seconds);
    if (options_.keep_distinct_sample) {
      result.distinct_sample = sketch_.sample();
      result.distinct_sample_level = sketch_.level();
    }
    const WalkRecord* violating = merged_violation_ ? &*merged_violation_ : nullptr;
    if (violating == nullptr && committed_ < options_.walks) {
      // Stopped early: a walk beyond the counted prefix may still have failed.
      for (const Slot& slot : ring_) {
        if (slot.occupied && slot.record.end == WalkEnd::kViolation &&
            (violating == nullptr || slot.record.index < violating->index)) {
          violating = &slot.record;
        }
      }
    }
    if (violating != nullptr) {
      result.outcome = WalkOutcome::kViolation;
      result.violation = make_violation(*violating);
      result.violation->smallest_walk_index = merged_violation_.has_value();
    } else if (committed_ < options_.walks) {
      result.outcome = WalkOutcome::kIncomplete;
      result.stop_reason = stop_reason_.empty() ? "interrupted" : stop_reason_;
    }
    return result;
  }

 private:
  static constexpr uint64_t kHistogramBuckets = 32;
  static constexpr uint64_t kNoBound = std::numeric_limits<uint64_t>::max();
  static constexpr uint64_t kClockEverySteps = 1024;

  enum class WalkEnd { kDepth, kDeadlock, kWeightDeadEnd, kViolation };

  // Everything one walk contributes, kept until the walk's turn to be merged.
  struct WalkRecord {
    uint64_t index = 0;
    WalkEnd end = WalkEnd::kDepth;
    std::size_t initial = 0;   // index into initial_states_
    std::size_t property = 0;  // for kViolation
    std::vector<uint64_t> taken;
    std::vector<uint64_t> enabled;
    std::vector<uint64_t> fingerprints;  // only those the sketch could still admit
    std::vector<Action> actions;

    void reset(uint64_t walk_index, std::size_t kinds) {
      index = walk_index;
      end = WalkEnd::kDepth;
      taken.assign(kinds + 1, 0);
      enabled.assign(kinds + 1, 0);
      fingerprints.clear();
      actions.clear();
    }
  };

  struct Slot {
    bool occupied = false;
    WalkRecord record;
  };

  // Per-thread buffers of the hot path.
  struct Scratch {
    explicit Scratch(const M& model) : kinds(model) {}
    ActionKindIndex<M> kinds;
    std::vector<Action> actions;        // enabled in the current state
    std::vector<uint32_t> action_kinds;  // their kind indices
    std::vector<double> cumulative;      // their cumulative weights (weighted runs only)
    WalkRecord record;
    uint64_t steps_since_clock = 0;
  };

  void work() {
    Scratch scratch(model_);
    scratch.actions.reserve(256);
    scratch.action_kinds.reserve(256);
    scratch.cumulative.reserve(256);
    reserve(scratch.record);
    for (;;) {
      if (stop_.load(std::memory_order_relaxed)) return;
      const uint64_t index = next_walk_.fetch_add(1, std::memory_order_relaxed);
      if (index >= options_.walks || index > violation_bound_.load(std::memory_order_relaxed)) {
        return;
      }
      if (!wait_for_room(index)) return;
      if (!walk(index, scratch)) return;
      submit(scratch.record);
    }
  }

  // Records are swapped between threads and the reorder buffer, so all of them get the
  // same capacity up front (very deep walks still grow theirs during the first walks).
  void reserve(WalkRecord& record) const {
    record.reset(0, kind_names_.size());
    record.fingerprints.reserve(std::min<uint64_t>(options_.depth + 1, 1 << 16));
    record.actions.reserve(std::min<uint64_t>(options_.depth, 1 << 16));
  }

  // Blocks until walk `index` fits the reorder buffer; false when the run is stopping.
  bool wait_for_room(uint64_t index) {
    std::unique_lock<std::mutex> lock(mutex_);
    room_.wait(lock, [&] {
      return index < committed_ + ring_.size() || stopping(index);
    });
    return !stopping(index);
  }

  bool stopping(uint64_t index) const {
    return stop_.load(std::memory_order_relaxed) ||
           index > violation_bound_.load(std::memory_order_relaxed);
  }

  void stop(const char* reason) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stop_reason_.empty()) stop_reason_ = reason;
    stop_.store(true, std::memory_order_relaxed);
    room_.notify_all();
  }

  // Runs walk `index` into scratch.record; false when it was abandoned.
  bool walk(uint64_t index, Scratch& scratch) {
    WalkRecord& record = scratch.record;
    record.reset(index, kind_names_.size());
    SplitMix64 rng = SplitMix64::for_walk(options_.seed, options_.first_walk + index);
    record.initial = initial_states_.size() == 1
                         ? 0
                         : rng.below(static_cast<uint32_t>(initial_states_.size()));
    State state = initial_states_[record.initial];
    // Walks that end at once must also look at the clock.
    if (++scratch.steps_since_clock >= kClockEverySteps) {
      scratch.steps_since_clock = 0;
      if (std::chrono::steady_clock::now() >= deadline_) {
        stop("time limit");
        return false;
      }
    }
    const int level = sketch_level_.load(std::memory_order_relaxed);
    note_state(state, record, level);
    if (violated(state, record)) return true;

    for (uint64_t step = 0; step < options_.depth; ++step) {
      if (stopping(index)) return false;
      if (options_.interrupt != nullptr && options_.interrupt->load(std::memory_order_relaxed)) {
        stop("interrupted");
        return false;
      }
      if (++scratch.steps_since_clock >= kClockEverySteps) {
        scratch.steps_since_clock = 0;
        if (std::chrono::steady_clock::now() >= deadline_) {
          stop("time limit");
          return false;
        }
      }

      scratch.actions.clear();
      scratch.action_kinds.clear();
      scratch.cumulative.clear();
      double total = 0;
      model_.for_each_action(state, [&](const Action& a) {
        const std::size_t kind = std::min(scratch.kinds.of(a), kind_names_.size());
        ++record.enabled[kind];
        scratch.actions.push_back(a);
        scratch.action_kinds.push_back(static_cast<uint32_t>(kind));
        if (!uniform_) {
          total += weights_[kind];
          scratch.cumulative.push_back(total);
        }
      });
      const std::size_t n = scratch.actions.size();
      if (n == 0) {
        record.end = WalkEnd::kDeadlock;
        return true;
      }
      std::size_t pick;
      if (uniform_) {
        pick = rng.below(static_cast<uint32_t>(n));
      } else {
        if (!(total > 0)) {
          record.end = WalkEnd::kWeightDeadEnd;
          return true;
        }
        pick = choose_weighted(scratch.cumulative, rng.unit() * total);
      }
      const Action& action = scratch.actions[pick];
      ++record.taken[scratch.action_kinds[pick]];
      record.actions.push_back(action);
      state = model_.next_state(state, action);
      note_state(state, record, level);
      if (violated(state, record)) return true;
    }
    record.end = WalkEnd::kDepth;
    return true;
  }

  // The first action whose cumulative weight exceeds `r` (so its own weight is > 0).
  static std::size_t choose_weighted(const std::vector<double>& cumulative, double r) {
    for (std::size_t i = 0; i < cumulative.size(); ++i) {
      if (cumulative[i] > r) return i;
    }
    // r rounded up to the total: the last action with a positive weight.
    std::size_t i = cumulative.size() - 1;
    while (i > 0 && cumulative[i] == cumulative[i - 1]) --i;
    return i;
  }

  void note_state(const State& state, WalkRecord& record, int level) const {
    const uint64_t fingerprint = XXH3_64bits(&state, sizeof(State));
    if (DistinctStateSketch::admitted_at(fingerprint, level)) {
      record.fingerprints.push_back(fingerprint);
    }
  }

  bool violated(const State& state, WalkRecord& record) const {
    const auto& properties = model_.properties();
    for (std::size_t p = 0; p < properties.size(); ++p) {
      if (!properties[p].holds(model_, state)) {
        record.end = WalkEnd::kViolation;
        record.property = p;
        lower_violation_bound(record.index);
        return true;
      }
    }
    return false;
  }

  void lower_violation_bound(uint64_t index) const {
    uint64_t bound = violation_bound_.load(std::memory_order_relaxed);
    while (index < bound &&
           !violation_bound_.compare_exchange_weak(bound, index, std::memory_order_relaxed)) {
    }
  }

  // Hands a finished walk over: merged now if it is next in index order, else parked.
  void submit(WalkRecord& record) {
    std::lock_guard<std::mutex> lock(mutex_);
    // Once a violation is merged, later walks are not part of the run.
    if (!merged_violation_) {
      if (record.index == committed_) {
        merge(record);
        while (!merged_violation_) {
          Slot& next = ring_[committed_ % ring_.size()];
          if (!next.occupied || next.record.index != committed_) break;
          next.occupied = false;
          merge(next.record);
        }
      } else {
        Slot& slot = ring_[record.index % ring_.size()];
        std::swap(slot.record, record);
        slot.occupied = true;
      }
    }
    room_.notify_all();
  }

  void merge(const WalkRecord& record) {
    ++committed_;
    const uint64_t length = record.actions.size();
    steps_ += length;
    for (std::size_t k = 0; k < taken_.size(); ++k) {
      taken_[k] += record.taken[k];
      enabled_[k] += record.enabled[k];
    }
    ++histogram_[length / histogram_width_];
    min_length_ = std::min(min_length_, length);
    max_length_ = std::max(max_length_, length);
    switch (record.end) {
      case WalkEnd::kDepth: ++depth_limit_hits_; break;
      case WalkEnd::kDeadlock: ++deadlocks_; break;
      case WalkEnd::kWeightDeadEnd: ++weight_dead_ends_; break;
      case WalkEnd::kViolation: merged_violation_ = record; break;
    }
    for (uint64_t fingerprint : record.fingerprints) sketch_.insert(fingerprint);
    sketch_level_.store(sketch_.level(), std::memory_order_relaxed);
  }

  WalkStats stats(double seconds) const {
    WalkStats s;
    s.walks_requested = options_.walks;
    s.walks_completed = committed_;
    s.steps = steps_;
    s.states_checked = steps_ + committed_;
    s.deadlocks = deadlocks_;
    s.weight_dead_ends = weight_dead_ends_;
    s.depth_limit_hits = depth_limit_hits_;
    for (std::size_t k = 0; k < kind_names_.size(); ++k) {
      s.coverage.push_back(KindCoverage{kind_names_[k], weights_[k], taken_[k], enabled_[k]});
      if (enabled_[k] == 0 && committed_ > 0) {
        s.warnings.push_back("action kind " + kind_names_[k] + " was never enabled");
      }
    }
    if (!threads_refused_.empty()) s.warnings.push_back(threads_refused_);
    s.unlisted_kind_steps = taken_.back();
    if (enabled_.back() > 0) {
      s.warnings.push_back("the model enabled actions whose kind is not in action_kinds()");
    }
    s.lengths.width = histogram_width_;
    s.lengths.counts = histogram_;
    s.lengths.min = committed_ == 0 ? 0 : min_length_;
    s.lengths.max = max_length_;
    s.distinct_states = sketch_.estimate();
    s.distinct_states_exact = sketch_.exact();
    s.distinct_states_sample_level = sketch_.level();
    s.seconds = seconds;
    s.steps_per_second = seconds > 0 ? static_cast<double>(steps_) / seconds : 0;
    return s;
  }

  WalkViolation<M> make_violation(const WalkRecord& record) const {
    WalkViolation<M> v;
    v.walk_index = options_.first_walk + record.index;
    v.property_index = record.property;
    const auto& property = model_.properties()[record.property];
    v.property = std::string(property.name);
    v.description = std::string(property.description);
    v.found = ActionTrace<M>{initial_states_[record.initial], record.actions};
    ShrinkOptions shrink = options_.shrink;
    if (shrink.interrupt == nullptr) shrink.interrupt = options_.interrupt;
    ShrinkResult<M> shrunk = shrink_trace(model_, v.found, record.property, shrink);
    v.shrunk = std::move(shrunk.trace);
    v.shrink = shrunk.stats;
    return v;
  }

  const M& model_;
  const WalkOptions options_;
  std::vector<State> initial_states_;
  std::vector<std::string> kind_names_;
  std::vector<double> weights_;  // by kind index; the last one is for unlisted kinds
  bool uniform_ = true;
  unsigned threads_ = 1;
  std::string threads_refused_;  // why fewer threads than asked walked, "" when all started
  std::chrono::steady_clock::time_point deadline_;

  std::atomic<uint64_t> next_walk_{0};
  mutable std::atomic<uint64_t> violation_bound_{kNoBound};
  std::atomic<bool> stop_{false};
  std::atomic<int> sketch_level_{0};

  // Guarded by mutex_.
  std::mutex mutex_;
  std::condition_variable room_;
  std::string stop_reason_;
  std::vector<Slot> ring_;  // reorder buffer: walk i waits in slot i % size
  uint64_t committed_ = 0;  // walks 0 .. committed_ - 1 are merged
  std::optional<WalkRecord> merged_violation_;  // a copy: the record itself is reused
  uint64_t steps_ = 0;
  uint64_t deadlocks_ = 0;
  uint64_t weight_dead_ends_ = 0;
  uint64_t depth_limit_hits_ = 0;
  std::vector<uint64_t> taken_;
  std::vector<uint64_t> enabled_;
  uint64_t histogram_width_ = 1;
  std::vector<uint64_t> histogram_;
  uint64_t min_length_ = std::numeric_limits<uint64_t>::max();
  uint64_t max_length_ = 0;
  DistinctStateSketch sketch_;
};

// Runs `options.walks` random walks over `model`. Throws std::invalid_argument on
// invalid options (unknown weight kinds list the valid ones).
template <Model M>
WalkResult<M> simulate(const M& model, const WalkOptions& options) {
  return RandomWalker<M>(model, options).run();
}

}  // namespace isr::checker
