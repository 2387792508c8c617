// The CPU time the benchmarks report next to wall time: on a shared, noisy machine the
// process's own user + system seconds (all threads) are what compares between runs.
#pragma once

#include <sys/resource.h>
#include <sys/time.h>

namespace isr::bench {

// User + system CPU seconds of this process so far, all threads.
inline double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace isr::bench
