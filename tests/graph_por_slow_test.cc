// Partial-order reduction in the explicit state graph (checker/graph/state_graph.h: dead
// components cleared, irrelevant actions dropped) keeps what the graph analyses answer:
// for a sweep of matrix cells, every availability check of the shipped claims and the
// logs-converge configurations of convergence_test, the verdict, the set of classes
// that have settled states (and that none is unexplained), the length of the witness,
// and the witness with POR on is a real execution that replays on the partition model.
// docs/claims.md ("Threads and partial-order reduction") gives the argument; this is
// the check that the models' declarations meet it. Slow: about 20 CPU seconds (17.7 s
// user, 2.5 s system; 310 s of wall time at a load of 5-7 on 2 cores).
#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/availability.h"
#include "analysis/claims.h"
#include "analysis/convergence.h"
#include "analysis/matrix.h"
#include "counterexamples/trace/replay.h"
#include "spec/partition/config.h"
#include "spec/partition/partition_model.h"

namespace isr {
namespace {

using analysis::AvailabilityOptions;
using analysis::AvailabilityReport;

std::set<std::string> settled_classes(const AvailabilityReport& r) {
  std::set<std::string> classes;
  for (const auto& [name, count] : r.states_by_class)
    if (count > 0) classes.insert(name);
  return classes;
}

// Whether the reduced analysis agrees with the full one; both must be complete.
::testing::AssertionResult same_answer(const spec::Config& config, AvailabilityOptions o, uint64_t& full_states,
                                       uint64_t& reduced_states) {
  o.por = false;
  const AvailabilityReport full = analysis::analyze_availability(config, o);
  o.por = true;
  o.threads = 2;
  const AvailabilityReport reduced = analysis::analyze_availability(config, o);
  if (!full.complete || !reduced.complete) return ::testing::AssertionFailure() << "incomplete";
  if (!reduced.por) return ::testing::AssertionFailure() << "the reduction was not in effect";
  full_states += full.graph_states;
  reduced_states += reduced.graph_states;
  if (reduced.graph_states > full.graph_states)
    return ::testing::AssertionFailure() << "more states with POR: " << reduced.graph_states;
  if (full.verdict != reduced.verdict)
    return ::testing::AssertionFailure() << "verdict " << analysis::availability_name(full.verdict) << " without POR, "
                                         << analysis::availability_name(reduced.verdict) << " with it";
  if (settled_classes(full) != settled_classes(reduced))
    return ::testing::AssertionFailure() << "settled classes differ: " << ::testing::PrintToString(full.states_by_class)
                                         << " vs " << ::testing::PrintToString(reduced.states_by_class);
  if (full.unexplained_states != 0 || reduced.unexplained_states != 0)
    return ::testing::AssertionFailure() << "unexplained states";
  if ((full.bound_limited_states == 0) != (reduced.bound_limited_states == 0))
    return ::testing::AssertionFailure() << "bound-limited states in one graph only";
  if (full.witness_steps != reduced.witness_steps)
    return ::testing::AssertionFailure() << "witness of " << full.witness_steps << " steps without POR, "
                                         << reduced.witness_steps << " with it";
  if (reduced.verdict != analysis::WriteAvailability::Available) {
    const spec::PartitionModel model(spec::load_config(&reduced.witness_trace.at("config"), {}));
    const auto replayed =
        counterexamples::replay_trace(model, reduced.witness_trace, counterexamples::ReplayEnd::StepsOnly);
    if (!replayed.reproduced) return ::testing::AssertionFailure() << "witness: " << replayed.summary();
  }
  return ::testing::AssertionSuccess();
}

TEST(GraphPorSlow, MatrixCellsKeepTheirAvailability) {
  // Every RF up to 3 and min ISR, clean and unclean, ELR on and off, both placements, 1
  // or 2 failures, kill -9 and power loss: the failure scenarios the matrix classifies.
  analysis::MatrixDimensions d;
  d.replication_factors = {1, 2, 3};
  d.acks = {spec::Acks::All};
  d.unclean = {false, true};
  d.elr = {true, false};
  d.placements = {spec::Placement::Combined, spec::Placement::Dedicated};
  d.failures = {1, 2};
  d.lossy = {false, true};
  const auto cells = analysis::expand_matrix(d);
  ASSERT_GE(cells.size(), 50u);
  uint64_t full = 0, reduced = 0;
  size_t compared = 0;
  std::set<std::string> verdicts;
  for (const auto& cell : cells) {
    const spec::Config config = analysis::matrix_cell_config(nlohmann::json::object(), {}, cell);
    AvailabilityOptions o;
    o.failures = cell.failures;
    o.lossy = cell.lossy;
    o.failing_nodes = "brokers";
    o.max_states = 150'000;
    o.por = false;
    const AvailabilityReport probe = analysis::analyze_availability(config, o);
    if (!probe.complete) continue;  // too large for this test; the reduced one is compared below anyway
    EXPECT_TRUE(same_answer(config, o, full, reduced)) << cell.id();
    verdicts.insert(std::string(analysis::availability_name(probe.verdict)));
    ++compared;
  }
  EXPECT_GE(compared, cells.size() * 3 / 4) << "too few cells completed to compare";
  EXPECT_EQ(verdicts.size(), 4u) << "every class is some cell's verdict";
  EXPECT_LT(reduced, full) << "the reduction reduced nothing";
  std::printf("matrix cells compared: %zu of %zu; graph states %llu without POR, %llu with it\n", compared,
              cells.size(), static_cast<unsigned long long>(full), static_cast<unsigned long long>(reduced));
}

TEST(GraphPorSlow, EveryShippedAvailabilityClaimKeepsItsAnswer) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ISRCHECK_SOURCE_DIR) + "/claims")) {
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  uint64_t full = 0, reduced = 0;
  size_t checks = 0;
  for (const auto& file : files) {
    const analysis::Claim claim = analysis::read_claim_file(file);
    for (const auto& a : claim.availability) {
      AvailabilityOptions o;
      o.failures = a.failures;
      o.lossy = a.lossy;
      o.failing_nodes = a.failing_nodes;
      EXPECT_TRUE(same_answer(claim.resolved, o, full, reduced)) << claim.name << " f=" << a.failures;
      ++checks;
    }
  }
  EXPECT_GE(checks, 7u);
  EXPECT_LT(reduced, full);
}

TEST(GraphPorSlow, ConvergenceKeepsItsVerdictAndWitnessLength) {
  const std::vector<std::string> two_replicas = {
      "replication_factor=2", "brokers=2", "min_insync_replicas=1", "faults.max_crashes=2",
      "faults.max_lossy_crashes=0", "bounds.max_records=2", "consumer=false",
      "fixes.controller_epoch_zk_version=true", "fixes.bounced_broker_epochs=true"};
  std::vector<std::vector<std::string>> configs;
  for (const char* protocol : {"hw-truncation", "kip-101", "kip-279"}) {
    configs.push_back(two_replicas);
    configs.back().push_back(std::string("protocol=") + protocol);
  }
  configs.push_back(two_replicas);
  configs.back().push_back("protocol=kip-279");
  configs.back().push_back("fixes.bounced_broker_epochs=false");
  configs.back().push_back("faults.max_crashes=1");
  // Power losses, where flushes matter until the last one.
  configs.push_back({"consumer=false", "replication_factor=2", "faults.max_crashes=1", "faults.max_lossy_crashes=1",
                     "protocol=kip-101"});
  configs.push_back({"consumer=false", "faults.max_lossy_crashes=0", "bounds.max_leader_epoch=2",
                     "bounds.max_partition_epoch=3"});
  std::set<std::string> verdicts;
  for (const auto& overrides : configs) {
    SCOPED_TRACE(::testing::PrintToString(overrides));
    const spec::Config config = spec::load_config(nullptr, overrides);
    analysis::ConvergenceOptions o;
    const auto full = analysis::analyze_convergence(config, o);
    o.por = true;
    o.threads = 2;
    const auto reduced = analysis::analyze_convergence(config, o);
    ASSERT_TRUE(full.complete && reduced.complete);
    EXPECT_TRUE(reduced.por);
    EXPECT_LE(reduced.graph_states, full.graph_states);
    EXPECT_EQ(full.verdict, reduced.verdict);
    EXPECT_EQ(full.stuck_states == 0, reduced.stuck_states == 0);
    EXPECT_EQ(full.bound_limited_states == 0, reduced.bound_limited_states == 0);
    EXPECT_EQ(full.witness_steps, reduced.witness_steps);
    verdicts.insert(analysis::convergence_verdict_name(full.verdict));
    if (reduced.verdict == analysis::ConvergenceVerdict::Stuck) {
      const spec::PartitionModel model(config);
      const auto replayed =
          counterexamples::replay_trace(model, reduced.witness_trace, counterexamples::ReplayEnd::StepsOnly);
      EXPECT_TRUE(replayed.reproduced) << replayed.summary();
    }
  }
  EXPECT_EQ(verdicts, (std::set<std::string>{"converges", "stuck"}));
}

}  // namespace
}  // namespace isr
