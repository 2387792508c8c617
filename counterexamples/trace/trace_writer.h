// Building trace JSON (format v1, docs/trace-format.md) from an engine's counterexample.
//
// Model-agnostic: the steps are the model's own state_to_json / action_to_json, so any
// checker::Model can produce traces; `model_name` says which model to rebuild on replay.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "checker/counterexample.h"
#include "checker/model.h"

namespace isr::counterexamples {

// The top-level object around `steps` (format, version, model, config, property, engine).
nlohmann::json make_trace(std::string_view model_name, nlohmann::json config,
                          std::string_view property, std::string_view property_description,
                          std::string_view engine, nlohmann::json steps);

// The trace of a counterexample. `engine` is "bfs" or "simulate".
template <checker::Model M>
nlohmann::json trace_to_json(const M& model, const checker::Counterexample<M>& counterexample,
                             std::string_view engine, std::string_view model_name = "partition") {
  std::string_view description;
  for (const auto& p : model.properties()) {
    if (p.name == counterexample.property) description = p.description;
  }
  nlohmann::json steps = nlohmann::json::array();
  for (std::size_t i = 0; i < counterexample.states.size(); ++i) {
    nlohmann::json step = {{"index", i}};
    if (i == 0) {
      step["action"] = nullptr;
      step["action_name"] = "Init";
    } else {
      step["action"] = model.action_to_json(counterexample.actions[i - 1]);
      step["action_name"] = model.action_name(counterexample.actions[i - 1]);
    }
    step["state"] = model.state_to_json(counterexample.states[i]);
    steps.push_back(std::move(step));
  }
  return make_trace(model_name, model.config_json(), counterexample.property, description, engine,
                    std::move(steps));
}

}  // namespace isr::counterexamples
