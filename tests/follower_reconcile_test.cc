// The follower's truncation decision as it changed between 0.11 and 2.1 (docs/fidelity.md
// F13, issue 24 item 5): Partition.makeFollower restarts the fetcher (and so truncation)
// only on a leader change up to 2.0.0, also after a missed leader epoch from 2.0.1
// (KAFKA-7164, fixes.reconcile_on_epoch_gap), on every new leader epoch from 2.1.0
// (KIP-320, fixes.reconcile_on_every_epoch); and the leader's answer to
// OffsetsForLeaderEpoch before KAFKA-7415 (fixes.leader_epoch_cached_on_election).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/model_test_util.h"

namespace isr::spec {
namespace {

using namespace modeltest;

// --- configuration ---------------------------------------------------------------------

TEST(FollowerReconcile, TogglesFollowTheReleases) {
  for (const Protocol p : {Protocol::HwTruncation, Protocol::Kip101, Protocol::Kip279}) {
    EXPECT_FALSE(fixes_for(p).reconcile_on_epoch_gap);
    EXPECT_FALSE(fixes_for(p).reconcile_on_every_epoch);
    EXPECT_FALSE(fixes_for(p).leader_epoch_cached_on_election);
  }
  // 2.0.1 and 2.1.0 both come before the next generation, kip-320 (2.1).
  for (const Protocol p : {Protocol::Kip320, Protocol::Kip497, Protocol::Kip903, Protocol::Kip966}) {
    EXPECT_TRUE(fixes_for(p).reconcile_on_epoch_gap);
    EXPECT_TRUE(fixes_for(p).reconcile_on_every_epoch);
    EXPECT_TRUE(fixes_for(p).leader_epoch_cached_on_election);
  }
  const Config c = load_config(nullptr, {"fixes.reconcile_on_every_epoch=false"});
  EXPECT_FALSE(c.fixes.reconcile_on_every_epoch);
  EXPECT_TRUE(c.fixes.reconcile_on_epoch_gap);
  const nlohmann::json described = to_json(c);
  EXPECT_FALSE(load_config(&described, {}).fixes.reconcile_on_every_epoch) << "round trip";
}

// --- KAFKA-7164: a missed leader epoch ------------------------------------------------

// Follower 2 fetched record 1 from leader 0 (epoch 0) and then heard nothing while
// leadership went to 1 (epoch 1), under which 0 truncated record 1, and back to 0 (epoch
// 2). Broker 2 replays epochs 1 and 2 at once (KRaft: one published delta): its leader is
// 0 before and after, two epochs apart.
Scenario missed_epoch(const std::vector<std::string>& fixes) {
  std::vector<std::string> config = {"acks=1", "consumer=false", "bounds.max_leader_moves=2",
                                     "fixes.reconcile_on_every_epoch=false"};
  config.insert(config.end(), fixes.begin(), fixes.end());
  Scenario s(config);
  EXPECT_TRUE(s.run({produce(0, 1), fetch(2, 0), fetch_response(2)}));
  EXPECT_TRUE(s.run({preferred_election(1), metadata_update(1), metadata_update(0), epoch_query(0, 1)}));
  EXPECT_EQ(s.replica(0).leo, 0) << "0 truncated record 1 under leader 1";
  EXPECT_TRUE(s.run({preferred_election(0), metadata_update(0)}));
  EXPECT_EQ(s.replica(2).view_leader_epoch, 0);
  EXPECT_EQ(s.replica(2).leo, 1);
  EXPECT_TRUE(s.apply(metadata_update(2)));
  EXPECT_EQ(s.replica(2).view_leader_epoch, 2);
  return s;
}

TEST(FollowerReconcile, Kafka7164AFollowerThatMissedAnEpochTruncates) {
  Scenario s = missed_epoch({"fixes.reconcile_on_epoch_gap=true"});
  EXPECT_EQ(s.replica(2).needs_truncation, 1);
  ASSERT_TRUE(s.apply(epoch_query(2, 0)));
  EXPECT_EQ(s.replica(2).leo, 0) << "record 1 is gone from the leader's log, and from 2's";
}

// Up to 2.0.0 the same leader meant "no follower change": broker 2 keeps fetching from
// its old position with record 1, which its leader no longer has; the leader's next
// record goes to offset 0, so the two logs differ at offset 0 for good.
TEST(FollowerReconcile, Before7164TheFollowerKeepsASuffixItsLeaderTruncated) {
  Scenario s = missed_epoch({"fixes.reconcile_on_epoch_gap=false"});
  EXPECT_EQ(s.replica(2).needs_truncation, 0);
  EXPECT_FALSE(s.can(epoch_query(2, 0)));
  ASSERT_TRUE(s.apply(produce(0, 2)));
  EXPECT_EQ(s.replica(0).log[0].record, 2);
  EXPECT_EQ(s.replica(2).log[0].record, 1);
}

// --- KIP-320: every new leader epoch --------------------------------------------------

// Follower 1 has a fetch response in flight when the controller removes 2 from the ISR
// with a leader-epoch bump and the same leader (before KAFKA-15021). 2.1.0 restarts the
// fetcher (the response is dropped, the log reconciled); before, the fetcher is left
// alone and the response is applied.
Scenario same_leader_new_epoch(const std::vector<std::string>& fixes) {
  std::vector<std::string> config = {"acks=1", "consumer=false", "fixes.isr_shrink_keeps_leader_epoch=false"};
  config.insert(config.end(), fixes.begin(), fixes.end());
  Scenario s(config);
  EXPECT_TRUE(s.run({produce(0, 1), fetch(1, 0), fetch_response(1), produce(0, 2), fetch(1, 0)}));
  EXPECT_TRUE(s.run({crash(2, StopKind::Kill), fence_broker(2, 0)}));
  EXPECT_EQ(s.controller().leader, 0);
  EXPECT_EQ(s.controller().leader_epoch, 1);
  EXPECT_TRUE(s.apply(metadata_update(1)));
  return s;
}

TEST(FollowerReconcile, Kip320EveryNewEpochRestartsTheFetcher) {
  Scenario s = same_leader_new_epoch({});
  EXPECT_EQ(s.replica(1).needs_truncation, 1);
  EXPECT_FALSE(s.can(fetch_response(1))) << "the response in flight is dropped";
}

TEST(FollowerReconcile, BeforeKip320TheSameLeaderKeepsTheFetcher) {
  Scenario s = same_leader_new_epoch({"fixes.reconcile_on_every_epoch=false"});
  EXPECT_EQ(s.replica(1).needs_truncation, 0);
  ASSERT_TRUE(s.apply(fetch_response(1)));
  EXPECT_EQ(s.replica(1).leo, 2) << "the response of epoch 0 is applied in epoch 1";
}

// --- ZooKeeper: every request in turn --------------------------------------------------

// Under ZooKeeper a live broker gets every LeaderAndIsr in order, each one leader epoch
// after the one before: two same-leader bumps (the controller removes 1, then 3, from
// the ISR) are no missed epoch for broker 2, although its view jumps from 0 to 2 in one
// MetadataUpdate. A broker whose queue was dropped (fenced meanwhile) does miss them.
std::vector<std::string> zk_two_removals(const std::string& fix) {
  return {"protocol=kip-279",          "brokers=4",   "replication_factor=4", "acks=1", "consumer=false",
          "faults.max_crashes=2",      "faults.max_network_cuts=1", "controller.placement=dedicated", fix};
}

TEST(FollowerReconcile, ZookeeperDeliversEveryEpochSoNoneIsMissed) {
  Scenario s(zk_two_removals("fixes.reconcile_on_epoch_gap=true"));
  ASSERT_TRUE(s.run({produce(0, 1), fetch(2, 0), fetch_response(2)}));
  ASSERT_TRUE(s.run({crash(1, StopKind::Kill), session_expiry(1), fence_broker(1, 0)}));
  ASSERT_TRUE(s.run({crash(3, StopKind::Kill), session_expiry(3), fence_broker(3, 0)}));
  ASSERT_EQ(s.controller().leader_epoch, 2);
  EXPECT_FALSE(contains(s.controller().zk_queued_reconcile, 2));
  ASSERT_TRUE(s.apply(metadata_update(2)));
  EXPECT_EQ(s.replica(2).view_leader_epoch, 2);
  EXPECT_EQ(s.replica(2).needs_truncation, 0) << "epoch 0 -> 1 -> 2, one at a time, same leader";
}

TEST(FollowerReconcile, ZookeeperEveryEpochReconcilesThroughTheQueue) {
  Scenario s(zk_two_removals("fixes.reconcile_on_every_epoch=true"));
  ASSERT_TRUE(s.run({produce(0, 1), fetch(2, 0), fetch_response(2)}));
  ASSERT_TRUE(s.run({crash(1, StopKind::Kill), session_expiry(1), fence_broker(1, 0)}));
  EXPECT_TRUE(contains(s.controller().zk_queued_reconcile, 2));
  ASSERT_TRUE(s.apply(metadata_update(2)));
  EXPECT_EQ(s.replica(2).needs_truncation, 1);
}

TEST(FollowerReconcile, ZookeeperAFencedBrokerMissesEpochs) {
  Scenario s(zk_two_removals("fixes.reconcile_on_epoch_gap=true"));
  ASSERT_TRUE(s.run({produce(0, 1), fetch(2, 0), fetch_response(2)}));
  ASSERT_TRUE(s.run({cut(2, kCutFromQuorum), session_expiry(2), fence_broker(2, 0)}));
  ASSERT_TRUE(s.run({crash(1, StopKind::Kill), session_expiry(1), fence_broker(1, 0)}));
  ASSERT_EQ(s.controller().leader_epoch, 2);
  ASSERT_TRUE(s.run({heal(2, kCutFromQuorum), register_broker(2, kAny), unfence_broker(2, kAny)}));
  EXPECT_TRUE(contains(s.controller().zk_queued_reconcile, 2)) << "its new queue starts at epoch 2";
  ASSERT_TRUE(s.apply(metadata_update(2)));
  EXPECT_EQ(s.replica(2).needs_truncation, 1);
}

// --- KAFKA-7415: the new leader's epoch in its cache -----------------------------------

// Follower 2 holds record 2 of epoch 1 (leader 1), not yet committed (HW 0); leadership
// goes back to 0, whose log ends in epoch 0 and which has appended nothing in epoch 2.
// With its epoch cached at election (2.1.0) the leader answers epoch 0 ending at offset
// 1: 2 keeps record 1. Before, the leader's cache ends at epoch 0, it answers UNDEFINED
// for 2's epoch 1 and 2 truncates to its HW, dropping record 1 as well.
Scenario back_to_back_elections(const std::string& fix) {
  Scenario s({"acks=1", "consumer=false", "bounds.max_leader_moves=2", fix});
  EXPECT_TRUE(s.run({produce(0, 1), fetch(1, 0), fetch_response(1), preferred_election(1), metadata_update(1),
                     metadata_update(2), fetch(2, 1), fetch_response(2), produce(1, 2), fetch(2, 1),
                     fetch_response(2)}));
  EXPECT_EQ(s.replica(2).leo, 2);
  EXPECT_EQ(s.replica(2).hw, 0);
  EXPECT_TRUE(s.run({preferred_election(0), metadata_update(0), metadata_update(2)}));
  EXPECT_EQ(s.replica(2).needs_truncation, 1);
  EXPECT_TRUE(s.apply(epoch_query(2, 0)));
  return s;
}

TEST(FollowerReconcile, Kafka7415TheLeaderAnswersWithItsNewEpoch) {
  EXPECT_EQ(back_to_back_elections("fixes.leader_epoch_cached_on_election=true").replica(2).leo, 1);
}

TEST(FollowerReconcile, Before7415AFollowerWithALaterEpochFallsBackToItsHw) {
  EXPECT_EQ(back_to_back_elections("fixes.leader_epoch_cached_on_election=false").replica(2).leo, 0);
}

}  // namespace
}  // namespace isr::spec
