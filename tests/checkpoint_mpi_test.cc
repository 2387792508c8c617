// `isrcheck check --distributed --checkpoint DIR` / `--resume DIR` under mpirun on 2
// ranks (checker/bfs/distributed_checkpoint.h; docs/distributed.md, "Checkpoint and
// resume"): a run stopped by SIGTERM (exit 3) and resumed ends with the counts of an uninterrupted
// 2-rank run; a violated run resumed from its last checkpoint gives the same trace byte
// for byte; DIR keeps one generation of rank files; resuming on 3 ranks, a corrupted
// rank file, or a single-process checkpoint with --distributed, is refused with exit 2.
// Label mpi (CMakeLists.txt); loopback only.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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

std::string mpirun(int ranks) { return isr::mpi_test::mpirun(ranks, 600); }

using isr::mpi_test::isrcheck;

struct Outcome {
  ShellRun run;
  nlohmann::json report;
  std::string trace;  // the --trace-out file's bytes ("" when none was written)
};

// `check --distributed ARGS` on `ranks` ranks.
Outcome check(const std::string& args, int ranks) {
  const std::string json_file = temp_path(".json");
  const std::string trace_file = temp_path(".trace.json");
  Outcome o;
  o.run = run_shell(mpirun(ranks) + isrcheck() + "check --distributed " + args + " --quiet --json '" + json_file +
                    "' --trace-out '" + trace_file + "'");
  o.report = nlohmann::json::parse(slurp(json_file), nullptr, false);
  o.trace = slurp(trace_file);
  std::remove(json_file.c_str());
  std::remove(trace_file.c_str());
  return o;
}

void expect_same_result(const Outcome& resumed, const Outcome& whole) {
  ASSERT_FALSE(resumed.report.is_discarded()) << resumed.run.out << resumed.run.err;
  ASSERT_FALSE(whole.report.is_discarded()) << whole.run.out << whole.run.err;
  EXPECT_EQ(resumed.run.exit_code, whole.run.exit_code) << resumed.run.out << resumed.run.err;
  for (const char* field : {"verdict", "distinct_states", "states_generated", "depth", "level_sizes", "bounds_reached"}) {
    EXPECT_EQ(resumed.report.at(field), whole.report.at(field)) << field;
  }
  EXPECT_EQ(resumed.report.value("property", ""), whole.report.value("property", ""));
  for (size_t k = 0; k < 2; ++k) {
    const auto& r = resumed.report.at("distributed").at("per_rank").at(k);
    const auto& w = whole.report.at("distributed").at("per_rank").at(k);
    EXPECT_EQ(r.at("distinct_states"), w.at("distinct_states")) << "rank " << k;
  }
  EXPECT_EQ(resumed.trace, whole.trace);  // byte for byte; both empty unless violated
  EXPECT_TRUE(resumed.report.at("checkpoint").at("resumed").get<bool>());
}

// The files in DIR: the manifest and one file per rank, of one generation.
std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

void expect_one_generation(const std::string& dir) {
  const auto names = files_in(dir);
  ASSERT_EQ(names.size(), 3u) << ::testing::PrintToString(names);
  EXPECT_EQ(names[0], "manifest.bin");
  EXPECT_EQ(names[1].rfind("rank-0-of-2.", 0), 0u) << names[1];
  EXPECT_EQ(names[2].rfind("rank-1-of-2.", 0), 0u) << names[2];
  EXPECT_EQ(names[1].substr(12), names[2].substr(12));  // the same generation
}

// About 40 levels, some seconds on 2 ranks: long enough to be signalled midway.
const std::string kLong =
    "--set faults.max_lossy_crashes=0 --set bounds.max_leader_epoch=4 --set bounds.max_partition_epoch=5 --por off";

// SIGTERM to every rank of the job, as a batch scheduler's time limit sends it (mpirun
// runs under `timeout`; its children are the ranks). SIGTERM to mpirun itself reaches the
// ranks too, but then mpirun returns OpenMPI's own status, 1 (docs/distributed.md).
TEST(CheckpointMpi, SigtermToTheRanksWritesACheckpointAndTheResumedRunEndsAsAnUninterruptedOne) {
  const Outcome whole = check(kLong, 2);
  ASSERT_EQ(whole.run.exit_code, 0) << whole.run.out << whole.run.err;

  const std::string dir = temp_path(".ckpt");
  const std::string out = temp_path(".out");
  const std::string err = temp_path(".err");
  // The checkpoint is due after every level, so that the one a stop writes replaces one.
  const ShellRun stopped =
      run_shell(mpirun(2) + isrcheck() + "check --distributed " + kLong + " --checkpoint '" + dir +
                "' --checkpoint-every 0 >'" + out + "' 2>'" + err + "' & m=$!; " +
                "for i in $(seq 600); do grep -q '^depth [1-9][0-9]' '" + err + "' && break; sleep 0.1; done; " +
                "kill -TERM $(pgrep -P $(pgrep -P $m -d,) isrcheck); wait $m");
  const std::string stdout_text = slurp(out);
  ASSERT_EQ(stopped.exit_code, 3) << stdout_text << slurp(err);
  EXPECT_TRUE(contains(stdout_text, "incomplete because it was interrupted")) << stdout_text;
  EXPECT_TRUE(contains(stdout_text, "checkpoint: " + dir + "/manifest.bin (depth ")) << stdout_text;
  EXPECT_TRUE(contains(stdout_text, "to go on: the same command with --resume " + dir)) << stdout_text;
  expect_one_generation(dir);

  const Outcome resumed = check(kLong + " --resume '" + dir + "'", 2);
  expect_same_result(resumed, whole);
  EXPECT_GT(resumed.report.at("checkpoint").at("resumed_depth").get<int>(), 0);
  expect_one_generation(dir);  // the resumed run went on writing there
  std::filesystem::remove_all(dir);
  std::remove(out.c_str());
  std::remove(err.c_str());
}

TEST(CheckpointMpi, AViolatedRunResumedFromItsLastCheckpointGivesTheSameTrace) {
  const std::string args = "--set acks=1";
  const Outcome whole = check(args, 2);
  ASSERT_EQ(whole.run.exit_code, 1) << whole.run.out << whole.run.err;
  ASSERT_FALSE(whole.trace.empty());

  // Checkpoints after every level: the last is the level before the violation.
  const std::string dir = temp_path(".ckpt");
  const Outcome writing = check(args + " --checkpoint '" + dir + "' --checkpoint-every 0", 2);
  ASSERT_EQ(writing.run.exit_code, 1) << writing.run.out << writing.run.err;
  EXPECT_EQ(writing.trace, whole.trace);
  const int written_depth = writing.report.at("checkpoint").at("written_depth").get<int>();
  EXPECT_EQ(written_depth, whole.report.at("depth").get<int>() - 1);
  expect_one_generation(dir);

  const Outcome resumed = check(args + " --resume '" + dir + "'", 2);
  expect_same_result(resumed, whole);
  EXPECT_EQ(resumed.report.at("checkpoint").at("resumed_depth").get<int>(), written_depth);
  std::filesystem::remove_all(dir);
}

TEST(CheckpointMpi, ResumingOnAnotherRankCountOrFromOneProcessIsRefused) {
  const std::string args = "--set faults.max_crashes=0 --set faults.max_lossy_crashes=0";
  const std::string dir = temp_path(".ckpt");
  const Outcome writing = check(args + " --checkpoint '" + dir + "' --checkpoint-every 0", 2);
  ASSERT_EQ(writing.run.exit_code, 0) << writing.run.out << writing.run.err;
  ASSERT_GT(writing.report.at("checkpoint").at("written").get<int>(), 0);

  const Outcome three = check(args + " --resume '" + dir + "'", 3);
  EXPECT_EQ(three.run.exit_code, 2) << three.run.out << three.run.err;
  EXPECT_TRUE(contains(three.run.err, "--resume: the checkpoint in \"" + dir + "\" was written by 2 ranks and this run has 3"))
      << three.run.err;

  // One flipped byte in rank 1's file: that rank ends the job (MPI_Abort) with exit 2.
  std::string rank1;
  for (const auto& name : files_in(dir)) {
    if (name.rfind("rank-1-of-2.", 0) == 0) rank1 = dir + "/" + name;
  }
  ASSERT_FALSE(rank1.empty());
  {
    std::fstream f(rank1, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(100);
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ 0x5A);
    f.seekp(100);
    f.write(&c, 1);
    ASSERT_TRUE(f.good());
  }
  const Outcome corrupted = check(args + " --resume '" + dir + "'", 2);
  EXPECT_EQ(corrupted.run.exit_code, 2) << corrupted.run.out << corrupted.run.err;
  EXPECT_TRUE(contains(corrupted.run.err, "checksum mismatch")) << corrupted.run.err;

  // A single-process checkpoint (checkpoint.bin) is not the distributed one (manifest.bin).
  const std::string one_dir = temp_path(".ckpt1");
  const ShellRun one = run_shell(isrcheck() + "check --fingerprint 64 " + args + " --quiet --checkpoint '" + one_dir +
                                 "' --checkpoint-every 0");
  ASSERT_EQ(one.exit_code, 0) << one.out << one.err;
  const Outcome mixed = check(args + " --resume '" + one_dir + "'", 2);
  EXPECT_EQ(mixed.run.exit_code, 2) << mixed.run.out << mixed.run.err;
  EXPECT_TRUE(contains(mixed.run.err, "manifest.bin")) << mixed.run.err;
  std::filesystem::remove_all(dir);
  std::filesystem::remove_all(one_dir);
}

}  // namespace
