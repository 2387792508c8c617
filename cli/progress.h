// Progress lines for the long commands that run library calls which report nothing
// themselves (prove, corpus, converge, tests): a line on stderr once a second saying
// what is done, what is left where known, and what runs now, so that a run of a minute
// is not a minute of silence (issue 29 point 3). check and matrix have their own
// (checker::BfsProgress, matrix's progress bar); this is for everything else.
//
// A thread of its own prints, so a line appears even while one search runs for long.
// Nothing is printed during the first interval: a command of under a second stays
// silent. ISRCHECK_PROGRESS_MS sets the interval (default 1000; tests use a short one).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace isr::cli {

class ProgressLines {
 public:
  // `command` starts each line ("prove"), `unit` names what is counted ("claims").
  // Disabled (--quiet), it prints nothing and starts no thread.
  ProgressLines(std::string command, std::string unit, bool enabled);
  ~ProgressLines();
  ProgressLines(const ProgressLines&) = delete;
  ProgressLines& operator=(const ProgressLines&) = delete;

  // `done` of `total` (0: unknown) finished; `current` is what runs now ("" none).
  void set(std::size_t done, std::size_t total, std::string current);

  // States explored by the step at hand, for a library call that counts them
  // (StateGraphOptions::progress_states); shown when not 0.
  std::atomic<uint64_t>& states() { return states_; }

  // The line as it would be printed now (for the tests).
  std::string line() const;

 private:
  void loop();

  std::string command_;
  std::string unit_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::milliseconds interval_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::size_t done_ = 0;
  std::size_t total_ = 0;
  std::string current_;
  std::chrono::steady_clock::time_point current_since_;
  std::atomic<uint64_t> states_{0};
  std::thread thread_;
};

}  // namespace isr::cli
