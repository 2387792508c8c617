// One hand-driven scenario per protocol generation (MODEL.md section 3): the same steps
// run under the generation before and under the generation itself, or with the fix
// toggled off and on, showing what the fix changes, and which property the change
// protects where the scenario breaks one.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/model_test_util.h"

namespace isr::spec {
namespace {

using namespace modeltest;
using Entries = std::vector<std::pair<int, int>>;

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

// Before KAFKA-15021 (generations before kip-966) an ISR shrink bumps the leader epoch,
// and the leader's AlterPartition response is ignored: brokers learn the new epoch from
// the metadata. Applies those metadata updates where the scenario's generation needs them.
void catch_up_after_shrink(Scenario& s, std::initializer_list<int> brokers) {
  for (int b : brokers) {
    if (s.replica(b).view_leader_epoch != s.controller().leader_epoch) {
      EXPECT_TRUE(s.apply(metadata_update(b)));
    }
    if (s.replica(b).needs_truncation) {
      EXPECT_TRUE(s.apply(epoch_query(b, s.controller().leader)));
    }
  }
}

// --- hw-truncation -> kip-101 ----------------------------------------------------------

// KIP-101 scenario: a record committed at the leader while the followers' HW still lags
// (the fetch response carrying the new HW has not arrived); the leader dies, and a
// follower becoming follower of the new leader truncates to its HW. Then the new leader
// dies too, and the truncated follower is elected.
Scenario kip101_scenario(const std::string& protocol) {
  Scenario s({"protocol=" + protocol, "controller.placement=dedicated", "faults.max_crashes=2"});
  EXPECT_TRUE(s.run({produce(0, 1), fetch(1, 0), fetch_response(1), fetch(2, 0), fetch_response(2), fetch(1, 0),
                     fetch(2, 0)}));
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::Acked);
  EXPECT_EQ(s.replica(2).hw, 0) << "its response with HW 1 is still in flight";
  // ZooKeeper mode (the generations before KRaft): broker 0 is also the controller; its
  // session expires, broker 1 takes over and handles 0's failure.
  EXPECT_TRUE(s.run({crash(0, StopKind::Kill), session_expiry(0), controller_failover(1), fence_broker(0, 1),
                     metadata_update(2)}));
  return s;
}

// Leader and controller 1 dies; broker 2 takes over both.
::testing::AssertionResult second_failover(Scenario& s) {
  return s.run({crash(1, StopKind::Kill), session_expiry(1), controller_failover(2), fence_broker(1, 2),
                metadata_update(2)});
}

TEST(HwTruncationGeneration, AFollowerTruncatesToItsHwAndLosesACommittedRecord) {
  Scenario s = kip101_scenario("hw-truncation");
  EXPECT_TRUE(records(s.state(), 2).empty()) << "makeFollower truncated to HW 0";
  ASSERT_TRUE(s.apply(metadata_update(1)));
  ASSERT_TRUE(second_failover(s));
  EXPECT_EQ(rules::active_leader(s.state()), 2);
  EXPECT_TRUE(s.violated("no-acked-loss"));
  EXPECT_TRUE(s.holds("no-committed-loss-globally")) << "the dead brokers still have it on disk";
}

// KIP-101's first scenario in the default fetch mode (one step per fetch round trip),
// RF 2: the fetch of follower 1 that lets the HW pass record 1 carries the HW from
// before it (Partition.readRecords), so 1 still has HW 0, and so has its checkpoint
// however late it is written. After a restart, makeFollower truncates 1 to that HW and
// drops the committed record; the leader then loses its disk and the acknowledged
// record is gone everywhere. (In the KRaft broker lifecycle the restart fenced 1 out of
// the ISR, so the loss needs the leader's disk; with a ZooKeeper session that outlives
// the restart, 1 would stay in the ISR and be electable.)
TEST(HwTruncationGeneration, ARestartTruncatesTheFollowerWhoseFetchCommittedTheRecord) {
  for (const char* protocol : {"hw-truncation", "kip-101"}) {
    Scenario s(Scenario::Raw{}, {std::string("protocol=") + protocol, "brokers=2", "replication_factor=2",
                                 "min_insync_replicas=2", "controller.placement=dedicated", "controller.voters=1",
                                 "faults.max_crashes=2", "faults.max_lossy_crashes=0", "faults.max_disk_losses=1"});
    ASSERT_FALSE(s.config().async_fetch_responses);
    ASSERT_TRUE(s.run({produce(0, 1), fetch(1, 0), fetch(1, 0)}));
    ASSERT_EQ(outcome(s.state(), 1), SendOutcome::Acked);
    EXPECT_EQ(s.replica(1).hw, 0) << "the committing fetch returned the old HW";
    if (s.can(checkpoint_hw(1))) {
      ASSERT_TRUE(s.apply(checkpoint_hw(1)));
    }
    // These generations run the ZooKeeper controller: the controller notices the stop
    // when the broker's session expires, then the restarted broker registers again.
    ASSERT_TRUE(s.run({crash(1, StopKind::Kill), session_expiry(1), fence_broker(1, 0), restart(1)}));
    ASSERT_TRUE(s.apply(register_broker(1, kAny)));
    if (s.can(unfence_broker(1, kAny))) {
      ASSERT_TRUE(s.apply(unfence_broker(1, kAny)));
    }
    ASSERT_TRUE(s.apply(metadata_update(1)));
    if (std::string(protocol) == "kip-101") {
      ASSERT_TRUE(s.apply(epoch_query(1, 0)));
      EXPECT_EQ(records(s.state(), 1), (std::vector<int>{1})) << "KIP-101: the leader has epoch 0 up to offset 1";
    } else {
      EXPECT_TRUE(records(s.state(), 1).empty()) << "truncated to its HW checkpoint 0";
    }
    ASSERT_TRUE(s.apply(crash(0, StopKind::Disk)));
    if (std::string(protocol) == "kip-101") {
      EXPECT_TRUE(s.holds("no-committed-loss-globally"));
    } else {
      EXPECT_TRUE(s.violated("no-committed-loss-globally"));
    }
  }
}

TEST(Kip101Generation, AFollowerKeepsItsLogUntilTheEpochQuery) {
  Scenario s = kip101_scenario("kip-101");
  EXPECT_EQ(records(s.state(), 2), (std::vector<int>{1}));
  EXPECT_EQ(s.replica(2).needs_truncation, 1);
  ASSERT_TRUE(s.run({metadata_update(1), epoch_query(2, 1)}));
  EXPECT_EQ(records(s.state(), 2), (std::vector<int>{1})) << "leader 1 has epoch 0 up to offset 1";
  ASSERT_TRUE(second_failover(s));
  EXPECT_EQ(rules::active_leader(s.state()), 2);
  EXPECT_TRUE(s.holds("no-acked-loss"));
}

TEST(Kip101Generation, TheToggleAloneRestoresHwTruncation) {
  Scenario s({"protocol=kip-966", "fixes.leader_epoch_truncation=false", "controller.placement=dedicated",
              "faults.max_crashes=2"});
  ASSERT_TRUE(s.run({produce(0, 1), fetch(1, 0), fetch_response(1), fetch(2, 0), fetch_response(2), fetch(1, 0),
                     fetch(2, 0), crash(0, StopKind::Kill), fence_broker(0, 1), metadata_update(2)}));
  EXPECT_TRUE(records(s.state(), 2).empty());
  EXPECT_FALSE(s.can(Step{ActionKind::EpochQuery}));
}

// --- kip-101 -> kip-279 ----------------------------------------------------------------

// Leadership moves 0 -> 1 -> 0 (preferred elections) while each leader appends a record
// the other never fetched: 0 has [(epoch 0, record 1)], 1 has [(epoch 1, record 2)].
// When 1 follows 0 in epoch 2 it asks for the end of its epoch 1, which 0 never had.
// Leader 0 first appends record 3 in epoch 2: before KAFKA-7415 (2.0.1) an epoch enters
// the leader's cache only with its first record (KAFKA-6361's "fast leader fail over").
Scenario divergent_epochs(const std::string& protocol) {
  Scenario s({"protocol=" + protocol, "acks=1", "bounds.max_leader_moves=2", "bounds.max_records=3"});
  EXPECT_TRUE(s.run({produce(0, 1), preferred_election(1), metadata_update(1), produce(1, 2), preferred_election(0),
                     metadata_update(0), produce(0, 3), metadata_update(1)}));
  EXPECT_EQ(entries(s.state(), 0), (Entries{{0, 1}, {2, 3}}));
  EXPECT_EQ(entries(s.state(), 1), (Entries{{1, 2}}));
  EXPECT_EQ(s.replica(0).epoch_start_offset, 1);
  EXPECT_TRUE(s.apply(epoch_query(1, 0)));
  return s;
}

// Both followers catch up with leader 0, which appended record 3 in epoch 2.
::testing::AssertionResult replicate_record_three(Scenario& s) {
  if (auto r = s.run({metadata_update(2)}); !r) return r;
  if (auto r = catch_up(s, 2, 0); !r) return r;
  return catch_up(s, 1, 0);
}

TEST(Kip101Generation, TheFirstLargerEpochAnswerLeavesLogsDiverged) {
  Scenario s = divergent_epochs("kip-101");
  // KIP-101's leader answers the start of the first epoch above 1 (its epoch 2, at offset
  // 1): the follower keeps offset 0, which differs from the leader's.
  EXPECT_EQ(entries(s.state(), 1), (Entries{{1, 2}}));
  ASSERT_TRUE(replicate_record_three(s));
  EXPECT_EQ(entries(s.state(), 1), (Entries{{1, 2}, {2, 3}}));
  EXPECT_EQ(entries(s.state(), 0), (Entries{{0, 1}, {2, 3}}));
  EXPECT_EQ(s.replica(0).hw, 2);
  EXPECT_EQ(s.replica(1).hw, 2);
  EXPECT_TRUE(s.violated("log-matching"));
}

TEST(Kip279Generation, TheLargestEpochAtOrBelowAnswerTruncatesTheDivergence) {
  Scenario s = divergent_epochs("kip-279");
  // The leader answers epoch 0, ending at offset 1; the follower's epoch 0 ends at 0.
  EXPECT_TRUE(records(s.state(), 1).empty());
  ASSERT_TRUE(replicate_record_three(s));
  EXPECT_EQ(entries(s.state(), 1), entries(s.state(), 0));
  EXPECT_EQ(s.replica(1).hw, 2);
  EXPECT_TRUE(s.holds("log-matching"));
}

// Follower 1 led epochs 1 and 3, leader 0 led epochs 2 and 4; they share only the
// first record. 1 asks for the end of its epoch 3, which 0 never had. Leader 0 appends
// record 5 in epoch 4 first, so that epoch 4 is in its cache before KAFKA-7415 too.
Scenario two_unknown_epochs(const std::string& protocol) {
  Scenario s({"protocol=" + protocol, "acks=1", "bounds.max_leader_moves=4", "bounds.max_leader_epoch=4",
              "bounds.max_records=5"});
  EXPECT_TRUE(s.run({produce(0, 1), fetch(1, 0), fetch_response(1), preferred_election(1), metadata_update(1),
                     produce(1, 2), preferred_election(0), metadata_update(0), produce(0, 3), preferred_election(1),
                     metadata_update(1), produce(1, 4), preferred_election(0), metadata_update(0), produce(0, 5),
                     metadata_update(1)}));
  EXPECT_EQ(entries(s.state(), 0), (Entries{{0, 1}, {2, 3}, {4, 5}}));
  EXPECT_EQ(entries(s.state(), 1), (Entries{{0, 1}, {1, 2}, {3, 4}}));
  EXPECT_TRUE(s.apply(epoch_query(1, 0)));
  return s;
}

TEST(Kip101Generation, OneAnswerStopsAtTheWrongEpochBoundary) {
  Scenario s = two_unknown_epochs("kip-101");
  // The first epoch above 3 at the leader is its current epoch 4, starting at offset 2.
  EXPECT_EQ(entries(s.state(), 1), (Entries{{0, 1}, {1, 2}}));
  EXPECT_NE(entries(s.state(), 1)[1], entries(s.state(), 0)[1]);
}

TEST(Kip279Generation, IteratesBackOverEveryEpochTheLeaderLacks) {
  Scenario s = two_unknown_epochs("kip-279");
  // Epoch 3 -> leader's epoch 2 (end 2): truncate to 2; epoch 1 -> leader's epoch 0
  // (end 1): truncate to 1; epoch 0 is shared: stop.
  EXPECT_EQ(entries(s.state(), 1), (Entries{{0, 1}}));
  ASSERT_TRUE(catch_up(s, 1, 0));
  EXPECT_EQ(entries(s.state(), 1), entries(s.state(), 0));
}

// --- kip-279 -> kip-320 ----------------------------------------------------------------

// Follower 2 follows leader 1 in epoch 1; leadership then moves to 0 and back to 1
// (epoch 3) and 1 learns it, while 2 still fetches in epoch 1.
Scenario stale_epoch_view(const std::vector<std::string>& overrides) {
  Scenario s(with({"bounds.max_leader_moves=3"}, overrides));
  EXPECT_TRUE(s.run({preferred_election(1), metadata_update(1), metadata_update(2), preferred_election(0),
                     preferred_election(1), metadata_update(1)}));
  EXPECT_EQ(s.replica(1).view_leader_epoch, 3);
  EXPECT_EQ(s.replica(2).view_leader_epoch, 1);
  EXPECT_EQ(s.replica(2).view_leader, 1);
  return s;
}

TEST(Kip320Generation, AFetchWithAStaleLeaderEpochIsFenced) {
  Scenario s = stale_epoch_view({"protocol=kip-320"});
  // FENCED_LEADER_EPOCH: the round trip changes nothing, so the model does not even
  // enumerate it; the follower has to learn the new epoch first.
  EXPECT_FALSE(s.can(fetch(2, 1)));
  ASSERT_TRUE(s.apply(metadata_update(2)));
  ASSERT_TRUE(s.apply(fetch(2, 1)));
  EXPECT_EQ(s.replica(2).response.kind, static_cast<uint8_t>(FetchReply::Data));
  EXPECT_EQ(s.replica(1).fetch_broker_epoch[2], 1) << "the leader recorded the fetch";
}

TEST(Kip279Generation, AFetchWithAStaleLeaderEpochIsServed) {
  for (const auto& overrides : {std::vector<std::string>{"protocol=kip-279"},
                                std::vector<std::string>{"protocol=kip-320", "fixes.fetch_epoch_fencing=false"}}) {
    Scenario s = stale_epoch_view(overrides);
    ASSERT_TRUE(s.apply(fetch(2, 1))) << overrides.back();
    EXPECT_EQ(s.replica(2).response.kind, static_cast<uint8_t>(FetchReply::Data)) << overrides.back();
    EXPECT_EQ(s.replica(1).fetch_broker_epoch[2], 1) << "the leader records a fetch made in epoch 1";
  }
}

// Leader 0 wrote records 1 and 2 (acks=1); follower 1 has both, follower 2 was dropped
// from the ISR. Leadership moves to 1, whose epoch starts at offset 2 with HW 0, and
// follower 2 fetches from it with an empty log.
Scenario join_below_epoch_start(const std::vector<std::string>& overrides) {
  Scenario s(with({"acks=1", "bounds.max_leader_moves=1"}, overrides));
  EXPECT_TRUE(s.run({produce(0, 1), produce(0, 2), fetch(1, 0), fetch_response(1), fetch(1, 0), fetch_response(1),
                     shrink_isr(0, 2)}));
  // Before KIP-497 in ZooKeeper mode the leader wrote the shrink itself (no AlterPartition).
  if (!rules::leader_writes_isr(s.config())) {
    EXPECT_TRUE(s.apply(alter_partition(0)));
  }
  EXPECT_TRUE(s.run({preferred_election(1), metadata_update(1), metadata_update(2), fetch(2, 1)}));
  EXPECT_EQ(s.replica(1).epoch_start_offset, 2);
  EXPECT_EQ(s.replica(1).hw, 0);
  EXPECT_EQ(s.replica(1).fetch_offset[2], 0);
  return s;
}

TEST(Kip320Generation, AnIsrJoinNeedsTheLeaderEpochStartOffset) {
  Scenario s = join_below_epoch_start({});
  EXPECT_EQ(s.replica(1).alter_pending, 0) << "offset 0 is at the HW but before the epoch start";
}

TEST(Kip279Generation, AFollowerAtTheHwJoinsTheIsrBeforeTheEpochStart) {
  for (const auto& overrides : {std::vector<std::string>{"protocol=kip-279"},
                                std::vector<std::string>{"fixes.isr_join_epoch_start=false"}}) {
    Scenario s = join_below_epoch_start(overrides);
    if (rules::leader_writes_isr(s.config())) {
      // kip-279 runs in ZooKeeper mode: the leader wrote the expansion at once.
      EXPECT_TRUE(contains(s.controller().isr, 2)) << overrides.back();
      EXPECT_TRUE(contains(s.replica(1).view_isr, 2)) << overrides.back();
    } else {
      EXPECT_EQ(s.replica(1).alter_pending, 1) << overrides.back();
      EXPECT_TRUE(contains(s.replica(1).alter_isr, 2)) << overrides.back();
    }
  }
}

// --- kip-320 -> kip-497 ----------------------------------------------------------------

// Follower 2 reaches the LEO, follower 1 does not; the leader decides to drop 1.
Scenario shrink_before_commit(const std::string& protocol) {
  Scenario s({"protocol=" + protocol});
  EXPECT_TRUE(s.run({produce(0, 1), fetch(2, 0), fetch_response(2), fetch(2, 0)}));
  EXPECT_EQ(s.replica(0).hw, 0);
  EXPECT_TRUE(s.apply(shrink_isr(0, 1)));
  return s;
}

TEST(Kip320Generation, InZooKeeperModeTheLeaderWritesTheShrinkBeforeUsingIt) {
  // Partition.maybeShrinkIsr -> updateIsr: the znode is written (compare-and-set on the
  // zkVersion) before the leader uses the new ISR, so the HW never outruns it.
  Scenario s = shrink_before_commit("kip-320");
  EXPECT_EQ(s.replica(0).view_isr, nodes({0, 2}));
  EXPECT_EQ(s.controller().isr, nodes({0, 2}));
  EXPECT_EQ(s.replica(0).hw, 1);
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::Acked);
  EXPECT_TRUE(s.all_hold());
  ASSERT_TRUE(s.run({crash(0, StopKind::Kill), session_expiry(0), controller_failover(1)}));
  EXPECT_FALSE(s.can(fence_broker(0, 1))) << "1 is not in the ISR";
  ASSERT_TRUE(s.run({fence_broker(0, 2), metadata_update(2)}));
  EXPECT_TRUE(s.holds("no-acked-loss"));
}

TEST(Kip320Generation, AShrinkAppliedBeforeItsCommitLetsTheHwOutrunTheCommittedIsr) {
  // The window KIP-497's maximal ISR closes, for an asynchronous ISR change (AlterPartition
  // to the KRaft controller) applied at once: kip-497 under KRaft without the fix.
  Scenario s({"protocol=kip-497", "controller.mode=kraft", "fixes.maximal_isr=false"});
  ASSERT_TRUE(s.run({produce(0, 1), fetch(2, 0), fetch_response(2), fetch(2, 0), shrink_isr(0, 1)}));
  EXPECT_EQ(s.replica(0).view_isr, nodes({0, 2}));
  EXPECT_EQ(s.controller().isr, nodes({0, 1, 2})) << "not committed yet";
  EXPECT_EQ(s.replica(0).hw, 1);
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::Acked);
  EXPECT_TRUE(s.violated("replication-quorum-superset"));
  EXPECT_TRUE(s.violated("strong-isr"));
  // The controller may still elect follower 1, which never had the record.
  ASSERT_TRUE(s.run({crash(0, StopKind::Kill), controller_failover(1), fence_broker(0, 1), metadata_update(1)}));
  EXPECT_TRUE(s.violated("no-acked-loss"));
}

TEST(Kip497Generation, AShrinkAppliesOnlyOnceCommitted) {
  Scenario s = shrink_before_commit("kip-497");
  EXPECT_EQ(s.replica(0).view_isr, nodes({0, 1, 2}));
  EXPECT_EQ(rules::maximal_isr(s.config(), s.replica(0)), nodes({0, 1, 2}));
  EXPECT_EQ(s.replica(0).hw, 0);
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::InFlight);
  EXPECT_TRUE(s.all_hold());
  ASSERT_TRUE(s.apply(alter_partition(0)));
  EXPECT_EQ(s.replica(0).hw, 1);
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::Acked);
  EXPECT_TRUE(s.all_hold());
}

TEST(Kip497Generation, ThePendingAddCountsForTheHwAtOnce) {
  // Maximal ISR also covers additions: a follower proposed for the ISR holds the HW back
  // before the controller commits it.
  Scenario s({"acks=1"});
  ASSERT_TRUE(s.run({crash(2, StopKind::Kill), fence_broker(2, 0), metadata_update(0), restart(2),
                     register_broker(2, 0), metadata_update(2), produce(0, 1), fetch(1, 0), fetch_response(1),
                     fetch(1, 0)}));
  ASSERT_EQ(s.replica(0).hw, 1);
  ASSERT_TRUE(s.run({fetch(2, 0), fetch_response(2), fetch(2, 0)}));
  EXPECT_EQ(s.replica(0).alter_isr, nodes({0, 1, 2}));
  EXPECT_EQ(rules::maximal_isr(s.config(), s.replica(0)), nodes({0, 1, 2}));
  ASSERT_TRUE(s.run({produce(0, 2), fetch_response(1), fetch(1, 0), fetch_response(1), fetch(1, 0)}));
  ASSERT_EQ(s.replica(0).fetch_offset[1], 2);
  EXPECT_EQ(s.replica(0).hw, 1) << "follower 2, joining, has not fetched record 2";
}

// --- kip-497 -> kip-903 ----------------------------------------------------------------

// Follower 2 catches up and leader 0 proposes it back into the ISR; before the
// AlterPartition is handled, 2 loses its disk, restarts and registers again.
Scenario stale_incarnation(const std::string& protocol) {
  // KIP-903 is a KRaft controller check: both sides run the KRaft controller.
  Scenario s({"protocol=" + protocol, "controller.mode=kraft", "faults.max_disk_losses=1"});
  EXPECT_TRUE(s.run({produce(0, 1), fetch(1, 0), fetch_response(1), fetch(1, 0), shrink_isr(0, 2),
                     alter_partition(0)}));
  if (s.controller().leader_epoch != s.replica(0).view_leader_epoch) {
    // kip-903 (KRaft 3.5): the shrink bumped the leader epoch; 1 fetches again in it.
    catch_up_after_shrink(s, {0, 1, 2});
    EXPECT_TRUE(s.run({fetch(1, 0), fetch_response(1)}));
  }
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::Acked);
  EXPECT_TRUE(s.run({fetch(2, 0), fetch_response(2), fetch(2, 0)}));
  EXPECT_EQ(s.replica(0).alter_isr, nodes({0, 1, 2}));
  EXPECT_EQ(s.replica(0).fetch_broker_epoch[2], 1);
  EXPECT_TRUE(s.run({crash(2, StopKind::Disk), fence_broker(2, 0), restart(2), register_broker(2, 0)}));
  EXPECT_EQ(s.controller().registered_epoch[2], 2);
  EXPECT_TRUE(records(s.state(), 2).empty());
  EXPECT_TRUE(s.apply(alter_partition(0)));
  return s;
}

TEST(Kip497Generation, AnExpansionFromAPreviousIncarnationIsAccepted) {
  Scenario s = stale_incarnation("kip-497");
  EXPECT_EQ(s.controller().isr, nodes({0, 1, 2}));
  EXPECT_TRUE(s.violated("strong-isr"));
  EXPECT_TRUE(s.violated("leader-completeness"));
}

TEST(Kip903Generation, AnExpansionFromAPreviousIncarnationIsRejected) {
  Scenario s = stale_incarnation("kip-903");
  EXPECT_EQ(s.controller().isr, nodes({0, 1}));
  EXPECT_TRUE(s.all_hold());
}

// --- kip-903 -> kip-966 ----------------------------------------------------------------

// ISR {0,1} with record 1 committed on both; 1 stops cleanly, then 0 crashes.
Scenario lose_the_isr(const std::string& protocol) {
  Scenario s({"protocol=" + protocol, "controller.placement=dedicated", "faults.max_crashes=3",
              "faults.max_clean_shutdowns=1"});
  EXPECT_TRUE(s.run({crash(2, StopKind::Kill), fence_broker(2, 0), metadata_update(0), metadata_update(1),
                     produce(0, 1), fetch(1, 0), fetch_response(1), fetch(1, 0)}));
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::Acked);
  EXPECT_TRUE(s.run({crash(1, StopKind::Clean, 0), crash(0, StopKind::Kill), fence_broker(0, kNoNode), restart(1)}));
  return s;
}

TEST(Kip903Generation, WithoutElrTheLastIsrMemberIsTheOnlyCandidate) {
  Scenario s = lose_the_isr("kip-903");
  EXPECT_EQ(s.controller().isr, nodes({0})) << "the ISR is never emptied";
  EXPECT_EQ(s.controller().leader, kNoNode);
  ASSERT_TRUE(s.apply(register_broker(1, kNoNode)));
  EXPECT_EQ(s.controller().leader, kNoNode) << "1 left the ISR when it stopped";
}

TEST(Kip966Generation, AReplicaRemovedBelowMinIsrEntersTheElrAndCanBeElected) {
  Scenario s = lose_the_isr("kip-966");
  EXPECT_EQ(s.controller().isr, 0);
  EXPECT_EQ(s.controller().elr, nodes({0, 1}));
  EXPECT_FALSE(s.can(register_broker(1, kNoNode)));
  ASSERT_TRUE(s.apply(register_broker(1, 1)));
  EXPECT_EQ(s.controller().leader, 1);
  EXPECT_EQ(s.controller().isr, nodes({1}));
  EXPECT_EQ(s.controller().elr, nodes({0}));
  ASSERT_TRUE(s.apply(metadata_update(1)));
  EXPECT_EQ(rules::active_leader(s.state()), 1);
  EXPECT_TRUE(s.holds("no-acked-loss"));
  EXPECT_TRUE(s.all_hold());
}

// ISR {0}, ELR {1} after follower 1 is dropped while behind; leader 0 holds record 1.
Scenario shrink_below_min_isr(const std::vector<std::string>& overrides) {
  Scenario s(with({"acks=1"}, overrides));
  EXPECT_TRUE(s.run({crash(2, StopKind::Kill), fence_broker(2, 0), metadata_update(0), produce(0, 1),
                     shrink_isr(0, 1), alter_partition(0)}));
  catch_up_after_shrink(s, {0});
  EXPECT_EQ(s.controller().isr, nodes({0}));
  return s;
}

TEST(Kip966Generation, TheHwIsFrozenBelowMinIsr) {
  Scenario s = shrink_below_min_isr({});
  EXPECT_EQ(s.controller().elr, nodes({1}));
  EXPECT_EQ(s.replica(0).hw, 0);
  EXPECT_EQ(s.count(ActionKind::Consume), 0);
  EXPECT_TRUE(s.holds("leader-completeness"));
}

TEST(Kip966Generation, AnUnfrozenHwLeavesTheElrBehind) {
  Scenario s = shrink_below_min_isr({"fixes.hw_frozen_below_min_isr=false"});
  EXPECT_EQ(s.controller().elr, nodes({1}));
  EXPECT_EQ(s.replica(0).hw, 1);
  EXPECT_TRUE(s.violated("leader-completeness")) << "ELR member 1 lacks the committed record";
}

TEST(Kip903Generation, TheHwMovesWithAnIsrBelowMinIsr) {
  Scenario s = shrink_below_min_isr({"protocol=kip-903"});
  EXPECT_EQ(s.controller().elr, 0);
  EXPECT_EQ(s.replica(0).hw, 1);
  EXPECT_TRUE(s.holds("leader-completeness")) << "without ELR only the ISR are candidates";
}

// Record 1 is committed on 0 and 1 (ISR {0,1}); 1 loses it in a power failure, is
// fenced into the ELR, restarts and registers.
Scenario unclean_restart(const std::vector<std::string>& overrides) {
  Scenario s(with({"controller.placement=dedicated", "faults.max_crashes=3", "faults.max_lossy_crashes=1"},
                  overrides));
  EXPECT_TRUE(s.run({crash(2, StopKind::Kill), fence_broker(2, 0), metadata_update(0), produce(0, 1), fetch(1, 0),
                     fetch_response(1), fetch(1, 0)}));
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::Acked);
  EXPECT_TRUE(s.run({crash(1, StopKind::Power), fence_broker(1, 0)}));
  EXPECT_TRUE(records(s.state(), 1).empty());
  EXPECT_EQ(s.controller().elr, nodes({1}));
  EXPECT_TRUE(s.run({restart(1), register_broker(1, 0)}));
  return s;
}

TEST(Kip966Generation, AnUncleanRestartLeavesTheElr) {
  Scenario s = unclean_restart({});
  EXPECT_EQ(s.controller().elr, 0);
  // Kafka 4.4 writes LastKnownELR only as the last known leader
  // (PartitionChangeBuilder.maybeUpdateLastKnownLeader): empty while there is a leader.
  EXPECT_EQ(s.controller().last_known_elr, 0);
  EXPECT_TRUE(s.holds("leader-completeness"));
  ASSERT_TRUE(s.apply(crash(0, StopKind::Kill)));
  ASSERT_TRUE(s.apply(fence_broker(0, kNoNode))) << "no clean candidate: no leader";
  EXPECT_EQ(s.controller().elr, nodes({0}));
  EXPECT_EQ(s.controller().last_known_elr, nodes({0})) << "the leader the partition lost";
  EXPECT_TRUE(s.holds("no-acked-loss"));
}

TEST(Kip966Generation, WithoutTheFixAnUncleanRestartStaysElectable) {
  Scenario s = unclean_restart({"fixes.unclean_restart_leaves_elr=false"});
  EXPECT_EQ(s.controller().elr, nodes({1}));
  EXPECT_TRUE(s.violated("leader-completeness"));
  ASSERT_TRUE(s.run({crash(0, StopKind::Kill), fence_broker(0, 1), metadata_update(1)}));
  EXPECT_EQ(rules::active_leader(s.state()), 1);
  EXPECT_TRUE(s.violated("no-acked-loss"));
}

// ISR {0}, ELR {1}; then 0 crashes too (ELR {0,1}, LastKnownELR {0}: the last leader) and
// both restart uncleanly, 1 first: ISR and ELR are empty once 0 registers.
Scenario everyone_restarts_uncleanly(const std::vector<std::string>& overrides) {
  Scenario s(with({"controller.placement=dedicated", "faults.max_crashes=3"}, overrides));
  EXPECT_TRUE(s.run({crash(2, StopKind::Kill), fence_broker(2, 0), crash(1, StopKind::Kill), fence_broker(1, 0),
                     crash(0, StopKind::Kill), fence_broker(0, kNoNode)}));
  EXPECT_EQ(s.controller().elr, nodes({0, 1}));
  EXPECT_TRUE(s.run({restart(1), register_broker(1, kNoNode), restart(0)}));
  EXPECT_EQ(s.controller().elr, nodes({0}));
  return s;
}

// PartitionChangeBuilder.electAnyLeader (4.x): ISR, then ELR, then the last known leader
// when it is unfenced (canElectLastKnownLeader), as an unclean election: ISR = [it], ELR
// cleared, LastKnownELR cleared (maybeUpdateLastKnownLeader). Unclean leader election is
// off in this configuration.
TEST(Kip966Generation, TheLastKnownLeaderIsElectedWhenIsrAndElrAreEmpty) {
  Scenario s = everyone_restarts_uncleanly({});
  EXPECT_EQ(s.controller().last_known_elr, nodes({0}));
  EXPECT_FALSE(s.can(register_broker(0, kNoNode)));
  ASSERT_TRUE(s.apply(register_broker(0, 0)));
  EXPECT_EQ(s.controller().leader, 0);
  EXPECT_EQ(s.controller().isr, nodes({0}));
  EXPECT_EQ(s.controller().elr, 0);
  EXPECT_EQ(s.controller().last_known_elr, 0);
  EXPECT_EQ(s.controller().unclean_elected, 1);
  EXPECT_TRUE(s.holds("min-isr-recovery-quorum"));

  Scenario off = everyone_restarts_uncleanly({"fixes.last_known_elr=false"});
  EXPECT_EQ(off.controller().last_known_elr, 0);
  ASSERT_TRUE(off.apply(register_broker(0, kNoNode))) << "no last known leader: the partition stays offline";
  EXPECT_EQ(off.controller().isr, 0);
  EXPECT_EQ(off.controller().elr, 0);
  EXPECT_TRUE(off.violated("min-isr-recovery-quorum"));
}

// The price of that availability: the last known leader lost its unflushed suffix in a
// power loss, and the replica that still has the acknowledged record (1, killed, so
// removed from the ELR at registration as an unclean shutdown) can no longer be elected.
// Kafka 4.4 elects 0 anyway; without the last-known-leader election the partition stays
// offline and nothing acknowledged is lost.
Scenario last_leader_lost_power(const std::vector<std::string>& overrides) {
  Scenario s(with({"controller.placement=dedicated", "faults.max_crashes=3", "faults.max_lossy_crashes=1"},
                  overrides));
  EXPECT_TRUE(s.run({crash(2, StopKind::Kill), fence_broker(2, 0), metadata_update(0), metadata_update(1),
                     produce(0, 1), fetch(1, 0), fetch_response(1), fetch(1, 0)}));
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::Acked);
  EXPECT_TRUE(s.run({crash(1, StopKind::Kill), fence_broker(1, 0), crash(0, StopKind::Power),
                     fence_broker(0, kNoNode), restart(0), register_broker(0, kNoNode), restart(1)}));
  EXPECT_TRUE(records(s.state(), 0).empty()) << "record 1 was never flushed on 0";
  EXPECT_EQ(records(s.state(), 1), (std::vector<int>{1}));
  EXPECT_EQ(s.controller().elr, nodes({1}));
  return s;
}

TEST(Kip966Generation, TheLastKnownLeaderMayHaveLostAcknowledgedRecords) {
  Scenario s = last_leader_lost_power({});
  ASSERT_TRUE(s.run({register_broker(1, 0), metadata_update(0)}));
  EXPECT_EQ(rules::active_leader(s.state()), 0);
  EXPECT_TRUE(s.violated("no-acked-loss"));
  EXPECT_TRUE(s.holds("no-committed-loss-globally")) << "1 still has it, until it truncates";

  Scenario off = last_leader_lost_power({"fixes.last_known_elr=false"});
  EXPECT_FALSE(off.can(register_broker(1, 0)));
  ASSERT_TRUE(off.apply(register_broker(1, kNoNode)));
  EXPECT_EQ(off.controller().leader, kNoNode);
  EXPECT_TRUE(off.holds("no-acked-loss"));
}

// KAFKA-19522: canElectLastKnownLeader only logged when the last known leader was not
// acceptable, and elected it anyway. 0 is the last known leader; it registers again
// (uncleanly, leaving the ELR), crashes again and is fenced; then 1's unclean
// registration empties the ELR.
Scenario last_known_leader_fenced(const std::vector<std::string>& overrides) {
  Scenario s(with({"controller.placement=dedicated", "faults.max_crashes=4"}, overrides));
  EXPECT_TRUE(s.run({crash(2, StopKind::Kill), fence_broker(2, 0), crash(1, StopKind::Kill), fence_broker(1, 0),
                     crash(0, StopKind::Kill), fence_broker(0, kNoNode), restart(0), register_broker(0, kNoNode),
                     crash(0, StopKind::Kill), fence_broker(0, kNoNode), restart(1)}));
  EXPECT_EQ(s.controller().last_known_elr, nodes({0}));
  EXPECT_EQ(s.controller().elr, nodes({1}));
  EXPECT_TRUE(contains(s.controller().fenced, 0));
  return s;
}

TEST(Kip966Generation, AFencedLastKnownLeaderIsNotElected) {
  Scenario s = last_known_leader_fenced({});
  EXPECT_FALSE(s.can(register_broker(1, 0)));
  ASSERT_TRUE(s.apply(register_broker(1, kNoNode)));
  EXPECT_EQ(s.controller().leader, kNoNode);

  Scenario off = last_known_leader_fenced({"fixes.last_known_leader_unfenced=false"});
  EXPECT_FALSE(off.can(register_broker(1, kNoNode)));
  ASSERT_TRUE(off.apply(register_broker(1, 0)));
  EXPECT_EQ(off.controller().leader, 0) << "a leader that is down: the partition is offline behind it";
  EXPECT_TRUE(contains(off.controller().fenced, 0));
}

// KIP-858 (3.7, metadata.version 3.7-IV2): ReplicationControlManager.LeaderAcceptor
// accepts a leader only if the replica's assigned directory is among its broker's online
// directories (ClusterControlManager.hasOnlineDir). The release pair on Kafka 3.9 (no
// ELR): a record acknowledged by all three; both followers killed, so the ISR is the
// leader alone; the leader loses its disk and comes back with a new directory id. Its
// registration does not elect it (the partition names the lost directory); its
// AssignReplicasToDirs moves the replica to the new directory without an election; the
// next registration (1's) elects it, with its empty log: the acknowledged record is lost
// one restart later than without the check, as Kafka 3.9.1 does on a real cluster
// (docs/conformance.md, i-release-pair-kip-903).
Scenario leader_lost_its_disk(const std::vector<std::string>& overrides) {
  Scenario s(with({"protocol=kip-903", "fixes.isr_shrink_keeps_leader_epoch=true",
                   "fixes.hw_frozen_below_min_isr=true", "controller.placement=dedicated", "faults.max_crashes=3",
                   "faults.max_disk_losses=1"},
                  overrides));
  EXPECT_TRUE(s.run({produce(0, 1), fetch(1, 0), fetch_response(1), fetch(2, 0), fetch_response(2), fetch(1, 0),
                     fetch(2, 0)}));
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::Acked);
  EXPECT_TRUE(s.run({crash(1, StopKind::Kill), fence_broker(1, 0), crash(2, StopKind::Kill), fence_broker(2, 0),
                     crash(0, StopKind::Disk), fence_broker(0, kNoNode), restart(0)}));
  EXPECT_EQ(s.controller().isr, nodes({0}));
  EXPECT_TRUE(records(s.state(), 0).empty());
  return s;
}

TEST(Kip966Generation, ABrokerBackOnANewDiskIsElectedOnlyOnceItsDirectoryIsAssigned) {
  Scenario s = leader_lost_its_disk({"fixes.directory_assignment=true"});
  const Step unfenced_first{ActionKind::RegisterBroker, 0, 0, 0};
  const Step assigned_first{ActionKind::RegisterBroker, 0, 0, rules::kAssignedFirst};
  EXPECT_FALSE(s.can(unfenced_first)) << "its directory is offline: not an acceptable leader";
  EXPECT_TRUE(s.can(assigned_first)) << "unless its assignment committed before the unfencing heartbeat";
  ASSERT_TRUE(s.apply({ActionKind::RegisterBroker, 0, kNoNode, 0}));
  EXPECT_EQ(s.controller().directory_offline, nodes({0}));
  EXPECT_FALSE(s.can(assign_replicas_to_dirs(0))) << "the broker has not created the log yet";
  ASSERT_TRUE(s.run({metadata_update(0)}));
  const int partition_epoch = s.controller().partition_epoch;
  ASSERT_TRUE(s.apply(assign_replicas_to_dirs(0)));
  EXPECT_EQ(s.controller().directory_offline, 0);
  EXPECT_EQ(s.controller().leader, kNoNode) << "the assignment elects nobody";
  EXPECT_EQ(s.controller().partition_epoch, partition_epoch + 1);
  EXPECT_TRUE(s.holds("no-acked-loss"));
  ASSERT_TRUE(s.run({restart(1), register_broker(1, 0), metadata_update(0)}));
  EXPECT_EQ(rules::active_leader(s.state()), 0);
  EXPECT_TRUE(s.violated("no-acked-loss")) << "the next election elects the empty log";

  Scenario off = leader_lost_its_disk({"fixes.directory_assignment=false"});
  EXPECT_FALSE(off.can(register_broker(0, kNoNode)));
  EXPECT_FALSE(off.can(assigned_first)) << "no directories before KIP-858";
  ASSERT_TRUE(off.apply(register_broker(0, 0))) << "before KIP-858 its own registration elects it";
  EXPECT_EQ(off.controller().directory_offline, 0);
}

// The generations: KIP-858 shipped in 3.7, so kip-966 has it and kip-903 (3.5) does not.
TEST(Kip966Generation, DirectoryAssignmentBelongsToKip966) {
  EXPECT_TRUE(fixes_for(Protocol::Kip966).directory_assignment);
  EXPECT_FALSE(fixes_for(Protocol::Kip903).directory_assignment);
}

// KAFKA-15583 (3.7): Partition.maybeIncrementLeaderHW does not move the HW while the ISR
// is below min ISR whether or not ELR is enabled (ELR is off by default in 4.0).
TEST(Kip966Generation, TheHwIsFrozenBelowMinIsrWithoutElrToo) {
  Scenario s = shrink_below_min_isr({"eligible_leader_replicas=false"});
  EXPECT_EQ(s.controller().elr, 0);
  EXPECT_EQ(s.replica(0).hw, 0);
}

// KAFKA-15021 (3.6): the controller no longer bumps the leader epoch when it only shrinks
// the ISR. Before it, fencing follower 2 starts leader epoch 1 with the same leader; the
// leader's parked produce request stays parked across it (checkEnoughReplicasReachOffset
// has no epoch check) and is acknowledged once follower 1 fetches in the new epoch.
TEST(Kip966Generation, AnIsrShrinkKeepsTheLeaderEpoch) {
  Scenario s({});
  ASSERT_TRUE(s.run({produce(0, 1), crash(2, StopKind::Kill), fence_broker(2, 0)}));
  EXPECT_EQ(s.controller().leader_epoch, 0);
  EXPECT_EQ(s.controller().partition_epoch, 1);

  Scenario off({"fixes.isr_shrink_keeps_leader_epoch=false"});
  ASSERT_TRUE(off.run({produce(0, 1), crash(2, StopKind::Kill), fence_broker(2, 0)}));
  EXPECT_EQ(off.controller().leader, 0);
  EXPECT_EQ(off.controller().leader_epoch, 1);
  ASSERT_TRUE(off.run({metadata_update(0), metadata_update(1)}));
  EXPECT_EQ(outcome(off.state(), 1), SendOutcome::InFlight) << "the same leader keeps its parked request";
  ASSERT_TRUE(off.run({fetch(1, 0), fetch_response(1), fetch(1, 0)}));
  EXPECT_EQ(outcome(off.state(), 1), SendOutcome::Acked);
}

// Before KAFKA-15021 the leader's own shrink bumped the epoch too (KRaft, kip-903); the
// AlterPartition response then carries another leader epoch and is ignored
// (Partition.handleAlterPartitionUpdate) until the metadata update. The ZooKeeper era's
// leader-written ISR changes kept the epoch.
TEST(Kip903Generation, TheLeadersOwnShrinkBumpsTheLeaderEpoch) {
  Scenario s({"protocol=kip-903", "acks=1"});
  ASSERT_TRUE(s.run({produce(0, 1), shrink_isr(0, 1), alter_partition(0)}));
  EXPECT_EQ(s.controller().leader_epoch, 1);
  EXPECT_EQ(s.controller().isr, nodes({0, 2}));
  EXPECT_EQ(s.replica(0).view_isr, nodes({0, 1, 2})) << "the response was ignored";
  ASSERT_TRUE(s.apply(metadata_update(0)));
  EXPECT_EQ(s.replica(0).view_isr, nodes({0, 2}));

  Scenario zk({"protocol=kip-497", "acks=1"});
  ASSERT_TRUE(zk.run({produce(0, 1), shrink_isr(0, 1), alter_partition(0)}));
  EXPECT_EQ(zk.controller().leader_epoch, 0);
  EXPECT_EQ(zk.replica(0).view_isr, nodes({0, 2}));
}

// The KRaft controller of kip-497's releases (2.8 to 3.4) bumps it on the leader's own
// shrink as 3.5's does: PartitionChangeBuilder.triggerLeaderEpochBumpIfNeeded (kafka-metadata
// 3.4.1) sets the leader whenever the target ISR drops a member, with no metadata.version
// gate. Seen on a KRaft 3.4.1 cluster (docs/conformance.md, "Older releases": leader epoch
// 1 after the shrink, where the model said 0).
TEST(Kip497Generation, UnderKRaftTheLeadersOwnShrinkBumpsTheLeaderEpoch) {
  Scenario s({"protocol=kip-497", "controller.mode=kraft", "acks=1"});
  ASSERT_TRUE(s.run({produce(0, 1), shrink_isr(0, 1), alter_partition(0)}));
  EXPECT_EQ(s.controller().leader_epoch, 1);
  EXPECT_EQ(s.controller().isr, nodes({0, 2}));
  EXPECT_EQ(s.replica(0).view_isr, nodes({0, 1, 2})) << "the response was ignored";
}

// KIP-841 (3.3): AlterPartition may not add a fenced broker to the ISR. Follower 2 caught
// up and the leader proposed it; then 2 is cut off from the controller and fenced (same
// incarnation, so KIP-903's broker epoch check passes).
Scenario expansion_of_a_fenced_follower(const std::vector<std::string>& overrides) {
  Scenario s(with({"faults.max_network_cuts=1"}, overrides));
  EXPECT_TRUE(s.run({produce(0, 1), fetch(1, 0), fetch_response(1), fetch(1, 0), shrink_isr(0, 2),
                     alter_partition(0), fetch(2, 0), fetch_response(2), fetch(2, 0)}));
  EXPECT_EQ(s.replica(0).alter_isr, nodes({0, 1, 2}));
  EXPECT_TRUE(s.run({cut(2, kCutFromQuorum), fence_broker(2, 0)}));
  EXPECT_TRUE(s.apply(alter_partition(0)));
  return s;
}

TEST(Kip903Generation, AFencedFollowerCannotJoinTheIsr) {
  Scenario s = expansion_of_a_fenced_follower({});
  EXPECT_EQ(s.controller().isr, nodes({0, 1}));
  Scenario off = expansion_of_a_fenced_follower({"fixes.isr_join_unfenced_only=false"});
  EXPECT_EQ(off.controller().isr, nodes({0, 1, 2}));
  EXPECT_TRUE(contains(off.controller().fenced, 2)) << "in the ISR while fenced";
}

}  // namespace
}  // namespace isr::spec
