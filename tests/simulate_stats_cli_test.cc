// `isrcheck simulate --stats` end to end (issue 26 points 3 and 5): the same figures
// from the same seed for 1 and 2 threads, per property and class a share with its 95%
// interval, exit 2 naming the flag or key on bad input, exit 3 on a signal with what
// was counted so far.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/trace_test_support.h"

namespace {

using isr::trace_test::slurp;
using isr::trace_test::temp_path;
using nlohmann::json;
using Result = isr::trace_test::Run;
Result run(const std::string& args) { return isr::trace_test::run_isrcheck(args); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const std::string kStats = "simulate --stats --set acks=1 --walks 3000 --depth 60 --seed 11 --quiet";

json stats_of(const std::string& args) {
  const Result r = run(kStats + " --json - " + args);
  EXPECT_EQ(r.exit_code, 1) << r.err;  // acks=1 loses acked writes in some walks
  json stats = json::parse(r.out).at("stats");
  stats.erase("seconds");
  return stats;
}

TEST(SimulateStats, SameFiguresFromTheSeedForOneAndTwoThreads) {
  const json one = stats_of("--threads 1");
  const json two = stats_of("--threads 2");
  EXPECT_EQ(one, two);
  EXPECT_EQ(one.at("walks_completed"), 3000);
  bool lost = false;
  for (const auto& p : one.at("properties")) {
    const double share = p.at("share");
    const double low = p.at("wilson95")[0];
    const double high = p.at("wilson95")[1];
    EXPECT_LE(low, share);
    EXPECT_GE(high, share);
    if (p.at("property") == "no-acked-loss") {
      lost = p.at("walks").get<int>() > 0;
      EXPECT_EQ(p.at("records_lost").at("min"), 1) << p.dump();
      EXPECT_GE(p.at("first_violation_step").at("min").get<int>(), 5);  // the shortest loss is 5 steps
    }
  }
  EXPECT_TRUE(lost);
  uint64_t in_classes = 0;
  for (const auto& c : one.at("classes")) {
    if (c.at("property") == "no-acked-loss") in_classes += c.at("walks").get<uint64_t>();
    EXPECT_FALSE(c.at("explanation").get<std::string>().empty());
  }
  for (const auto& p : one.at("properties")) {
    if (p.at("property") == "no-acked-loss") {
      EXPECT_EQ(p.at("walks").get<uint64_t>(), in_classes);
    }
  }
  // Another seed, other walks.
  const Result other = run("simulate --stats --set acks=1 --walks 3000 --depth 60 --seed 12 --quiet --json -");
  EXPECT_NE(json::parse(other.out).at("stats").at("properties"), one.at("properties"));
}

TEST(SimulateStats, RatesChangeTheSchedule) {
  // No crashes at all: nothing is lost (Wilson: 0 of 500 is at most 3.84 / 503.84 = 0.76%).
  const Result r = run("simulate --stats --set acks=1 --walks 500 --depth 60 --seed 3 --rate Crash=0 --json -");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(r.out);
  EXPECT_EQ(report.at("verdict"), "no-violation");
  EXPECT_EQ(report.at("options").at("rates").at("Crash"), 0.0);
  EXPECT_TRUE(contains(r.err, "no-acked-loss")) << r.err;
  EXPECT_TRUE(contains(r.err, "0 of 500 walks, 0.00% [95% CI 0.00%, 0.76%]")) << r.err;
}

TEST(SimulateStats, BadInputExitsTwoNamingTheFlagOrKey) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--stats --rate Crash=1.5", "Crash"},
      {"--stats --rate Crash=often", "Crash"},
      {"--stats --rate Explode=0.1", "Explode"},
      {"--stats --rate Crash", "--rate"},
      {"--rate Crash=0.1", "--rate"},
      {"--max-classes 3", "--max-classes"},
      {"--stats --weights /dev/null", "--weights"},
      {"--stats --trace-out /tmp/x.json", "--trace-out"},
      {"--stats --distributed", "--stats"},
  };
  for (const auto& [args, key] : cases) {
    const Result r = run("simulate --walks 10 " + args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out << r.err;
    EXPECT_TRUE(contains(r.err, key)) << args << "\n" << r.err;
  }
}

TEST(SimulateStats, SignalsStopWithWhatWasCounted) {
  for (const int sig : {SIGINT, SIGTERM}) {
    const std::string base = temp_path("_stats");
    const std::string json_file = base + ".json";
    const pid_t pid = fork();
    if (pid == 0) {
      const int o = open((base + ".out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int e = open((base + ".err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(o, 1);
      dup2(e, 2);
      execl(ISRCHECK_BINARY, ISRCHECK_BINARY, "simulate", "--stats", "--walks", "1000000000", "--threads", "1",
            "--seed", "5", "--json", json_file.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 3);
    const std::string out = slurp(base + ".out");
    const std::string err = slurp(base + ".err");
    EXPECT_TRUE(contains(out, "INCOMPLETE (interrupted)")) << out;
    EXPECT_TRUE(contains(err, "walks ")) << "no progress line: " << err;  // one per second
    const json report = json::parse(slurp(json_file));
    EXPECT_EQ(report.at("verdict"), "incomplete");
    EXPECT_GT(report.at("stats").at("walks_completed").get<uint64_t>(), 0u);
    for (const char* suffix : {".out", ".err", ".json"}) std::remove((base + suffix).c_str());
  }
}

}  // namespace
