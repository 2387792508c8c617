// What every model shares, written once: its configuration, the properties it checks,
// and for_each_action over a fixed buffer that the model's enabled_actions fills.
//
// A model derives from ModelBase<Itself, Config, State, Action, kMaxActions> (CRTP) and
// declares the rest of checker::Model (model.h): initial states, enabled_actions,
// next_state, canonicalize and the people-facing descriptions.
#pragma once

#include <array>
#include <utility>
#include <vector>

#include "checker/model.h"

namespace isr::checker {

template <class Derived, class ConfigT, class StateT, class ActionT, int kMaxActions>
class ModelBase {
 public:
  using State = StateT;
  using Action = ActionT;
  using Property = checker::Property<State, Derived>;

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

 protected:
  explicit ModelBase(ConfigT config) : config_(std::move(config)) {}

  ConfigT config_;
  std::vector<Property> properties_;  // filled by the derived constructor
};

}  // namespace isr::checker
