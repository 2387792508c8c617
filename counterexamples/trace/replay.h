// Replaying a trace against a model: does the model, rebuilt from the trace's
// configuration, still take exactly these steps and end in a violation?
//
// Model-agnostic: a template over any checker::Model. Step 0's state must be one of the
// model's initial states; for every later step the recorded action must be enabled (it
// is found by comparing action_to_json, not by position, so a trace survives changes in
// action order) and must lead to the recorded state; the last state must violate the
// recorded property. A state that matches only after canonicalize is accepted: engines
// with symmetry reduction may record orbit representatives.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/model.h"
#include "counterexamples/trace/json_diff.h"
#include "counterexamples/trace/trace_reader.h"

namespace isr::counterexamples {

struct ReplayResult {
  bool reproduced = false;
  int steps = 0;          // steps after the initial state
  int diverged_at = -1;   // index of the first step that does not replay, or -1
  std::string property;
  // When diverged: what was expected (the trace) against what the model does.
  std::string explanation;
  nlohmann::json state_diff;  // {"path": {"expected": .., "found": ..}} when a state differs
  std::vector<std::string> enabled_actions;  // names, when the recorded action was not enabled

  // "reproduced: 5 steps, property no-acked-loss violated at step 5", or the divergence.
  std::string summary() const;
};

inline std::string ReplayResult::summary() const {
  if (reproduced) {
    return "reproduced: " + std::to_string(steps) + " steps, property " + property +
           " violated at step " + std::to_string(steps);
  }
  std::string text = "diverged at step " + std::to_string(diverged_at) + ": " + explanation;
  if (!enabled_actions.empty()) {
    text += "\nenabled actions:";
    for (const std::string& name : enabled_actions) text += "\n  " + name;
  }
  if (!state_diff.empty()) text += "\nstate fields that differ:\n" + state_diff.dump(2);
  return text;
}

// What replay judges at the end of the steps. A witness that is not a property violation
// (an availability witness ends in a state the availability analysis classifies) is
// replayed step by step only; its "property" names what it witnesses.
enum class ReplayEnd { PropertyViolated, StepsOnly };

// Throws TraceFormatError when the trace is malformed (check_trace) or, when the end is
// judged, names a property the model does not check.
template <checker::Model M>
ReplayResult replay_trace(const M& model, const nlohmann::json& trace,
                          ReplayEnd end = ReplayEnd::PropertyViolated) {
  using State = typename M::State;
  using Action = typename M::Action;
  check_trace(trace);
  const nlohmann::json& steps = trace.at("steps");

  ReplayResult result;
  result.property = trace.at("property").template get<std::string>();
  result.steps = static_cast<int>(steps.size()) - 1;

  const auto& properties = model.properties();
  const checker::Property<State, M>* property = nullptr;
  std::string allowed;
  for (const auto& p : properties) {
    if (p.name == result.property) property = &p;
    allowed += (allowed.empty() ? "" : ", ") + std::string(p.name);
  }
  if (property == nullptr && end == ReplayEnd::PropertyViolated) {
    throw TraceFormatError("property", "\"" + result.property +
                                           "\" is not checked under this configuration; allowed: " +
                                           allowed);
  }

  auto diverge = [&](int index, std::string explanation) {
    result.diverged_at = index;
    result.explanation = std::move(explanation);
    return result;
  };
  // Exact first; then the orbit representative (see the comment at the top).
  auto matches = [&](State& candidate, const nlohmann::json& recorded) {
    if (model.state_to_json(candidate) == recorded) return true;
    State canonical = candidate;
    model.canonicalize(canonical);
    if (model.state_to_json(canonical) != recorded) return false;
    candidate = canonical;
    return true;
  };

  // Step 0: one of the initial states.
  const std::vector<State> initial = model.initial_states();
  State current{};
  bool found = false;
  for (State candidate : initial) {
    if (matches(candidate, steps[0].at("state"))) {
      current = candidate;
      found = true;
      break;
    }
  }
  if (!found) {
    if (!initial.empty()) {
      result.state_diff = json_diff_report(steps[0].at("state"), model.state_to_json(initial[0]));
    }
    return diverge(0, "the recorded initial state is not an initial state of the model (" +
                          std::to_string(initial.size()) + " initial states; compared with the first)");
  }

  for (size_t i = 1; i < steps.size(); ++i) {
    const nlohmann::json& recorded_action = steps[i].at("action");
    const std::string name = step_action_name(steps[i]);
    std::vector<Action> enabled;
    model.for_each_action(current, [&](const Action& a) { enabled.push_back(a); });
    const Action* chosen = nullptr;
    for (const Action& a : enabled) {
      if (model.action_to_json(a) == recorded_action) {
        chosen = &a;
        break;
      }
    }
    if (chosen == nullptr) {
      for (const Action& a : enabled) result.enabled_actions.push_back(model.action_name(a));
      return diverge(static_cast<int>(i), "expected action " + name + " (" + recorded_action.dump() +
                                              ") is not enabled after step " + std::to_string(i - 1));
    }
    State next = model.next_state(current, *chosen);
    if (!matches(next, steps[i].at("state"))) {
      result.state_diff = json_diff_report(steps[i].at("state"), model.state_to_json(next));
      return diverge(static_cast<int>(i), "action " + name +
                                              " leads to a different state than the recorded one");
    }
    current = next;
  }

  if (end == ReplayEnd::PropertyViolated && property->holds(model, current)) {
    return diverge(result.steps, "property " + result.property +
                                     " holds in the final state: the trace shows no violation");
  }
  result.reproduced = true;
  return result;
}

}  // namespace isr::counterexamples
