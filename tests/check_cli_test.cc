// `isrcheck check` end to end on the partition model: verdicts and exit codes 0/1/2/3,
// the summary, --json, a --trace-out file that `isrcheck replay` reproduces, and results
// that do not depend on --threads.
#include <gtest/gtest.h>

#include <sstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/trace_test_support.h"

namespace {

// No crashes: small (about 12 thousand states up to symmetry), and every property holds.
const std::string kNoFaults = "--set faults.max_crashes=0 --set faults.max_lossy_crashes=0";

// The binary runner shared by the tests that drive `isrcheck` (tests/trace_test_support.h).
using Result = isr::trace_test::Run;
using isr::trace_test::slurp;
using isr::trace_test::temp_path;
Result run(const std::string& args) { return isr::trace_test::run_isrcheck(args); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(CheckCli, HoldsExitsZeroWithTheSummary) {
  const std::string json_file = temp_path(".json");
  const Result r = run("check " + kNoFaults + " --threads 2 --json '" + json_file + "'");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "verdict: HOLDS")) << r.out;
  for (const char* line : {"properties checked: no-acked-loss", "distinct states: ", "states generated: ",
                           "depth: ", "time: ", "states/s: ", "peak memory: ",
                           "fingerprint collision probability: ", "bounds reached: "}) {
    EXPECT_TRUE(contains(r.out, line)) << line << "\n" << r.out;
  }
  const nlohmann::json report = nlohmann::json::parse(slurp(json_file));
  EXPECT_EQ(report.at("verdict"), "holds");
  EXPECT_GT(report.at("distinct_states").get<uint64_t>(), 1000u);
  EXPECT_GE(report.at("states_generated").get<uint64_t>(), report.at("distinct_states").get<uint64_t>());
  EXPECT_GT(report.at("depth").get<int>(), 3);
  EXPECT_EQ(report.at("config").at("faults").at("max_crashes"), 0);
  EXPECT_FALSE(report.contains("trace"));
  std::remove(json_file.c_str());
}

// Issue 12 point 6: the summary opens with what was checked in Kafka's terms, says that
// HOLDS covers these bounds only (naming those reached), gives each property its one-line
// description, and --explain says what the figures mean.
TEST(CheckCli, SummaryStartsWithTheConfigurationInKafkaTerms) {
  const Result r = run("check " + kNoFaults + " --set acks=1 --set unclean_leader_election=true "
                       "--set properties=no-acked-loss,strong-isr --quiet --explain");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;  // without a failure nothing is lost
  EXPECT_EQ(r.out.rfind("checked: one partition on 3 brokers (partition model)\n", 0), 0u) << r.out;
  for (const char* part : {"replication.factor=3, min.insync.replicas=2, producer acks=1",
                           "unclean.leader.election.enable=true, eligible leader replicas (KIP-966) on",
                           "controller: KRaft, 3 voters on the brokers (combined mode); protocol kip-966",
                           "faults, at most: 0 node stops", "bounds: 1 record produced, leader epoch <= 3",
                           "  no-acked-loss  an acknowledged write (any acks) stays in the log of every later leader\n",
                           "  strong-isr     everything below the leader's high watermark is on every ISR member\n",
                           "what the figures mean", "fingerprint collision probability\n",
                           "states are stored as 128-bit hashes (64-bit with --fingerprint 64)", "memory per structure"}) {
    EXPECT_TRUE(contains(r.out, part)) << part << "\n" << r.out;
  }
  // The configuration comes before the verdict.
  EXPECT_LT(r.out.find("faults, at most"), r.out.find("verdict: HOLDS"));

  const Result holds = run("check " + kNoFaults + " --quiet");
  ASSERT_EQ(holds.exit_code, 0) << holds.out << holds.err;
  EXPECT_TRUE(contains(holds.out, "verdict: HOLDS within these bounds: ")) << holds.out;
  EXPECT_TRUE(contains(holds.out, "bounds reached: bounds.max_records")) << holds.out;
  EXPECT_TRUE(contains(holds.out, "HOLDS means within these bounds only")) << holds.out;
  EXPECT_FALSE(contains(holds.out, "what the figures mean")) << holds.out;  // only with --explain
  // Fits a terminal, apart from the verdict line's own figures.
  std::istringstream lines(holds.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("verdict: ", 0) != 0) {
      EXPECT_LE(line.size(), 120u) << line;
    }
  }
}

// Issue 24 item 4: the reassignment budget and follower reads (KIP-455, KIP-392) are named
// when set, and absent from the summary of a configuration that leaves them off.
TEST(CheckCli, SummaryNamesReassignmentsAndFollowerReads) {
  const Result r = run("check " + kNoFaults + " --set brokers=4 --set bounds.max_reassignments=1 "
                       "--set consumer_fetch_from=any-replica --set bounds.max_partition_epoch=2 "
                       "--set properties=no-acked-loss --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "a consumer reading from the leader or a follower")) << r.out;
  EXPECT_TRUE(contains(r.out, "preferred-leader moves, 1 reassignment")) << r.out;
  const Result plain = run("check " + kNoFaults + " --set properties=no-acked-loss --quiet");
  ASSERT_EQ(plain.exit_code, 0) << plain.out << plain.err;
  EXPECT_FALSE(contains(plain.out, "reassignment")) << plain.out;
  EXPECT_TRUE(contains(plain.out, "a consumer reading from the leader\n")) << plain.out;
}

TEST(CheckCli, KraftSummaryNamesTheQuorum) {
  const Result r = run("check --model kraft --set faults.max_crashes=0 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("checked: the KRaft controller quorum alone, 3 voters (kraft model)", 0), 0u) << r.out;
  EXPECT_TRUE(contains(r.out, "  single-controller-per-epoch   at most one voter is elected leader")) << r.out;
}

TEST(CheckCli, SymmetryAndThreadsDoNotChangeTheVerdict) {
  const std::string a = temp_path(".json");
  const std::string b = temp_path(".json");
  const std::string c = temp_path(".json");
  ASSERT_EQ(run("check " + kNoFaults + " --quiet --threads 1 --json '" + a + "'").exit_code, 0);
  ASSERT_EQ(run("check " + kNoFaults + " --quiet --threads 3 --json '" + b + "'").exit_code, 0);
  ASSERT_EQ(run("check " + kNoFaults + " --quiet --symmetry off --json '" + c + "'").exit_code, 0);
  const auto one = nlohmann::json::parse(slurp(a));
  const auto three = nlohmann::json::parse(slurp(b));
  const auto plain = nlohmann::json::parse(slurp(c));
  for (const char* key : {"distinct_states", "states_generated", "depth", "level_sizes", "bounds_reached"}) {
    EXPECT_EQ(one.at(key), three.at(key)) << key;
  }
  EXPECT_GT(plain.at("distinct_states").get<uint64_t>(), one.at("distinct_states").get<uint64_t>());
  EXPECT_EQ(plain.at("depth"), one.at("depth"));
  for (const auto& f : {a, b, c}) std::remove(f.c_str());
}

TEST(CheckCli, ViolationWritesAShortestReplayableTrace) {
  const std::string trace_file = temp_path(".trace.json");
  const std::string other_trace = temp_path(".trace.json");
  const std::string json_file = temp_path(".json");
  const std::string config = "--set acks=1 --set properties=no-acked-loss";
  const Result r = run("check " + config + " --threads 2 --trace-out '" + trace_file + "' --json '" +
                       json_file + "'");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "verdict: VIOLATED: no-acked-loss")) << r.out;
  EXPECT_TRUE(contains(r.out, "shortest counterexample: ")) << r.out;
  EXPECT_TRUE(contains(r.out, "Step 0: Init")) << r.out;  // rendered unless --quiet

  const nlohmann::json trace = nlohmann::json::parse(slurp(trace_file));
  EXPECT_EQ(trace.at("format"), "isrcheck-trace");
  EXPECT_EQ(trace.at("version"), 1);
  EXPECT_EQ(trace.at("engine"), "bfs");
  EXPECT_EQ(trace.at("property"), "no-acked-loss");
  EXPECT_EQ(trace.at("steps").at(0).at("action_name"), "Init");
  const nlohmann::json report = nlohmann::json::parse(slurp(json_file));
  EXPECT_EQ(report.at("verdict"), "violated");
  EXPECT_EQ(report.at("property"), "no-acked-loss");
  EXPECT_EQ(report.at("trace"), trace);
  // A BFS counterexample has exactly `depth` steps.
  EXPECT_EQ(trace.at("steps").size(), report.at("depth").get<size_t>() + 1);

  const Result replay = run("replay '" + trace_file + "'");
  EXPECT_EQ(replay.exit_code, 0) << replay.out << replay.err;
  EXPECT_TRUE(contains(replay.out, "reproduced")) << replay.out;

  // Same trace, byte for byte, with one thread.
  const Result quiet = run("check " + config + " --threads 1 --quiet --trace-out '" + other_trace + "'");
  ASSERT_EQ(quiet.exit_code, 1);
  EXPECT_FALSE(contains(quiet.out, "Step 0: Init"));
  EXPECT_TRUE(quiet.err.empty()) << quiet.err;
  EXPECT_EQ(slurp(other_trace), slurp(trace_file));
  for (const auto& f : {trace_file, other_trace, json_file}) std::remove(f.c_str());
}

TEST(CheckCli, LimitsGiveIncompleteWithWhatWasVerified) {
  const std::string json_file = temp_path(".json");
  Result r = run("check --quiet --max-states 1000 --json '" + json_file + "'");
  ASSERT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "verdict: INCOMPLETE: no violation in the 1000 distinct states up to depth "))
      << r.out;
  EXPECT_TRUE(contains(r.out, "--max-states limit")) << r.out;
  const nlohmann::json report = nlohmann::json::parse(slurp(json_file));
  EXPECT_EQ(report.at("verdict"), "incomplete");
  EXPECT_EQ(report.at("stop_reason"), "max-states");
  EXPECT_EQ(report.at("distinct_states"), 1000);
  std::remove(json_file.c_str());

  r = run("check --quiet --max-memory 1M");
  ASSERT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "--max-memory limit (1M)")) << r.out;
}

// A search stopped by a limit with the reduction turned off points at it, where the
// model has one: not while it is on (the default, issue 29 point 6), not for a model
// without reductions (the KRaft quorum alone declares none).
TEST(CheckCli, IncompleteWithoutReductionHintsAtPor) {
  const std::string hint = "hint: --por on";
  Result r = run("check --quiet --max-states 1000 --por off");
  ASSERT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, hint)) << r.out;
  r = run("check --quiet --max-states 1000");
  ASSERT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_FALSE(contains(r.out, hint)) << r.out;
  r = run("check --quiet --model kraft --max-states 1000");
  ASSERT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_FALSE(contains(r.out, hint)) << r.out;
}

// Issue 14: the per-structure memory figures, --fingerprint 64|128 with the same counts,
// --frontier, and --time-limit.
TEST(CheckCli, FingerprintWidthsGiveTheSameCountsAndSayTheirEstimates) {
  std::map<std::string, nlohmann::json> reports;
  for (const std::string width : {"64", "128"}) {
    const std::string json_file = temp_path(".json");
    const Result r = run("check " + kNoFaults + " --quiet --fingerprint " + width + " --json '" + json_file + "'");
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "(" + width + "-bit fingerprints")) << r.out;
    EXPECT_TRUE(contains(r.out, "memory per structure: visited set ")) << r.out;
    reports[width] = nlohmann::json::parse(slurp(json_file));
    std::remove(json_file.c_str());
  }
  const auto& narrow = reports["64"];
  const auto& wide = reports["128"];
  EXPECT_EQ(wide.at("distinct_states"), narrow.at("distinct_states"));
  EXPECT_EQ(wide.at("states_generated"), narrow.at("states_generated"));
  EXPECT_EQ(wide.at("level_sizes"), narrow.at("level_sizes"));
  EXPECT_EQ(wide.at("fingerprint_bits"), 128);
  EXPECT_EQ(narrow.at("fingerprint_bits"), 64);
  EXPECT_LT(wide.at("collision_probability").get<double>(), 1e-20);
  EXPECT_DOUBLE_EQ(wide.at("collision_probability_64").get<double>(), narrow.at("collision_probability").get<double>());
  const auto& memory = wide.at("memory");
  for (const char* key : {"visited_set_bytes_per_fingerprint", "parent_log_bytes_per_state", "frontier_bytes_per_state",
                          "frontier_peak_bytes", "candidate_bytes", "candidate_record_bytes", "state_bytes"}) {
    EXPECT_GT(memory.at(key).get<double>(), 0.0) << key;
  }
  EXPECT_GT(memory.at("visited_set_bytes_per_fingerprint").get<double>(),
            narrow.at("memory").at("visited_set_bytes_per_fingerprint").get<double>());
}

// The target of issue 14 point 1: at most 32 bytes per queued state on the default model
// (the first 400k states: levels whose states are ~60 bytes against the initial state).
TEST(CheckCli, FrontierTakesAtMost32BytesPerStateOnTheDefaultModel) {
  std::map<std::string, double> per_state;
  for (const std::string encoding : {"delta", "reference"}) {
    const std::string json_file = temp_path(".json");
    const Result r = run("check --quiet --max-states 400000 --frontier " + encoding + " --json '" + json_file + "'");
    ASSERT_EQ(r.exit_code, 3) << r.out << r.err;
    const nlohmann::json report = nlohmann::json::parse(slurp(json_file));
    per_state[encoding] = report.at("memory").at("frontier_bytes_per_state").get<double>();
    EXPECT_EQ(report.at("options").at("frontier"), encoding);
    std::remove(json_file.c_str());
  }
  EXPECT_LE(per_state["delta"], 32.0);
  EXPECT_GT(per_state["reference"], per_state["delta"]);
}

TEST(CheckCli, TimeLimitGivesIncomplete) {
  const std::string json_file = temp_path(".json");
  const Result r = run("check --quiet --threads 1 --time-limit 300ms --json '" + json_file + "'");
  ASSERT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "incomplete because the --time-limit (300ms) was reached")) << r.out;
  EXPECT_EQ(nlohmann::json::parse(slurp(json_file)).at("stop_reason"), "time-limit");
  std::remove(json_file.c_str());
}

TEST(CheckCli, CtrlCStopsWithIncomplete) {
  // The default model takes far longer than a second with one thread.
  const std::string out = temp_path(".out");
  const std::string script = std::string("'") + ISRCHECK_BINARY + "' check --threads 1 --quiet >'" + out +
                             "' 2>&1 & pid=$!; sleep 1; kill -INT $pid; wait $pid";
  const int status = std::system(script.c_str());  // std::system runs it with sh -c
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3) << slurp(out);
  EXPECT_TRUE(contains(slurp(out), "incomplete because it was interrupted")) << slurp(out);
  std::remove(out.c_str());
}

TEST(CheckCli, BadInputExitsTwoNamingTheOption) {
  Result r = run("check --max-memory 12Q");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--max-memory")) << r.err;
  r = run("check --symmetry maybe");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--symmetry")) << r.err;
  r = run("check --fingerprint 96");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--fingerprint") && contains(r.err, "64") && contains(r.err, "128")) << r.err;
  r = run("check --frontier zstd");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--frontier") && contains(r.err, "delta")) << r.err;
  r = run("check --time-limit soon");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--time-limit")) << r.err;
  r = run("check --threads -1");
  EXPECT_EQ(r.exit_code, 2);
  r = run("check --set faults.max_crashes=banana");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "faults.max_crashes")) << r.err;
}

}  // namespace
