// A breadth-first search constrained by a sequence of events: is a recorded behaviour one
// of the model's? (trace validation, as Cirstea, Kuppe, Loillier and Merz check real
// executions against TLA+ specifications, arXiv 2404.16075).
//
// The events come in groups, each a set of constraints whose order among themselves is
// unknown (a group of one is an ordinary next event), except where a constraint names
// the members of its group that must be met before it (`after`: a partial order, such as
// two chains whose interleaving alone is unknown). A constraint is either
//   - Take: the next action must be an external action it matches (a fault the recording
//     injected, a client operation), or
//   - Observe: the state reached must satisfy it (a recorded observation).
// Between two constraints any number of *internal* actions (the system's own steps) up to
// `max_internal` may run. The search keeps, per constraint, every distinct state that
// explains the events so far (not one guess), so the recording is explained exactly when
// some path of the model matches it within the bound; when none does, it reports the
// constraint that no state reached could meet, and the states reached just before it.
//
// Generic over any checker::Model: what is internal, what an event matches and what an
// observation means are the caller's (for Kafka, analysis/trace_validation.h).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <unordered_set>
#include <utility>
#include <vector>

#include "checker/model.h"
#include "checker/store/fingerprint.h"

namespace isr::checker {

template <Model M>
struct Constraint {
  enum class Kind { Take, Observe };
  Kind kind = Kind::Observe;
  // Take: whether `action`, enabled in `state`, is the recorded event.
  std::function<bool(const typename M::State& state, const typename M::Action& action)> matches;
  // Observe: whether `state` shows what was recorded. Take: when set, the constraint is
  // also met without an action in a state where it holds (a recorded call that may have
  // had no step of the model, such as a send that never left the client).
  std::function<bool(const typename M::State& state)> holds;
  // The members of its group (bit i: the group's constraint i) that must be met before it.
  std::uint64_t after = 0;
};

struct ConstrainedSearchLimits {
  int max_internal = 16;               // internal actions between two constraints
  std::size_t max_states = 1'000'000;  // states kept (path nodes) before giving up: incomplete
  const std::atomic<bool>* stop = nullptr;  // set by a signal handler: incomplete
};

template <Model M>
struct ConstrainedSearchResult {
  enum class Outcome { Explained, Unexplained, Incomplete };
  Outcome outcome = Outcome::Incomplete;
  // Unexplained / Incomplete: the group and how many of its constraints every state
  // reached had matched (the failing constraint is one of the others).
  std::size_t group = 0;
  std::size_t matched_in_group = 0;
  // Unexplained: the states reached before the failing constraint (up to
  // `max_internal` internal steps after the last constraint met), at most kNearestKept
  // of them, and how many there were; with the mask of the group's constraints each met.
  std::vector<std::pair<typename M::State, std::uint64_t>> nearest;
  std::size_t nearest_count = 0;
  // Explained: one path that matches every constraint, the initial state first.
  std::vector<typename M::State> states;
  std::vector<typename M::Action> actions;
  std::size_t states_kept = 0;  // path nodes stored
  // Per constraint met, in order: the states that explained the events before it and the
  // states their internal closure reached (the work the search did there).
  std::vector<std::pair<std::size_t, std::size_t>> rounds;
  static constexpr std::size_t kNearestKept = 4096;
};

// `key(state, g)` is the fingerprint two states share when no event from group g on can
// tell them apart (the caller knows the events still to come: a component no remaining
// event reads is dead, and states that differ only there need one search); the search
// keeps one of them, a real state, so the path it reports is a real path.
template <Model M, class IsInternal, class Key>
ConstrainedSearchResult<M> constrained_search(const M& model, const std::vector<std::vector<Constraint<M>>>& groups,
                                              IsInternal&& is_internal, const ConstrainedSearchLimits& limits,
                                              Key&& key) {
  using State = typename M::State;
  using Action = typename M::Action;
  using Result = ConstrainedSearchResult<M>;
  struct Node {
    State state;
    long parent;
    Action action;
  };
  // A state together with which constraints of the current group it has met.
  struct Entry {
    long node;
    std::uint64_t mask;
  };
  struct KeyHash {
    std::size_t operator()(const std::pair<Fingerprint, std::uint64_t>& k) const {
      return static_cast<std::size_t>(k.first ^ (k.second * 0x9E3779B97F4A7C15ull));
    }
  };
  using Seen = std::unordered_set<std::pair<Fingerprint, std::uint64_t>, KeyHash>;

  Result result;
  std::vector<Node> nodes;
  std::vector<Entry> layer;
  {
    Seen seen;
    for (const State& s : model.initial_states()) {
      if (!seen.insert({key(s, 0), 0}).second) continue;
      nodes.push_back({s, -1, Action{}});
      layer.push_back({static_cast<long>(nodes.size()) - 1, 0});
    }
  }
  auto stopped = [&] { return limits.stop != nullptr && limits.stop->load(); };
  // Reused buffers: no allocation per state once they have grown.
  std::vector<Action> actions;
  auto enabled = [&](const State& s, std::vector<Action>& out) {
    out.clear();
    model.for_each_action(s, [&](const Action& a) { out.push_back(a); });
  };
  if (layer.empty()) return result;  // no initial state: nothing to explain with

  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto& group = groups[g];
    const std::uint64_t full = group.size() >= 64 ? ~0ull : (1ull << group.size()) - 1;
    for (std::size_t round = 0; round < group.size(); ++round) {
      result.group = g;
      result.matched_in_group = round;
      // The internal closure of the layer: every state within max_internal internal steps.
      Seen seen;
      std::vector<Entry> closure;
      std::vector<std::pair<Entry, int>> queue;
      for (const Entry& e : layer) {
        if (seen.insert({key(nodes[e.node].state, g), e.mask}).second) queue.push_back({e, 0});
      }
      for (std::size_t head = 0; head < queue.size(); ++head) {
        const auto [e, depth] = queue[head];
        closure.push_back(e);
        if (depth >= limits.max_internal) continue;
        if (stopped() || nodes.size() >= limits.max_states) {
          result.states_kept = nodes.size();
          return result;  // Incomplete
        }
        enabled(nodes[e.node].state, actions);
        for (const Action& a : actions) {
          if (!is_internal(a)) continue;
          State next = model.next_state(nodes[e.node].state, a);
          if (!seen.insert({key(next, g), e.mask}).second) continue;
          nodes.push_back({next, e.node, a});
          queue.push_back({{static_cast<long>(nodes.size()) - 1, e.mask}, depth + 1});
        }
      }
      // One more constraint of the group met, in any order among the group's.
      Seen next_seen;
      std::vector<Entry> next_layer;
      for (const Entry& e : closure) {
        if (stopped() || nodes.size() >= limits.max_states) {
          result.states_kept = nodes.size();
          return result;  // Incomplete
        }
        const State s = nodes[e.node].state;
        bool actions_listed = false;
        for (std::size_t i = 0; i < group.size(); ++i) {
          const std::uint64_t bit = 1ull << i;
          if (e.mask & bit) continue;
          const Constraint<M>& c = group[i];
          if ((e.mask & c.after) != c.after) continue;  // a constraint it must follow is not met yet
          if (c.kind == Constraint<M>::Kind::Observe) {
            if (c.holds(s) && next_seen.insert({key(s, g), e.mask | bit}).second) {
              next_layer.push_back({e.node, e.mask | bit});
            }
            continue;
          }
          if (c.holds && c.holds(s) && next_seen.insert({key(s, g), e.mask | bit}).second) {
            next_layer.push_back({e.node, e.mask | bit});
          }
          if (!actions_listed) {
            enabled(s, actions);
            actions_listed = true;
          }
          for (const Action& a : actions) {
            if (is_internal(a) || !c.matches(s, a)) continue;
            State next = model.next_state(s, a);
            if (!next_seen.insert({key(next, g), e.mask | bit}).second) continue;
            nodes.push_back({next, e.node, a});
            next_layer.push_back({static_cast<long>(nodes.size()) - 1, e.mask | bit});
          }
        }
      }
      result.rounds.push_back({layer.size(), closure.size()});
      if (next_layer.empty()) {
        result.outcome = Result::Outcome::Unexplained;
        result.nearest_count = closure.size();
        for (std::size_t i = 0; i < closure.size() && i < Result::kNearestKept; ++i) {
          result.nearest.push_back({nodes[closure[i].node].state, closure[i].mask});
        }
        result.states_kept = nodes.size();
        return result;
      }
      layer = std::move(next_layer);
    }
    // The group is done: masks start again from none for the next one.
    for (Entry& e : layer) {
      if (e.mask == full) e.mask = 0;
    }
  }
  result.outcome = Result::Outcome::Explained;
  result.group = groups.size();
  result.states_kept = nodes.size();
  std::vector<long> path;
  for (long at = layer.front().node; at >= 0; at = nodes[at].parent) path.push_back(at);
  for (std::size_t i = path.size(); i-- > 0;) {
    result.states.push_back(nodes[path[i]].state);
    if (i + 1 < path.size()) result.actions.push_back(nodes[path[i]].action);
  }
  return result;
}

// Without knowledge of the events to come: states are told apart by their bytes.
template <Model M, class IsInternal>
ConstrainedSearchResult<M> constrained_search(const M& model, const std::vector<std::vector<Constraint<M>>>& groups,
                                              IsInternal&& is_internal, const ConstrainedSearchLimits& limits) {
  return constrained_search(model, groups, is_internal, limits,
                            [](const typename M::State& s, std::size_t) { return fingerprint(s); });
}

}  // namespace isr::checker
