// A counterexample: a real execution of the model from an initial state to a state
// violating a property, and the way engines rebuild it from compact indices.
//
// Engines do not store states along paths; they store, per state, the position of its
// action in for_each_action order (and, for the first state, its position in
// initial_states()). Re-executing those indices reproduces the exact states, with the
// real node identities (never a symmetry-relabelled representative).
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "checker/model.h"

namespace isr::checker {

template <class M>
struct Counterexample {
  std::string property;                    // name of the violated property
  std::vector<typename M::State> states;   // states[0] is initial
  std::vector<typename M::Action> actions; // states[i + 1] = next_state(states[i], actions[i])
  uint32_t initial_index = 0;              // position of states[0] in initial_states()
  std::vector<uint32_t> action_indices;    // position of actions[i] in for_each_action(states[i])

  bool empty() const { return states.empty(); }
};

// The action at position `index` in for_each_action(state) order, if any.
template <Model M>
std::optional<typename M::Action> action_at(const M& model, const typename M::State& state,
                                            uint32_t index) {
  std::optional<typename M::Action> found;
  uint32_t position = 0;
  model.for_each_action(state, [&](const typename M::Action& a) {
    if (position++ == index) found = a;
  });
  return found;
}

// Re-executes a path given by indices. Throws std::out_of_range when an index names no
// initial state or no enabled action (the model changed, or the path is corrupt).
template <Model M>
Counterexample<M> execute_path(const M& model, uint32_t initial_index,
                               const std::vector<uint32_t>& action_indices) {
  Counterexample<M> path;
  const auto initial = model.initial_states();
  if (initial_index >= initial.size()) throw std::out_of_range("execute_path: no such initial state");
  path.initial_index = initial_index;
  path.action_indices = action_indices;
  path.states.push_back(initial[initial_index]);
  for (const uint32_t index : action_indices) {
    const auto action = action_at(model, path.states.back(), index);
    if (!action) throw std::out_of_range("execute_path: no enabled action at index " + std::to_string(index));
    path.actions.push_back(*action);
    path.states.push_back(model.next_state(path.states.back(), *action));
  }
  return path;
}

template <class State>
bool same_bytes(const State& a, const State& b) {
  return std::memcmp(&a, &b, sizeof(State)) == 0;
}

}  // namespace isr::checker
