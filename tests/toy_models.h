// Small models with known state spaces, for testing the engines in checker/ without
// Kafka. Each documents the figures the tests expect from it, in closed form.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/model.h"

namespace isr::toy {

// Orbit representative of per-process values under permutations of the processes.
// (A plain insertion sort: std::sort trips GCC 12's -Warray-bounds on these arrays.)
template <size_t N>
void sort_descending(uint8_t (&values)[N], int count) {
  for (int i = 1; i < count && i < static_cast<int>(N); ++i) {
    const uint8_t v = values[i];
    int j = i;
    for (; j > 0 && values[j - 1] < v; --j) values[j] = values[j - 1];
    values[j] = v;
  }
}

// N processes each increment their own counter up to K.
//   reachable states: (K+1)^N; depth N*K; level d holds the compositions of d into N
//   parts of at most K; under permutations of processes the orbits are the multisets:
//   C(N+K, N). Property "sum-below" (when sum_limit > 0) fails first at depth sum_limit.
class CounterModel {
 public:
  static constexpr int kMaxProcesses = 8;
  struct State {
    uint8_t counter[kMaxProcesses] = {};
  };
  struct Action {
    uint8_t process = 0;
  };
  using Property = checker::Property<State, CounterModel>;

  CounterModel(int processes, int max_count, int sum_limit = 0)
      : processes_(processes), max_count_(max_count), sum_limit_(sum_limit) {
    if (sum_limit > 0) {
      properties_.push_back(Property{"sum-below", "the counters sum to less than the limit",
                                     [](const CounterModel& m, const State& s) {
                                       return m.sum(s) < m.sum_limit_;
                                     }});
    }
  }

  // More initial states after the all-zero one.
  void add_initial_state(const State& s) { extra_initial_.push_back(s); }

  int sum(const State& s) const {
    int total = 0;
    for (int i = 0; i < processes_; ++i) total += s.counter[i];
    return total;
  }

  std::vector<State> initial_states() const {
    std::vector<State> states = {State{}};
    states.insert(states.end(), extra_initial_.begin(), extra_initial_.end());
    return states;
  }

  template <class Sink>
  void for_each_action(const State& s, Sink&& sink) const {
    for (int i = 0; i < processes_; ++i) {
      if (s.counter[i] < max_count_) sink(Action{static_cast<uint8_t>(i)});
    }
  }

  State next_state(const State& s, const Action& a) const {
    State next = s;
    ++next.counter[a.process];
    return next;
  }

  const std::vector<Property>& properties() const { return properties_; }

  void canonicalize(State& s) const {
    sort_descending(s.counter, processes_);
  }

  // Bounds: 0 "counter-at-max" some counter at K; 1 "all-at-max"; 2 "never" (unreachable).
  std::vector<std::string_view> bound_names() const { return {"counter-at-max", "all-at-max", "never"}; }
  uint32_t bounds_hit(const State& s) const {
    int at_max = 0;
    for (int i = 0; i < processes_; ++i) at_max += s.counter[i] == max_count_;
    return (at_max > 0 ? 1u : 0u) | (at_max == processes_ ? 2u : 0u);
  }

  std::string action_name(const Action& a) const { return "Increment(process=" + std::to_string(a.process) + ")"; }
  std::string_view action_kind(const Action&) const { return "Increment"; }
  std::vector<std::string_view> action_kinds() const { return {"Increment"}; }
  nlohmann::json action_to_json(const Action& a) const { return {{"kind", "Increment"}, {"process", a.process}}; }
  nlohmann::json state_to_json(const State& s) const {
    return {{"counters", std::vector<int>(s.counter, s.counter + processes_)}};
  }
  nlohmann::json config_json() const {
    return {{"processes", processes_}, {"max_count", max_count_}, {"sum_limit", sum_limit_}};
  }

 private:
  int processes_;
  int max_count_;
  int sum_limit_;
  std::vector<State> extra_initial_;
  std::vector<Property> properties_;
};

// N processes competing for a lock. With `atomic_lock` false the lock is a buggy
// check-then-act: a process first sees the lock free (pc 1), then takes it (pc 2), so
// two processes can both see it free. The shortest violation of mutual exclusion is
// 4 steps: check, check, enter, enter. With `atomic_lock` true it holds.
// Symmetric in the processes.
class MutexModel {
 public:
  static constexpr int kMaxProcesses = 8;
  enum Pc : uint8_t { kIdle = 0, kChecked = 1, kCritical = 2 };
  struct State {
    uint8_t pc[kMaxProcesses] = {};
    uint8_t lock = 0;
    uint8_t entries = 0;  // critical-section entries so far (bounded, for the bound hook)
  };
  struct Action {
    uint8_t process = 0;
    uint8_t step = 0;  // 0 check/acquire, 1 enter, 2 leave
  };
  using Property = checker::Property<State, MutexModel>;

  MutexModel(int processes, bool atomic_lock, int max_entries = 3)
      : processes_(processes), atomic_lock_(atomic_lock), max_entries_(max_entries) {
    // Two properties on purpose: "at-most-two" is weaker and listed second, so the first
    // violated property in order is "mutual-exclusion".
    properties_.push_back(Property{"mutual-exclusion", "at most one process is critical",
                                   [](const MutexModel& m, const State& s) { return m.critical(s) <= 1; }});
    properties_.push_back(Property{"at-most-two", "at most two processes are critical",
                                   [](const MutexModel& m, const State& s) { return m.critical(s) <= 2; }});
  }

  int critical(const State& s) const {
    int n = 0;
    for (int i = 0; i < processes_; ++i) n += s.pc[i] == kCritical;
    return n;
  }

  std::vector<State> initial_states() const { return {State{}}; }

  template <class Sink>
  void for_each_action(const State& s, Sink&& sink) const {
    for (int i = 0; i < processes_; ++i) {
      const auto p = static_cast<uint8_t>(i);
      switch (s.pc[i]) {
        case kIdle:
          if (!s.lock && s.entries < max_entries_) sink(Action{p, 0});
          break;
        case kChecked:
          sink(Action{p, 1});
          break;
        case kCritical:
          sink(Action{p, 2});
          break;
      }
    }
  }

  State next_state(const State& s, const Action& a) const {
    State n = s;
    switch (a.step) {
      case 0:
        if (atomic_lock_) {
          n.pc[a.process] = kCritical;
          n.lock = 1;
          ++n.entries;
        } else {
          n.pc[a.process] = kChecked;
        }
        break;
      case 1:
        n.pc[a.process] = kCritical;
        n.lock = 1;
        ++n.entries;
        break;
      case 2:
        n.pc[a.process] = kIdle;
        n.lock = 0;
        break;
    }
    return n;
  }

  const std::vector<Property>& properties() const { return properties_; }

  void canonicalize(State& s) const {
    sort_descending(s.pc, processes_);
  }

  std::vector<std::string_view> bound_names() const { return {"max-entries"}; }
  uint32_t bounds_hit(const State& s) const { return s.entries >= max_entries_ ? 1u : 0u; }

  std::string action_name(const Action& a) const {
    static constexpr const char* kSteps[] = {"Check", "Enter", "Leave"};
    return std::string(kSteps[a.step]) + "(process=" + std::to_string(a.process) + ")";
  }
  std::string_view action_kind(const Action& a) const {
    static constexpr std::string_view kSteps[] = {"Check", "Enter", "Leave"};
    return kSteps[a.step];
  }
  std::vector<std::string_view> action_kinds() const { return {"Check", "Enter", "Leave"}; }
  nlohmann::json action_to_json(const Action& a) const {
    return {{"kind", std::string(action_kind(a))}, {"process", a.process}};
  }
  nlohmann::json state_to_json(const State& s) const {
    return {{"pc", std::vector<int>(s.pc, s.pc + processes_)}, {"lock", s.lock}, {"entries", s.entries}};
  }
  nlohmann::json config_json() const {
    return {{"processes", processes_}, {"atomic_lock", atomic_lock_}, {"max_entries", max_entries_}};
  }

 private:
  int processes_;
  bool atomic_lock_;
  int max_entries_;
  std::vector<Property> properties_;
};

// A walker on a W x H grid moving one step in 4 directions, starting from several
// initial positions (with duplicates, which count once). From the single corner (0,0):
// W*H states, depth W+H-2, level d = number of cells at Manhattan distance d.
// Its `interrupt_after` hook sets a flag after that many next_state calls, to test
// interrupting a search in the middle.
class GridModel {
 public:
  struct State {
    uint16_t x = 0;
    uint16_t y = 0;
  };
  struct Action {
    uint8_t direction = 0;  // 0 +x, 1 -x, 2 +y, 3 -y
  };
  using Property = checker::Property<State, GridModel>;

  GridModel(int width, int height) : GridModel(width, height, std::vector<State>(1)) {}
  GridModel(int width, int height, std::vector<State> starts)
      : width_(width), height_(height), starts_(std::move(starts)) {}

  // Sets *flag once next_state has been called `calls` times.
  void interrupt_after(std::atomic<bool>* flag, uint64_t calls) {
    flag_ = flag;
    interrupt_after_ = calls;
  }

  std::vector<State> initial_states() const { return starts_; }

  template <class Sink>
  void for_each_action(const State& s, Sink&& sink) const {
    if (s.x + 1 < width_) sink(Action{0});
    if (s.x > 0) sink(Action{1});
    if (s.y + 1 < height_) sink(Action{2});
    if (s.y > 0) sink(Action{3});
  }

  State next_state(const State& s, const Action& a) const {
    if (flag_ && calls_.fetch_add(1, std::memory_order_relaxed) + 1 >= interrupt_after_) flag_->store(true);
    State n = s;
    switch (a.direction) {
      case 0: ++n.x; break;
      case 1: --n.x; break;
      case 2: ++n.y; break;
      case 3: --n.y; break;
    }
    return n;
  }

  const std::vector<Property>& properties() const { return properties_; }
  void canonicalize(State&) const {}

  std::string action_name(const Action& a) const { return "Move(" + std::to_string(a.direction) + ")"; }
  std::string_view action_kind(const Action&) const { return "Move"; }
  std::vector<std::string_view> action_kinds() const { return {"Move"}; }
  nlohmann::json action_to_json(const Action& a) const { return {{"kind", "Move"}, {"direction", a.direction}}; }
  nlohmann::json state_to_json(const State& s) const { return {{"x", s.x}, {"y", s.y}}; }
  nlohmann::json config_json() const { return {{"width", width_}, {"height", height_}}; }

 private:
  int width_;
  int height_;
  std::vector<State> starts_;
  std::vector<Property> properties_;
  std::atomic<bool>* flag_ = nullptr;
  uint64_t interrupt_after_ = 0;
  mutable std::atomic<uint64_t> calls_{0};
};

static_assert(checker::Model<CounterModel>);
static_assert(checker::Model<MutexModel>);
static_assert(checker::Model<GridModel>);

}  // namespace isr::toy
