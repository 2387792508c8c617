// Cross-checks the two engines on the Kafka model: for small configurations known to be
// unsafe, the exhaustive BFS (`isrcheck check`) finds a shortest counterexample, and the
// random walks (`isrcheck simulate`) must find a violation of the same property whose
// shrunk trace is nearly as short. A walker that misses bugs BFS sees, or a shrinker
// that leaves long traces, fails here on the real model rather than on toy models.
#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "checker/bfs/bfs.h"
#include "checker/walk/random_walk.h"
#include "spec/partition/config.h"
#include "spec/partition/partition_model.h"

namespace isr {
namespace {

struct UnsafeCase {
  std::string name;
  std::vector<std::string> overrides;
  // Action-kind weights for the walks, as a user would pass with --weights; empty: uniform.
  std::map<std::string, double, std::less<>> weights = {};
};

void PrintTo(const UnsafeCase& c, std::ostream* os) { *os << c.name; }

// Step-by-step action names, so that a failing assertion shows both traces.
std::string describe(const spec::PartitionModel& model, const std::vector<spec::Action>& actions) {
  std::string out;
  for (std::size_t i = 0; i < actions.size(); ++i) {
    out += "  " + std::to_string(i + 1) + ". " + model.action_name(actions[i]) + "\n";
  }
  return out;
}

class SimulateVsCheck : public testing::TestWithParam<UnsafeCase> {};

TEST_P(SimulateVsCheck, WalksFindTheSamePropertyWithANearlyShortestTrace) {
  const spec::PartitionModel model(spec::load_config(nullptr, GetParam().overrides));

  checker::BfsOptions bfs_options;
  bfs_options.threads = 1;
  const checker::BfsResult<spec::PartitionModel> exhaustive = checker::bfs(model, bfs_options);
  ASSERT_EQ(exhaustive.verdict, checker::Verdict::Violated)
      << "the case is meant to be unsafe; BFS explored " << exhaustive.distinct_states << " states";
  const std::vector<spec::Action>& shortest = exhaustive.counterexample.actions;

  checker::WalkOptions walk_options;
  walk_options.walks = 20000;
  walk_options.depth = 60;
  walk_options.seed = 7;
  walk_options.threads = 1;
  walk_options.weights = GetParam().weights;
  const checker::WalkResult<spec::PartitionModel> walked = checker::simulate(model, walk_options);
  ASSERT_EQ(walked.outcome, checker::WalkOutcome::kViolation)
      << "no walk found a violation; BFS found " << exhaustive.property << " in "
      << shortest.size() << " steps:\n"
      << describe(model, shortest);
  const checker::WalkViolation<spec::PartitionModel>& violation = *walked.violation;

  EXPECT_EQ(violation.property, exhaustive.property)
      << "simulate:\n" << describe(model, violation.shrunk.actions) << "check:\n"
      << describe(model, shortest);
  EXPECT_LE(violation.shrunk.actions.size(), shortest.size() + 2)
      << "shrunk from " << violation.found.actions.size() << " steps to:\n"
      << describe(model, violation.shrunk.actions) << "check's shortest:\n"
      << describe(model, shortest);
  // The shrunk trace must itself be a real execution ending in the violation.
  spec::State state = violation.shrunk.initial;
  for (const spec::Action& a : violation.shrunk.actions) {
    bool enabled = false;
    model.for_each_action(state, [&](const spec::Action& e) { enabled = enabled || e == a; });
    ASSERT_TRUE(enabled) << model.action_name(a) << " is not enabled where the shrunk trace takes it";
    state = model.next_state(state, a);
  }
  EXPECT_FALSE(model.properties()[violation.property_index].holds(model, state));
}

INSTANTIATE_TEST_SUITE_P(
    UnsafeConfigurations, SimulateVsCheck,
    // Each case pins one property: with the default list the two engines may report
    // different properties (BFS the one violated at the smallest depth, a walk the first
    // one its path happens to break), which says nothing about either engine.
    testing::Values(
        UnsafeCase{"acks_1", {"acks=1", "properties=no-committed-loss-globally"}},
        // RF 2: with RF 3 the loss needs two ISR shrinks before any fetch, a schedule
        // uniform random walks rarely take (none in 50,000 walks).
        UnsafeCase{"min_isr_1",
                   {"min_insync_replicas=1", "replication_factor=2", "properties=no-committed-loss-globally"}},
        UnsafeCase{"unclean_election",
                   {"unclean_leader_election=true", "faults.max_crashes=2", "faults.max_lossy_crashes=0",
                    "properties=consistent-read"}},
        // hw-truncation runs the ZooKeeper controller: a follower emptied by a power loss
        // re-registers unnoticed and stays in the ISR (8 steps).
        UnsafeCase{"hw_truncation", {"protocol=hw-truncation", "properties=strong-isr"}},
        UnsafeCase{"acks_0", {"acks=0", "properties=no-committed-loss-globally"}},
        // Without KIP-497's maximal ISR the leader applies its asynchronous shrink at once,
        // ahead of the controller (ZooKeeper-era leaders wrote it synchronously, so this
        // is the KRaft controller with the fix off).
        UnsafeCase{"kip_320_isr_view",
                   {"protocol=kip-497", "controller.mode=kraft", "fixes.maximal_isr=false",
                    "properties=replication-quorum-superset"}},
        // The longest case (12 steps): the acked record must be truncated by an unclean
        // leader, not merely unread, so the walk must crash two brokers in the right order.
        // Uniform walks spend their steps on reads and timeouts (none found in 20,000
        // walks); a user hunting acked loss turns those off, as this case does.
        UnsafeCase{"unclean_election_acked_loss",
                   {"unclean_leader_election=true", "faults.max_crashes=2", "faults.max_lossy_crashes=0",
                    "properties=no-acked-loss"},
                   {{"Consume", 0.0}, {"ProduceTimeout", 0.0}}}),
    [](const testing::TestParamInfo<UnsafeCase>& info) { return info.param.name; });

}  // namespace
}  // namespace isr
