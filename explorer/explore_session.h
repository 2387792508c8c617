// One model's side of `isrcheck explore`: replaying a position (explore_path.h) from an
// initial state, the view of the state reached, and the position of a loaded trace.
//
// Written against checker::Model only, so that every model of spec/models.h is explored
// the same way. The state is shown by the renderers of counterexamples/render, which read
// the trace format: the path so far is turned into a trace (the model's own
// state_to_json / action_to_json) and its last step rendered, exactly as `render` prints
// a counterexample's step. Nothing here is on an engine's hot path: a request replays
// its path from the start (a path is a few dozen steps; no state is kept between
// requests, so any URL works in any order, from any browser).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/model.h"
#include "counterexamples/render/render.h"
#include "counterexamples/trace/json_diff.h"
#include "counterexamples/trace/trace_model.h"
#include "counterexamples/trace/trace_writer.h"
#include "explorer/explore_site.h"
#include "spec/common/listing.h"

namespace isr::explorer {

template <checker::Model M>
class Session final : public Explorer {
 public:
  using State = typename M::State;
  using Action = typename M::Action;

  // `meanings`: the model's action kinds in Kafka's terms (its `list actions` rows).
  Session(const M& model, std::string model_name, const std::vector<spec::NameRow>& meanings)
      : model_(model), model_name_(std::move(model_name)), config_(model.config_json()),
        initial_(model.initial_states()) {
    for (const spec::NameRow& row : meanings) meanings_[std::string(row.name)] = std::string(row.description);
  }

  // The states along a position's whole path (forward steps too, so that a forward link
  // is checked before it is shown) and the actions between them.
  struct Walk {
    std::vector<State> states;
    std::vector<Action> actions;
  };

  Walk walk(const Position& position) const {
    if (position.initial < 0 || static_cast<std::size_t>(position.initial) >= initial_.size()) {
      throw PathError("init", "the model has " + std::to_string(initial_.size()) + " initial state" +
                                  (initial_.size() == 1 ? "" : "s") + "; expected 0 to " +
                                  std::to_string(initial_.size() - 1) + ", got " + std::to_string(position.initial));
    }
    Walk w;
    w.states.push_back(initial_[static_cast<std::size_t>(position.initial)]);
    for (std::size_t i = 0; i < position.steps.size(); ++i) {
      const std::vector<Action> enabled = enabled_actions(w.states.back());
      const Action action = resolve(enabled, position.steps[i], i + 1);
      w.actions.push_back(action);
      w.states.push_back(model_.next_state(w.states.back(), action));
    }
    return w;
  }

  StateView view(const Position& position) const override {
    if (position.at > position.steps.size()) {
      throw PathError("at", "expected the number of steps taken, 0 to " + std::to_string(position.steps.size()) +
                                ", got " + std::to_string(position.at));
    }
    const Walk w = walk(position);
    const std::size_t at = position.at;
    const State& state = w.states[at];
    StateView v;
    v.model = model_name_;
    v.config_json = config_.dump(2);
    v.position = position;
    for (const Action& a : w.actions) v.step_names.push_back(model_.action_name(a));

    const nlohmann::json trace = trace_of(w, at);
    v.state_html = counterexamples::render_step_html(trace, at);
    v.mermaid = counterexamples::render_mermaid(trace, /*ends_in_violation=*/false);

    const std::vector<Action> enabled = enabled_actions(state);
    const std::vector<std::string> names = names_of(enabled);
    for (std::size_t i = 0; i < enabled.size(); ++i) {
      Position next{position.initial, {position.steps.begin(), position.steps.begin() + static_cast<std::ptrdiff_t>(at)}, at + 1};
      next.steps.push_back(step_for(names[i], i, unique(names, i)));
      const std::string kind(model_.action_kind(enabled[i]));
      const auto meaning = meanings_.find(kind);
      v.actions.push_back({names[i], kind, meaning == meanings_.end() ? std::string() : meaning->second,
                           position_url(next)});
    }
    for (const auto& p : model_.properties()) {
      v.properties.push_back({std::string(p.name), std::string(p.description), p.holds(model_, state)});
    }
    return v;
  }

  Position position_of_trace(const nlohmann::json& trace) const override {
    try {
      // The one trace reader (counterexamples/trace/trace_model.h): also of the model and
      // configuration it names, with that model's action kinds.
      counterexamples::check_trace_of_model(trace);
    } catch (const counterexamples::TraceFormatError& e) {
      throw PathError(e.field, e.message);
    }
    const std::string model = trace.at("model").get<std::string>();
    if (model != model_name_) {
      throw PathError("model", "the trace is of model \"" + model + "\"; this explorer explores model \"" +
                                   model_name_ + "\" (start one with --trace FILE to explore the trace's own)");
    }
    if (trace.at("config") != config_) {
      throw PathError("config", "the trace was found under another configuration than this explorer's (start one "
                                "with --trace FILE to explore the trace's own); the fields that differ (trace, "
                                "then explorer):\n" +
                                    counterexamples::json_diff_report(trace.at("config"), config_).dump(2));
    }
    const nlohmann::json& steps = trace.at("steps");
    Position position;
    position.initial = -1;
    for (std::size_t i = 0; i < initial_.size() && position.initial < 0; ++i) {
      if (model_.state_to_json(initial_[i]) == steps[0].at("state")) position.initial = static_cast<int>(i);
    }
    if (position.initial < 0) {
      throw PathError("steps[0].state", "not an initial state of the model (does the trace replay? `isrcheck replay`)");
    }
    State state = initial_[static_cast<std::size_t>(position.initial)];
    for (std::size_t i = 1; i < steps.size(); ++i) {
      const std::string field = "steps[" + std::to_string(i) + "]";
      const std::vector<Action> enabled = enabled_actions(state);
      std::size_t chosen = enabled.size();
      for (std::size_t k = 0; k < enabled.size() && chosen == enabled.size(); ++k) {
        if (model_.action_to_json(enabled[k]) == steps[i].at("action")) chosen = k;
      }
      if (chosen == enabled.size()) {
        throw PathError(field + ".action", counterexamples::step_action_name(steps[i]) + " is not enabled after step " +
                                               std::to_string(i - 1) + "; enabled: " + list(names_of(enabled)));
      }
      state = model_.next_state(state, enabled[chosen]);
      if (model_.state_to_json(state) != steps[i].at("state")) {
        throw PathError(field + ".state", "the action leads to another state than the recorded one "
                                          "(`isrcheck replay` says where they differ)");
      }
      const std::vector<std::string> names = names_of(enabled);
      position.steps.push_back(step_for(names[chosen], chosen, unique(names, chosen)));
    }
    position.at = 0;
    return position;
  }

  nlohmann::json path_trace(const Position& position) const override {
    if (position.at > position.steps.size()) {
      throw PathError("at", "expected the number of steps taken, 0 to " + std::to_string(position.steps.size()) +
                                ", got " + std::to_string(position.at));
    }
    return trace_of(walk(position), position.at);
  }

  // The trace of the first `at` steps of a walk; its property is one the last state
  // violates, if any (the renderers name it), else the model's first.
  nlohmann::json trace_of(const Walk& w, std::size_t at) const {
    nlohmann::json steps = nlohmann::json::array();
    for (std::size_t i = 0; i <= at; ++i) {
      nlohmann::json step = {{"index", i}};
      step["action"] = i == 0 ? nlohmann::json(nullptr) : model_.action_to_json(w.actions[i - 1]);
      step["action_name"] = i == 0 ? std::string("Init") : model_.action_name(w.actions[i - 1]);
      step["state"] = model_.state_to_json(w.states[i]);
      steps.push_back(std::move(step));
    }
    const auto& properties = model_.properties();
    const checker::Property<State, M>* shown = properties.empty() ? nullptr : &properties.front();
    for (const auto& p : properties) {
      if (!p.holds(model_, w.states[at])) {
        shown = &p;
        break;
      }
    }
    const std::string_view property = shown != nullptr ? shown->name : std::string_view();
    const std::string_view description = shown != nullptr ? shown->description : std::string_view();
    return counterexamples::make_trace(model_name_, config_, property, description, "explore", std::move(steps));
  }

 private:
  std::vector<Action> enabled_actions(const State& state) const {
    std::vector<Action> enabled;
    model_.for_each_action(state, [&](const Action& a) { enabled.push_back(a); });
    return enabled;
  }

  std::vector<std::string> names_of(const std::vector<Action>& actions) const {
    std::vector<std::string> names;
    for (const Action& a : actions) names.push_back(model_.action_name(a));
    return names;
  }

  static bool unique(const std::vector<std::string>& names, std::size_t i) {
    for (std::size_t k = 0; k < names.size(); ++k) {
      if (k != i && names[k] == names[i]) return false;
    }
    return true;
  }

  static std::string list(const std::vector<std::string>& names) {
    if (names.empty()) return "none";
    std::string text;
    for (std::size_t i = 0; i < names.size(); ++i) text += (i == 0 ? "" : ", ") + std::to_string(i) + " " + names[i];
    return text;
  }

  // Step `number` (1-based) of a path: an index among the enabled actions, or a name
  // exactly one of them has.
  Action resolve(const std::vector<Action>& enabled, const std::string& step, std::size_t number) const {
    const std::string where = "step " + std::to_string(number) + " (\"" + step + "\")";
    if (is_index_step(step)) {
      std::size_t index = enabled.size();
      if (step.size() <= 6) index = std::stoul(step);
      if (index >= enabled.size()) {
        throw PathError("path", where + ": there are " + std::to_string(enabled.size()) +
                                    " enabled actions here, indexed from 0: " + list(names_of(enabled)));
      }
      return enabled[index];
    }
    const std::vector<std::string> names = names_of(enabled);
    const Action* found = nullptr;
    for (std::size_t i = 0; i < enabled.size(); ++i) {
      if (names[i] != step) continue;
      if (found != nullptr) {
        throw PathError("path", where + ": two enabled actions have this name; give its index instead: " +
                                    list(names));
      }
      found = &enabled[i];
    }
    if (found == nullptr) {
      throw PathError("path", where + " is not enabled here; enabled: " + list(names));
    }
    return *found;
  }

  const M& model_;
  std::string model_name_;
  nlohmann::json config_;
  std::vector<State> initial_;
  std::map<std::string, std::string> meanings_;
};

}  // namespace isr::explorer
