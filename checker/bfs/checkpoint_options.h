// What `check --checkpoint DIR` / `--resume DIR` ask of the exhaustive search
// (checker/bfs/checkpoint.h writes and reads the file; docs/checker.md, "Checkpoint and
// resume"). Apart from the other options so that bfs_types.h stays light.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace isr::checker {

struct CheckpointOptions {
  // Empty: no checkpoints. Otherwise the directory that holds `checkpoint.bin`.
  std::string dir;
  // A checkpoint is written at the end of the first level that completes this long after
  // the previous one (or after the start); 0: after every level. A stop (an interrupt, a
  // time or memory limit) writes one as well, whatever the interval.
  std::chrono::nanoseconds every = std::chrono::minutes(10);
  // Start from dir's checkpoint instead of the initial states.
  bool resume = false;
  // What must be equal for a checkpoint to be resumed: the caller's description of the
  // model, its configuration, the options that shape the search and the binary's
  // revision (the CLI writes JSON). Stored in the file and compared on resume.
  std::string identity;
};

// What became of checkpoints during one run (BfsResult::checkpoint).
struct CheckpointReport {
  bool resumed = false;
  int resumed_depth = 0;          // the level the resumed checkpoint had completed
  uint64_t resumed_states = 0;    // distinct states it held
  uint64_t written = 0;           // checkpoints written by this run
  int written_depth = -1;         // the last one's completed level (-1: none written)
  uint64_t written_states = 0;    // its distinct states
  uint64_t written_bytes = 0;     // its file size
};

}  // namespace isr::checker
