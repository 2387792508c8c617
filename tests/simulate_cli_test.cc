// `isrcheck simulate` end to end on the partition model: the seed is printed, exit codes
// 0/1/2/3, the shrunk trace file is a valid, replayable v1 trace, results do not depend
// on --threads, and weights reach the engine.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "counterexamples/trace/trace_reader.h"
#include "tests/trace_test_support.h"

namespace {

// The binary runner shared by the tests that drive `isrcheck` (tests/trace_test_support.h).
using Result = isr::trace_test::Run;
using isr::trace_test::slurp;
using isr::trace_test::temp_path;
Result run(const std::string& args) { return isr::trace_test::run_isrcheck(args); }

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(slurp(path)); }

TEST(SimulateCli, NoViolationPrintsTheSeedAndExitsZero) {
  const Result r = run("simulate --walks 50 --depth 40 --seed 12345 --threads 1");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("seed: 12345\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("no violation in 50 walks"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("coverage:"), std::string::npos);
}

TEST(SimulateCli, WithoutASeedOneIsChosenAndPrinted) {
  const Result r = run("simulate --walks 5 --depth 10 --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(r.out.rfind("seed: ", 0), 0u) << r.out;
  const std::string seed = r.out.substr(6, r.out.find('\n') - 6);
  EXPECT_FALSE(seed.empty());
  EXPECT_EQ(seed.find_first_not_of("0123456789"), std::string::npos) << seed;
}

TEST(SimulateCli, ViolationWritesAShrunkReplayableTrace) {
  const std::string trace_file = temp_path(".trace.json");
  const std::string json_file = temp_path(".result.json");
  const Result r = run("simulate --set acks=1 --set properties=no-acked-loss --walks 2000 "
                       "--seed 3 --threads 2 --trace-out '" + trace_file + "' --json '" +
                       json_file + "'");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("VIOLATION: no-acked-loss"), std::string::npos) << r.out;

  const nlohmann::json trace = read_json(trace_file);
  EXPECT_NO_THROW(isr::counterexamples::check_trace(trace));
  EXPECT_EQ(trace["engine"], "simulate");
  EXPECT_EQ(trace["property"], "no-acked-loss");
  EXPECT_EQ(trace["steps"][0]["action_name"], "Init");
  // The shortest acks=1 loss: produce, (a follower fetches,) the leader dies, a new
  // leader without the record; the BFS check finds 5 steps.
  EXPECT_LE(trace["steps"].size(), 5u + 1 + 2);

  const nlohmann::json result = read_json(json_file);
  EXPECT_EQ(result["outcome"], "violation");
  EXPECT_EQ(result["seed"], 3);
  EXPECT_EQ(result["violation"]["trace"], trace);
  EXPECT_GE(result["violation"]["found_length"].get<int>(),
            result["violation"]["shrink"]["length_after"].get<int>());

  const Result replay = run("replay '" + trace_file + "'");
  EXPECT_EQ(replay.exit_code, 0) << replay.out << replay.err;
  std::remove(trace_file.c_str());
  std::remove(json_file.c_str());
}

TEST(SimulateCli, SameSeedSameResultWithOneAndThreeThreads) {
  nlohmann::json results[2];
  int i = 0;
  for (const char* threads : {"1", "3"}) {
    const std::string json_file = temp_path(".json");
    const Result r = run(std::string("simulate --walks 300 --depth 60 --seed 99 --quiet ") +
                         "--set faults.max_crashes=2 --threads " + threads + " --json '" +
                         json_file + "'");
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out << r.err;
    results[i] = read_json(json_file);
    std::remove(json_file.c_str());
    // Timing and the thread count legitimately differ.
    for (auto* figure : {"seconds", "steps_per_second"}) results[i]["stats"].erase(figure);
    results[i]["options"].erase("threads");
    if (results[i].contains("violation")) results[i]["violation"]["shrink"].erase("seconds");
    ++i;
  }
  EXPECT_EQ(results[0], results[1]);
  EXPECT_GT(results[0]["stats"]["steps"].get<int>(), 0);
}

TEST(SimulateCli, WeightsDisableKindsAndUnknownKindsAreUsageErrors) {
  const std::string weights = temp_path(".weights.json");
  std::ofstream(weights) << R"({"Crash": 0, "Fetch": 2.5})";
  const std::string json_file = temp_path(".json");
  const Result r = run("simulate --walks 100 --depth 50 --seed 1 --quiet --weights '" +
                       weights + "' --json '" + json_file + "'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const nlohmann::json result = read_json(json_file);
  bool saw_crash = false;
  for (const auto& kind : result["stats"]["coverage"]) {
    if (kind["kind"] == "Crash") {
      saw_crash = true;
      EXPECT_EQ(kind["taken"], 0);
      EXPECT_GT(kind["enabled"].get<int>(), 0);
      EXPECT_EQ(kind["weight"], 0.0);
    }
    if (kind["kind"] == "Fetch") {
      EXPECT_EQ(kind["weight"], 2.5);
    }
  }
  EXPECT_TRUE(saw_crash);

  std::ofstream(weights) << R"({"Crashh": 1})";
  const Result bad = run("simulate --walks 1 --weights '" + weights + "'");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--weights"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("\"Crashh\""), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("Crash, Restart"), std::string::npos) << bad.err;  // valid kinds

  std::ofstream(weights) << R"({"Crash": -1})";
  EXPECT_EQ(run("simulate --walks 1 --weights '" + weights + "'").exit_code, 2);
  std::remove(weights.c_str());
  std::remove(json_file.c_str());
}

TEST(SimulateCli, TimeLimitGivesExitThreeAndSaysHowFarItGot) {
  const Result r = run("simulate --walks 1000000000 --depth 50 --seed 1 --threads 1 "
                       "--time-limit 300ms --quiet");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("INCOMPLETE (time limit)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("of 1000000000 walks"), std::string::npos) << r.out;
}

TEST(SimulateCli, BadOptionsAreUsageErrors) {
  for (const char* args : {"simulate --time-limit 5x", "simulate --time-limit -1",
                           "simulate --walks 0", "simulate --depth abc",
                           "simulate --set acks=7"}) {
    const Result r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out << r.err;
    EXPECT_FALSE(r.err.empty()) << args;
  }
}

}  // namespace
