// Throughput of the exhaustive BFS engine: states generated and distinct states per
// second with 1 and 2 threads, the speed-up, and the memory per distinct state.
//
// Runs a toy model (engine overhead with a trivial next_state), the default Kafka
// partition model and a larger Kafka configuration. Plain program printing a table: each
// run takes seconds, which Google Benchmark's repetition model does not suit.
//
// Wall-clock speed-up is only meaningful on an otherwise idle machine, so the table also
// gives CPU seconds (all threads), generated states per CPU-second (the engine's cost
// per state, and whether a second thread inflates the total work), and the critical
// path (BfsResult::critical_path_seconds: per phase the busiest worker's CPU time plus
// the coordinator's sequential work), whose 1-thread / 2-thread ratio estimates the
// speed-up with two idle cores ("est.speedup").
//
// The toy rows come in variants that switch off one technique of issue 14 each, so that
// "before" and "after" are measured in the same run: 64- and 128-bit fingerprints, and
// the comparison sort the dedupe phase used before its bucket sort, and the visited-set
// lookups of every successor in the expand phase (VisitedLookup::Expand, before the
// adaptive choice) or of every distinct candidate in the dedupe phase.
//
// The Kafka rows "as check" run both Kafka models as `isrcheck check` does (symmetry and
// partial-order reduction on): the default partition model and `--model cluster` with
// replication factor 3 and min ISR 2 (its first 2M states).
//
// --profile (BfsOptions::profile, checker/bfs/parallel_profile.h) prints under each row
// where the thread CPU time went: per parallel phase the workers' CPU, the busiest
// worker's share and the barrier waits; per serial section of the coordinator its CPU;
// the serial fraction and, on 1-thread rows, the Amdahl bound it implies for 2 threads
// (1 / (serial + parallel / 2)); on a 2-thread row after its 1-thread row, the bound that
// also counts the second thread's extra work: 1-thread CPU / (serial + parallel / 2) of
// the 2-thread run. Thread CPU time does not depend on the machine's load; how the
// workers share a phase does (they take chunks as they come, and a thread the machine
// does not run takes none), so "wait" and the critical path are the load's as much as
// the engine's.
//
//   bfs_bench [--quick] [--toy-only] [--only SUBSTRING] [--threads N] [--profile]
//     --quick: smaller models / state limits; --only: just the rows whose name contains
//     SUBSTRING (for profiling one variant); --threads 1|2: just that thread count.

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench/cpu_time.h"
#include "checker/bfs/bfs.h"
#include "spec/cluster/cluster_config.h"
#include "spec/cluster/cluster_model.h"
#include "spec/partition/config.h"
#include "spec/partition/partition_model.h"
#include "tests/toy_models.h"

namespace {

using isr::checker::BfsOptions;
using isr::checker::BfsResult;

using isr::bench::cpu_seconds;

struct Row {
  std::string model;
  int threads = 1;
  bool symmetry = false;
  uint64_t distinct = 0;
  uint64_t generated = 0;
  int depth = 0;
  double seconds = 0;
  double cpu = 0;
  double critical = 0;
  double bytes_per_state = 0;
  double peak_mib = 0;
  std::string verdict;
  isr::checker::ParallelProfile profile;
};

struct Variant {
  const char* suffix = "";
  int fingerprint_bits = 128;
  bool comparison_sort = false;
  isr::checker::VisitedLookup visited_lookup = isr::checker::VisitedLookup::Adaptive;
  bool por = false;
};

bool g_profile = false;

template <class M>
Row run(const std::string& name, const M& model, int threads, bool symmetry, uint64_t max_states,
        const Variant& variant = {}) {
  BfsOptions options;
  options.fingerprint_bits = variant.fingerprint_bits;
  options.comparison_sort = variant.comparison_sort;
  options.visited_lookup = variant.visited_lookup;
  options.threads = threads;
  options.symmetry = symmetry;
  options.max_states = max_states;
  options.por = variant.por;
  options.profile = g_profile;
  const double cpu_before = cpu_seconds();
  const BfsResult<M> r = isr::checker::bfs(model, options);
  Row row;
  row.model = name + variant.suffix;
  row.threads = threads;
  row.symmetry = symmetry;
  row.distinct = r.distinct_states;
  row.generated = r.states_generated;
  row.depth = r.depth;
  row.seconds = r.seconds;
  row.cpu = cpu_seconds() - cpu_before;
  row.critical = r.critical_path_seconds;
  row.bytes_per_state = r.bytes_per_state;
  row.peak_mib = static_cast<double>(r.peak_memory_bytes) / (1024.0 * 1024.0);
  row.verdict = std::string(isr::checker::verdict_name(r.verdict));
  row.profile = r.parallel_profile;
  return row;
}

void print_header() {
  std::printf("%-32s %3s %3s %10s %11s %5s %7s %7s %7s %11s %10s %11s %7s %11s %7s %8s %s\n", "model", "thr",
              "sym", "distinct", "generated", "depth", "wall s", "cpu s", "crit s", "generated/s", "distinct/s",
              "gen/cpu-s", "speedup", "est.speedup", "B/state", "peak MiB", "verdict");
}

// BfsOptions::profile, under its row: thread CPU seconds (runs or barriers in brackets).
void print_profile(const Row& r, const Row* one_thread) {
  using isr::checker::ParallelProfile;
  const ParallelProfile& p = r.profile;
  std::printf("  parallel %.2f s:", p.parallel_seconds());
  for (size_t i = 0; i < ParallelProfile::kPhases; ++i) {
    const auto& t = p.phases[i];
    std::printf(" %s %.2f (busiest %.2f, wait %.2f, %llu)", std::string(ParallelProfile::phase_name(i)).c_str(),
                t.work, t.critical, t.wait, static_cast<unsigned long long>(t.barriers));
  }
  std::printf("\n  serial %.3f s:", p.serial_seconds());
  for (size_t i = 0; i < ParallelProfile::kSections; ++i) {
    const auto& t = p.sections[i];
    std::printf(" %s %.3f (%llu)", std::string(ParallelProfile::section_name(i)).c_str(), t.cpu,
                static_cast<unsigned long long>(t.runs));
  }
  std::printf("\n  serial fraction %.2f%%, barrier waits %.2f s, barriers %llu, coordinator during phases %.3f s",
              100.0 * p.serial_fraction(), p.wait_seconds(), static_cast<unsigned long long>(p.barriers()),
              p.coordinator_during_phases);
  if (r.threads == 1) std::printf(", Amdahl bound for 2 threads %.3fx", p.amdahl_bound(2));
  if (one_thread != nullptr && r.threads == 2) {
    const ParallelProfile& one = one_thread->profile;
    const double bound = (one.serial_seconds() + one.parallel_seconds()) /
                         (p.serial_seconds() + p.parallel_seconds() / 2);
    std::printf(", bound with this run's extra work %.3fx (work %+.1f%%)", bound,
                100.0 * ((p.serial_seconds() + p.parallel_seconds()) / (one.serial_seconds() + one.parallel_seconds()) -
                         1.0));
  }
  std::printf("\n");
}

void print(const Row& r, const Row* one_thread) {
  char speedup[32] = "-";
  char estimated[32] = "-";
  if (one_thread != nullptr && r.seconds > 0 && r.critical > 0) {
    std::snprintf(speedup, sizeof speedup, "%.2fx", one_thread->seconds / r.seconds);
    std::snprintf(estimated, sizeof estimated, "%.2fx", one_thread->critical / r.critical);
  }
  auto per = [](double n, double s) { return s > 0 ? n / s : 0.0; };
  std::printf("%-32s %3d %3s %10llu %11llu %5d %7.2f %7.2f %7.2f %11.0f %10.0f %11.0f %7s %11s %7.2f %8.1f %s\n",
              r.model.c_str(), r.threads, r.symmetry ? "on" : "off", static_cast<unsigned long long>(r.distinct),
              static_cast<unsigned long long>(r.generated), r.depth, r.seconds, r.cpu, r.critical,
              per(static_cast<double>(r.generated), r.seconds), per(static_cast<double>(r.distinct), r.seconds),
              per(static_cast<double>(r.generated), r.cpu), speedup, estimated, r.bytes_per_state, r.peak_mib,
              r.verdict.c_str());
  if (g_profile) print_profile(r, one_thread);
  std::fflush(stdout);
}

const char* g_only = nullptr;
int g_threads = 0;  // 0: both 1 and 2

template <class M>
void compare_threads(const std::string& name, const M& model, bool symmetry, uint64_t max_states = 0,
                     const Variant& variant = {}) {
  if (g_only != nullptr && (name + variant.suffix).find(g_only) == std::string::npos) return;
  Row one;
  if (g_threads != 2) {
    one = run(name, model, 1, symmetry, max_states, variant);
    print(one, nullptr);
  }
  if (g_threads != 1) {
    const Row two = run(name, model, 2, symmetry, max_states, variant);
    print(two, g_threads == 0 ? &one : nullptr);
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  bool toy_only = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (std::strcmp(argv[i], "--profile") == 0) {
      g_profile = true;
    } else if (std::strcmp(argv[i], "--toy-only") == 0) {
      toy_only = true;
    } else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      g_only = argv[++i];
    } else if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc &&
               (std::strcmp(argv[i + 1], "1") == 0 || std::strcmp(argv[i + 1], "2") == 0)) {
      g_threads = argv[++i][0] - '0';
    } else {
      std::fprintf(stderr, "usage: bfs_bench [--quick] [--toy-only] [--only SUBSTRING] [--threads 1|2] [--profile]\n");
      return 2;
    }
  }
  print_header();
  {
    // 8^8 = 16.8M states of 8 bytes, 1 + 8*7*8^7 = 117M successors: engine overhead only.
    const isr::toy::CounterModel counters(quick ? 7 : 8, 7);
    const std::string name = quick ? "toy counters 8^7" : "toy counters 8^8";
    using isr::checker::VisitedLookup;
    compare_threads(name, counters, false, 0, Variant{" fp128", 128, false});
    compare_threads(name, counters, false, 0, Variant{" fp128 expand-lookup", 128, false, VisitedLookup::Expand});
    compare_threads(name, counters, false, 0, Variant{" fp64", 64, false});
    compare_threads(name, counters, false, 0, Variant{" fp64 std::sort", 64, true});
  }
  if (toy_only) return 0;

  const uint64_t limit = quick ? 1000000 : 0;
  const isr::spec::PartitionModel kafka(isr::spec::default_config());
  // As `isrcheck check` runs the two Kafka models (symmetry and POR on).
  compare_threads("kafka default as check", kafka, true, limit, Variant{" por", 128, false,
                                                                        isr::checker::VisitedLookup::Adaptive, true});
  const isr::spec::cluster::ClusterModel cluster(
      isr::spec::cluster::load_config(nullptr, {"replication_factor=3", "min_insync_replicas=2"}));
  compare_threads("kafka cluster RF3 as check", cluster, true, quick ? 300000 : 2000000,
                  Variant{" por", 128, false, isr::checker::VisitedLookup::Adaptive, true});
  compare_threads("kafka default", kafka, true, limit);
  compare_threads("kafka default", kafka, true, limit,
                  Variant{" expand-lookup", 128, false, isr::checker::VisitedLookup::Expand});
  compare_threads("kafka default", kafka, true, limit,
                  Variant{" dedupe-lookup", 128, false, isr::checker::VisitedLookup::Dedupe});
  if (!quick) compare_threads("kafka default", kafka, false, 10000000);
  // Larger: two records to produce.
  const isr::spec::Config larger = isr::spec::load_config(nullptr, {"bounds.max_records=2"});
  const isr::spec::PartitionModel big(larger);
  compare_threads("kafka max_records=2", big, true, quick ? 1000000 : 20000000);
  return 0;
}
