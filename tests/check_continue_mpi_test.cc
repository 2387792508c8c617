// `isrcheck check --continue --distributed` under mpirun (OpenMPI) on 1, 2 and 3 ranks
// gives what `check --continue` gives in one process: the exit status, every property's
// verdict and violating-state count, and its trace file under --trace-dir byte for byte,
// searched to the end and stopped by --max-states (issue 26 point 1). Label mpi;
// loopback only.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/mpi_run.h"
#include "tests/trace_test_support.h"

namespace {

using isr::trace_test::run_shell;
using isr::trace_test::slurp;
using isr::trace_test::temp_path;

using isr::mpi_test::mpirun;

// acks=1 on two brokers: three properties violated, eight hold.
const std::string kSmall =
    "--set acks=1 --set brokers=2 --set replication_factor=2 --set min_insync_replicas=1";

struct Outcome {
  int exit_code = -1;
  nlohmann::json outcomes;
  std::string dir;
};

// `check --continue ARGS` in one process (ranks 0, with the distributed engine's
// fingerprint width) or under mpirun with --distributed.
Outcome check(const std::string& args, int ranks) {
  Outcome o;
  o.dir = temp_path("_continue_traces");
  const std::string json_file = temp_path(".json");
  const std::string binary = std::string("'") + ISRCHECK_BINARY + "' ";
  const std::string command = (ranks == 0 ? binary + "check --fingerprint 64 --threads 1 "
                                          : mpirun(ranks) + binary + "check --distributed ") +
                              kSmall + " --continue " + args + " --quiet --trace-dir '" + o.dir + "' --json '" +
                              json_file + "'";
  const auto r = run_shell(command);
  o.exit_code = r.exit_code;
  const nlohmann::json report = nlohmann::json::parse(slurp(json_file), nullptr, false);
  EXPECT_FALSE(report.is_discarded()) << command << "\n" << r.out << r.err;
  if (!report.is_discarded()) o.outcomes = report.at("outcomes");
  for (auto& entry : o.outcomes) {
    entry.erase("trace_file");  // the directories differ; the files are compared below
  }
  std::remove(json_file.c_str());
  return o;
}

void expect_same_as_one_process(const std::string& args, int expected_exit) {
  const Outcome one = check(args, 0);
  ASSERT_EQ(one.exit_code, expected_exit) << args;
  for (int ranks : {1, 2, 3}) {
    SCOPED_TRACE(args + " on " + std::to_string(ranks) + " ranks");
    const Outcome d = check(args, ranks);
    EXPECT_EQ(d.exit_code, expected_exit);
    EXPECT_EQ(d.outcomes, one.outcomes);
    for (const auto& file : std::filesystem::directory_iterator(one.dir)) {
      const std::filesystem::path other = std::filesystem::path(d.dir) / file.path().filename();
      EXPECT_EQ(slurp(other.string()), slurp(file.path().string())) << other;
    }
    std::filesystem::remove_all(d.dir);
  }
  std::filesystem::remove_all(one.dir);
}

TEST(ContinueMpi, EveryPropertyDecidedAsInOneProcess) { expect_same_as_one_process("", 1); }

TEST(ContinueMpi, AMaxStatesStopDecidesTheSameProperties) { expect_same_as_one_process("--max-states 2000", 3); }

}  // namespace
