// Shrinks a trace that violates a property to a short one that still violates it.
//
// A random walk finds bugs with long, noisy traces; people need the short story. The
// shrinker works on an ActionTrace (an initial state plus the actions taken) and only
// ever keeps a candidate after replaying it: every action must be enabled (compared by
// ==) in the state it is applied to, and the property must fail at the end. A candidate
// whose property already fails earlier is truncated there and kept.
//
// Passes, repeated while any makes progress:
//  1. delta debugging: remove chunks of half the length, then quarters, ..., then single
//     steps, until no removal is accepted (no single step can go);
//  2. pair removal: remove any two steps at once (steps that only matter together, such
//     as a crash and its restart), for traces of at most kMaxPairRemovalLength steps;
//  3. a bounded breadth-first search from the initial states, up to one step less than
//     the current length, for either a violating state (a shortest trace outright) or a
//     state of the current trace reached in fewer steps (its prefix is replaced). BFS can
//     find shortcuts that need *different* actions, which removal alone never finds.
//     When it runs to its depth bound within budget, the result is proven shortest (up to
//     the model's symmetry, which it uses to prune, and 128-bit fingerprint collisions).
// docs/simulate.md explains why this is not RapidCheck's shrinker.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <xxhash.h>

#include "checker/model.h"

namespace isr::checker {

// An initial state and the actions applied to it, in order.
template <Model M>
struct ActionTrace {
  typename M::State initial;
  std::vector<typename M::Action> actions;
};

struct ShrinkOptions {
  bool enabled = true;
  bool bfs = true;
  // Budgets for the whole shrink; when one runs out the best trace so far is kept.
  std::chrono::milliseconds time_limit{30'000};
  uint64_t max_candidates = 1'000'000;
  // The BFS pass is only worth it while cheap: it gives up beyond this many states.
  uint64_t bfs_max_states = 200'000;
  const std::atomic<bool>* interrupt = nullptr;
};

struct ShrinkStats {
  std::size_t length_before = 0;        // the trace as the walk found it
  std::size_t length_after_delta = 0;   // after the removal passes, before any BFS
  std::size_t length_after = 0;
  uint64_t candidates_tried = 0;        // replays of candidate traces
  uint64_t candidates_accepted = 0;
  uint64_t bfs_states = 0;              // states the BFS pass generated, all rounds
  bool bfs_improved = false;            // the BFS pass shortened the trace
  bool proven_shortest = false;         // a BFS pass ran to its bound: no shorter trace exists
  bool budget_exhausted = false;        // stopped by a budget, time limit or interrupt
  double seconds = 0;
};

template <Model M>
struct ShrinkResult {
  ActionTrace<M> trace;
  ShrinkStats stats;
};

namespace shrink_detail {

template <class State>
struct StateHash {
  std::size_t operator()(const State& s) const { return XXH3_64bits(&s, sizeof(State)); }
};
template <class State>
struct StateEq {
  bool operator()(const State& a, const State& b) const {
    return std::memcmp(&a, &b, sizeof(State)) == 0;
  }
};

template <Model M>
bool is_enabled(const M& model, const typename M::State& s, const typename M::Action& a) {
  bool found = false;
  model.for_each_action(s, [&](const typename M::Action& b) {
    if (!found && b == a) found = true;
  });
  return found;
}

template <Model M>
bool violates(const M& model, std::size_t property_index, const typename M::State& s) {
  return !model.properties()[property_index].holds(model, s);
}

}  // namespace shrink_detail

// Replays `trace` and returns the number of steps after which `property_index` first
// fails (0 = the initial state already violates it), or nullopt when some action is not
// enabled where it is applied or the property never fails.
template <Model M>
std::optional<std::size_t> first_violation(const M& model, const ActionTrace<M>& trace,
                                           std::size_t property_index) {
  typename M::State s = trace.initial;
  if (shrink_detail::violates(model, property_index, s)) return 0;
  for (std::size_t i = 0; i < trace.actions.size(); ++i) {
    if (!shrink_detail::is_enabled(model, s, trace.actions[i])) return std::nullopt;
    s = model.next_state(s, trace.actions[i]);
    if (shrink_detail::violates(model, property_index, s)) return i + 1;
  }
  return std::nullopt;
}

// The states of a trace (initial state first), or nullopt when an action is not enabled
// where it is applied.
template <Model M>
std::optional<std::vector<typename M::State>> replay_states(const M& model,
                                                            const ActionTrace<M>& trace) {
  std::vector<typename M::State> states;
  states.reserve(trace.actions.size() + 1);
  states.push_back(trace.initial);
  for (const auto& a : trace.actions) {
    if (!shrink_detail::is_enabled(model, states.back(), a)) return std::nullopt;
    states.push_back(model.next_state(states.back(), a));
  }
  return states;
}

template <Model M>
class TraceShrinker {
 public:
  using State = typename M::State;
  using Action = typename M::Action;

  TraceShrinker(const M& model, std::size_t property_index, const ShrinkOptions& options)
      : model_(model), property_(property_index), options_(options) {}

  // `trace` must violate the property (at its end or earlier).
  ShrinkResult<M> shrink(ActionTrace<M> trace) {
    start_ = std::chrono::steady_clock::now();
    ShrinkResult<M> result;
    result.stats.length_before = trace.actions.size();
    if (auto at = first_violation(model_, trace, property_)) trace.actions.resize(*at);
    best_ = std::move(trace);

    if (options_.enabled) {
      remove_steps();
      stats_.length_after_delta = best_.actions.size();
      while (options_.bfs && !out_of_budget() && !stats_.proven_shortest) {
        const std::size_t before = best_.actions.size();
        bfs_shortcut();
        if (best_.actions.size() >= before) break;
        stats_.bfs_improved = true;
        remove_steps();
      }
    } else {
      stats_.length_after_delta = best_.actions.size();
    }

    stats_.length_before = result.stats.length_before;
    stats_.length_after = best_.actions.size();
    stats_.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    result.stats = stats_;
    result.trace = std::move(best_);
    return result;
  }

 private:
  bool out_of_budget() {
    if (stats_.budget_exhausted) return true;
    const bool interrupted =
        options_.interrupt != nullptr && options_.interrupt->load(std::memory_order_relaxed);
    if (interrupted || stats_.candidates_tried >= options_.max_candidates ||
        std::chrono::steady_clock::now() - start_ >= options_.time_limit) {
      stats_.budget_exhausted = true;
    }
    return stats_.budget_exhausted;
  }

  // Replays a candidate; on success it becomes the best trace (truncated at its first
  // violation).
  bool try_candidate(ActionTrace<M>& candidate) {
    ++stats_.candidates_tried;
    const auto at = first_violation(model_, candidate, property_);
    if (!at) return false;
    candidate.actions.resize(*at);
    ++stats_.candidates_accepted;
    std::swap(best_, candidate);
    return true;
  }

  void delta_debug() {
    ActionTrace<M> candidate{best_.initial, {}};
    bool progress = true;
    while (progress && !best_.actions.empty()) {
      progress = false;
      for (std::size_t chunk = std::max<std::size_t>(best_.actions.size() / 2, 1);;
           chunk /= 2) {
        std::size_t at = 0;
        while (at < best_.actions.size()) {
          if (out_of_budget()) return;
          const auto& actions = best_.actions;
          const std::size_t end = std::min(at + chunk, actions.size());
          candidate.initial = best_.initial;
          candidate.actions.assign(actions.begin(), actions.begin() + at);
          candidate.actions.insert(candidate.actions.end(), actions.begin() + end,
                                   actions.end());
          // On success the next chunk has moved to `at`: try it without advancing.
          if (try_candidate(candidate)) {
            progress = true;
          } else {
            at += chunk;
          }
        }
        if (chunk == 1) break;
      }
    }
  }

  static constexpr std::size_t kMaxPairRemovalLength = 100;

  // True when removing some two steps at once is accepted.
  bool remove_pair() {
    ActionTrace<M> candidate{best_.initial, {}};
    const std::size_t n = best_.actions.size();
    if (n < 2 || n > kMaxPairRemovalLength) return false;
    for (std::size_t i = 0; i + 1 < n; ++i) {
      for (std::size_t j = i + 1; j < n; ++j) {
        if (out_of_budget()) return false;
        candidate.initial = best_.initial;
        candidate.actions.clear();
        for (std::size_t k = 0; k < n; ++k) {
          if (k != i && k != j) candidate.actions.push_back(best_.actions[k]);
        }
        if (try_candidate(candidate)) return true;
      }
    }
    return false;
  }

  void remove_steps() {
    do {
      delta_debug();
    } while (remove_pair());
  }

  // A BFS node: how it was reached. States are kept for two levels only.
  struct Node {
    uint32_t parent;  // kNoParent for an initial state
    uint32_t root;    // for an initial state: its position in initial_states()
    Action action;    // the action from the parent
  };
  static constexpr uint32_t kNoParent = UINT32_MAX;

  // The path from an initial state to nodes[index].
  ActionTrace<M> path_to(const std::vector<Node>& nodes, const std::vector<State>& initial,
                         uint32_t index) const {
    std::vector<Action> reversed;
    uint32_t i = index;
    for (; nodes[i].parent != kNoParent; i = nodes[i].parent) reversed.push_back(nodes[i].action);
    return ActionTrace<M>{initial[nodes[i].root], {reversed.rbegin(), reversed.rend()}};
  }

  struct Fingerprint {
    uint64_t low, high;
    bool operator==(const Fingerprint&) const = default;
  };
  struct FingerprintHash {
    std::size_t operator()(const Fingerprint& f) const { return f.low; }
  };

  // BFS up to depth (current length - 1). Visited states are deduplicated by a 128-bit
  // fingerprint of their canonical form, so symmetric duplicates are not expanded twice;
  // a duplicate that is also a state of the current trace is still recorded, as a
  // shortcut to it.
  void bfs_shortcut() {
    const std::size_t length = best_.actions.size();
    auto trace_states = replay_states(model_, best_);
    if (!trace_states) return;  // cannot happen: best_ was validated
    // State of the trace -> its latest position (cutting the longest stretch).
    std::unordered_map<State, std::size_t, shrink_detail::StateHash<State>,
                       shrink_detail::StateEq<State>>
        position;
    for (std::size_t k = 0; k < trace_states->size(); ++k) position[(*trace_states)[k]] = k;

    const std::vector<State> initial = model_.initial_states();
    std::vector<Node> nodes;
    std::unordered_set<Fingerprint, FingerprintHash> visited;
    std::size_t best_length = length;
    uint32_t best_node = kNoParent;
    std::size_t resume_at = length;  // where the old trace continues after best_node

    auto consider = [&](const State& s, uint32_t node, std::size_t depth) {
      if (shrink_detail::violates(model_, property_, s)) {
        if (depth < best_length) {
          best_length = depth;
          best_node = node;
          resume_at = length;
        }
        return;
      }
      auto it = position.find(s);
      if (it != position.end() && depth + (length - it->second) < best_length) {
        best_length = depth + (length - it->second);
        best_node = node;
        resume_at = it->second;
      }
    };
    auto admit = [&](const State& s) {
      State canonical = s;
      model_.canonicalize(canonical);
      const XXH128_hash_t h = XXH3_128bits(&canonical, sizeof(State));
      return visited.insert(Fingerprint{h.low64, h.high64}).second;
    };

    // The states to expand at the current depth, and their node ids.
    std::vector<State> level, next_level;
    std::vector<uint32_t> level_ids, next_ids;
    for (std::size_t r = 0; r < initial.size(); ++r) {
      const bool is_new = admit(initial[r]);
      if (!is_new && position.find(initial[r]) == position.end()) continue;
      nodes.push_back(Node{kNoParent, static_cast<uint32_t>(r), Action{}});
      const auto id = static_cast<uint32_t>(nodes.size() - 1);
      consider(initial[r], id, 0);
      if (is_new) {
        level.push_back(initial[r]);
        level_ids.push_back(id);
      }
    }
    bool completed = false;
    for (std::size_t depth = 0;; ++depth) {
      // Every state at depth <= `depth` has been checked: nothing shorter than
      // best_length exists once depth + 1 reaches it.
      if (depth + 1 >= best_length || level.empty()) {
        completed = true;  // (or the reachable space ends before the bound)
        break;
      }
      next_level.clear();
      next_ids.clear();
      bool stopped = false;
      for (std::size_t n = 0; n < level.size() && !stopped; ++n) {
        if (stats_.bfs_states >= options_.bfs_max_states || out_of_budget()) {
          stopped = true;
          break;
        }
        const State& parent_state = level[n];
        const uint32_t parent = level_ids[n];
        model_.for_each_action(parent_state, [&](const Action& a) {
          const State next = model_.next_state(parent_state, a);
          ++stats_.bfs_states;
          const bool is_new = admit(next);
          if (!is_new && position.find(next) == position.end()) return;
          nodes.push_back(Node{parent, 0, a});
          const auto id = static_cast<uint32_t>(nodes.size() - 1);
          consider(next, id, depth + 1);
          if (is_new) {
            next_level.push_back(next);
            next_ids.push_back(id);
          }
        });
      }
      if (stopped) break;
      std::swap(level, next_level);
      std::swap(level_ids, next_ids);
    }

    if (best_node != kNoParent) {
      ActionTrace<M> candidate = path_to(nodes, initial, best_node);
      candidate.actions.insert(candidate.actions.end(),
                               best_.actions.begin() + static_cast<std::ptrdiff_t>(resume_at),
                               best_.actions.end());
      if (candidate.actions.size() < length) try_candidate(candidate);
    }
    if (completed && best_.actions.size() <= best_length) stats_.proven_shortest = true;
  }

  const M& model_;
  std::size_t property_;
  ShrinkOptions options_;
  std::chrono::steady_clock::time_point start_;
  ShrinkStats stats_;
  ActionTrace<M> best_;
};

// Shrinks `trace`, which must violate property `property_index` of `model`.
template <Model M>
ShrinkResult<M> shrink_trace(const M& model, ActionTrace<M> trace, std::size_t property_index,
                             const ShrinkOptions& options = {}) {
  return TraceShrinker<M>(model, property_index, options).shrink(std::move(trace));
}

}  // namespace isr::checker
