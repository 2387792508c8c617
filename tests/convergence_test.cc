// logs-converge (analysis/convergence.h, `isrcheck converge`): from every reachable state,
// with no further faults, the live replicas can reach identical logs. It holds on the
// default model with small bounds and where KIP-279 reconciles logs; it fails where a
// replica keeps a divergent entry below its HW forever (truncation to the HW before
// KIP-101, and KIP-101's UNDEFINED answer, which falls back to the HW); and the CLI
// reports it with exit codes and a trace that replays.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/convergence.h"
#include "counterexamples/trace/replay.h"
#include "spec/partition/config.h"
#include "spec/partition/partition_model.h"
#include "tests/trace_test_support.h"

namespace {

using isr::analysis::ConvergenceVerdict;
using isr::analysis::analyze_convergence;

isr::analysis::ConvergenceReport converge(const std::vector<std::string>& overrides, uint64_t max_states = 2'000'000) {
  isr::analysis::ConvergenceOptions options;
  options.max_states = max_states;
  return analyze_convergence(isr::spec::load_config(nullptr, overrides), options);
}

// RF 2, min ISR 1, two kill crashes, two records. These generations run the ZooKeeper
// controller: a restart faster than the session keeps the ISR, so the truncation
// hazard needs both replicas to stop (KIP-101's second scenario). The ZooKeeper-era
// controller fixes are on so that the truncation rule alone decides: without KIP-380 a
// fast bounce the controller never notices strands the restarted replica
// (Convergence.AnUnnoticedBounceStrandsTheRestartedReplica), without KAFKA-6082 a deposed
// controller's leader write does.
std::vector<std::string> two_replicas(const std::string& protocol) {
  return {"protocol=" + protocol, "replication_factor=2", "brokers=2", "min_insync_replicas=1",
          "faults.max_crashes=2", "faults.max_lossy_crashes=0", "bounds.max_records=2", "consumer=false",
          "fixes.controller_epoch_zk_version=true", "fixes.bounced_broker_epochs=true"};
}

// Before KIP-380 (2.2) the ZooKeeper controller compares broker ids only: a broker whose
// session expired and which registered again before the controller handled the change
// gets no LeaderAndIsr (KafkaController BrokerChange sees the same id set), so it never
// follows and the logs never converge.
TEST(Convergence, AnUnnoticedBounceStrandsTheRestartedReplica) {
  std::vector<std::string> config = two_replicas("kip-279");
  config.back() = "fixes.bounced_broker_epochs=false";
  config[4] = "faults.max_crashes=1";
  const auto r = converge(config);
  EXPECT_EQ(r.verdict, ConvergenceVerdict::Stuck);
  EXPECT_GT(r.stuck_states, 0u);
}

TEST(Convergence, HoldsOnTheDefaultModelWithSmallBounds) {
  const auto r = converge({"consumer=false", "faults.max_lossy_crashes=0", "bounds.max_leader_epoch=2",
                           "bounds.max_partition_epoch=3"});
  EXPECT_EQ(r.verdict, ConvergenceVerdict::Converges);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.graph_states, 219317u);  // 151002 before a ShrinkIsr could remove several followers at once (F15)
  EXPECT_EQ(r.stuck_states, 0u);
  EXPECT_GT(r.converged_states, 0u);
  EXPECT_TRUE(r.witness_trace.is_null());
}

TEST(Convergence, Kip279ReconcilesEveryDivergence) {
  const auto r = converge(two_replicas("kip-279"));
  EXPECT_EQ(r.verdict, ConvergenceVerdict::Converges);
  EXPECT_EQ(r.stuck_states, 0u);
}

// N0 commits r1 alone, checkpoints HW 1, is killed and restarts; N1 leads epoch 1 and
// writes r2 at offset 0. Whatever follows, N0 truncates only to its HW (1) and fetches
// from offset 1: offset 0 differs forever.
TEST(Convergence, TruncationToTheHighWatermarkIsStuck) {
  const auto r = converge(two_replicas("hw-truncation"));
  ASSERT_EQ(r.verdict, ConvergenceVerdict::Stuck);
  EXPECT_EQ(r.stuck_states, 24u);  // 20 before followers refreshed their metadata caches at the same leader epoch (zkfix)
  // 15 since the ZooKeeper controller's per-broker queue is modelled (docs/fidelity.md
  // F14): N1 replays the failover's LeaderAndIsr (follower of N0: truncation to its HW)
  // within the update that makes it leader; before, that was a MetadataUpdate of its own.
  EXPECT_EQ(r.witness_steps, 15);
  const nlohmann::json& last = r.witness_trace.at("steps").back().at("state");
  EXPECT_EQ(r.witness_trace.at("property"), "logs-converge");
  EXPECT_EQ(r.witness_trace.at("steps").back().at("action_name"), "Produce(broker=1, record=2)");
  EXPECT_EQ(last.at("nodes")[0].at("replica").at("log"), nlohmann::json::parse("[[0, 1]]"));
  EXPECT_EQ(last.at("nodes")[1].at("replica").at("log"), nlohmann::json::parse("[[1, 2]]"));
  // The trace is a real execution of the model.
  const isr::spec::PartitionModel model(isr::spec::load_config(nullptr, two_replicas("hw-truncation")));
  const auto replayed =
      isr::counterexamples::replay_trace(model, r.witness_trace, isr::counterexamples::ReplayEnd::StepsOnly);
  EXPECT_TRUE(replayed.reproduced) << replayed.summary();
}

// KIP-101: truncation by OffsetsForLeaderEpoch reconciles the divergence that leaves
// hw-truncation stuck in the same configuration. (Its UNDEFINED answer, which falls back
// to the HW, diverges only with power losses here: LogMatching.Kip101UndefinedAnswerStillDiverges.)
TEST(Convergence, Kip101ReconcilesTheTruncationDivergence) {
  const auto r = converge(two_replicas("kip-101"));
  EXPECT_EQ(r.verdict, ConvergenceVerdict::Converges);
  EXPECT_EQ(r.stuck_states, 0u);
}

TEST(Convergence, ALimitWithoutAStuckStateIsIncomplete) {
  const auto r = converge(two_replicas("kip-279"), 1000);
  EXPECT_EQ(r.verdict, ConvergenceVerdict::Incomplete);
  EXPECT_FALSE(r.complete);
}

TEST(ConvergeCli, ExitCodesAndTrace) {
  using isr::trace_test::run_isrcheck;
  std::string args;
  for (const auto& o : two_replicas("kip-279")) args += " --set " + o;
  auto r = run_isrcheck("converge" + args);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("verdict: CONVERGES"), std::string::npos) << r.out;

  const std::string trace = isr::trace_test::temp_path(".json");
  args.clear();
  for (const auto& o : two_replicas("hw-truncation")) args += " --set " + o;
  r = run_isrcheck("converge --quiet" + args + " --trace-out '" + trace + "'");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("verdict: STUCK: 24 reachable states"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("shortest trace to one: 15 steps"), std::string::npos) << r.out;
  const nlohmann::json written = nlohmann::json::parse(isr::trace_test::slurp(trace));
  EXPECT_EQ(written.at("engine"), "convergence");
  // `isrcheck replay` re-executes a witness's steps (it ends in a stuck state, not in a
  // property violation).
  r = run_isrcheck("replay '" + trace + "'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("reproduced: 15 steps to the logs-converge witness"), std::string::npos) << r.out;
  std::remove(trace.c_str());

  r = run_isrcheck("converge" + args + " --max-states 100");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  r = run_isrcheck("converge --set protocol=kip-999");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("protocol"), std::string::npos) << r.err;
}

}  // namespace
