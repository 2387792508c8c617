// Checkpoints of the distributed engine (checker/bfs/distributed_checkpoint.h) on the
// in-process transport: a search on 2 and 3 ranks interrupted anywhere (between levels,
// and between the waves of a level, where the checkpoint must leave out what the level's
// finished waves inserted and cut the logs) and resumed on as many ranks ends with exactly
// the uninterrupted result, the Kafka counterexample included; the manifest and one
// generation of rank files are what DIR holds; another rank count and another run's
// identity are refused. The same under mpirun:
// tests/checkpoint_mpi_test.cc.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "checker/bfs/bfs.h"
#include "checker/bfs/distributed_bfs.h"
#include "checker/bfs/thread_transport.h"
#include "spec/partition/config.h"
#include "spec/partition/partition_model.h"
#include "tests/same_bfs_result.h"
#include "tests/toy_models.h"

namespace {

namespace fs = std::filesystem;
using isr::checker::BfsOptions;
using isr::checker::BfsResult;
using isr::checker::CheckpointError;
using isr::checker::DistributedBfsResult;
using isr::checker::StopReason;
using isr::checker::ThreadTransportHub;
using isr::checker::Transport;
using isr::checker::Verdict;
using isr::toy::GridModel;

std::string fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("isrcheck-dcheckpoint-test-" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

// Runs the engine on `ranks` threads; rank 0's result (every rank gets the same).
template <class M>
BfsResult<M> distributed(const M& model, const BfsOptions& options, int ranks) {
  ThreadTransportHub hub(ranks);
  std::vector<DistributedBfsResult<M>> results(static_cast<size_t>(ranks));
  hub.run([&](Transport& t) { results[static_cast<size_t>(t.rank())] = isr::checker::distributed_bfs(model, options, t); });
  return results[0].result;
}

BfsOptions options(const std::string& dir, const std::string& identity) {
  BfsOptions o;
  o.wave_states = 8;  // many waves a level: stops fall between them too
  o.checkpoint.dir = dir;
  o.checkpoint.identity = identity;
  return o;
}

TEST(DistributedCheckpoint, GridInterruptedAnywhereResumesToTheSameResult) {
  BfsOptions plain;
  plain.wave_states = 8;
  const BfsResult<GridModel> whole = distributed(GridModel(40, 40), plain, 2);
  ASSERT_EQ(whole.verdict, Verdict::Holds);
  ASSERT_EQ(whole.distinct_states, 1600u);
  for (const int ranks : {2, 3}) {
    for (const uint64_t calls : {1u, 7u, 50u, 333u, 1000u, 2500u, 5000u}) {
      SCOPED_TRACE(std::to_string(ranks) + " ranks, interrupted after " + std::to_string(calls) + " steps");
      const std::string dir = fresh_dir("grid");
      std::atomic<bool> flag{false};
      GridModel interrupted(40, 40);
      interrupted.interrupt_after(&flag, calls);
      BfsOptions o = options(dir, "grid 40x40");
      o.interrupt = &flag;
      const BfsResult<GridModel> first = distributed(interrupted, o, ranks);
      ASSERT_EQ(first.verdict, Verdict::Incomplete);
      ASSERT_EQ(first.stop_reason, StopReason::Interrupted);
      ASSERT_EQ(first.checkpoint.written, 1u);
      EXPECT_EQ(first.checkpoint.written_depth, first.depth);
      uint64_t boundary = 0;
      for (int l = 0; l <= first.depth; ++l) boundary += whole.level_sizes[static_cast<size_t>(l)];
      EXPECT_EQ(first.checkpoint.written_states, boundary);
      EXPECT_TRUE(fs::exists(fs::path(dir) / "manifest.bin"));
      for (int k = 0; k < ranks; ++k) {
        EXPECT_TRUE(fs::exists(fs::path(dir) / isr::checker::rank_checkpoint_file(k, ranks, 1)));
      }

      BfsOptions again = options(dir, "grid 40x40");
      again.checkpoint.resume = true;
      const BfsResult<GridModel> resumed = distributed(GridModel(40, 40), again, ranks);
      EXPECT_TRUE(resumed.checkpoint.resumed);
      EXPECT_EQ(resumed.checkpoint.resumed_depth, first.checkpoint.written_depth);
      isr::test::expect_same_result(resumed, whole);
    }
  }
}

// Written after every level, resumed twice: each checkpoint replaces the previous one,
// whose rank files go once the manifest names the new generation.
TEST(DistributedCheckpoint, EveryLevelWrittenKeepsOneGeneration) {
  const BfsResult<GridModel> whole = distributed(GridModel(30, 30), BfsOptions{}, 2);
  const std::string dir = fresh_dir("twice");
  uint64_t generation = 0;
  for (const uint64_t calls : {400u, 1500u}) {
    std::atomic<bool> flag{false};
    GridModel model(30, 30);
    model.interrupt_after(&flag, calls);
    BfsOptions o = options(dir, "grid 30x30");
    o.checkpoint.every = std::chrono::nanoseconds(0);
    o.checkpoint.resume = calls != 400u;
    o.interrupt = &flag;
    const BfsResult<GridModel> r = distributed(model, o, 2);
    ASSERT_EQ(r.verdict, Verdict::Incomplete);
    EXPECT_GE(r.checkpoint.written, 2u);
    generation += r.checkpoint.written;
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"manifest.bin", isr::checker::rank_checkpoint_file(0, 2, generation),
                                               isr::checker::rank_checkpoint_file(1, 2, generation)}));
  }
  BfsOptions o = options(dir, "grid 30x30");
  o.checkpoint.resume = true;
  isr::test::expect_same_result(distributed(GridModel(30, 30), o, 2), whole);
}

// The Kafka model with a violation, stopped between waves: the resumed search finds the
// very counterexample of the uninterrupted one (its path goes through the logs saved).
TEST(DistributedCheckpoint, KafkaViolationAfterResumeIsTheSameTrace) {
  const isr::spec::PartitionModel model(
      isr::spec::load_config(nullptr, {"protocol=hw-truncation", "faults.max_crashes=2", "faults.max_lossy_crashes=0"}));
  BfsOptions plain;
  plain.wave_states = 50;
  const auto whole = distributed(model, plain, 2);
  ASSERT_EQ(whole.verdict, Verdict::Violated);
  const std::string dir = fresh_dir("kafka");
  std::atomic<bool> flag{false};
  BfsOptions o = options(dir, "kafka");
  o.wave_states = 50;
  o.interrupt = &flag;
  o.progress_interval = std::chrono::milliseconds(0);
  int reports = 0;
  // Called on rank 0 at every agreement to go on; the flag is seen at the next one.
  o.progress = [&](const isr::checker::BfsProgress&) {
    if (++reports == 12) flag.store(true);
  };
  const auto first = distributed(model, o, 2);
  ASSERT_EQ(first.verdict, Verdict::Incomplete);
  ASSERT_EQ(first.checkpoint.written, 1u);
  ASSERT_GT(first.checkpoint.written_depth, 0);
  BfsOptions again = options(dir, "kafka");
  again.checkpoint.resume = true;
  const auto resumed = distributed(model, again, 2);
  isr::test::expect_same_result(resumed, whole);
}

// Collective refusals: every rank throws, so the in-process hub ends; the message says why.
// (A file only one rank cannot read would leave the others waiting here; under mpirun
// the rank ends the job, exit 2: tests/checkpoint_mpi_test.cc.)
TEST(DistributedCheckpoint, AnotherRankCountOrIdentityIsRefused) {
  const std::string dir = fresh_dir("refused");
  BfsOptions o = options(dir, "grid 20x20");
  o.checkpoint.every = std::chrono::nanoseconds(0);
  ASSERT_EQ(distributed(GridModel(20, 20), o, 2).checkpoint.written > 0, true);
  auto resume_error = [&](const std::string& identity, int ranks) {
    BfsOptions r = options(dir, identity);
    r.checkpoint.resume = true;
    try {
      distributed(GridModel(20, 20), r, ranks);
    } catch (const CheckpointError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(resume_error("grid 20x20", 3).find("was written by 2 ranks, not 3"), std::string::npos);
  EXPECT_NE(resume_error("grid 30x30", 2).find("belongs to another run"), std::string::npos);
}

}  // namespace
