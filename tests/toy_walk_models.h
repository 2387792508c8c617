// Small models for testing the random-walk engine and the shrinker, whose reachable
// states and shortest counterexamples are known or cheap to compute.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/model.h"

namespace isr::toy {

// A combination lock with `code_length` digits (each 0..3). Pressing the next digit of
// the code advances; a wrong digit or Reset starts over; Wiggle only changes noise. The
// bug: the lock opens, which takes exactly the code's digits in a row, so the shortest
// counterexample has `code_length` steps and a random walk finds long noisy ones.
class CombinationLock {
 public:
  struct State {
    uint8_t progress = 0;  // digits of the code entered so far
    uint8_t noise = 0;     // 0..4, changed by Wiggle
    bool operator==(const State&) const = default;
  };
  enum class Kind : uint8_t { Press, Wiggle, Reset, Jam };
  struct Action {
    Kind kind = Kind::Press;
    uint8_t digit = 0;
    bool operator==(const Action&) const = default;
  };
  using Property = checker::Property<State, CombinationLock>;

  explicit CombinationLock(int code_length = 4) : code_length_(code_length) {
    properties_.push_back(Property{"lock-stays-closed", "the lock never opens",
                                   [](const CombinationLock& m, const State& s) {
                                     return s.progress < m.code_length_;
                                   }});
    properties_.push_back(Property{"noise-bounded", "noise stays below 5",
                                   [](const CombinationLock&, const State& s) {
                                     return s.noise < 5;
                                   }});
  }

  static uint8_t code_digit(int position) { return static_cast<uint8_t>((position * 3 + 1) % 4); }
  int code_length() const { return code_length_; }

  std::vector<State> initial_states() const { return {State{}}; }

  template <class Sink>
  void for_each_action(const State& s, Sink&& sink) const {
    if (s.progress >= code_length_) return;  // open: nothing more to do
    for (uint8_t d = 0; d < 4; ++d) sink(Action{Kind::Press, d});
    sink(Action{Kind::Wiggle, 0});
    if (s.progress > 0) sink(Action{Kind::Reset, 0});
  }

  State next_state(const State& s, const Action& a) const {
    State n = s;
    switch (a.kind) {
      case Kind::Press:
        n.progress = a.digit == code_digit(s.progress) ? static_cast<uint8_t>(s.progress + 1) : 0;
        break;
      case Kind::Wiggle: n.noise = static_cast<uint8_t>((s.noise + 1) % 5); break;
      case Kind::Reset: n.progress = 0; break;
      case Kind::Jam: break;
    }
    return n;
  }

  const std::vector<Property>& properties() const { return properties_; }
  void canonicalize(State&) const {}

  std::string action_name(const Action& a) const {
    return a.kind == Kind::Press ? "Press(" + std::to_string(a.digit) + ")"
                                 : std::string(action_kind(a));
  }
  std::string_view action_kind(const Action& a) const {
    switch (a.kind) {
      case Kind::Press: return "Press";
      case Kind::Wiggle: return "Wiggle";
      case Kind::Reset: return "Reset";
      case Kind::Jam: return "Jam";
    }
    return "?";
  }
  // Jam is listed but never enabled, to exercise the coverage warning.
  std::vector<std::string_view> action_kinds() const { return {"Press", "Wiggle", "Reset", "Jam"}; }
  nlohmann::json action_to_json(const Action& a) const {
    return {{"kind", action_kind(a)}, {"digit", a.digit}};
  }
  nlohmann::json state_to_json(const State& s) const {
    return {{"progress", s.progress}, {"noise", s.noise}};
  }
  nlohmann::json config_json() const { return {{"code_length", code_length_}}; }

 private:
  int code_length_;
  std::vector<Property> properties_;
};

// A counter 0..limit with Inc, Dec and Double. The bug: reaching `target`. Random walks
// get there mostly by Inc/Dec detours that removing steps cannot shorten (removing one
// Inc misses the target), while the shortest path mixes Double and Inc: only the BFS
// pass of the shrinker finds it. Action kinds are returned as std::string, to exercise
// the engine's by-content kind lookup.
class DoublingCounter {
 public:
  struct State {
    uint16_t value = 0;
    bool operator==(const State&) const = default;
  };
  enum class Kind : uint8_t { Inc, Dec, Double };
  struct Action {
    Kind kind = Kind::Inc;
    bool operator==(const Action&) const = default;
  };
  using Property = checker::Property<State, DoublingCounter>;

  DoublingCounter(uint16_t target, uint16_t limit) : target_(target), limit_(limit) {
    properties_.push_back(Property{"target-unreached", "the counter never equals the target",
                                   [](const DoublingCounter& m, const State& s) {
                                     return s.value != m.target_;
                                   }});
  }

  uint16_t target() const { return target_; }
  uint16_t limit() const { return limit_; }

  std::vector<State> initial_states() const { return {State{0}}; }

  template <class Sink>
  void for_each_action(const State& s, Sink&& sink) const {
    if (s.value < limit_) sink(Action{Kind::Inc});
    if (s.value > 0) sink(Action{Kind::Dec});
    if (s.value > 0 && 2 * s.value <= limit_) sink(Action{Kind::Double});
  }

  State next_state(const State& s, const Action& a) const {
    switch (a.kind) {
      case Kind::Inc: return State{static_cast<uint16_t>(s.value + 1)};
      case Kind::Dec: return State{static_cast<uint16_t>(s.value - 1)};
      case Kind::Double: return State{static_cast<uint16_t>(s.value * 2)};
    }
    return s;
  }

  const std::vector<Property>& properties() const { return properties_; }
  void canonicalize(State&) const {}

  std::string action_name(const Action& a) const { return action_kind(a); }
  std::string action_kind(const Action& a) const {
    switch (a.kind) {
      case Kind::Inc: return "Inc";
      case Kind::Dec: return "Dec";
      case Kind::Double: return "Double";
    }
    return "?";
  }
  std::vector<std::string_view> action_kinds() const { return {"Inc", "Dec", "Double"}; }
  nlohmann::json action_to_json(const Action& a) const { return {{"kind", action_kind(a)}}; }
  nlohmann::json state_to_json(const State& s) const { return {{"value", s.value}}; }
  nlohmann::json config_json() const { return {{"target", target_}, {"limit", limit_}}; }

 private:
  uint16_t target_;
  uint16_t limit_;
  std::vector<Property> properties_;
};

// A line of `length` + 1 states walked by Step; the end has no action (a deadlock).
// Two initial states (0 and 1), and no property ever fails.
class DeadEndLine {
 public:
  struct State {
    uint8_t position = 0;
    bool operator==(const State&) const = default;
  };
  struct Action {
    uint8_t unused = 0;
    bool operator==(const Action&) const = default;
  };
  using Property = checker::Property<State, DeadEndLine>;

  explicit DeadEndLine(uint8_t length) : length_(length) {
    properties_.push_back(Property{"always", "always holds",
                                   [](const DeadEndLine&, const State&) { return true; }});
  }

  std::vector<State> initial_states() const { return {State{0}, State{1}}; }

  template <class Sink>
  void for_each_action(const State& s, Sink&& sink) const {
    if (s.position < length_) sink(Action{});
  }
  State next_state(const State& s, const Action&) const {
    return State{static_cast<uint8_t>(s.position + 1)};
  }

  const std::vector<Property>& properties() const { return properties_; }
  void canonicalize(State&) const {}
  std::string action_name(const Action&) const { return "Step"; }
  std::string_view action_kind(const Action&) const { return "Step"; }
  std::vector<std::string_view> action_kinds() const { return {"Step"}; }
  nlohmann::json action_to_json(const Action&) const { return {{"kind", "Step"}}; }
  nlohmann::json state_to_json(const State& s) const { return {{"position", s.position}}; }
  nlohmann::json config_json() const { return {{"length", length_}}; }

 private:
  uint8_t length_;
  std::vector<Property> properties_;
};

static_assert(checker::Model<CombinationLock>);
static_assert(checker::Model<DoublingCounter>);
static_assert(checker::Model<DeadEndLine>);

}  // namespace isr::toy
