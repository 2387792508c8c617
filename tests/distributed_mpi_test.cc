// `isrcheck check --distributed` under mpirun (OpenMPI) on 1, 2 and 3 ranks (more ranks
// than cores: --oversubscribe) gives what `isrcheck check` gives in one process: the
// same exit status, verdict, counts, depth, level sizes, bounds, and a trace file equal
// byte for byte, on the partition, kraft and cluster models, violated, holding and
// stopped by --max-states. Also: SIGTERM to one rank stops every rank with exit 3 and
// what was verified; a rank killed outright ends the job with an error, not a hang.
// `simulate --distributed` gives one machine's statistics and shrunk trace.
// Label mpi (CMakeLists.txt); loopback only.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/mpi_run.h"
#include "tests/trace_test_support.h"

namespace {

using ShellRun = isr::trace_test::Run;
using isr::trace_test::run_shell;
using isr::trace_test::slurp;
using isr::trace_test::temp_path;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

using isr::mpi_test::mpirun;

using isr::mpi_test::isrcheck;

struct Outcome {
  ShellRun run;
  nlohmann::json report;
  std::string trace;  // the --trace-out file's bytes ("" when none was written)
};

// `check ARGS` in one process (ranks 0) or under mpirun with --distributed.
Outcome check(const std::string& args, int ranks) {
  const std::string json_file = temp_path(".json");
  const std::string trace_file = temp_path(".trace.json");
  // The one-process reference uses the distributed engine's fingerprint width (64), so
  // that the collision estimates compare too.
  const std::string command = (ranks == 0 ? isrcheck() + "check --fingerprint 64 "
                                          : mpirun(ranks) + isrcheck() + "check --distributed ") +
                              args + " --quiet --json '" + json_file + "' --trace-out '" + trace_file + "'";
  Outcome o;
  o.run = run_shell(command);
  o.report = nlohmann::json::parse(slurp(json_file), nullptr, false);
  o.trace = slurp(trace_file);
  std::remove(json_file.c_str());
  std::remove(trace_file.c_str());
  return o;
}

void expect_same_as_one_process(const std::string& args, int expected_exit) {
  const Outcome one = check(args, 0);
  ASSERT_EQ(one.run.exit_code, expected_exit) << args << "\n" << one.run.out << one.run.err;
  for (int ranks : {1, 2, 3}) {
    SCOPED_TRACE(args + " on " + std::to_string(ranks) + " ranks");
    const Outcome d = check(args, ranks);
    ASSERT_EQ(d.run.exit_code, expected_exit) << d.run.out << d.run.err;
    ASSERT_FALSE(d.report.is_discarded()) << d.run.out << d.run.err;
    for (const char* field : {"verdict", "distinct_states", "states_generated", "depth", "level_sizes",
                              "bounds_reached", "properties", "config", "collision_probability"}) {
      EXPECT_EQ(d.report.at(field), one.report.at(field)) << field;
    }
    EXPECT_EQ(d.report.value("property", ""), one.report.value("property", ""));
    EXPECT_EQ(d.report.value("stop_reason", ""), one.report.value("stop_reason", ""));
    EXPECT_EQ(d.report.at("distributed").at("ranks"), ranks);
    uint64_t owned = 0;
    for (const auto& r : d.report.at("distributed").at("per_rank")) owned += r.at("distinct_states").get<uint64_t>();
    EXPECT_EQ(owned, one.report.at("distinct_states").get<uint64_t>());
    EXPECT_EQ(d.trace, one.trace);  // byte for byte; both empty unless violated
    if (expected_exit == 1) {
      EXPECT_FALSE(d.trace.empty());
      EXPECT_TRUE(contains(d.run.out, "shortest counterexample: ")) << d.run.out;
    }
    EXPECT_TRUE(contains(d.run.out, "slowest rank: ")) << d.run.out;
  }
}

TEST(DistributedMpi, ViolatedGivesTheSameTraceByteForByte) {
  expect_same_as_one_process("--set acks=1", 1);
  expect_same_as_one_process("--set acks=1 --set faults.max_lossy_crashes=0 --symmetry off", 1);
  expect_same_as_one_process("--model kraft --set fixes.persist_vote=false --set bounds.max_epoch=2", 1);
  expect_same_as_one_process("--model cluster --set fixes.apply_after_commit=false", 1);
}

TEST(DistributedMpi, HoldingGivesTheSameCounts) {
  expect_same_as_one_process("--set faults.max_crashes=0 --set faults.max_lossy_crashes=0", 0);
  expect_same_as_one_process("--model kraft --set bounds.max_epoch=2", 0);
  expect_same_as_one_process("--model cluster --set faults.max_crashes=0", 0);
}

// Partial-order reduction (checker/por.h) on the ranks: the same reduced counts and the
// same counterexample as one process with --por on.
TEST(DistributedMpi, PartialOrderReductionGivesTheSameResult) {
  expect_same_as_one_process("--por on --set faults.max_lossy_crashes=0 --set brokers=2 --set replication_factor=2 "
                             "--set min_insync_replicas=1",
                             0);
  expect_same_as_one_process("--por on --set acks=1", 1);
}

TEST(DistributedMpi, MaxStatesStopsAtTheSameStates) {
  expect_same_as_one_process("--max-states 30000", 3);
}

TEST(DistributedMpi, MaxMemoryAppliesToEachRank) {
  // The default model's ranks pass 40 MiB each within a few levels (they end near 200).
  const Outcome d = check("--max-memory 40M", 2);
  ASSERT_EQ(d.run.exit_code, 3) << d.run.out << d.run.err;
  EXPECT_EQ(d.report.at("stop_reason"), "max-memory");
  EXPECT_TRUE(contains(d.run.out, "incomplete because the --max-memory limit (40M) was reached")) << d.run.out;
  for (const auto& r : d.report.at("distributed").at("per_rank")) {
    EXPECT_LT(r.at("peak_memory_bytes").get<uint64_t>(), uint64_t{120} << 20);  // stopped soon after
  }
}

TEST(DistributedMpi, SigtermOnOneRankStopsEveryRankWithWhatWasVerified) {
  // The default partition model takes far longer than the wait for its first progress
  // line; SIGTERM goes to the last rank mpirun started (mpirun runs under `timeout`), not to mpirun.
  const std::string out = temp_path(".out");
  const std::string err = temp_path(".err");
  const ShellRun r = run_shell(mpirun(2) + isrcheck() + "check --distributed >'" + out + "' 2>'" + err + "' & m=$!; " +
                          "for i in $(seq 600); do grep -q '^depth' '" + err + "' && break; sleep 0.1; done; " +
                          "kill -TERM $(pgrep -P $(pgrep -P $m -d,) isrcheck | tail -1); wait $m");
  const std::string stdout_text = slurp(out);
  EXPECT_EQ(r.exit_code, 3) << stdout_text << slurp(err);
  EXPECT_TRUE(contains(stdout_text, "verdict: INCOMPLETE: no violation in the ")) << stdout_text;
  EXPECT_TRUE(contains(stdout_text, "incomplete because it was interrupted")) << stdout_text;
  std::remove(out.c_str());
  std::remove(err.c_str());
}

TEST(DistributedMpi, ARankThatDiesEndsTheRunWithAnError) {
  const std::string err = temp_path(".err");
  const ShellRun r = run_shell(mpirun(2) + isrcheck() + "check --distributed >/dev/null 2>'" + err + "' & m=$!; " +
                          "for i in $(seq 600); do grep -q '^depth' '" + err + "' && break; sleep 0.1; done; " +
                          "kill -KILL $(pgrep -P $(pgrep -P $m -d,) isrcheck | tail -1); wait $m");
  const std::string text = slurp(err);
  EXPECT_NE(r.exit_code, 0) << text;
  EXPECT_NE(r.exit_code, 124) << "timed out: " << text;  // `timeout` ended a hung job
  EXPECT_TRUE(contains(text, "exited on signal 9")) << text;
  std::remove(err.c_str());
}

// simulate's --json without the figures that depend on timing.
nlohmann::json timeless(nlohmann::json report) {
  report["stats"].erase("seconds");
  report["stats"].erase("steps_per_second");
  report["options"].erase("ranks");
  report["options"].erase("threads");
  if (report.contains("violation")) report["violation"]["shrink"].erase("seconds");
  return report;
}

void expect_same_walks(const std::string& args, int expected_exit) {
  const std::string json0 = temp_path(".json");
  const std::string trace0 = temp_path(".trace.json");
  const ShellRun one = run_shell(isrcheck() + "simulate " + args + " --threads 1 --quiet --json '" + json0 +
                                 "' --trace-out '" + trace0 + "'");
  ASSERT_EQ(one.exit_code, expected_exit) << one.out << one.err;
  const nlohmann::json expected = timeless(nlohmann::json::parse(slurp(json0)));
  for (int ranks : {2, 3}) {
    SCOPED_TRACE(args + " on " + std::to_string(ranks) + " ranks");
    const std::string json = temp_path(".json");
    const std::string trace = temp_path(".trace.json");
    const ShellRun d = run_shell(mpirun(ranks) + isrcheck() + "simulate --distributed " + args + " --quiet --json '" +
                                 json + "' --trace-out '" + trace + "'");
    ASSERT_EQ(d.exit_code, expected_exit) << d.out << d.err;
    EXPECT_EQ(timeless(nlohmann::json::parse(slurp(json))), expected);
    EXPECT_EQ(slurp(trace), slurp(trace0));  // byte for byte ("" when no violation)
    std::remove(json.c_str());
    std::remove(trace.c_str());
  }
  std::remove(json0.c_str());
  std::remove(trace0.c_str());
}

TEST(DistributedMpi, SimulateGivesOneMachinesResult) {
  expect_same_walks("--set acks=1 --walks 2000 --depth 60 --seed 9", 1);  // found in walk 32, shrunk to 5 steps
  expect_same_walks("--set faults.max_crashes=0 --set faults.max_lossy_crashes=0 --walks 300 --depth 40 --seed 3", 0);
}

TEST(DistributedMpi, ThreadsWithDistributedIsABadFlag) {
  const ShellRun r = run_shell(isrcheck() + "check --distributed --threads 2");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "--threads")) << r.err;
}

}  // namespace
