// Where the BFS engine's CPU time goes, split into what runs on every worker and what
// runs on the coordinating thread alone (BfsOptions::profile, issue 27 item 2).
//
// Wall-clock speed-ups mean nothing on a machine shared by many builds, so this counts
// thread CPU time (CLOCK_THREAD_CPUTIME_ID), which the load does not inflate:
//   - per parallel phase (one barrier each): the CPU every worker spent in it (work),
//     the busiest worker's CPU (its share of the critical path), and what the others
//     would have waited for it at the barrier with one idle core each (wait);
//   - per serial section of the coordinator (growing the visited set, merging the
//     survivors, writing the parent log, ...): its CPU and how often it ran.
// From a 1-thread profile, serial_fraction() is the share of the work no second thread
// can take, and amdahl_bound(n) = 1 / (serial + parallel / n) the most n threads can give.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace isr::checker {

struct ParallelProfile {
  // The parallel phases of a level (checker/bfs/bfs.h, the file comment).
  // Grow: the visited set's growth in place, on the workers (two barriers per growth);
  // Order: merging a large wave's survivors, and encoding a large level's parent log.
  enum Phase : size_t { Expand, Dedupe, Grow, Insert, Order, Materialize, kPhases };
  // The coordinator's sections: deciding and laying out the visited set's growth
  // before a batch (Growth), and
  // repairing it after one (EndBatch); merging the workers' survivors into the next
  // level's order (Merge: all of it for a small wave, else finding the parts); the parent
  // log (ParentLog: appending the encoded slices); the violation log of --continue
  // (Account); and everything else it does between phases (Other: starting a level,
  // the initial states, swapping stores, checkpoints, the final result).
  enum Section : size_t { Growth, EndBatch, Merge, ParentLog, Account, Other, kSections };
  // The coordinator while workers run a phase (progress ticks, limit checks, waking up):
  // concurrent with the work, so neither serial nor parallel; reported apart.

  struct PhaseTotals {
    uint64_t barriers = 0;  // times the phase ran (each ends at a barrier)
    double work = 0;        // CPU seconds, summed over workers
    double critical = 0;    // CPU seconds of the busiest worker, summed over runs
    double wait = 0;        // summed over workers: critical - own CPU, per run
  };
  struct SectionTotals {
    uint64_t runs = 0;
    double cpu = 0;
  };

  int threads = 0;
  std::array<PhaseTotals, kPhases> phases{};
  std::array<SectionTotals, kSections> sections{};
  double coordinator_during_phases = 0;

  double parallel_seconds() const {
    double s = 0;
    for (const PhaseTotals& p : phases) s += p.work;
    return s;
  }
  double critical_seconds() const {
    double s = serial_seconds();
    for (const PhaseTotals& p : phases) s += p.critical;
    return s;
  }
  double serial_seconds() const {
    double s = 0;
    for (const SectionTotals& t : sections) s += t.cpu;
    return s;
  }
  double wait_seconds() const {
    double s = 0;
    for (const PhaseTotals& p : phases) s += p.wait;
    return s;
  }
  uint64_t barriers() const {
    uint64_t n = 0;
    for (const PhaseTotals& p : phases) n += p.barriers;
    return n;
  }
  // The share of the search's CPU that ran on the coordinator alone.
  double serial_fraction() const {
    const double total = serial_seconds() + parallel_seconds();
    return total > 0 ? serial_seconds() / total : 0;
  }
  // Amdahl's law with this profile's serial fraction (meaningful for a 1-thread profile:
  // with more threads the parallel work already includes their overheads).
  double amdahl_bound(int n) const {
    const double s = serial_fraction();
    return 1.0 / (s + (1.0 - s) / static_cast<double>(n));
  }

  static std::string_view phase_name(size_t p) {
    static constexpr std::array<std::string_view, kPhases> kNames = {"expand", "dedupe", "grow", "insert",
                                                                  "order",  "materialize"};
    return p < kPhases ? kNames[p] : "?";
  }
  static std::string_view section_name(size_t s) {
    static constexpr std::array<std::string_view, kSections> kNames = {"growth", "end-batch", "merge",
                                                                      "parent-log", "account", "other"};
    return s < kSections ? kNames[s] : "?";
  }
};

}  // namespace isr::checker
