// The generic event-constrained search (checker/bfs/constrained_search.h) on a toy model:
// two counters, process 0's steps internal, process 1's external (a recorded event).
#include <atomic>

#include <gtest/gtest.h>

#include "checker/bfs/constrained_search.h"
#include "tests/toy_models.h"

namespace isr::checker {
namespace {

using toy::CounterModel;
using C = Constraint<CounterModel>;
using Groups = std::vector<std::vector<C>>;
using Outcome = ConstrainedSearchResult<CounterModel>::Outcome;

C observe(int c0, int c1) {
  C c;
  c.kind = C::Kind::Observe;
  c.holds = [c0, c1](const CounterModel::State& s) {
    return (c0 < 0 || s.counter[0] == c0) && (c1 < 0 || s.counter[1] == c1);
  };
  return c;
}

C take_external() {
  C c;
  c.kind = C::Kind::Take;
  c.matches = [](const CounterModel::State&, const CounterModel::Action& a) { return a.process == 1; };
  return c;
}

auto internal = [](const CounterModel::Action& a) { return a.process == 0; };

ConstrainedSearchResult<CounterModel> run(const Groups& groups, int max_internal, std::size_t max_states = 100000,
                                          const std::atomic<bool>* stop = nullptr) {
  const CounterModel model(2, 3);
  ConstrainedSearchLimits limits;
  limits.max_internal = max_internal;
  limits.max_states = max_states;
  limits.stop = stop;
  return constrained_search(model, groups, internal, limits);
}

TEST(ConstrainedSearch, ExplainsEventsWithInternalStepsBetweenThem) {
  const auto r = run({{observe(2, 0)}, {take_external()}, {observe(3, 1)}}, 3);
  ASSERT_EQ(r.outcome, Outcome::Explained);
  // Three internal steps and the one external step (the third internal one before or
  // after it: both explain), through a state (2, 0) before the external step.
  ASSERT_EQ(r.actions.size(), 4u);
  int external = 0;
  bool saw_2_0 = false;
  for (std::size_t i = 0; i < r.actions.size(); ++i) {
    external += r.actions[i].process == 1;
    if (r.actions[i].process == 1) {
      EXPECT_TRUE(saw_2_0);
    }
    saw_2_0 = saw_2_0 || (r.states[i + 1].counter[0] == 2 && r.states[i + 1].counter[1] == 0);
  }
  EXPECT_EQ(external, 1);
  ASSERT_EQ(r.states.size(), 5u);
  EXPECT_EQ(r.states.back().counter[0], 3);
  EXPECT_EQ(r.states.back().counter[1], 1);
}

// A Take with `holds`: also met with no action where it holds (a recorded call that may
// have had no model step), and only there; without `holds` it needs its action.
TEST(ConstrainedSearch, ATakeWithHoldsIsMetWithoutAnActionOnlyWhereItHolds) {
  C maybe = take_external();
  maybe.holds = [](const CounterModel::State& s) { return s.counter[0] == 2; };
  // Two events each of which may be process 1's step, then counter 1 observed at 1: one
  // of them was met without its action, in a state with counter 0 at 2.
  const auto r = run({{maybe}, {take_external()}, {observe(-1, 1)}}, 3);
  ASSERT_EQ(r.outcome, Outcome::Explained);
  int external = 0;
  for (const auto& a : r.actions) external += a.process == 1;
  EXPECT_EQ(external, 1);
  // Where it never holds (counter 0 bounded below 2 by max_internal 1), it needs the action.
  EXPECT_EQ(run({{maybe}, {take_external()}, {observe(-1, 1)}}, 1).outcome, Outcome::Unexplained);
  EXPECT_EQ(run({{take_external()}, {take_external()}, {observe(-1, 1)}}, 3).outcome, Outcome::Unexplained);
}

TEST(ConstrainedSearch, AnExternalActionIsNeverTakenFreely) {
  // Counter 1 is only ever moved by a recorded event: an observation of 1 with none is unexplained.
  const auto r = run({{observe(-1, 1)}}, 10);
  ASSERT_EQ(r.outcome, Outcome::Unexplained);
  EXPECT_EQ(r.group, 0u);
  EXPECT_EQ(r.nearest_count, 4u);  // counter 0 at 0..3, counter 1 at 0
}

TEST(ConstrainedSearch, ReportsTheFirstEventNoStateReachedCanMeet) {
  const auto r = run({{take_external()}, {observe(1, 1)}, {take_external()}, {observe(-1, 3)}}, 3);
  ASSERT_EQ(r.outcome, Outcome::Unexplained);
  EXPECT_EQ(r.group, 3u);
  ASSERT_FALSE(r.nearest.empty());
  for (const auto& [s, mask] : r.nearest) EXPECT_EQ(s.counter[1], 2);
}

TEST(ConstrainedSearch, MaxInternalBoundsTheStepsBetweenTwoEvents) {
  EXPECT_EQ(run({{observe(3, 0)}}, 2).outcome, Outcome::Unexplained);
  EXPECT_EQ(run({{observe(3, 0)}}, 3).outcome, Outcome::Explained);
}

TEST(ConstrainedSearch, EventsOfOneGroupMatchInAnyOrder) {
  // Recorded as "observe counter 1 at 1, then take": in that order impossible; as a group
  // whose order is unknown, the take then the observation explains it.
  EXPECT_EQ(run({{observe(-1, 1)}, {take_external()}}, 2).outcome, Outcome::Unexplained);
  const auto r = run({{observe(-1, 1), take_external()}}, 2);
  ASSERT_EQ(r.outcome, Outcome::Explained);
  EXPECT_EQ(r.states.back().counter[1], 1);
  // The group is done before the next event: a later observation still applies.
  EXPECT_EQ(run({{observe(-1, 1), take_external()}, {observe(2, 1)}}, 2).outcome, Outcome::Explained);
  EXPECT_EQ(run({{observe(-1, 1), take_external()}, {observe(-1, 0)}}, 2).outcome, Outcome::Unexplained);
}

TEST(ConstrainedSearch, AfterOrdersMembersOfAGroup) {
  // Counter 1 is 0 only before the external step: in any order the group is explained
  // (observe first), with the observation ordered after the step it is not.
  EXPECT_EQ(run({{observe(-1, 0), take_external()}}, 2).outcome, Outcome::Explained);
  C late = observe(-1, 0);
  late.after = 1ull << 1;  // the group's member 1, the external step, first
  const auto r = run({{late, take_external()}}, 2);
  ASSERT_EQ(r.outcome, Outcome::Unexplained);
  EXPECT_EQ(r.matched_in_group, 1u);  // the step was met; the observation after it never
  // Ordered the other way round, the same two constraints are explained.
  C first = observe(-1, 0);
  C then = take_external();
  then.after = 1ull << 0;
  EXPECT_EQ(run({{first, then}}, 2).outcome, Outcome::Explained);
}

TEST(ConstrainedSearch, StopsIncompleteAtTheStateBoundOrWhenStopped) {
  EXPECT_EQ(run({{observe(3, 0)}}, 3, 2).outcome, Outcome::Incomplete);
  std::atomic<bool> stop{true};
  EXPECT_EQ(run({{observe(3, 0)}}, 3, 100000, &stop).outcome, Outcome::Incomplete);
}

}  // namespace
}  // namespace isr::checker
