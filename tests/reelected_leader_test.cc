// Kafka's rule for a leader's follower state when it takes a new leader epoch
// (Partition.makeLeader -> Replica.resetReplicaState with isNewLeader = !isLeader,
// KAFKA-2721, 0.9.0.0 to 4.x; fixes.reelected_leader_keeps_followers), and the
// acknowledged-write loss it allows (issue 24, docs/findings.md), driven by hand and
// found by the exhaustive search.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/verify.h"
#include "tests/model_test_util.h"

namespace isr::spec {
namespace {

using namespace modeltest;

// The counterexample's configuration (the corpus entry reelected-leader-stale-follower):
// three brokers with a dedicated controller (so that two broker kills keep the quorum),
// one preferred election, two kills, and no more epochs than the loss needs.
std::vector<std::string> reelection_config(std::vector<std::string> more = {}) {
  std::vector<std::string> all = {"controller.placement=dedicated", "controller.voters=1",
                                  "bounds.max_leader_moves=1", "bounds.max_leader_epoch=3",
                                  "bounds.max_partition_epoch=3", "faults.max_crashes=2",
                                  "faults.max_lossy_crashes=0", "consumer=false"};
  all.insert(all.end(), more.begin(), more.end());
  return all;
}

// Leader 0 appended record 1 and follower 1 fetched it and told the leader so (fetch
// offset 1); follower 2 has not fetched. A preferred election then moves leadership to
// 2 (epoch 1), which only 1 and 2 replay.
Scenario record_fetched_then_leadership_moves(const std::vector<std::string>& more = {}) {
  Scenario s(Scenario::Raw{}, reelection_config(more));
  EXPECT_TRUE(s.run({produce(0, 1), fetch(1, 0), fetch(1, 0)}));
  EXPECT_EQ(s.replica(0).fetch_offset[1], 1);
  EXPECT_EQ(s.replica(0).hw, 0) << "follower 2 has not fetched: the HW stays";
  EXPECT_TRUE(s.run({preferred_election(2), metadata_update(1), metadata_update(2)}));
  EXPECT_EQ(s.replica(0).view_leader, 0) << "broker 0 has not replayed epoch 1";
  return s;
}

// --- the rule ----------------------------------------------------------------------------

// Broker 0 was leader in its own view (epoch 0) and is elected again at epoch 2 before it
// replayed epoch 1: one metadata update takes it from 0 to 2 (MetadataLoader publishes
// everything committed as one delta), and makeLeader runs with isNewLeader false.
TEST(ReelectedLeader, ALeaderInItsOwnViewKeepsItsFollowersOffsetsAcrossSkippedEpochs) {
  Scenario s = record_fetched_then_leadership_moves();
  ASSERT_TRUE(s.run({crash(2, StopKind::Kill), fence_broker(2, 0)}));
  ASSERT_EQ(s.controller().leader_epoch, 2);
  ASSERT_TRUE(s.apply(metadata_update(0)));
  EXPECT_EQ(s.replica(0).view_leader_epoch, 2);
  EXPECT_EQ(s.replica(0).fetch_offset[1], 1) << "kept from epoch 0";
  EXPECT_EQ(s.replica(0).fetch_broker_epoch[1], 1) << "Replica.resetReplicaState keeps brokerEpoch too";
  EXPECT_EQ(s.replica(0).epoch_start_offset, 1) << "the new epoch still starts at the LEO";
  // makeLeader then runs maybeIncrementLeaderHW over the kept offsets: with ISR {0, 1}
  // the HW passes record 1 (which follower 1 still has here) and the producer is answered.
  EXPECT_EQ(s.controller().isr, nodes({0, 1}));
  EXPECT_EQ(s.replica(0).hw, 1);
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::Acked);
}

// Broker 0 replays epoch 1 first, as a follower of 2, so that it is no leader in its own
// view when epoch 2 makes it leader: isNewLeader is true and the offsets are forgotten.
TEST(ReelectedLeader, ABrokerThatWasFollowerInItsOwnViewForgetsThem) {
  Scenario s = record_fetched_then_leadership_moves();
  ASSERT_TRUE(s.apply(metadata_update(0)));
  ASSERT_EQ(s.replica(0).view_leader, 2);
  ASSERT_TRUE(s.run({crash(2, StopKind::Kill), fence_broker(2, 0), metadata_update(0)}));
  EXPECT_EQ(s.replica(0).view_leader, 0);
  EXPECT_EQ(s.replica(0).fetch_offset[1], 0);
  EXPECT_EQ(s.replica(0).fetch_broker_epoch[1], 0);
  EXPECT_NE(outcome(s.state(), 1), SendOutcome::Acked);
}

// With the toggle off (Kafka 0.8.x: makeLeader reset the followers on every call) the
// leader that skipped epoch 1 forgets them as well.
TEST(ReelectedLeader, Kafka08ResetsThemOnEveryNewEpoch) {
  Scenario s = record_fetched_then_leadership_moves({"fixes.reelected_leader_keeps_followers=false"});
  ASSERT_TRUE(s.run({crash(2, StopKind::Kill), fence_broker(2, 0), metadata_update(0)}));
  EXPECT_EQ(s.replica(0).view_leader_epoch, 2);
  EXPECT_EQ(s.replica(0).fetch_offset[1], 0);
  EXPECT_EQ(s.replica(0).hw, 0);
  EXPECT_NE(outcome(s.state(), 1), SendOutcome::Acked);
}

// --- the acknowledged-write loss (docs/findings.md, reproduced on Kafka 4.4.0 and 3.9.1) --

// Follower 1 truncates record 1 under leader 2 (its epoch-1 log starts empty); 2 is killed
// and 0 elected at epoch 2; 0 jumps from epoch 0 to 2, keeps 1's offset 1, and with ISR
// {0, 1} its HW passes record 1 and the producer is acknowledged, while 1, in the ISR,
// holds nothing; 0 is killed and 1 elected with the empty log.
Scenario stale_offset_acknowledges(const std::vector<std::string>& more = {}) {
  Scenario s = record_fetched_then_leadership_moves(more);
  EXPECT_TRUE(s.apply(epoch_query(1, 2)));
  EXPECT_TRUE(records(s.state(), 1).empty()) << "follower 1 truncated record 1 under leader 2";
  EXPECT_TRUE(s.run({crash(2, StopKind::Kill), fence_broker(2, 0), metadata_update(0)}));
  return s;
}

TEST(ReelectedLeader, TheKeptOffsetAcknowledgesARecordTheFollowerTruncated) {
  Scenario s = stale_offset_acknowledges();
  EXPECT_EQ(s.controller().isr, nodes({0, 1}));
  EXPECT_EQ(s.replica(0).hw, 1);
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::Acked);
  EXPECT_TRUE(s.violated("strong-isr")) << "record 1 is below the HW but not on ISR member 1";
  ASSERT_TRUE(s.run({crash(0, StopKind::Kill), fence_broker(0, 1), metadata_update(1)}));
  EXPECT_EQ(rules::active_leader(s.state()), 1);
  EXPECT_TRUE(s.violated("no-acked-loss"));
}

TEST(ReelectedLeader, Kafka08DoesNotAcknowledgeIt) {
  Scenario s = stale_offset_acknowledges({"fixes.reelected_leader_keeps_followers=false"});
  EXPECT_EQ(s.replica(0).hw, 0);
  EXPECT_NE(outcome(s.state(), 1), SendOutcome::Acked);
  EXPECT_TRUE(s.holds("strong-isr"));
}

// The exhaustive search finds the loss on its own with Kafka's rule, in the 13 steps the
// conformance suite runs on Kafka (k-reelected-leader-stale-follower).
TEST(ReelectedLeader, TheSearchFindsTheLossWithKafkasRule) {
  const Config c = load_config(nullptr, reelection_config({"properties=no-acked-loss"}));
  analysis::VerifyOptions options;
  options.por = true;
  const analysis::VerifyOutcome r = analysis::verify(c, options);
  ASSERT_EQ(r.verdict, checker::Verdict::Violated);
  EXPECT_EQ(r.property, "no-acked-loss");
  EXPECT_EQ(r.trace_steps, 13);
}

}  // namespace
}  // namespace isr::spec
