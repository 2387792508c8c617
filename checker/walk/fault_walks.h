// Random walks under a fault schedule, for `simulate --stats` (docs/simulate.md,
// "How often: --stats"): how often each property is violated, and through which class of
// mechanism, when faults strike at given rates.
//
// A walk takes `depth` steps from a random initial state. At each step every scheduled
// fault kind (an action kind with a rate) is drawn in the model's kind order: with
// probability `rate` an enabled action of that kind is taken (uniformly among the enabled
// ones of that kind; if none is enabled the draw is spent). When no fault strikes, an
// ordinary action (of an unscheduled kind) is taken uniformly. A state with no ordinary
// action enabled (the cluster has settled) idles: the step passes with no action, so a
// fault can still strike there at its rate; a state with nothing enabled at all ends
// the walk (a deadlock). A step is thus a unit of time, and a rate a probability per
// unit. The model's fault budgets still cap what is enabled. Walks do not stop at a violation: every
// property's first violating step is noted, and with a PathLabeler (checker/path_labeler.h)
// the class of the walk's path up to it and the largest measure (acked records lost)
// from then on.
//
// Reproducibility: walk i draws from SplitMix64::for_walk(seed, i) only, and every
// figure is a sum or a histogram over walks (a class's example walk is its smallest
// index), so the result is the same for any number of threads. An interrupt or a time
// limit stops between steps; the walks finished so far are reported, marked incomplete.
//
// Hot path (one step): no allocation once a thread's buffers have grown.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "checker/action_kind_index.h"
#include "checker/model.h"
#include "checker/path_labeler.h"
#include "checker/walk/rng.h"

namespace isr::checker {

// The 95% Wilson score interval of a proportion k/n (n > 0): [low, high].
inline std::pair<double, double> wilson_interval(uint64_t k, uint64_t n) {
  if (n == 0) return {0.0, 1.0};
  constexpr double z = 1.959963984540054;  // the 97.5% quantile of the standard normal
  const double nn = static_cast<double>(n);
  const double p = static_cast<double>(k) / nn;
  const double denominator = 1 + z * z / nn;
  const double center = (p + z * z / (2 * nn)) / denominator;
  const double half = z / denominator * std::sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn));
  return {std::max(0.0, center - half), std::min(1.0, center + half)};
}

struct FaultWalkProgress {
  uint64_t walks_done = 0;
  uint64_t walks_requested = 0;
  uint64_t violating_walks = 0;  // walks violating at least one property
  double seconds = 0;
};

struct FaultWalkOptions {
  uint64_t walks = 1000;
  uint64_t depth = 100;
  uint64_t seed = 0;
  unsigned threads = 1;
  std::map<std::string, double, std::less<>> rates;  // action kind -> probability per step
  const std::atomic<bool>* interrupt = nullptr;
  std::chrono::nanoseconds time_limit{0};  // 0 = none
  std::function<void(const FaultWalkProgress&)> progress;  // from the calling thread
  std::chrono::milliseconds progress_interval{1000};
};

struct FaultWalkStats {
  uint64_t walks_requested = 0;
  uint64_t walks_completed = 0;
  uint64_t steps = 0;       // actions taken
  uint64_t idle_steps = 0;  // steps with no ordinary action enabled and no fault drawn
  uint64_t deadlocks = 0;   // walks that ended with nothing enabled at all
  std::string stop_reason;  // empty when every walk ran
  double seconds = 0;

  struct PerProperty {
    std::string property;
    uint64_t violating_walks = 0;
    std::vector<uint64_t> first_step;     // [s]: violating walks whose first violation is at step s
    std::vector<uint64_t> measure;        // [m]: violating walks whose largest measure is m (labeler)
  };
  std::vector<PerProperty> properties;

  struct Class {
    size_t property = 0;
    std::string key;                  // PathLabeler::class_key
    std::vector<uint32_t> signature;  // of the smallest walk of the class
    uint64_t walks = 0;
    uint64_t first_walk = 0;
  };
  std::vector<Class> classes;  // by property, then most walks first, then key

  struct KindCount {
    std::string kind;
    double rate = 0;
    uint64_t taken = 0;
  };
  std::vector<KindCount> faults;  // the scheduled kinds, in the model's kind order
};

// A usage message when `rates` names a kind the model does not have or a rate outside
// [0, 1]; nullopt when they are fine.
template <Model M>
std::optional<std::string> validate_rates(const M& model, const std::map<std::string, double, std::less<>>& rates) {
  const std::vector<std::string_view> kinds = model.action_kinds();
  std::string valid;
  for (std::string_view k : kinds) valid += (valid.empty() ? "" : ", ") + std::string(k);
  for (const auto& [name, rate] : rates) {
    if (std::find(kinds.begin(), kinds.end(), name) == kinds.end()) {
      return "unknown action kind \"" + name + "\" (the model's kinds: " + valid + ")";
    }
    if (!(rate >= 0 && rate <= 1)) {
      return "the rate of \"" + name + "\" must be a probability per step in [0, 1], got " + std::to_string(rate);
    }
  }
  return std::nullopt;
}

template <Model M>
class FaultWalker {
 public:
  using State = typename M::State;
  using Action = typename M::Action;

  FaultWalker(const M& model, FaultWalkOptions options, const PathLabeler<M>* labeler)
      : model_(model), options_(std::move(options)), labeler_(labeler) {
    if (auto error = validate_rates(model_, options_.rates)) throw std::invalid_argument(*error);
    initial_ = model_.initial_states();
    if (initial_.empty()) throw std::invalid_argument("the model has no initial state");
    if (model_.properties().size() > 64) throw std::length_error("simulate --stats: at most 64 properties");
    kinds_ = ActionKindIndex<M>(model_).names();
    rate_.assign(kinds_.size() + 1, -1.0);  // -1: an ordinary kind
    for (size_t k = 0; k < kinds_.size(); ++k) {
      if (auto it = options_.rates.find(kinds_[k]); it != options_.rates.end()) {
        rate_[k] = it->second;
        scheduled_.push_back(k);
      }
    }
    threads_ = std::max(1u, options_.threads);
    if (options_.walks < threads_) threads_ = static_cast<unsigned>(std::max<uint64_t>(1, options_.walks));
  }

  FaultWalkStats run() {
    const auto start = std::chrono::steady_clock::now();
    deadline_ = options_.time_limit.count() > 0 ? start + options_.time_limit
                                                : std::chrono::steady_clock::time_point::max();
    std::vector<Tally> tallies(threads_, Tally(model_.properties().size(), options_.depth, kinds_.size()));
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads_; ++t) workers.emplace_back([this, &tallies, t] { work(tallies[t]); });
    // The calling thread reports progress until the workers are done.
    auto last = start;
    while (finished_threads_.load() < threads_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      const auto now = std::chrono::steady_clock::now();
      if (options_.interrupt && options_.interrupt->load()) stop("interrupted");
      if (now >= deadline_) stop("time limit");
      if (options_.progress && now - last >= options_.progress_interval) {
        last = now;
        options_.progress(FaultWalkProgress{done_.load(), options_.walks, violating_.load(),
                                            std::chrono::duration<double>(now - start).count()});
      }
    }
    for (auto& w : workers) w.join();
    FaultWalkStats s = merge(tallies);
    s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return s;
  }

 private:
  struct ClassTally {
    uint64_t walks = 0;
    uint64_t first_walk = 0;
    std::vector<uint32_t> signature;  // of walk first_walk
  };
  // Per thread: sums over its walks (merged by addition: order does not matter).
  struct Tally {
    Tally(size_t properties, uint64_t depth, size_t kinds)
        : violating(properties, 0),
          first_step(properties, std::vector<uint64_t>(depth + 1, 0)),
          measure(properties),
          taken(kinds + 1, 0) {}
    uint64_t walks = 0;
    uint64_t steps = 0;
    uint64_t idle_steps = 0;
    uint64_t deadlocks = 0;
    std::vector<uint64_t> violating;
    std::vector<std::vector<uint64_t>> first_step;
    std::vector<std::vector<uint64_t>> measure;
    std::vector<uint64_t> taken;
    std::map<std::pair<size_t, std::string>, ClassTally> classes;
  };
  // Per thread: the hot path's buffers.
  struct Scratch {
    explicit Scratch(const M& model) : kinds(model) {}
    ActionKindIndex<M> kinds;
    std::vector<Action> ordinary;
    std::vector<Action> faults;      // of the kind being drawn
    std::vector<uint32_t> signature;  // tokens of the walk so far
    std::vector<size_t> signature_at;  // per property: signature length at its first violation
    std::vector<uint32_t> measure_max;
    std::vector<uint64_t> first_step;
  };

  void stop(const char* reason) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stop_reason_.empty()) stop_reason_ = reason;
    stop_.store(true);
  }

  void work(Tally& tally) {
    Scratch scratch(model_);
    const size_t properties = model_.properties().size();
    scratch.signature_at.resize(properties);
    scratch.measure_max.resize(properties);
    scratch.first_step.resize(properties);
    for (;;) {
      if (stop_.load(std::memory_order_relaxed)) break;
      const uint64_t index = next_walk_.fetch_add(1);
      if (index >= options_.walks) break;
      if (!walk(index, scratch, tally)) break;
    }
    finished_threads_.fetch_add(1);
  }

  static constexpr uint64_t kNotYet = ~uint64_t{0};

  // Marks the properties `state` violates for the first time at `step`; tracks the measure.
  uint64_t check(const State& state, uint64_t step, uint64_t violated, Scratch& scratch) const {
    const auto& properties = model_.properties();
    uint32_t measure = 0;
    bool measured = false;
    for (size_t p = 0; p < properties.size(); ++p) {
      if (!((violated >> p) & 1u) && properties[p].holds(model_, state)) continue;
      if (labeler_ && !measured) {
        measure = labeler_->measure(state);
        measured = true;
      }
      if (!((violated >> p) & 1u)) {
        violated |= uint64_t{1} << p;
        scratch.first_step[p] = step;
        scratch.signature_at[p] = scratch.signature.size();
        scratch.measure_max[p] = measure;
      } else {
        scratch.measure_max[p] = std::max(scratch.measure_max[p], measure);
      }
    }
    return violated;
  }

  // Runs walk `index`; false when it was abandoned (a stop), and then nothing is counted.
  bool walk(uint64_t index, Scratch& scratch, Tally& tally) {
    SplitMix64 rng = SplitMix64::for_walk(options_.seed, index);
    State state = initial_[initial_.size() == 1 ? 0 : rng.below(static_cast<uint32_t>(initial_.size()))];
    scratch.signature.clear();
    uint64_t violated = check(state, 0, 0, scratch);
    uint64_t steps = 0;
    uint64_t idle = 0;
    bool deadlock = false;
    for (uint64_t step = 1; step <= options_.depth; ++step) {
      if (stop_.load(std::memory_order_relaxed)) return false;
      const Action* chosen = nullptr;
      Action fault{};
      size_t fault_kind = 0;
      for (const size_t k : scheduled_) {
        if (!(rng.unit() < rate_[k])) continue;
        scratch.faults.clear();
        model_.for_each_action(state, [&](const Action& a) {
          if (scratch.kinds.of(a) == k) scratch.faults.push_back(a);
        });
        if (scratch.faults.empty()) continue;
        fault = scratch.faults[rng.below(static_cast<uint32_t>(scratch.faults.size()))];
        fault_kind = k;
        chosen = &fault;
        break;
      }
      if (chosen == nullptr) {
        scratch.ordinary.clear();
        bool fault_possible = false;
        model_.for_each_action(state, [&](const Action& a) {
          const double rate = rate_[std::min(scratch.kinds.of(a), kinds_.size())];
          if (rate < 0) scratch.ordinary.push_back(a);
          else if (rate > 0) fault_possible = true;
        });
        if (scratch.ordinary.empty()) {
          if (!fault_possible) {
            deadlock = true;
            break;
          }
          ++idle;  // settled: time passes until a fault strikes
          continue;
        }
        chosen = &scratch.ordinary[rng.below(static_cast<uint32_t>(scratch.ordinary.size()))];
      } else {
        ++tally.taken[fault_kind];
      }
      const State next = model_.next_state(state, *chosen);
      if (labeler_) {
        const uint32_t token = labeler_->step(state, *chosen, next);
        if (token != 0) scratch.signature.push_back(token);
      }
      state = next;
      ++steps;
      violated = check(state, step, violated, scratch);
    }
    ++tally.walks;
    tally.steps += steps;
    tally.idle_steps += idle;
    tally.deadlocks += deadlock;
    for (size_t p = 0; p < tally.violating.size(); ++p) {
      if (!((violated >> p) & 1u)) continue;
      ++tally.violating[p];
      ++tally.first_step[p][scratch.first_step[p]];
      if (!labeler_) continue;
      auto& m = tally.measure[p];
      if (m.size() <= scratch.measure_max[p]) m.resize(scratch.measure_max[p] + 1, 0);
      ++m[scratch.measure_max[p]];
      // Once per violating walk and property, not per step: the key may allocate.
      std::vector<uint32_t> signature(scratch.signature.begin(),
                                      scratch.signature.begin() + static_cast<std::ptrdiff_t>(scratch.signature_at[p]));
      ClassTally& c = tally.classes[{p, labeler_->class_key(signature)}];
      if (c.walks++ == 0 || index < c.first_walk) {
        c.first_walk = index;
        c.signature = std::move(signature);
      }
    }
    done_.fetch_add(1, std::memory_order_relaxed);
    if (violated != 0) violating_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }

  FaultWalkStats merge(const std::vector<Tally>& tallies) const {
    FaultWalkStats s;
    s.walks_requested = options_.walks;
    s.stop_reason = stop_reason_;
    const auto& properties = model_.properties();
    s.properties.resize(properties.size());
    for (size_t p = 0; p < properties.size(); ++p) {
      s.properties[p].property = std::string(properties[p].name);
      s.properties[p].first_step.assign(options_.depth + 1, 0);
    }
    std::map<std::pair<size_t, std::string>, ClassTally> classes;
    std::vector<uint64_t> taken(kinds_.size() + 1, 0);
    for (const Tally& t : tallies) {
      s.walks_completed += t.walks;
      s.steps += t.steps;
      s.idle_steps += t.idle_steps;
      s.deadlocks += t.deadlocks;
      for (size_t k = 0; k < taken.size(); ++k) taken[k] += t.taken[k];
      for (size_t p = 0; p < properties.size(); ++p) {
        FaultWalkStats::PerProperty& pp = s.properties[p];
        pp.violating_walks += t.violating[p];
        for (size_t i = 0; i < t.first_step[p].size(); ++i) pp.first_step[i] += t.first_step[p][i];
        if (pp.measure.size() < t.measure[p].size()) pp.measure.resize(t.measure[p].size(), 0);
        for (size_t i = 0; i < t.measure[p].size(); ++i) pp.measure[i] += t.measure[p][i];
      }
      for (const auto& [key, c] : t.classes) {
        auto [it, added] = classes.try_emplace(key, c);
        if (added) continue;
        it->second.walks += c.walks;
        if (c.first_walk < it->second.first_walk) {
          it->second.first_walk = c.first_walk;
          it->second.signature = c.signature;
        }
      }
    }
    for (const size_t k : scheduled_) s.faults.push_back({kinds_[k], rate_[k], taken[k]});
    for (const auto& [key, c] : classes) {
      s.classes.push_back({key.first, key.second, c.signature, c.walks, c.first_walk});
    }
    std::sort(s.classes.begin(), s.classes.end(), [](const auto& a, const auto& b) {
      if (a.property != b.property) return a.property < b.property;
      if (a.walks != b.walks) return a.walks > b.walks;
      return a.key < b.key;
    });
    return s;
  }

  const M& model_;
  const FaultWalkOptions options_;
  const PathLabeler<M>* labeler_;
  std::vector<State> initial_;
  std::vector<std::string> kinds_;
  std::vector<double> rate_;  // by kind index; < 0 for an ordinary kind
  std::vector<size_t> scheduled_;
  unsigned threads_ = 1;
  std::chrono::steady_clock::time_point deadline_;
  std::atomic<uint64_t> next_walk_{0};
  std::atomic<uint64_t> done_{0};
  std::atomic<uint64_t> violating_{0};
  std::atomic<unsigned> finished_threads_{0};
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::string stop_reason_;
};

// Runs the walks (see the file comment). Throws std::invalid_argument on bad rates.
template <Model M>
FaultWalkStats fault_walks(const M& model, const FaultWalkOptions& options, const PathLabeler<M>* labeler = nullptr) {
  return FaultWalker<M>(model, options, labeler).run();
}

}  // namespace isr::checker
