// Checkpoint and resume of the exhaustive search (checker/bfs/checkpoint.h, `check
// --checkpoint DIR` / `--resume DIR`): a search interrupted anywhere (between levels or
// between the waves of a level), with 1 or 2 threads, and resumed with 1 or 2 threads,
// ends with exactly the result of an uninterrupted one (counts, level sizes, verdict,
// trace); a checkpoint of another run, a corrupted or a truncated one is refused; a write
// that never completes leaves the previous checkpoint usable.
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "checker/bfs/bfs.h"
#include "checker/bfs/checkpoint.h"
#include "spec/partition/config.h"
#include "spec/partition/partition_model.h"
#include "tests/same_bfs_result.h"
#include "tests/toy_models.h"

namespace isr::checker {
namespace {

namespace fs = std::filesystem;
using toy::GridModel;

// A fresh directory under the test's temporary directory.
std::string fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("isrcheck-checkpoint-test-" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

BfsOptions options(int threads, const std::string& dir) {
  BfsOptions o;
  o.threads = threads;
  o.wave_states = 8;  // many waves a level: stops fall between them too
  o.checkpoint.dir = dir;
  o.checkpoint.identity = "grid 40x40";
  return o;
}

TEST(Checkpoint, GridInterruptedAnywhereResumesToTheSameResult) {
  const BfsResult<GridModel> whole = bfs(GridModel(40, 40), [] {
    BfsOptions o;
    o.wave_states = 8;
    return o;
  }());
  ASSERT_EQ(whole.verdict, Verdict::Holds);
  ASSERT_EQ(whole.distinct_states, 1600u);
  int mid_level_stops = 0;
  for (const int threads : {1, 2}) {
    for (const uint64_t calls : {1u, 7u, 50u, 333u, 1000u, 2500u, 5000u}) {
      SCOPED_TRACE("threads " + std::to_string(threads) + ", interrupted after " + std::to_string(calls) + " steps");
      const std::string dir = fresh_dir("grid");
      std::atomic<bool> flag{false};
      GridModel interrupted(40, 40);
      interrupted.interrupt_after(&flag, calls);
      BfsOptions o = options(threads, dir);
      o.interrupt = &flag;
      const BfsResult<GridModel> first = bfs(interrupted, o);
      ASSERT_EQ(first.verdict, Verdict::Incomplete);
      ASSERT_EQ(first.stop_reason, StopReason::Interrupted);
      ASSERT_EQ(first.checkpoint.written, 1u);
      EXPECT_EQ(first.checkpoint.written_depth, first.depth);
      uint64_t boundary = 0;
      for (int l = 0; l <= first.depth; ++l) boundary += whole.level_sizes[static_cast<size_t>(l)];
      EXPECT_EQ(first.checkpoint.written_states, boundary);
      // Stopped between two waves of a level: the visited set held more than the boundary.
      if (first.visited_set_fingerprints > boundary) ++mid_level_stops;
      ASSERT_TRUE(fs::exists(fs::path(dir) / "checkpoint.bin"));
      EXPECT_FALSE(fs::exists(fs::path(dir) / "checkpoint.bin.tmp"));

      // Resumed with the other thread count: the result does not depend on either.
      BfsOptions again = options(3 - threads, dir);
      again.checkpoint.resume = true;
      const BfsResult<GridModel> resumed = bfs(GridModel(40, 40), again);
      EXPECT_TRUE(resumed.checkpoint.resumed);
      EXPECT_EQ(resumed.checkpoint.resumed_depth, first.checkpoint.written_depth);
      test::expect_same_result(resumed, whole);
    }
  }
  // Most stops fell between the waves of a level, where the checkpoint must leave out
  // what the level's finished waves had already inserted.
  EXPECT_GE(mid_level_stops, 2);
}

TEST(Checkpoint, ResumedTwiceAndEveryLevelWritten) {
  const BfsResult<GridModel> whole = bfs(GridModel(30, 30));
  const std::string dir = fresh_dir("twice");
  for (const uint64_t calls : {400u, 1500u}) {
    std::atomic<bool> flag{false};
    GridModel model(30, 30);
    model.interrupt_after(&flag, calls);
    BfsOptions o = options(2, dir);
    o.checkpoint.identity = "grid 30x30";
    o.checkpoint.every = std::chrono::nanoseconds(0);  // after every level
    o.checkpoint.resume = calls != 400u;
    o.interrupt = &flag;
    const BfsResult<GridModel> r = bfs(model, o);
    ASSERT_EQ(r.verdict, Verdict::Incomplete);
    // Every completed level of this run, plus the one on the stop.
    EXPECT_GE(r.checkpoint.written, 2u);
  }
  BfsOptions o = options(1, dir);
  o.checkpoint.identity = "grid 30x30";
  o.checkpoint.resume = true;
  test::expect_same_result(bfs(GridModel(30, 30), o), whole);
}

spec::PartitionModel partition(const std::vector<std::string>& overrides) {
  return spec::PartitionModel(spec::load_config(nullptr, overrides));
}

// The Kafka model with a violation: the resumed search finds the very trace, and the
// POR and symmetry options are carried as the caller's identity.
TEST(Checkpoint, KafkaViolationAfterResumeIsTheSameTrace) {
  // The pre-KIP-101 truncation to the HW loses a committed record after two crashes:
  // 8 steps, 7.7k states.
  const auto model = partition({"protocol=hw-truncation", "faults.max_crashes=2", "faults.max_lossy_crashes=0"});
  BfsOptions plain;
  plain.threads = 2;
  plain.symmetry = true;
  plain.por = true;
  const auto whole = bfs(model, plain);
  ASSERT_EQ(whole.verdict, Verdict::Violated);
  ASSERT_GE(whole.depth, 6);
  for (const uint64_t ticks : {2u, 5u}) {
    SCOPED_TRACE("interrupted at progress report " + std::to_string(ticks));
    const std::string dir = fresh_dir("kafka");
    std::atomic<bool> flag{false};
    uint64_t reports = 0;
    BfsOptions o = plain;
    o.wave_states = 16;
    o.checkpoint.dir = dir;
    o.checkpoint.identity = "partition hw-truncation";
    o.interrupt = &flag;
    o.progress_interval = std::chrono::milliseconds(0);
    o.progress = [&](const BfsProgress&) {
      if (++reports == ticks) flag.store(true);
    };
    const auto first = bfs(model, o);
    ASSERT_EQ(first.verdict, Verdict::Incomplete);
    ASSERT_EQ(first.checkpoint.written, 1u);
    BfsOptions again = plain;
    again.threads = 1;
    again.checkpoint.dir = dir;
    again.checkpoint.identity = "partition hw-truncation";
    again.checkpoint.resume = true;
    const auto resumed = bfs(model, again);
    test::expect_same_result(resumed, whole);
    EXPECT_EQ(resumed.por_reduced, whole.por_reduced);
    EXPECT_EQ(resumed.por_proviso, whole.por_proviso);
  }
}

// Writes a checkpoint of a stopped grid search into dir; returns its options.
BfsOptions stopped_grid(const std::string& dir) {
  std::atomic<bool> flag{false};
  GridModel model(20, 20);
  model.interrupt_after(&flag, 300);
  BfsOptions o = options(1, dir);
  o.interrupt = &flag;
  const auto r = bfs(model, o);
  EXPECT_EQ(r.checkpoint.written, 1u);
  o.interrupt = nullptr;
  o.checkpoint.resume = true;
  return o;
}

TEST(Checkpoint, AnotherRunsCheckpointIsRefused) {
  const std::string dir = fresh_dir("identity");
  BfsOptions o = stopped_grid(dir);
  EXPECT_EQ(checkpoint_identity(dir), "grid 40x40");
  o.checkpoint.identity = "grid 40x40 with another option";
  EXPECT_THROW(bfs(GridModel(20, 20), o), CheckpointError);
  // Another fingerprint width is another file layout.
  o.checkpoint.identity = "grid 40x40";
  o.fingerprint_bits = 64;
  EXPECT_THROW(bfs(GridModel(20, 20), o), CheckpointError);
}

TEST(Checkpoint, CorruptedOrTruncatedIsRefused) {
  const std::string dir = fresh_dir("corrupt");
  const BfsOptions o = stopped_grid(dir);
  const fs::path file = fs::path(dir) / "checkpoint.bin";
  const auto size = fs::file_size(file);
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size / 2));
    char c = 0;
    f.read(&c, 1);
    f.seekp(static_cast<std::streamoff>(size / 2));
    c = static_cast<char>(c ^ 0x10);
    f.write(&c, 1);
  }
  try {
    bfs(GridModel(20, 20), o);
    ADD_FAILURE() << "a corrupted checkpoint was resumed";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("checksum"), std::string::npos) << e.what();
  }
  fs::resize_file(file, size - 5);
  EXPECT_THROW(bfs(GridModel(20, 20), o), CheckpointError);
  fs::remove(file);
  try {
    bfs(GridModel(20, 20), o);
    ADD_FAILURE() << "a missing checkpoint was resumed";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("no checkpoint"), std::string::npos) << e.what();
  }
}

// A writer that never commits (a crash, a full disk, an exception midway) leaves the
// previous checkpoint as it was, and no temporary file behind.
TEST(Checkpoint, AnUnfinishedWriteLeavesThePreviousCheckpoint) {
  const std::string dir = fresh_dir("unfinished");
  const BfsOptions o = stopped_grid(dir);
  const fs::path file = fs::path(dir) / "checkpoint.bin";
  const auto size = fs::file_size(file);
  {
    CheckpointWriter w(dir);
    w.string("half of something else");
    EXPECT_TRUE(fs::exists(fs::path(dir) / "checkpoint.bin.tmp"));
  }
  EXPECT_FALSE(fs::exists(fs::path(dir) / "checkpoint.bin.tmp"));
  EXPECT_EQ(fs::file_size(file), size);
  // A process killed while writing leaves its temporary file: resuming ignores it.
  std::ofstream(fs::path(dir) / "checkpoint.bin.tmp") << "garbage";
  const auto resumed = bfs(GridModel(20, 20), o);
  EXPECT_EQ(resumed.verdict, Verdict::Holds);
  EXPECT_EQ(resumed.distinct_states, 400u);
}

TEST(Checkpoint, AnUnwritableDirectoryIsAnError) {
  BfsOptions o;
  o.checkpoint.dir = "/nonexistent/isrcheck-checkpoint";
  o.checkpoint.every = std::chrono::nanoseconds(0);
  EXPECT_THROW(bfs(GridModel(5, 5), o), CheckpointError);
}

}  // namespace
}  // namespace isr::checker
