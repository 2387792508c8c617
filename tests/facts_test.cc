// The facts from the field the model must reproduce (MODEL.md section 5), each driven by
// hand: which losses lose acknowledged data under which settings, and what producers
// see when replicas or the controller quorum are gone.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "spec/partition/properties/predicates.h"
#include "tests/model_test_util.h"

namespace isr::spec {
namespace {

using namespace modeltest;

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

// Record 1 committed on all three replicas of the default cluster.
::testing::AssertionResult commit_on_all_three(Scenario& s) {
  if (auto r = s.apply(produce(0, 1)); !r) return r;
  if (auto r = catch_up(s, 1, 0); !r) return r;
  if (auto r = catch_up(s, 2, 0); !r) return r;
  if (outcome(s.state(), 1) != SendOutcome::Acked) return ::testing::AssertionFailure() << s.json();
  return ::testing::AssertionSuccess();
}

bool only_leader_has_record_one(const State& s) {
  return records(s, 0) == std::vector<int>{1} && records(s, 1).empty() && records(s, 2).empty();
}

// --- acks=1 -----------------------------------------------------------------------------

// Produce, then the leader dies before any follower fetched, and follower 1 is elected.
Scenario leader_dies_after_produce(const std::string& acks) {
  Scenario s({"acks=" + acks});
  EXPECT_TRUE(s.run({produce(0, 1), crash(0, StopKind::Kill), controller_failover(1), fence_broker(0, 1),
                     metadata_update(1)}));
  EXPECT_EQ(rules::active_leader(s.state()), 1);
  return s;
}

TEST(Facts, AcksOneLeaderFailureLosesTheAckedRecord) {
  Scenario s = leader_dies_after_produce("1");
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::Acked);
  EXPECT_TRUE(s.violated("no-acked-loss"));
}

TEST(Facts, AcksAllDoesNotAcknowledgeWhatTheLeaderAloneHas) {
  Scenario s = leader_dies_after_produce("all");
  EXPECT_NE(outcome(s.state(), 1), SendOutcome::Acked);
  EXPECT_TRUE(s.holds("no-acked-loss"));
}

// --- RF=3 is not three copies at ack time -----------------------------------------------

// The ISR shrinks to the leader alone while record 1 waits for acks=all.
Scenario isr_of_the_leader_alone(int min_isr) {
  Scenario s({"min_insync_replicas=" + std::to_string(min_isr), "faults.max_disk_losses=1"});
  EXPECT_TRUE(s.run({produce(0, 1), shrink_isr(0, 1), alter_partition(0), shrink_isr(0, 2), alter_partition(0)}));
  EXPECT_EQ(s.controller().isr, nodes({0}));
  EXPECT_TRUE(only_leader_has_record_one(s.state()));
  return s;
}

TEST(Facts, MinIsrOneWithTheLeaderAloneInTheIsrIsAcksOne) {
  Scenario s = isr_of_the_leader_alone(1);
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::Acked) << "acks=all waited for the ISR {0} only";
  ASSERT_TRUE(s.apply(crash(0, StopKind::Disk)));
  EXPECT_TRUE(s.violated("no-committed-loss-globally"));
}

TEST(Facts, MinIsrTwoDoesNotAcknowledgeWithTheLeaderAlone) {
  Scenario s = isr_of_the_leader_alone(2);
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::InFlight);
  ASSERT_TRUE(s.apply(crash(0, StopKind::Disk)));
  EXPECT_TRUE(s.holds("no-committed-loss-globally"));
}

// --- RF=3, min ISR=2, acks=all ----------------------------------------------------------

TEST(Facts, OneBrokerLossLosesNothingAndWritesContinue) {
  // The leader or a follower is lost; with the leader, either follower may be elected.
  struct Case {
    int crashed, leader_after;
  };
  for (const Case c : {Case{0, 1}, Case{0, 2}, Case{1, 0}, Case{2, 0}}) {
    SCOPED_TRACE("crashed " + std::to_string(c.crashed) + ", leader " + std::to_string(c.leader_after));
    Scenario s({});
    ASSERT_TRUE(commit_on_all_three(s));
    const int leader = c.leader_after;
    const int follower = 3 - c.crashed - leader;
    if (c.crashed == 0) {
      ASSERT_TRUE(s.run({crash(0, StopKind::Kill), controller_failover(1), fence_broker(0, leader),
                         metadata_update(leader), metadata_update(follower), epoch_query(follower, leader)}));
    } else {
      ASSERT_TRUE(s.run({crash(c.crashed, StopKind::Kill), fence_broker(c.crashed, 0), metadata_update(0)}));
    }
    EXPECT_EQ(s.controller().isr, static_cast<NodeSet>(nodes({0, 1, 2}) & ~bit(c.crashed)));
    EXPECT_TRUE(s.all_hold());
    ASSERT_TRUE(s.apply(produce(leader, 2)));
    ASSERT_TRUE(catch_up(s, follower, leader));
    EXPECT_EQ(outcome(s.state(), 2), SendOutcome::Acked);
    EXPECT_EQ(records(s.state(), leader), (std::vector<int>{1, 2}));
    EXPECT_EQ(records(s.state(), follower), (std::vector<int>{1, 2}));
    EXPECT_TRUE(s.all_hold());
  }
}

TEST(Facts, ASecondLossGivesNotEnoughReplicasWhenTheQuorumSurvives) {
  // The broker's answer, as an application sees it with retries 0 and idempotence off
  // (an idempotent producer retries it: AnIdempotentProducerSeesOnlyATimeout... below).
  Scenario s({"controller.placement=dedicated", "faults.max_crashes=2", "bounds.max_records=3",
              "idempotence=false", "bounds.max_retries=0"});
  ASSERT_TRUE(commit_on_all_three(s));
  ASSERT_TRUE(s.run({crash(0, StopKind::Kill), fence_broker(0, 1), metadata_update(1), metadata_update(2),
                     epoch_query(2, 1), produce(1, 2)}));
  ASSERT_TRUE(catch_up(s, 2, 1));
  ASSERT_EQ(outcome(s.state(), 2), SendOutcome::Acked);
  ASSERT_TRUE(s.run({crash(2, StopKind::Kill), fence_broker(2, 1), metadata_update(1)}));
  EXPECT_EQ(s.controller().isr, nodes({1}));
  EXPECT_EQ(s.controller().elr, nodes({2})) << "2 left below min ISR: still electable";
  ASSERT_TRUE(s.apply(produce(1, 3)));
  EXPECT_EQ(outcome(s.state(), 3), SendOutcome::NotEnoughReplicas);
  EXPECT_EQ(records(s.state(), 1), (std::vector<int>{1, 2})) << "rejected before the append";
  EXPECT_TRUE(s.all_hold());
}

// Combined placement: the three brokers are the three voters. Losing two followers
// also loses the controller quorum.
TEST(Facts, LosingTwoOfThreeCombinedNodesLeavesProducersOnlyATimeout) {
  Scenario s({"faults.max_crashes=2"});
  ASSERT_TRUE(s.run({crash(1, StopKind::Kill), crash(2, StopKind::Kill)}));
  EXPECT_FALSE(rules::quorum_available(s.config(), s.state()));
  for (ActionKind kind : {ActionKind::FenceBroker, ActionKind::AlterPartition, ActionKind::RegisterBroker,
                          ActionKind::UnfenceBroker, ActionKind::ControllerFailover, ActionKind::UncleanElection}) {
    EXPECT_EQ(s.count(kind), 0) << static_cast<int>(kind);
  }
  ASSERT_TRUE(s.apply(produce(0, 1)));
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::InFlight) << "the leader still sees ISR {0,1,2}";
  ASSERT_TRUE(s.apply(shrink_isr(0, 1)));
  EXPECT_FALSE(s.can(alter_partition(0))) << "no quorum to commit the shrink";

  // With no further fault and nobody restarting, no sequence of steps acknowledges or
  // rejects the write, and the ISR is never shrunk: the request can only time out.
  bool timed_out = false;
  const size_t states = explore(
      s.model(), s.state(), [](const Action& a) { return a.kind != ActionKind::Restart; },
      [&](const State& t) {
        EXPECT_EQ(t.controller.isr, nodes({0, 1, 2}));
        for (int k = 1; k <= 2; ++k) {
          const SendOutcome o = outcome(t, k);
          EXPECT_TRUE(o == SendOutcome::Unsent || o == SendOutcome::InFlight || o == SendOutcome::TimedOut) << k;
        }
        timed_out |= outcome(t, 1) == SendOutcome::TimedOut;
      });
  EXPECT_GT(states, 2u);
  EXPECT_TRUE(timed_out);
}

TEST(Facts, LosingTheLeaderAndAFollowerOfThreeCombinedNodesLeavesNoLeader) {
  Scenario s({"faults.max_crashes=2"});
  ASSERT_TRUE(s.run({crash(0, StopKind::Kill), crash(1, StopKind::Kill)}));
  EXPECT_EQ(s.count(ActionKind::ControllerFailover), 0) << "one voter of three is no majority";
  EXPECT_EQ(s.count(ActionKind::Produce), 0) << "no broker believes it leads";
  EXPECT_EQ(s.controller().leader, 0) << "nobody can even record that the leader is gone";
}

TEST(Facts, WithDedicatedVotersLosingTwoFollowersGivesNotEnoughReplicas) {
  Scenario s({"controller.placement=dedicated", "faults.max_crashes=2", "idempotence=false", "bounds.max_retries=0"});
  ASSERT_TRUE(s.run({crash(1, StopKind::Kill), crash(2, StopKind::Kill), fence_broker(1, 0), fence_broker(2, 0),
                     metadata_update(0), produce(0, 1)}));
  EXPECT_EQ(s.controller().isr, nodes({0}));
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::NotEnoughReplicas);
}

// --- RF=2, min ISR=2 ----------------------------------------------------------------------

// The broker answers NOT_ENOUGH_REPLICAS; an application sees it with retries 0 and
// idempotence off (an idempotent producer retries it: the next test).
TEST(Facts, ReplicationFactorTwoWithMinIsrTwoRejectsWritesCleanlyWithOneReplicaDown) {
  const std::vector<std::string> rf2 = {"brokers=3", "replication_factor=2", "min_insync_replicas=2",
                                        "idempotence=false", "bounds.max_retries=0"};
  Scenario follower_down(rf2);
  ASSERT_TRUE(follower_down.run({crash(1, StopKind::Kill), fence_broker(1, 0), metadata_update(0), produce(0, 1)}));
  EXPECT_EQ(outcome(follower_down.state(), 1), SendOutcome::NotEnoughReplicas);
  EXPECT_TRUE(records(follower_down.state(), 0).empty());

  Scenario leader_down(rf2);
  ASSERT_TRUE(leader_down.run({crash(0, StopKind::Kill), controller_failover(2), fence_broker(0, 1),
                               metadata_update(1), produce(1, 1)}));
  EXPECT_EQ(outcome(leader_down.state(), 1), SendOutcome::NotEnoughReplicas);
  EXPECT_TRUE(leader_down.all_hold());
}

// An idempotent producer (retries = Integer.MAX_VALUE) retries NOT_ENOUGH_REPLICAS inside
// the client (Sender.completeBatch -> canRetry -> reenqueueBatch): the application sees
// no error, only a timeout at delivery.timeout.ms, unless a later attempt gets through
// once the ISR is back (observed on Kafka 4.4.0: RF 2, min ISR 2, one replica killed).
TEST(Facts, AnIdempotentProducerSeesOnlyATimeoutWhereTheBrokerAnswersNotEnoughReplicas) {
  Scenario s({"brokers=3", "replication_factor=2", "min_insync_replicas=2", "idempotence=true",
              "bounds.max_records=2", "bounds.max_retries=1"});
  ASSERT_TRUE(s.run({crash(1, StopKind::Kill), fence_broker(1, 0), metadata_update(0), produce(0, 1)}));
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::Retrying) << "the broker's NOT_ENOUGH_REPLICAS is not shown";
  EXPECT_TRUE(records(s.state(), 0).empty()) << "rejected before the append";
  EXPECT_FALSE(s.can(produce(0, 2))) << "the re-enqueued batch goes first";
  EXPECT_TRUE(s.can(produce(0, 1))) << "Sender sends it again";
  EXPECT_TRUE(s.can(produce_timeout(1))) << "delivery.timeout.ms";
  // A second NOT_ENOUGH_REPLICAS: still nothing for the application, whose only outcome
  // left within the model's retry bound is the timeout.
  ASSERT_TRUE(s.apply(produce(0, 1)));
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::Retrying);
  EXPECT_FALSE(s.can(produce(0, 1)));
  ASSERT_TRUE(s.apply(produce_timeout(1)));
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::TimedOut);

  // Without idempotence and with retries 0 (the model's retry bound 0) the same answer
  // reaches the application.
  Scenario plain({"brokers=3", "replication_factor=2", "min_insync_replicas=2", "idempotence=false",
                  "bounds.max_retries=0"});
  ASSERT_TRUE(plain.run({crash(1, StopKind::Kill), fence_broker(1, 0), metadata_update(0), produce(0, 1)}));
  EXPECT_EQ(outcome(plain.state(), 1), SendOutcome::NotEnoughReplicas);
}

// A retried send is appended once the ISR is back: the retry is the same batch.
TEST(Facts, AnIdempotentProducersRetryIsAppendedOnceTheIsrRecovers) {
  Scenario s({"brokers=3", "replication_factor=2", "min_insync_replicas=2", "idempotence=true",
              "bounds.max_retries=1", "controller.placement=dedicated", "eligible_leader_replicas=false"});
  ASSERT_TRUE(s.run({crash(1, StopKind::Kill), fence_broker(1, 0), metadata_update(0), produce(0, 1)}));
  ASSERT_EQ(outcome(s.state(), 1), SendOutcome::Retrying);
  ASSERT_TRUE(s.run({restart(1), register_broker(1, 0), metadata_update(1)}));
  // The restarted follower fetches (an empty log: caught up) and the leader adds it back.
  ASSERT_TRUE(s.run({fetch(1, 0), fetch_response(1), alter_partition(0)}));
  if (s.can(metadata_update(0))) {
    ASSERT_TRUE(s.apply(metadata_update(0)));
  }
  ASSERT_EQ(s.replica(0).view_isr, nodes({0, 1}));
  ASSERT_TRUE(s.apply(produce(0, 1))) << "Sender's next attempt of the same batch";
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::InFlight);
  ASSERT_TRUE(catch_up(s, 1, 0));
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::Acked);
  EXPECT_EQ(records(s.state(), 0), (std::vector<int>{1}));
}

// --- unclean leader election --------------------------------------------------------------

// ISR {0,1} holds acked record 1; both die; replica 2 never had it.
Scenario both_isr_members_lost(bool unclean) {
  Scenario s({"controller.placement=dedicated", "faults.max_crashes=2",
              std::string("unclean_leader_election=") + (unclean ? "true" : "false")});
  EXPECT_TRUE(s.run({produce(0, 1), fetch(1, 0), fetch_response(1), fetch(1, 0), shrink_isr(0, 2),
                     alter_partition(0)}));
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::Acked);
  // With unclean election on, fencing 1 (the last ISR member) elects the out-of-sync 2 in
  // the same change (ReplicationControlManager.generateLeaderAndIsrUpdates with
  // Election.UNCLEAN); with it off the partition is left without a leader.
  EXPECT_TRUE(s.run({crash(0, StopKind::Kill), fence_broker(0, 1), crash(1, StopKind::Kill),
                     fence_broker(1, unclean ? 2 : kNoNode)}));
  return s;
}

TEST(Facts, UncleanElectionTradesAckedDataForAvailability) {
  Scenario s = both_isr_members_lost(true);
  ASSERT_TRUE(s.run({metadata_update(2)}));
  EXPECT_EQ(rules::active_leader(s.state()), 2);
  EXPECT_EQ(s.controller().leader_epoch, 2) << "one bump per election, as Kafka 4.4 (0 -> 1 -> 2)";
  EXPECT_TRUE(s.violated("no-acked-loss"));
  EXPECT_TRUE(s.holds("no-committed-loss-globally")) << "still on the dead brokers' disks";
  ASSERT_TRUE(s.apply(produce(2, 2))) << "available again";
}

TEST(Facts, WithoutUncleanElectionThePartitionWaitsForItsIsr) {
  Scenario s = both_isr_members_lost(false);
  EXPECT_EQ(s.controller().leader, kNoNode);
  EXPECT_EQ(s.count(ActionKind::UncleanElection), 0);
  EXPECT_EQ(s.count(ActionKind::Produce), 0);
  EXPECT_TRUE(s.all_hold());
}

// --- no fsync on ack ------------------------------------------------------------------------

// Record 1 acked by ISR {0,1}; both then lose power.
Scenario power_loss_of_the_isr(const std::vector<std::string>& overrides, StopKind kind) {
  Scenario s(with({"controller.placement=dedicated", "faults.max_crashes=2", "faults.max_lossy_crashes=2"},
                  overrides));
  EXPECT_TRUE(s.run({produce(0, 1), fetch(1, 0), fetch_response(1), fetch(1, 0), shrink_isr(0, 2),
                     alter_partition(0)}));
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::Acked);
  EXPECT_TRUE(s.run({crash(0, kind), crash(1, kind)}));
  return s;
}

TEST(Facts, LossyCrashesWithoutFsyncLoseAckedDataEvenWithAcksAll) {
  Scenario s = power_loss_of_the_isr({}, StopKind::Power);
  EXPECT_TRUE(records(s.state(), 0).empty());
  EXPECT_TRUE(records(s.state(), 1).empty());
  EXPECT_TRUE(s.violated("no-committed-loss-globally"));
}

TEST(Facts, FsyncOnEveryAppendOrAProcessKillKeepsIt) {
  Scenario fsync = power_loss_of_the_isr({"flush=every-append"}, StopKind::Power);
  EXPECT_TRUE(fsync.holds("no-committed-loss-globally"));
  Scenario kill = power_loss_of_the_isr({}, StopKind::Kill);
  EXPECT_TRUE(kill.holds("no-committed-loss-globally"));
}

// --- idempotence ------------------------------------------------------------------------------

// Record 1 is appended, its request times out, and the producer retries it.
Scenario retry_after_timeout(bool idempotence) {
  Scenario s({std::string("idempotence=") + (idempotence ? "true" : "false"), "bounds.max_retries=1"});
  EXPECT_TRUE(s.run({produce(0, 1), produce_timeout(1), produce(0, 1)}));
  return s;
}

TEST(Facts, WithoutIdempotenceARetryDuplicatesTheRecord) {
  Scenario s = retry_after_timeout(false);
  EXPECT_EQ(records(s.state(), 0), (std::vector<int>{1, 1}));
  EXPECT_FALSE(properties::no_duplicates(s.config(), s.state()));
}

TEST(Facts, IdempotenceAnswersTheRetryWithTheOriginalOffset) {
  Scenario s = retry_after_timeout(true);
  EXPECT_EQ(records(s.state(), 0), (std::vector<int>{1}));
  EXPECT_EQ(s.state().producer.inflight_offset, 1);
  EXPECT_TRUE(s.holds("no-duplicates"));
  ASSERT_TRUE(catch_up(s, 1, 0));
  ASSERT_TRUE(catch_up(s, 2, 0));
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::Acked);
  EXPECT_TRUE(s.all_hold());
}

// KIP-679 (3.0): enable.idempotence defaults to true; ProducerConfig turns it off when
// acks is not all unless it was set explicitly.
TEST(Facts, TheProducerIsIdempotentByDefaultWithAcksAll) {
  EXPECT_TRUE(load_config(nullptr, {}).idempotence);
  EXPECT_FALSE(load_config(nullptr, {"acks=1"}).idempotence);
  EXPECT_FALSE(load_config(nullptr, {"acks=0"}).idempotence);
  EXPECT_FALSE(load_config(nullptr, {"idempotence=false"}).idempotence);
  const Config defaults = load_config(nullptr, {});
  EXPECT_NE(std::find(defaults.properties.begin(), defaults.properties.end(), "no-duplicates"),
            defaults.properties.end());
  const Config off = load_config(nullptr, {"idempotence=false"});
  EXPECT_NE(std::find(off.properties.begin(), off.properties.end(), "no-duplicates"), off.properties.end())
      << "no-duplicates is checkable with idempotence off";
}

// acks=1: the leader appends and answers at once; the answer is lost, the client times
// out (request.timeout.ms) and retries.
// acks=1 never goes with idempotence: Kafka's producer refuses the combination.
Scenario acks_one_lost_response() {
  Scenario s({"acks=1", "idempotence=false", "faults.max_lost_produce_responses=1"});
  EXPECT_TRUE(s.apply(Step{ActionKind::Produce, 0, rules::kResponseLost, 1}));
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::TimedOut);
  EXPECT_EQ(records(s.state(), 0), (std::vector<int>{1})) << "appended although the client never heard";
  EXPECT_FALSE(s.can(Step{ActionKind::Produce, 0, rules::kResponseLost, kAny})) << "budget used up";
  EXPECT_TRUE(s.apply(Step{ActionKind::Produce, 0, 0, 1}));
  return s;
}

TEST(Facts, WithoutIdempotenceALostAcksOneResponseDuplicatesTheRetry) {
  Scenario s = acks_one_lost_response();
  EXPECT_EQ(records(s.state(), 0), (std::vector<int>{1, 1}));
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::Acked);
  EXPECT_TRUE(s.violated("no-duplicates"));
}

TEST(Facts, AResponseIsLostOnlyWithinItsBudgetAndOnlyForAcksOne) {
  Scenario none({"acks=1"});
  EXPECT_FALSE(none.can(Step{ActionKind::Produce, 0, rules::kResponseLost, kAny}));
  Scenario all({"faults.max_lost_produce_responses=1"});
  EXPECT_FALSE(all.can(Step{ActionKind::Produce, 0, rules::kResponseLost, kAny}))
      << "acks=all: a lost or late response is ProduceTimeout";
}

TEST(Facts, KafkasProducerRefusesIdempotenceWithoutAcksAll) {
  // ProducerConfig: "Must set acks to all in order to use the idempotent producer".
  for (const char* acks : {"acks=0", "acks=1"}) {
    try {
      load_config(nullptr, {acks, "idempotence=true"});
      ADD_FAILURE() << acks << " with idempotence=true was accepted";
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.field, "idempotence") << e.what();
    }
  }
  // Not given, idempotence follows acks as the producer's default does (KIP-679).
  EXPECT_FALSE(load_config(nullptr, {"acks=1"}).idempotence);
  EXPECT_TRUE(load_config(nullptr, {"acks=all"}).idempotence);
}

}  // namespace
}  // namespace isr::spec
