// `isrcheck research unclean` end to end (issue 26 points 4 and 5): a tiny grid's --json,
// bad input exits 2 naming the flag, a missing plotting library says how to get it, and
// SIGINT/SIGTERM exit 3 with the cells done.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
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

TEST(ResearchCli, TinyGridJson) {
  const Result r = run("research unclean --cells 'rf2-isr1-acks1-unclean-noelr-*' --walks 200 --seed 4 --json -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(r.out);
  EXPECT_EQ(report.at("verdict"), "complete");
  EXPECT_EQ(report.at("cells_done"), 2);
  EXPECT_EQ(report.at("options").at("seed"), 4);
  const json& cell = report.at("cells").at(0);
  EXPECT_EQ(cell.at("id"), "rf2-isr1-acks1-unclean-noelr-combined-f1");
  EXPECT_EQ(cell.at("failure"), "kill");
  EXPECT_EQ(cell.at("verdicts").size(), 2u);
  EXPECT_FALSE(cell.at("classes").empty());
  EXPECT_EQ(cell.at("rates").at(0).at("of"), 200);
  EXPECT_TRUE(contains(r.err, "cell 2 of 2 rf2-isr1-acks1-unclean-noelr-combined-f1-lossy")) << r.err;
}

TEST(ResearchCli, ALongCellShowsProgressWhileItIsChecked) {
  // RF 3 with a possible power loss: seconds of search, so a line at least once a second.
  const Result r = run("research unclean --cells rf3-isr2-acksall-clean-elr-combined-f1-lossy --walks 0 "
                       "--max-states 3000000 --threads 1");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "  checking: depth ")) << r.err;
  EXPECT_TRUE(contains(r.err, "cell 1 of 1 rf3-isr2-acksall-clean-elr-combined-f1-lossy: check incomplete (max-states)"))
      << r.err;
}

TEST(ResearchCli, BadInputExitsTwoNamingTheFlag) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--cells 'rf9-*'", "--cells"},
      {"--rate Crash=2", "Crash"},
      {"--rate Explode=0.1", "Explode"},
      {"--threads 0", "--threads"},
      {"--depth 0", "--depth"},
      {"--time-limit soon", "--time-limit"},
      {"--set acks=0", "--set"},
      {"--html /tmp/isrcheck-research-test.html --vega-js /nonexistent/vega.min.js", "scripts/fetch-vega.sh"},
  };
  for (const auto& [args, key] : cases) {
    const Result r = run("research unclean --cells 'rf2-isr1-acks1-unclean-noelr-*' --walks 10 " + args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out << r.err;
    EXPECT_TRUE(contains(r.err, key)) << args << "\n" << r.err;
  }
  EXPECT_NE(run("research").exit_code, 0);  // a study must be named
}

TEST(ResearchCli, SignalsStopWithTheCellsDone) {
  for (const int sig : {SIGINT, SIGTERM}) {
    const std::string base = temp_path("_research");
    const std::string json_file = base + ".json";
    const pid_t pid = fork();
    if (pid == 0) {
      const int o = open((base + ".out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int e = open((base + ".err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(o, 1);
      dup2(e, 2);
      execl(ISRCHECK_BINARY, ISRCHECK_BINARY, "research", "unclean", "--cells", "rf2-*", "--walks", "20000",
            "--json", json_file.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    ASSERT_GT(pid, 0);
    // Signal once the first cell is reported done (its progress line).
    for (int i = 0; i < 600 && !contains(slurp(base + ".err"), "cell 1 of"); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 3);
    const std::string out = slurp(base + ".out");
    EXPECT_TRUE(contains(out, "(INCOMPLETE: interrupted)")) << out;
    const json report = json::parse(slurp(json_file));
    EXPECT_EQ(report.at("verdict"), "incomplete");
    const auto done = report.at("cells_done").get<size_t>();
    EXPECT_GE(done, 1u);
    EXPECT_LT(done, report.at("cells_total").get<size_t>());
    EXPECT_FALSE(report.at("cells").back().at("checked").get<bool>());
    for (const char* suffix : {".out", ".err", ".json"}) std::remove((base + suffix).c_str());
  }
}

}  // namespace
