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
Scenario divergent_epochs(const std::string& protocol) {
  Scenario s({"protocol=" + protocol, "acks=1", "bounds.max_leader_moves=2", "bounds.max_records=3"});
  EXPECT_TRUE(s.run({produce(0, 1), preferred_election(1), metadata_update(1), produce(1, 2), preferred_election(0),
                     metadata_update(0), metadata_update(1)}));
  EXPECT_EQ(entries(s.state(), 0), (Entries{{0, 1}}));
  EXPECT_EQ(entries(s.state(), 1), (Entries{{1, 2}}));
  EXPECT_EQ(s.replica(0).epoch_start_offset, 1);
  EXPECT_TRUE(s.apply(epoch_query(1, 0)));
  return s;
}

// Both followers catch up with leader 0, after it appends record 3 in epoch 2.
::testing::AssertionResult replicate_record_three(Scenario& s) {
  if (auto r = s.run({produce(0, 3), metadata_update(2)}); !r) return r;
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
// first record. 1 asks for the end of its epoch 3, which 0 never had.
Scenario two_unknown_epochs(const std::string& protocol) {
  Scenario s({"protocol=" + protocol, "acks=1", "bounds.max_leader_moves=4", "bounds.max_leader_epoch=4",
              "bounds.max_records=4"});
  EXPECT_TRUE(s.run({produce(0, 1), fetch(1, 0), fetch_response(1), preferred_election(1), metadata_update(1),
                     produce(1, 2), preferred_election(0), metadata_update(0), produce(0, 3), preferred_election(1),
                     metadata_update(1), produce(1, 4), preferred_election(0), metadata_update(0),
                     metadata_update(1)}));
  EXPECT_EQ(entries(s.state(), 0), (Entries{{0, 1}, {2, 3}}));
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
  EXPECT_EQ(s.replica(1).fetch_epoch[2], 3);
}

TEST(Kip279Generation, AFetchWithAStaleLeaderEpochIsServed) {
  for (const auto& overrides : {std::vector<std::string>{"protocol=kip-279"},
                                std::vector<std::string>{"protocol=kip-320", "fixes.fetch_epoch_fencing=false"}}) {
    Scenario s = stale_epoch_view(overrides);
    ASSERT_TRUE(s.apply(fetch(2, 1))) << overrides.back();
    EXPECT_EQ(s.replica(2).response.kind, static_cast<uint8_t>(FetchReply::Data)) << overrides.back();
    EXPECT_EQ(s.replica(1).fetch_epoch[2], 3) << "the leader counts a fetch made in epoch 1 as current";
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
  EXPECT_TRUE(s.run({crash(2, StopKind::Kill), fence_broker(2, 0), metadata_update(0), produce(0, 1), fetch(1, 0),
                     fetch_response(1), fetch(1, 0)}));
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
  EXPECT_EQ(s.controller().last_known_elr, nodes({1}));
  EXPECT_TRUE(s.holds("leader-completeness"));
  ASSERT_TRUE(s.apply(crash(0, StopKind::Kill)));
  ASSERT_TRUE(s.apply(fence_broker(0, kNoNode))) << "no clean candidate: no leader";
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

// ISR {0}, ELR {1}; then 0 crashes too and both restart uncleanly: ISR and ELR empty.
Scenario everyone_restarts_uncleanly(const std::vector<std::string>& overrides) {
  Scenario s(with({"controller.placement=dedicated", "faults.max_crashes=3"}, overrides));
  EXPECT_TRUE(s.run({crash(2, StopKind::Kill), fence_broker(2, 0), crash(1, StopKind::Kill), fence_broker(1, 0),
                     crash(0, StopKind::Kill), fence_broker(0, kNoNode), restart(1), register_broker(1, kNoNode),
                     restart(0), register_broker(0, kNoNode)}));
  EXPECT_EQ(s.controller().isr, 0);
  EXPECT_EQ(s.controller().elr, 0);
  return s;
}

TEST(Kip966Generation, LastKnownElrNamesWhomToRecoverFrom) {
  Scenario s = everyone_restarts_uncleanly({});
  EXPECT_EQ(s.controller().last_known_elr, nodes({0, 1}));
  EXPECT_TRUE(s.holds("min-isr-recovery-quorum"));
  Scenario off = everyone_restarts_uncleanly({"fixes.last_known_elr=false"});
  EXPECT_EQ(off.controller().last_known_elr, 0);
  EXPECT_TRUE(off.violated("min-isr-recovery-quorum"));
}

}  // namespace
}  // namespace isr::spec
