// log-matching as the TLA+ specifications state it (spec/partition/properties/consistency.cc): a
// replica's HW is judged only while it is running, registered, in the controller's
// leader epoch and reconciled with its leader. Before, a stopped or restarted replica was
// judged by its checkpointed HW, so an unclean election "broke" log-matching with every
// fix on, although the replica truncates as soon as it follows the new leader. A real
// divergence below the HW (pre-KIP-101 truncation to the HW, KIP-101's UNDEFINED answer)
// must still violate it.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "checker/bfs/bfs.h"
#include "tests/model_test_util.h"

namespace isr::spec::modeltest {
namespace {

using checker::Verdict;
using Entries = std::vector<std::pair<int, int>>;

// RF 2 on two brokers, min ISR 1, two records, log-matching only.
std::vector<std::string> two_replicas(std::vector<std::string> more) {
  std::vector<std::string> all = {"replication_factor=2", "brokers=2", "min_insync_replicas=1",
                                  "bounds.max_records=2", "consumer=false", "properties=log-matching"};
  all.insert(all.end(), more.begin(), more.end());
  return all;
}

checker::BfsResult<PartitionModel> check(const std::vector<std::string>& overrides) {
  checker::BfsOptions options;
  options.threads = 2;
  options.symmetry = true;
  return checker::bfs(make_model(overrides), options);
}

// The old false positive, step by step (it was `check`'s 10-step counterexample): N0,
// alone in the ISR, commits r1 and checkpoints its HW, is killed and restarts; the
// controller fences it and elects N1 uncleanly, which writes r2 at offset 0. N0 has not
// registered yet: its checkpointed HW is no claim about the partition.
TEST(LogMatching, AStoppedOrUnregisteredReplicaIsNotJudgedByItsCheckpoint) {
  Scenario s(Scenario::Raw{}, two_replicas({"unclean_leader_election=true", "faults.max_lossy_crashes=0"}));
  ASSERT_TRUE(s.run({produce(0, 1), shrink_isr(0, 1), alter_partition(0), checkpoint_hw(0),
                     crash(0, StopKind::Kill)}));
  EXPECT_TRUE(s.holds("log-matching"));
  // The fencing of N0 elects N1 in the same change (Election.UNCLEAN): leader epoch 1.
  ASSERT_TRUE(s.run({restart(0), fence_broker(0, 1), metadata_update(1), produce(1, 2)}));
  EXPECT_EQ(entries(s.state(), 0), (Entries{{0, 1}}));
  EXPECT_EQ(entries(s.state(), 1), (Entries{{1, 2}}));
  EXPECT_EQ(s.replica(0).hw, 1);
  EXPECT_EQ(s.replica(1).hw, 1);
  EXPECT_TRUE(s.holds("log-matching"));
  // Once N0 follows N1 it reconciles its log (KIP-279) and agrees with it.
  ASSERT_TRUE(s.run({register_broker(0, kAny), metadata_update(0)}));
  EXPECT_TRUE(s.holds("log-matching"));  // truncation pending: not judged yet
  ASSERT_TRUE(s.apply(epoch_query(0, 1)));
  EXPECT_TRUE(records(s.state(), 0).empty());
  EXPECT_TRUE(s.holds("log-matching"));
}

// Exhaustively: with every fix on, unclean elections enabled, the property holds (it was
// violated in 10 steps under the checkpoint-HW definition).
TEST(LogMatching, HoldsWithEveryFixAndUncleanElections) {
  const auto r = check(two_replicas({"unclean_leader_election=true"}));
  EXPECT_EQ(r.verdict, Verdict::Holds) << r.property << " in " << r.counterexample.actions.size() << " steps";
  EXPECT_GT(r.distinct_states, 100000u);
}

// The pre-KIP-101 divergence: the restarted N0 truncates to its checkpointed HW when it
// follows N1, keeping r1 at offset 0 where the leader has r2.
TEST(LogMatching, TruncationToTheHighWatermarkStillDiverges) {
  const auto r = check(two_replicas({"protocol=hw-truncation", "faults.max_crashes=2", "faults.max_lossy_crashes=2"}));
  ASSERT_EQ(r.verdict, Verdict::Violated);
  EXPECT_EQ(r.property, "log-matching");
  EXPECT_EQ(r.counterexample.actions.size(), 10u);
  const State& last = r.counterexample.states.back();
  const int l = last.controller.leader;
  ASSERT_NE(l, kNoNode);
  const int f = 1 - l;
  EXPECT_EQ(last.replicas[f].view_leader_epoch, last.controller.leader_epoch);
  EXPECT_FALSE(last.replicas[f].log[0] == last.replicas[l].log[0]);
}

// KIP-101's first-larger-epoch answer is UNDEFINED when the leader has no epoch at or
// below the follower's; the follower falls back to its HW and keeps the divergent entry.
// kip-101 runs the ZooKeeper controller: a third broker, and the ZooKeeper-era controller
// fixes on, keep the shorter ZooKeeper hazard (the power-lost leader re-registers and
// wins the controller election itself, hiding its bounce) out of the way.
TEST(LogMatching, Kip101UndefinedAnswerStillDiverges) {
  const auto r = check(two_replicas({"protocol=kip-101", "brokers=3", "faults.max_crashes=2",
                                     "faults.max_lossy_crashes=2", "fixes.bounced_broker_epochs=true",
                                     "fixes.controller_epoch_zk_version=true"}));
  ASSERT_EQ(r.verdict, Verdict::Violated);
  EXPECT_EQ(r.counterexample.actions.size(), 12u);
  EXPECT_EQ(r.counterexample.actions.back().kind, ActionKind::EpochQuery);
}

}  // namespace
}  // namespace isr::spec::modeltest
