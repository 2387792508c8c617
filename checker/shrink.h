// Shrinks a trace that violates a property to a short one that still violates it.
//
// A random walk finds bugs with long, noisy traces; people need the short story. The
// shrinker works on an ActionTrace (an initial state plus the actions taken) and only
// ever keeps a candidate after replaying it: every action must be enabled (compared by
// ==) in the state it is applied to, and the property must fail at the end. A candidate
// whose property already fails earlier is truncated there and kept.
//
// Two passes, repeated while either makes progress:
//  1. delta debugging: remove chunks of half the length, then quarters, ..., then single
//     steps, until no removal is accepted (a local minimum: no single step can go);
//  2. a bounded breadth-first search from the initial states, up to one step less than
//     the current length, for either a violating state (a shortest trace outright) or a
//     state of the current trace reached in fewer steps (its prefix is replaced). BFS can
//     find shortcuts that need *different* actions, which removal alone never finds.
//     When it runs to its depth bound within budget, the result is proven shortest (up to
//     the model's symmetry, which it uses to prune).
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
  uint64_t bfs_max_states = 500'000;
  const std::atomic<bool>* interrupt = nullptr;
};

struct ShrinkStats {
  std::size_t length_before = 0;        // the trace as the walk found it
  std::size_t length_after_delta = 0;   // after the first round of delta debugging
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
      delta_debug();
      stats_.length_after_delta = best_.actions.size();
      while (options_.bfs && !out_of_budget() && !stats_.proven_shortest) {
        const std::size_t before = best_.actions.size();
        bfs_shortcut();
        if (best_.actions.size() >= before) break;
        stats_.bfs_improved = true;
        delta_debug();
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

  struct Node {
    State state;
    uint32_t parent;  // kNoParent for an initial state
    bool expand;      // false for a state whose orbit was already visited
    Action action;    // the action from the parent
  };
  static constexpr uint32_t kNoParent = UINT32_MAX;

  // The path from an initial state to nodes[index].
  static ActionTrace<M> path_to(const std::vector<Node>& nodes, uint32_t index) {
    ActionTrace<M> trace{nodes[index].state, {}};
    for (uint32_t i = index; nodes[i].parent != kNoParent; i = nodes[i].parent) {
      trace.actions.push_back(nodes[i].action);
      trace.initial = nodes[nodes[i].parent].state;
    }
    std::reverse(trace.actions.begin(), trace.actions.end());
    return trace;
  }

  // BFS up to depth (current length - 1). Visited states are deduplicated by their
  // canonical form, so symmetric duplicates are not expanded twice; a duplicate that is
  // also a state of the current trace is still recorded, as a shortcut to it.
  void bfs_shortcut() {
    const std::size_t length = best_.actions.size();
    auto trace_states = replay_states(model_, best_);
    if (!trace_states) return;  // cannot happen: best_ was validated
    // State of the trace -> its latest position (cutting the longest stretch).
    std::unordered_map<State, std::size_t, shrink_detail::StateHash<State>,
                       shrink_detail::StateEq<State>>
        position;
    for (std::size_t k = 0; k < trace_states->size(); ++k) position[(*trace_states)[k]] = k;

    std::vector<Node> nodes;
    std::unordered_set<State, shrink_detail::StateHash<State>, shrink_detail::StateEq<State>>
        visited;
    std::size_t best_length = length;
    uint32_t best_node = kNoParent;
    std::size_t resume_at = length;  // where the old trace continues after best_node

    auto consider = [&](uint32_t node, std::size_t depth) {
      const State& s = nodes[node].state;
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
      return visited.insert(canonical).second;
    };

    for (const State& s : model_.initial_states()) {
      const bool is_new = admit(s);
      if (!is_new && position.find(s) == position.end()) continue;
      nodes.push_back(Node{s, kNoParent, is_new, Action{}});
      consider(static_cast<uint32_t>(nodes.size() - 1), 0);
    }
    std::size_t level_begin = 0;
    bool completed = false;
    for (std::size_t depth = 0;; ++depth) {
      // Every state at depth <= `depth` has been checked: nothing shorter than
      // best_length exists once depth + 1 reaches it.
      if (depth + 1 >= best_length) {
        completed = true;
        break;
      }
      const std::size_t level_end = nodes.size();
      if (level_begin == level_end) {
        completed = true;  // the reachable space ends before the bound
        break;
      }
      bool stopped = false;
      for (std::size_t n = level_begin; n < level_end; ++n) {
        if (stats_.bfs_states >= options_.bfs_max_states || out_of_budget()) {
          stopped = true;
          break;
        }
        if (!nodes[n].expand) continue;
        const State parent_state = nodes[n].state;
        model_.for_each_action(parent_state, [&](const Action& a) {
          State next = model_.next_state(parent_state, a);
          const bool is_new = admit(next);
          if (!is_new && position.find(next) == position.end()) return;
          nodes.push_back(Node{next, static_cast<uint32_t>(n), is_new, a});
          ++stats_.bfs_states;
          consider(static_cast<uint32_t>(nodes.size() - 1), depth + 1);
        });
      }
      if (stopped) break;
      level_begin = level_end;
    }

    if (best_node != kNoParent) {
      ActionTrace<M> candidate = path_to(nodes, best_node);
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
