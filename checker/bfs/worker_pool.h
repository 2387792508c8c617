// A fixed set of worker threads that run one phase of work at a time.
//
// The BFS engine is level-synchronous: every level runs a few phases, each on all
// workers, with a barrier in between. The calling (coordinating) thread does not take
// part in the work: it waits for the phase to finish and meanwhile calls `tick` a few
// times per second, so that progress reports and limit checks stay timely however long
// a phase takes.
#pragma once

#include <time.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace isr::checker {

// The operating system refused a worker thread (the address space or the process limit
// is too small for this many): the pool stopped and joined the threads it had started, so
// the caller reports bad input instead of the std::terminate a joinable std::thread's
// destructor would cause.
struct ThreadStartError : std::runtime_error {
  ThreadStartError(int started, int wanted, const std::string& why)
      : std::runtime_error("could not start worker thread " + std::to_string(started + 1) + " of " +
                           std::to_string(wanted) + " (" + why + "); " + std::to_string(started) +
                           " could be started: use fewer threads"),
        started(started), wanted(wanted) {}
  int started;
  int wanted;
};

class WorkerPool {
 public:
  explicit WorkerPool(int threads) : last_cpu_(static_cast<size_t>(threads), 0.0) {
    workers_.reserve(static_cast<size_t>(threads));
    for (int i = 0; i < threads; ++i) {
      try {
        workers_.emplace_back([this, i] { loop(i); });
      } catch (const std::system_error& e) {
        stop();
        throw ThreadStartError(i, threads, e.code().message());
      }
    }
  }

  ~WorkerPool() { stop(); }

  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()); }

  // Sum over the phases run so far of the largest CPU time any worker spent in the
  // phase: the wall time the phases would take with one idle core per worker. (On a
  // loaded machine wall-clock time says little about the engine's parallelism.)
  double critical_path_seconds() const { return critical_path_seconds_; }

  // Each worker's CPU seconds in the last phase run (checker/bfs/parallel_profile.h).
  const std::vector<double>& last_phase_cpu() const { return last_cpu_; }

  static double thread_cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
  }

  // Runs task(worker index) on every worker; returns when all are done. The first
  // exception thrown by a task is rethrown here.
  void run(const std::function<void(int)>& task, const std::function<void()>& tick,
           std::chrono::milliseconds tick_every = std::chrono::milliseconds(100)) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = &task;
      running_ = static_cast<int>(workers_.size());
      error_ = nullptr;
      phase_max_cpu_ = 0;
      ++generation_;
    }
    start_.notify_all();
    std::unique_lock<std::mutex> lock(mutex_);
    while (!done_.wait_for(lock, tick_every, [this] { return running_ == 0; })) {
      lock.unlock();
      if (tick) tick();
      lock.lock();
    }
    task_ = nullptr;
    critical_path_seconds_ += phase_max_cpu_;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    start_.notify_all();
    for (auto& w : workers_) w.join();
    workers_.clear();
  }

  void loop(int index) {
    uint64_t seen = 0;
    while (true) {
      const std::function<void(int)>* task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
        task = task_;
      }
      std::exception_ptr error;
      const double cpu_before = thread_cpu_seconds();
      try {
        (*task)(index);
      } catch (...) {
        error = std::current_exception();
      }
      const double cpu = thread_cpu_seconds() - cpu_before;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        phase_max_cpu_ = std::max(phase_max_cpu_, cpu);
        last_cpu_[static_cast<size_t>(index)] = cpu;
        if (error && !error_) error_ = error;
        if (--running_ == 0) done_.notify_one();
      }
    }
  }

  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable done_;
  const std::function<void(int)>* task_ = nullptr;
  int running_ = 0;
  uint64_t generation_ = 0;
  bool stopping_ = false;
  double phase_max_cpu_ = 0;
  double critical_path_seconds_ = 0;
  std::vector<double> last_cpu_;  // per worker; sized once, so a phase allocates nothing
  std::exception_ptr error_;
  std::vector<std::thread> workers_;
};

}  // namespace isr::checker
