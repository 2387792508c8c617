// Partition reassignment (KIP-455, bounds.max_reassignments; spec/partition/reassignment.cc
// and the assignment steps of controller.cc): the adding replica's catch-up and ISR join,
// completion once every target replica is in the ISR, the leader-epoch bump of a change
// that removes replicas (with the same leader), a removed leader, the removed replica's
// deleted log, and the acknowledged-write loss of a reassignment that shrinks the
// replication factor, found by the exhaustive search.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/verify.h"
#include "spec/cluster/cluster_config.h"
#include "tests/model_test_util.h"

namespace isr::spec {
namespace {

using namespace modeltest;

Step reassign(NodeSet target, int leader_after) {
  return {ActionKind::Reassign, kAny, leader_after, static_cast<int>(target)};
}

// Four brokers, the partition on 0, 1 and 2, one reassignment.
std::vector<std::string> four_brokers(std::vector<std::string> more = {}) {
  std::vector<std::string> all = {"brokers=4", "bounds.max_reassignments=1", "consumer=false"};
  all.insert(all.end(), more.begin(), more.end());
  return all;
}

TEST(Reassignment, OffByDefaultAndTheAssignmentStaysFixed) {
  Scenario s({});
  EXPECT_EQ(s.config().bounds.max_reassignments, 0);
  EXPECT_EQ(s.count(ActionKind::Reassign), 0);
  EXPECT_EQ(s.controller().replicas, 0) << "the field stays zero: default states are unchanged";
  EXPECT_EQ(s.replica(0).view_replicas, 0);
}

// 0,1,2 -> 0,1,3: broker 3 is added at once (replicas 0..3, adding {3}, removing {2}),
// without a leader-epoch bump; it fetches once both it and the leader replayed the change.
TEST(Reassignment, StartingAddsTheTargetWithoutABump) {
  Scenario s(four_brokers());
  EXPECT_EQ(s.controller().replicas, nodes({0, 1, 2}));
  ASSERT_TRUE(s.apply(reassign(nodes({0, 1, 3}), 0)));
  EXPECT_EQ(s.controller().replicas, nodes({0, 1, 2, 3}));
  EXPECT_EQ(s.controller().adding, nodes({3}));
  EXPECT_EQ(s.controller().removing, nodes({2}));
  EXPECT_EQ(s.controller().isr, nodes({0, 1, 2}));
  EXPECT_EQ(s.controller().leader_epoch, 0) << "adding replicas bumps no leader epoch";
  EXPECT_EQ(s.controller().partition_epoch, 1);
  EXPECT_EQ(s.state().faults.reassignments, 1);
  EXPECT_EQ(s.count(ActionKind::Reassign), 0) << "the budget is spent";
  ASSERT_TRUE(s.apply(metadata_update(3)));
  EXPECT_EQ(s.replica(3).view_leader, 0);
  EXPECT_FALSE(s.can(fetch(3, 0))) << "the leader has not replayed the change: NOT_LEADER_OR_FOLLOWER";
  ASSERT_TRUE(s.apply(metadata_update(0)));
  EXPECT_EQ(s.replica(0).view_replicas, nodes({0, 1, 2, 3}));
  EXPECT_TRUE(s.can(fetch(3, 0)));
}

// The adding replica catches up, the leader proposes it for the ISR, and the change that
// commits it completes the reassignment: 2 leaves the assignment and the ISR, and because
// a replica was removed the leader epoch goes up with the same leader.
TEST(Reassignment, CatchUpJoinsTheIsrAndCompletesWithAnEpochBumpForTheSameLeader) {
  Scenario s(four_brokers());
  ASSERT_TRUE(s.run({produce(0, 1), fetch(1, 0), fetch_response(1), fetch(2, 0), fetch_response(2)}));
  ASSERT_TRUE(s.run({reassign(nodes({0, 1, 3}), 0), metadata_update(0), metadata_update(3)}));
  ASSERT_TRUE(catch_up(s, 3, 0));
  EXPECT_EQ(s.replica(3).leo, 1);
  ASSERT_TRUE(s.replica(0).alter_pending) << s.json();
  EXPECT_EQ(s.replica(0).alter_isr, nodes({0, 1, 2, 3}));
  ASSERT_TRUE(s.apply(alter_partition(0)));
  EXPECT_EQ(s.controller().replicas, nodes({0, 1, 3}));
  EXPECT_EQ(s.controller().isr, nodes({0, 1, 3}));
  EXPECT_EQ(s.controller().adding, 0);
  EXPECT_EQ(s.controller().removing, 0);
  EXPECT_EQ(s.controller().leader, 0);
  EXPECT_EQ(s.controller().leader_epoch, 1) << "triggerLeaderEpochBumpForReplicaReassignmentIfNeeded";
  // The removed broker deletes its replica when it replays the change.
  EXPECT_EQ(s.replica(2).leo, 1);
  ASSERT_TRUE(s.apply(metadata_update(2)));
  EXPECT_EQ(s.replica(2).leo, 0);
  EXPECT_FALSE(s.replica(2).view_valid);
  EXPECT_FALSE(s.can(metadata_update(2))) << "nothing left to replay";
  // The leader, already leader in its own view, keeps its followers' offsets across the
  // bump (Replica.resetReplicaState with isNewLeader false) and drops the removed one.
  ASSERT_TRUE(s.apply(metadata_update(0)));
  EXPECT_EQ(s.replica(0).view_leader_epoch, 1);
  EXPECT_EQ(s.replica(0).fetch_offset[3], 1);
  EXPECT_EQ(s.replica(0).fetch_offset[2], 0);
  EXPECT_TRUE(s.all_hold());
}

// A target already in the ISR completes in the change that starts it; a removed leader
// hands leadership to a target replica (either one: the target order is the operator's).
TEST(Reassignment, RemovingTheLeaderElectsATargetReplica) {
  Scenario s(four_brokers());
  EXPECT_TRUE(s.can(reassign(nodes({1, 2}), 1)));
  EXPECT_TRUE(s.can(reassign(nodes({1, 2}), 2)));
  EXPECT_FALSE(s.can(reassign(nodes({1, 2}), 0))) << "a removed replica cannot stay leader";
  ASSERT_TRUE(s.apply(reassign(nodes({1, 2}), 1)));
  EXPECT_EQ(s.controller().replicas, nodes({1, 2}));
  EXPECT_EQ(s.controller().isr, nodes({1, 2}));
  EXPECT_EQ(s.controller().removing, 0) << "completed at once";
  EXPECT_EQ(s.controller().leader, 1);
  EXPECT_EQ(s.controller().leader_epoch, 1) << "one bump for the leader change and the removal together";
  ASSERT_TRUE(s.run({metadata_update(1), metadata_update(0)}));
  EXPECT_FALSE(s.replica(0).view_valid) << "broker 0 deleted its replica";
  EXPECT_EQ(rules::active_leader(s.state()), 1);
}

// The adding replica is the one that completes the reassignment, and the old leader is
// removed by it: the AlterPartition that lets the new replica in also moves leadership.
TEST(Reassignment, TheAlterPartitionThatCompletesMayMoveLeadership) {
  Scenario s(four_brokers());
  ASSERT_TRUE(s.run({reassign(nodes({1, 2, 3}), 0), metadata_update(0), metadata_update(3)}));
  EXPECT_EQ(s.controller().removing, nodes({0}));
  ASSERT_TRUE(s.run({fetch(3, 0), fetch_response(3)}));
  ASSERT_TRUE(s.replica(0).alter_pending) << s.json();
  EXPECT_EQ(s.matching(Step{ActionKind::AlterPartition, 0}).size(), 3u) << "one per new leader: 1, 2 or 3";
  ASSERT_TRUE(s.apply(Step{ActionKind::AlterPartition, 0, 3, rules::kAlterElects}));
  EXPECT_EQ(s.controller().leader, 3);
  EXPECT_EQ(s.controller().replicas, nodes({1, 2, 3}));
  EXPECT_EQ(s.controller().isr, nodes({1, 2, 3}));
  EXPECT_EQ(s.controller().leader_epoch, 1);
  // NEW_LEADER_ELECTED: broker 0 keeps its proposal pending, not resent, until its
  // metadata update (Partition.handleAlterPartitionError), so its maximal ISR still
  // counts 1, 2 and 3.
  EXPECT_EQ(s.replica(0).alter_pending, rules::kAlterAwaitingMetadata);
  EXPECT_EQ(rules::maximal_isr(s.config(), s.replica(0)), nodes({0, 1, 2, 3}));
  EXPECT_FALSE(s.can(alter_partition(0)));
  ASSERT_TRUE(s.apply(metadata_update(0)));
  EXPECT_EQ(s.replica(0).alter_pending, 0);
  EXPECT_FALSE(s.replica(0).view_valid) << "removed: its replica is deleted";
}

// The deposed leader's pending expansion holds its HW back: a record it appended before
// the AlterPartition that removed it is not acknowledged by a fetch of a replica that was
// removed with it (the model cleared the proposal at once and acknowledged it, a false
// loss: the target leader never had the record).
TEST(Reassignment, ADeposedLeaderAwaitingMetadataAcknowledgesNothingMore) {
  Scenario s(four_brokers({"replication_factor=3", "brokers=3"}));
  ASSERT_TRUE(s.run({crash(1, StopKind::Kill), fence_broker(1, 0)}));
  ASSERT_TRUE(s.run({reassign(nodes({1}), 0), metadata_update(0), restart(1), register_broker(1, 0),
                     metadata_update(1), fetch(1, 0), fetch_response(1)}));
  ASSERT_TRUE(s.replica(0).alter_pending) << s.json();
  ASSERT_TRUE(s.run({produce(0, 1), fetch(2, 0), fetch_response(2)}));
  ASSERT_TRUE(s.apply(Step{ActionKind::AlterPartition, 0, 1, rules::kAlterElects}));
  EXPECT_EQ(s.controller().leader, 1);
  ASSERT_TRUE(s.run({fetch(2, 0), fetch_response(2)}));
  EXPECT_EQ(s.replica(0).fetch_offset[2], 1);
  EXPECT_EQ(s.replica(0).hw, 0) << "replica 1, in the pending ISR, has not fetched record 1";
  EXPECT_NE(outcome(s.state(), 1), SendOutcome::Acked);
  ASSERT_TRUE(s.apply(metadata_update(1)));
  EXPECT_TRUE(s.holds("no-acked-loss"));
}

// The AlterPartition that completes a reassignment removing a replica bumps the leader
// epoch with the same leader; the leader ignores the answer of the newer epoch and keeps
// its pending expansion until its metadata update, so a fetch of the removed replica does
// not acknowledge a record the new ISR member lacks (found by simulate as a strong-isr
// violation while the model cleared the proposal at the answer).
TEST(Reassignment, ALeaderIgnoringTheBumpedAnswerKeepsItsProposal) {
  Scenario s(four_brokers({"brokers=3", "bounds.max_reassignments=2"}));
  ASSERT_TRUE(s.run({reassign(nodes({0, 2}), 0), reassign(nodes({0, 1}), 0)}));
  EXPECT_EQ(s.controller().adding, nodes({1}));
  EXPECT_EQ(s.controller().removing, nodes({2}));
  ASSERT_TRUE(s.run({metadata_update(1), metadata_update(0), metadata_update(2), fetch(1, 0), fetch_response(1)}));
  ASSERT_TRUE(s.replica(0).alter_pending) << s.json();
  ASSERT_TRUE(s.run({produce(0, 1), fetch(2, 0), fetch_response(2), alter_partition(0)}));
  EXPECT_EQ(s.controller().isr, nodes({0, 1}));
  EXPECT_EQ(s.controller().leader, 0);
  EXPECT_EQ(s.controller().leader_epoch, 2);
  EXPECT_EQ(s.replica(0).alter_pending, rules::kAlterAwaitingMetadata);
  ASSERT_TRUE(s.run({fetch(2, 0), fetch_response(2)}));
  EXPECT_EQ(s.replica(0).hw, 0) << "replica 1, in the pending ISR, has not fetched record 1";
  EXPECT_NE(outcome(s.state(), 1), SendOutcome::Acked);
  ASSERT_TRUE(s.apply(metadata_update(0)));
  EXPECT_EQ(s.replica(0).alter_pending, 0);
  EXPECT_TRUE(s.holds("strong-isr"));
}

// Completing below min ISR, Kafka's ELR computation starts from the old ISR, so the
// removed replicas enter the ELR (maybePopulateTargetElr); they are no candidates
// (electAnyLeader streams the target replicas), so leader-completeness does not count
// them once they deleted their logs.
TEST(Reassignment, RemovedReplicasInTheElrAreNoCandidates) {
  Scenario s(four_brokers({"brokers=3"}));
  ASSERT_TRUE(s.apply(produce(0, 1)));
  ASSERT_TRUE(catch_up(s, 1, 0));
  ASSERT_TRUE(catch_up(s, 2, 0));
  ASSERT_EQ(outcome(s.state(), 1), SendOutcome::Acked) << s.json();
  ASSERT_TRUE(s.apply(reassign(nodes({0}), 0)));
  EXPECT_EQ(s.controller().replicas, nodes({0}));
  EXPECT_EQ(s.controller().isr, nodes({0}));
  EXPECT_EQ(s.controller().elr, nodes({1, 2}));
  ASSERT_TRUE(s.apply(metadata_update(1)));
  EXPECT_EQ(s.replica(1).leo, 0);
  EXPECT_TRUE(s.holds("leader-completeness"));
  ASSERT_TRUE(s.run({crash(0, StopKind::Kill), controller_failover(1)}));  // 0 was the active controller
  EXPECT_TRUE(s.can(fence_broker(0, kNoNode)));
  EXPECT_FALSE(s.can(fence_broker(0, 1))) << "broker 1 is in the ELR but no replica";
}

// A reassignment to fewer replicas than min.insync.replicas: Kafka accepts it
// (validateManualPartitionAssignment checks brokers, not min ISR). A record acked by the
// ISR {0, 1} then lives on broker 0 alone once 1 deleted its replica, and 0's power loss
// (unflushed suffix) drops it from every disk. Without the reassignment the same faults
// lose nothing (the corpus entry reassignment-below-min-isr).
TEST(Reassignment, ShrinkingTheReplicationFactorBelowMinIsrLosesAnAckedWrite) {
  const std::vector<std::string> base = {"consumer=false", "bounds.max_leader_epoch=2", "bounds.max_partition_epoch=3",
                                         "properties=no-committed-loss-globally"};
  analysis::VerifyOptions options;
  options.por = true;
  std::vector<std::string> with = base;
  with.push_back("bounds.max_reassignments=1");
  const analysis::VerifyOutcome moved = analysis::verify(load_config(nullptr, with), options);
  ASSERT_EQ(moved.verdict, checker::Verdict::Violated);
  EXPECT_EQ(moved.property, "no-committed-loss-globally");
  EXPECT_EQ(moved.trace_steps, 8);
  const analysis::VerifyOutcome fixed = analysis::verify(load_config(nullptr, base), options);
  EXPECT_EQ(fixed.verdict, checker::Verdict::Holds);
}

TEST(Reassignment, ConfigurationIsCheckedAndShownOnlyWhenSet) {
  EXPECT_THROW(load_config(nullptr, {"bounds.max_reassignments=4"}), ConfigError);
  try {
    load_config(nullptr, {"protocol=kip-497", "controller.mode=zookeeper", "bounds.max_reassignments=1"});
    ADD_FAILURE() << "zookeeper mode accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("bounds.max_reassignments"), std::string::npos) << e.what();
  }
  try {
    load_config(nullptr, {"brokers=8", "bounds.max_reassignments=1"});
    ADD_FAILURE() << "8 brokers accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("bounds.max_reassignments"), std::string::npos) << e.what();
  }
  try {
    cluster::load_config(nullptr, {"bounds.max_reassignments=1"});
    ADD_FAILURE() << "--model cluster accepted a reassignment budget";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("bounds.max_reassignments"), std::string::npos) << e.what();
  }
  const Config plain = load_config(nullptr, {});
  EXPECT_FALSE(to_json(plain)["bounds"].contains("max_reassignments")) << "recorded configurations keep their text";
  EXPECT_EQ(describe_json(plain)["bounds"]["max_reassignments"], 0);
  const Config set = load_config(nullptr, {"brokers=4", "bounds.max_reassignments=2"});
  EXPECT_EQ(to_json(set)["bounds"]["max_reassignments"], 2);
  const nlohmann::json recorded = to_json(set);
  EXPECT_EQ(load_config(&recorded, {}).bounds.max_reassignments, 2);
}

}  // namespace
}  // namespace isr::spec
