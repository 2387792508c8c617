// What every model shares, written once: its configuration, the properties it checks,
// for_each_action over a fixed buffer that the model's enabled_actions fills, and the
// people-facing half of checker::Model (model.h) read from the model's table of words.
//
// A model derives from ModelBase<Itself, Config, State, Action, kMaxActions> (CRTP),
// declares its behaviour (initial_states, enabled_actions, next_state, canonicalize: the
// hot path, called directly) and hands the base its ModelWords: the descriptions
// (action names and kinds, JSON of actions, states and configuration, the bounds a
// state reached), defined together in the model's describe file. The header of a model
// then says only what is particular to it, and the descriptions, which engines call
// for traces, reports and coverage (bounds_hit once per new state), cost one indirect
// call.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/model.h"

namespace isr::checker {

// A model's descriptions (model.h), each a function of the model and its argument.
template <class Model, class State, class Action>
struct ModelWords {
  std::string (*action_name)(const Model&, const Action&);          // "Crash(node=2, kill)"
  std::string_view (*action_kind)(const Model&, const Action&);     // "Crash"
  std::vector<std::string_view> (*action_kinds)(const Model&);      // every kind the model has
  nlohmann::json (*action_to_json)(const Model&, const Action&);
  nlohmann::json (*state_to_json)(const Model&, const State&);
  nlohmann::json (*config_json)(const Model&);                      // the resolved configuration
  // The exploration bounds the model has, and which of them (bit i: bound_names()[i]) a
  // state has reached: the "bounds reached" of a HOLDS verdict.
  std::vector<std::string_view> (*bound_names)(const Model&);
  uint32_t (*bounds_hit)(const Model&, const State&);
};

template <class Derived, class ConfigT, class StateT, class ActionT, int kMaxActions>
class ModelBase {
 public:
  using State = StateT;
  using Action = ActionT;
  using Property = checker::Property<State, Derived>;
  using Words = ModelWords<Derived, StateT, ActionT>;

  // Upper bound on the actions enabled in one state (the buffer for_each_action fills).
  static constexpr int kMaxEnabled = kMaxActions;

  const ConfigT& config() const { return config_; }
  const std::vector<Property>& properties() const { return properties_; }

  // Calls the sink once per enabled action, in the model's fixed order, without
  // allocating: Derived::enabled_actions(state, buffer) fills the buffer, returns the count.
  template <class Sink>
  void for_each_action(const State& s, Sink&& sink) const {
    std::array<Action, kMaxActions> buffer;
    const int n = static_cast<const Derived&>(*this).enabled_actions(s, buffer.data());
    for (int i = 0; i < n; ++i) sink(buffer[i]);
  }

  std::string action_name(const Action& a) const { return words_->action_name(self(), a); }
  std::string_view action_kind(const Action& a) const { return words_->action_kind(self(), a); }
  std::vector<std::string_view> action_kinds() const { return words_->action_kinds(self()); }
  nlohmann::json action_to_json(const Action& a) const { return words_->action_to_json(self(), a); }
  nlohmann::json state_to_json(const State& s) const { return words_->state_to_json(self(), s); }
  nlohmann::json config_json() const { return words_->config_json(self()); }
  std::vector<std::string_view> bound_names() const { return words_->bound_names(self()); }
  uint32_t bounds_hit(const State& s) const { return words_->bounds_hit(self(), s); }

 protected:
  ModelBase(ConfigT config, const Words& words) : config_(std::move(config)), words_(&words) {}

  ConfigT config_;
  std::vector<Property> properties_;  // filled by the derived constructor

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }

  const Words* words_;
};

}  // namespace isr::checker
