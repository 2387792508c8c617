// The Java conformance driver as a child process: one JVM, spoken to in JSON lines over
// its stdin/stdout (docs/conformance.md, "Driver protocol").
//
// Process hygiene, because a run must never leave a JVM behind: the driver starts in a
// process group of its own (so a Ctrl-C on the terminal reaches only isrcheck, which then
// shuts the driver down in order); stop() asks it to shut down, waits a bounded time, then
// SIGKILLs its process group and every PID listed in the `pids` file of each work
// directory it was given (the driver appends every node JVM it spawns there), after
// checking that the PID still belongs to that run. The destructor calls stop().
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "conformance/driver.h"

namespace isr::conformance {

class DriverProcess : public Driver {
 public:
  // Starts `argv` (argv[0] looked up in PATH) with stderr appended to `stderr_file`;
  // waits up to `ready_budget` for the driver's ready line. Throws DriverError.
  DriverProcess(const std::vector<std::string>& argv, const std::string& stderr_file,
                std::chrono::milliseconds ready_budget);
  ~DriverProcess() override;
  DriverProcess(const DriverProcess&) = delete;
  DriverProcess& operator=(const DriverProcess&) = delete;

  nlohmann::json call(nlohmann::json request, std::chrono::milliseconds budget) override;
  void stop() override;

  // A work directory whose `pids` file lists processes to kill at stop().
  void watch_work_dir(const std::string& dir) override { work_dirs_.push_back(dir); }
  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }

 private:
  // The next line from the driver's stdout, or throws (no-response / Interrupted).
  std::string read_line(std::chrono::steady_clock::time_point deadline);
  void kill_everything();

  pid_t pid_ = -1;
  int to_driver_ = -1;    // its stdin
  int from_driver_ = -1;  // its stdout
  std::string buffer_;
  long next_id_ = 1;
  std::vector<std::string> work_dirs_;
};

// Kills (SIGKILL) every PID listed in `pids_file` ("<pid> <what>" per line) whose
// /proc/<pid>/cmdline mentions `marker` (the run's work directory) or that is `also`;
// returns the PIDs it signalled. Missing file: nothing.
std::vector<pid_t> kill_listed_pids(const std::string& pids_file, const std::string& marker, pid_t also);

// Whether process `pid` exists and is not a zombie.
bool process_alive(pid_t pid);

}  // namespace isr::conformance
