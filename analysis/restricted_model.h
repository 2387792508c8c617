// The partition model with some of its actions held back: the scenarios the analyses
// ask about ("after f failures and no restart", "faults only once a record is
// acknowledged by the full ISR") are filters on the enabled actions, never changes to
// the model.
//
// Every path of a restricted model is a path of the partition model (the filter only
// removes actions, the states and transitions are the model's), so a trace found on it
// replays on the unrestricted model of the same configuration with `isrcheck replay`,
// and the engines (checker/bfs/bfs.h, checker/graph/state_graph.h) run on it unchanged. What a
// restriction costs is generality: a verdict "holds" is a verdict about the restricted
// executions only, and each restriction says which ones it keeps.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/model.h"
#include "spec/partition/partition_model.h"

namespace isr::analysis {

// `Allow` is a functor `bool(const spec::Config&, const spec::State&, const spec::Action&)`:
// whether the action, enabled in the state, is kept.
template <class Allow>
class RestrictedModel {
 public:
  using State = spec::State;
  using Action = spec::Action;
  using Property = checker::Property<State, RestrictedModel>;

  RestrictedModel(const spec::Config& config, Allow allow) : inner_(config), allow_(std::move(allow)) {
    // The properties are the model's, judged on the same states. A property is a plain
    // function pointer, so the i-th one forwards to the model's i-th (holds_at<i>).
    const auto& inner = inner_.properties();
    if (inner.size() > kMaxProperties) throw std::logic_error("RestrictedModel: raise kMaxProperties");
    for (size_t i = 0; i < inner.size(); ++i) {
      properties_.push_back(Property{inner[i].name, inner[i].description, kForwarders[i]});
    }
  }

  // The same restriction, judged by `properties` instead of the model's (a premise that
  // also narrows what is checked, e.g. "the write acknowledged by the full ISR" of the
  // copies-lost analysis, analysis/verify.cc). A violation of one of them must also
  // violate the model's property of the same name, so that its trace replays on the
  // unrestricted model.
  RestrictedModel(const spec::Config& config, Allow allow, std::vector<Property> properties)
      : inner_(config), allow_(std::move(allow)), properties_(std::move(properties)) {}

  const spec::PartitionModel& inner() const { return inner_; }
  const spec::Config& config() const { return inner_.config(); }

  std::vector<State> initial_states() const { return inner_.initial_states(); }

  template <class Sink>
  void for_each_action(const State& s, Sink&& sink) const {
    inner_.for_each_action(s, [&](const Action& a) {
      if (allow_(inner_.config(), s, a)) sink(a);
    });
  }

  State next_state(const State& s, const Action& a) const { return inner_.next_state(s, a); }
  const std::vector<Property>& properties() const { return properties_; }
  void canonicalize(State& s) const { inner_.canonicalize(s); }
  std::string action_name(const Action& a) const { return inner_.action_name(a); }
  std::string_view action_kind(const Action& a) const { return inner_.action_kind(a); }
  std::vector<std::string_view> action_kinds() const { return inner_.action_kinds(); }
  nlohmann::json action_to_json(const Action& a) const { return inner_.action_to_json(a); }
  nlohmann::json state_to_json(const State& s) const { return inner_.state_to_json(s); }
  nlohmann::json config_json() const { return inner_.config_json(); }
  std::vector<std::string_view> bound_names() const { return inner_.bound_names(); }
  uint32_t bounds_hit(const State& s) const { return inner_.bounds_hit(s); }
  // Partial-order reduction (checker/por.h): an action the model declares irrelevant
  // stays irrelevant here. It writes only state that no guard, effect or property reads
  // on any path of the model, and a restriction only removes paths.
  bool por_irrelevant(const State& s, const Action& a) const { return inner_.por_irrelevant(s, a); }
  void por_clear_dead(State& s) const { inner_.por_clear_dead(s); }

 private:
  static constexpr size_t kMaxProperties = 32;  // more than the catalogue has

  template <size_t I>
  static bool holds_at(const RestrictedModel& m, const State& s) {
    return m.inner_.properties()[I].holds(m.inner_, s);
  }
  template <size_t... I>
  static constexpr std::array<bool (*)(const RestrictedModel&, const State&), sizeof...(I)> forwarders(
      std::index_sequence<I...>) {
    return {&holds_at<I>...};
  }
  static constexpr auto kForwarders = forwarders(std::make_index_sequence<kMaxProperties>{});

  spec::PartitionModel inner_;
  Allow allow_;
  std::vector<Property> properties_;
};

}  // namespace isr::analysis
