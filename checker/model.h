// The contract between a model and the engines that explore it.
//
// Like Stateright's `Model` trait: a model says what its initial states are, which
// actions are enabled in a state (in a fixed, deterministic order), what the next state
// is, and which named properties must hold. Engines in checker/ are written against this
// concept only, so nothing in checker/ knows Kafka (or any other protocol).
//
// Performance contract (the hot path of every engine):
//   - State and Action are trivially copyable values with no padding, so that a state is
//     hashed as its bytes and copied with memcpy;
//   - for_each_action and next_state never allocate;
//   - canonicalize maps a state to a representative of its symmetry orbit (or leaves it
//     unchanged when the model has no symmetry); it must be idempotent and must only
//     ever return a state in the same orbit, otherwise symmetry reduction is unsound.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

namespace isr::checker {

// A named safety property: a predicate that must hold in every reachable state.
template <class State, class M>
struct Property {
  std::string_view name;         // stable kebab-case name, e.g. "no-acked-loss"
  std::string_view description;  // one line, for `list properties` and reports
  bool (*holds)(const M& model, const State& state);
};

namespace detail {
template <class A>
struct ActionSink {
  void operator()(const A&) const {}
};
}  // namespace detail

template <class M>
concept Model =
    requires(const M& m, const typename M::State& s, const typename M::Action& a,
             std::size_t i, typename M::State& mutable_state) {
      requires std::is_trivially_copyable_v<typename M::State>;
      requires std::has_unique_object_representations_v<typename M::State>;
      requires std::is_trivially_copyable_v<typename M::Action>;

      // Initial states, in a fixed order (not a hot path).
      { m.initial_states() } -> std::same_as<std::vector<typename M::State>>;
      // Calls the sink once per enabled action, always in the same order for the same
      // state. The position of an action in this order is its "action index", which
      // engines use to record traces compactly (parent + action index).
      m.for_each_action(s, detail::ActionSink<typename M::Action>{});
      // The successor of s under an action enabled in s.
      { m.next_state(s, a) } -> std::same_as<typename M::State>;

      // The properties this model checks (already filtered by its configuration).
      { m.properties() } -> std::convertible_to<
          const std::vector<Property<typename M::State, M>>&>;

      // Symmetry: rewrite the state in place into its orbit representative.
      m.canonicalize(mutable_state);

      // People-facing descriptions, used by traces, never on the hot path.
      { m.action_name(a) } -> std::convertible_to<std::string>;   // "Crash(node=2, lossy)"
      // The action's kind ("Crash", "FetchResponse", ...) and the list of all kinds the
      // model has, for coverage reports and for warning about kinds never enabled.
      { m.action_kind(a) } -> std::convertible_to<std::string_view>;
      { m.action_kinds() } -> std::convertible_to<std::vector<std::string_view>>;
      { m.action_to_json(a) } -> std::convertible_to<nlohmann::json>;
      { m.state_to_json(s) } -> std::convertible_to<nlohmann::json>;
      // The resolved configuration the model was built from (recorded in traces).
      { m.config_json() } -> std::convertible_to<nlohmann::json>;
    };

}  // namespace isr::checker
