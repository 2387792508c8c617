// Process pause and resume (faults.max_pauses; issue 16 point 2): a frozen process
// (SIGSTOP, a long GC pause, a VM freeze) keeps its memory and disk but takes no step; its
// broker session expires at the controller, which fences it (BrokerHeartbeatManager), and
// a paused leader resumes with its stale view. Each test drives the model by hand.
#include <algorithm>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "tests/model_test_util.h"

namespace isr::spec {
namespace {

using namespace modeltest;

TEST(Pause, TheBudgetDefaultsToNoneAndBoundsPauses) {
  Scenario none({});
  EXPECT_EQ(none.config().faults.max_pauses, 0);
  EXPECT_EQ(none.count(ActionKind::Pause), 0) << "default model: no pause, state counts unchanged";
  Scenario one({"faults.max_pauses=1"});
  EXPECT_EQ(one.count(ActionKind::Pause), 3) << one.json();
  ASSERT_TRUE(one.apply(pause(1)));
  EXPECT_EQ(one.count(ActionKind::Pause), 0) << "budget used";
  // Reported as a bound reached, and shown in the state's JSON.
  const std::vector<std::string_view> names = one.model().bound_names();
  const auto at = std::find(names.begin(), names.end(), "faults.max_pauses");
  ASSERT_NE(at, names.end());
  EXPECT_TRUE(one.model().bounds_hit(one.state()) & (1u << (at - names.begin())));
  const nlohmann::json j = one.model().state_to_json(one.state());
  EXPECT_EQ(j["faults"]["pauses"], 1);
  EXPECT_EQ(j["nodes"][1]["paused"], true);
  EXPECT_FALSE(none.model().state_to_json(none.state())["faults"].contains("pauses"))
      << "states without pauses keep their JSON";
  ASSERT_TRUE(one.apply(resume(1)));
  EXPECT_EQ(one.count(ActionKind::Resume), 0);
  EXPECT_EQ(one.count(ActionKind::Pause), 0) << "a resume does not give the pause back";
}

TEST(Pause, APausedFollowerTakesNoStepAndIsFencedWhenItsSessionExpires) {
  Scenario s({"faults.max_pauses=1"});
  ASSERT_TRUE(s.run({produce(0, 1), pause(1)}));
  EXPECT_FALSE(s.can(fetch(1, 0))) << "a paused follower sends no fetch";
  EXPECT_TRUE(s.can(fetch(2, 0)));
  EXPECT_FALSE(s.can(Step{ActionKind::MetadataUpdate, 1}));
  // No heartbeat: the controller's BrokerHeartbeatManager expires the session.
  ASSERT_TRUE(s.apply(fence_broker(1, 0)));
  EXPECT_TRUE(contains(s.controller().fenced, 1));
  EXPECT_FALSE(contains(s.controller().isr, 1));
  EXPECT_FALSE(s.can(Step{ActionKind::UnfenceBroker, 1})) << "no heartbeat while paused";
  ASSERT_TRUE(s.apply(resume(1)));
  // The same incarnation heartbeats again: unfenced without a new registration.
  ASSERT_TRUE(s.apply(Step{ActionKind::UnfenceBroker, 1}));
  EXPECT_FALSE(contains(s.controller().fenced, 1));
  EXPECT_EQ(s.state().nodes[1].broker_epoch, 1) << "no re-registration";
}

TEST(Pause, APausedLeaderAnswersNoClientAndKeepsItsParkedRequest) {
  Scenario s({"faults.max_pauses=1"});
  ASSERT_TRUE(s.run({produce(0, 1), pause(0)}));
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::InFlight) << "the parked request stays parked";
  EXPECT_EQ(s.state().producer.inflight_leader, 0);
  EXPECT_FALSE(s.can(fetch(1, 0))) << "a paused leader answers no fetch";
  EXPECT_FALSE(s.can(Step{ActionKind::ShrinkIsr, 0}));
  EXPECT_FALSE(s.can(Step{ActionKind::Crash, 0, kAny, static_cast<int>(StopKind::Clean)}))
      << "SIGTERM is handled only once the process continues";
  EXPECT_TRUE(s.can(crash(0, StopKind::Kill))) << "SIGKILL ends a stopped process";
  EXPECT_TRUE(s.can(produce_timeout(1))) << "the client's timer runs";
}

TEST(Pause, APausedCombinedVoterLeavesTheQuorum) {
  Scenario s({"faults.max_pauses=1", "faults.max_crashes=1"});
  ASSERT_TRUE(s.run({pause(1), crash(0, StopKind::Kill)}));
  // N0 dead, N1 frozen: one live voter of three, no controller can act.
  EXPECT_EQ(s.count(ActionKind::ControllerFailover), 0) << s.json();
  EXPECT_EQ(s.count(ActionKind::FenceBroker), 0);
  ASSERT_TRUE(s.apply(resume(1)));
  EXPECT_GT(s.count(ActionKind::ControllerFailover), 0);
}

// The acks=1 window with an explicit pause: the follower frozen across the ack
// and the leader's kill, resumed within its session, is elected cleanly without the
// acked record.
TEST(Pause, Acks1PausedFollowerElectedCleanlyLosesTheAckedRecord) {
  Scenario s({"acks=1", "brokers=3", "replication_factor=2", "min_insync_replicas=1", "faults.max_pauses=1",
              "faults.max_crashes=1"});
  ASSERT_TRUE(s.run({pause(1), produce(0, 1)}));
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::Acked);
  ASSERT_TRUE(s.run({crash(0, StopKind::Kill), resume(1), controller_failover(1), fence_broker(0, 1),
                     metadata_update(1)}));
  EXPECT_EQ(s.controller().leader, 1);
  EXPECT_FALSE(s.controller().unclean_elected) << "a clean election from the ISR";
  EXPECT_TRUE(records(s.state(), 1).empty());
  EXPECT_TRUE(s.violated("no-acked-loss"));
}

// A paused leader resumes with its stale view: until it replays the new epoch it still
// believes it leads and accepts an acks=1 write that no other replica will take.
TEST(Pause, AResumedStaleLeaderAcceptsWritesUntilItLearnsTheNewEpoch) {
  Scenario s({"acks=1", "min_insync_replicas=1", "faults.max_pauses=1", "faults.max_crashes=0"});
  ASSERT_TRUE(s.run({pause(0), controller_failover(1), fence_broker(0, 1), metadata_update(1), metadata_update(2), resume(0)}));
  EXPECT_EQ(s.controller().leader, 1);
  EXPECT_EQ(s.replica(0).view_leader, 0) << "stale view kept through the pause";
  ASSERT_TRUE(s.apply(produce(0, 1)));
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::Acked);
  EXPECT_FALSE(s.can(fetch(2, 0))) << "followers follow the new leader (KIP-320 fences the old one)";
  ASSERT_TRUE(s.apply(metadata_update(0)));
  EXPECT_EQ(s.replica(0).view_leader, 1);
}

}  // namespace
}  // namespace isr::spec
