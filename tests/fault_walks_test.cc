// Tests of the fault-schedule walks of `simulate --stats` (checker/walk/fault_walks.h) on
// a toy whose violation probability is known in closed form: reproducible from the seed,
// the same for any number of threads, and a 95% Wilson interval that contains the exact
// rate; classes by signature; bad rates refused; an interrupt stops the run.
#include <atomic>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "checker/model.h"
#include "checker/path_labeler.h"
#include "checker/walk/fault_walks.h"

namespace isr::checker {
namespace {

// A clock ticks (ordinary) up to `ticks` times; a Fail fault (one of two switches) may
// strike at any step while a switch is still intact. "no-failure" is violated once a
// switch has failed; "intact-0" once switch 0 has. After the ticks run out the state is
// settled and idles (faults can still strike), so with a Fail rate r per step over d
// steps, P(violation of no-failure) = 1 - (1 - r)^d exactly, and P(intact-0 violated) is
// half of the walks' first failures plus the second failures that hit switch 0.
class FailToy {
 public:
  struct State {
    uint8_t ticks = 0;
    uint8_t failed[2] = {};
  };
  struct Action {
    uint8_t kind = 0;  // 0 Tick, 1 Fail
    uint8_t which = 0;
  };
  using Property = checker::Property<State, FailToy>;

  explicit FailToy(int ticks) : ticks_(ticks) {
    properties_.push_back(Property{"no-failure", "nothing ever failed", [](const FailToy&, const State& s) {
                                     return !s.failed[0] && !s.failed[1];
                                   }});
    properties_.push_back(Property{"intact-0", "switch 0 never failed",
                                   [](const FailToy&, const State& s) { return !s.failed[0]; }});
  }
  std::vector<State> initial_states() const { return {State{}}; }
  template <class Sink>
  void for_each_action(const State& s, Sink&& sink) const {
    if (s.ticks < ticks_) sink(Action{0, 0});
    for (uint8_t w = 0; w < 2; ++w)
      if (!s.failed[w]) sink(Action{1, w});
  }
  State next_state(const State& s, const Action& a) const {
    State n = s;
    if (a.kind == 0) ++n.ticks; else n.failed[a.which] = 1;
    return n;
  }
  const std::vector<Property>& properties() const { return properties_; }
  void canonicalize(State&) const {}
  std::string action_name(const Action& a) const { return a.kind == 0 ? "Tick" : "Fail(" + std::to_string(a.which) + ")"; }
  std::string_view action_kind(const Action& a) const { return a.kind == 0 ? "Tick" : "Fail"; }
  std::vector<std::string_view> action_kinds() const { return {"Tick", "Fail"}; }
  nlohmann::json action_to_json(const Action& a) const { return {{"kind", a.kind}, {"which", a.which}}; }
  nlohmann::json state_to_json(const State& s) const { return {{"ticks", s.ticks}}; }
  nlohmann::json config_json() const { return {{"ticks", ticks_}}; }

 private:
  int ticks_;
  std::vector<Property> properties_;
};

// The switch that failed, renamed away: "X" for the first switch to fail, "X Y" for two.
class FailOrder : public PathLabeler<FailToy> {
 public:
  uint32_t step(const State&, const Action& a, const State&) const override { return a.kind == 1 ? 1u + a.which : 0; }
  uint32_t measure(const State& s) const override { return static_cast<uint32_t>(s.failed[0] + s.failed[1]); }
  std::string class_key(const std::vector<uint32_t>& signature) const override {
    std::string key;
    for (size_t i = 0; i < signature.size(); ++i) key += (i ? " " : "") + std::string(i == 0 ? "X" : "Y");
    return key;
  }
};

FaultWalkOptions options(unsigned threads, uint64_t seed = 42) {
  FaultWalkOptions o;
  o.walks = 4000;
  o.depth = 10;
  o.seed = seed;
  o.threads = threads;
  o.rates = {{"Fail", 0.05}};
  return o;
}

void expect_same(const FaultWalkStats& a, const FaultWalkStats& b) {
  EXPECT_EQ(a.walks_completed, b.walks_completed);
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.idle_steps, b.idle_steps);
  ASSERT_EQ(a.properties.size(), b.properties.size());
  for (size_t p = 0; p < a.properties.size(); ++p) {
    EXPECT_EQ(a.properties[p].violating_walks, b.properties[p].violating_walks);
    EXPECT_EQ(a.properties[p].first_step, b.properties[p].first_step);
    EXPECT_EQ(a.properties[p].measure, b.properties[p].measure);
  }
  ASSERT_EQ(a.classes.size(), b.classes.size());
  for (size_t c = 0; c < a.classes.size(); ++c) {
    EXPECT_EQ(a.classes[c].key, b.classes[c].key);
    EXPECT_EQ(a.classes[c].walks, b.classes[c].walks);
    EXPECT_EQ(a.classes[c].first_walk, b.classes[c].first_walk);
    EXPECT_EQ(a.classes[c].signature, b.classes[c].signature);
  }
}

TEST(FaultWalks, WilsonIntervalMatchesKnownValues) {
  // 10 of 100 at 95%: [0.0552, 0.1744] (Wilson 1927; Newcombe 1998, table I).
  const auto [low, high] = wilson_interval(10, 100);
  EXPECT_NEAR(low, 0.0552, 1e-4);
  EXPECT_NEAR(high, 0.1744, 1e-4);
  const auto [zero_low, zero_high] = wilson_interval(0, 50);
  EXPECT_EQ(zero_low, 0.0);
  EXPECT_NEAR(zero_high, 0.0714, 1e-4);
}

TEST(FaultWalks, TheIntervalContainsTheExactRate) {
  const FailToy model(4);  // four ticks, then six idle steps: faults strike in both
  const FailOrder labeler;
  const FaultWalkStats s = fault_walks(model, options(2), &labeler);
  ASSERT_EQ(s.walks_completed, 4000u);
  EXPECT_TRUE(s.stop_reason.empty());
  const double exact = 1 - std::pow(1 - 0.05, 10);  // 0.4013
  const auto [low, high] = wilson_interval(s.properties[0].violating_walks, s.walks_completed);
  EXPECT_LE(low, exact);
  EXPECT_GE(high, exact);
  EXPECT_LT(high - low, 0.04);  // and is narrow at 4000 walks
  // First violation at step k with probability (1 - r)^(k-1) r: never at step 0.
  EXPECT_EQ(s.properties[0].first_step[0], 0u);
  EXPECT_GT(s.properties[0].first_step[1], s.properties[0].first_step[10]);
  // Idle steps happened (after the ticks) and faults struck in them.
  EXPECT_GT(s.idle_steps, 0u);
  ASSERT_EQ(s.faults.size(), 1u);
  EXPECT_EQ(s.faults[0].kind, "Fail");
  EXPECT_GE(s.faults[0].taken, s.properties[0].violating_walks);
}

TEST(FaultWalks, ReproducibleFromTheSeedForAnyThreadCount) {
  const FailToy model(4);
  const FailOrder labeler;
  const FaultWalkStats one = fault_walks(model, options(1), &labeler);
  for (unsigned threads : {2u, 3u, 4u}) {
    SCOPED_TRACE(threads);
    expect_same(one, fault_walks(model, options(threads), &labeler));
  }
  const FaultWalkStats other = fault_walks(model, options(2, 43), &labeler);
  EXPECT_NE(other.properties[0].violating_walks, one.properties[0].violating_walks);
}

TEST(FaultWalks, ClassesCountEachViolatingWalkOnce) {
  const FailToy model(4);
  const FailOrder labeler;
  const FaultWalkStats s = fault_walks(model, options(2), &labeler);
  // no-failure is entered by the first failure alone: one class "X", all its walks.
  uint64_t no_failure = 0;
  uint64_t intact = 0;
  for (const auto& c : s.classes) {
    if (c.property == 0) {
      EXPECT_EQ(c.key, "X");
      no_failure += c.walks;
    } else {
      intact += c.walks;  // "X" (switch 0 failed first) or "X Y" (second)
    }
  }
  EXPECT_EQ(no_failure, s.properties[0].violating_walks);
  EXPECT_EQ(intact, s.properties[1].violating_walks);
  EXPECT_LT(s.properties[1].violating_walks, s.properties[0].violating_walks);
  // The measure (failed switches) per violating walk: 1 or 2, never 0.
  EXPECT_EQ(s.properties[0].measure.at(0), 0u);
}

TEST(FaultWalks, BadRatesAreRefusedNamingTheKind) {
  const FailToy model(4);
  FaultWalkOptions o = options(1);
  o.rates = {{"Explode", 0.1}};
  try {
    fault_walks(model, o);
    FAIL() << "an unknown kind was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("Explode"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Tick, Fail"), std::string::npos) << e.what();
  }
  o.rates = {{"Fail", 1.5}};
  EXPECT_THROW(fault_walks(model, o), std::invalid_argument);
}

TEST(FaultWalks, AnInterruptStopsTheRun) {
  const FailToy model(4);
  const std::atomic<bool> stop{true};
  FaultWalkOptions o = options(2);
  o.walks = 1'000'000'000;
  o.interrupt = &stop;
  const FaultWalkStats s = fault_walks(model, o);
  EXPECT_EQ(s.stop_reason, "interrupted");
  EXPECT_LT(s.walks_completed, o.walks);
}

}  // namespace
}  // namespace isr::checker
