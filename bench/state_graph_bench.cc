// The explicit-state-graph analyses (write availability, analysis/availability.h; and
// logs-converge, analysis/convergence.h) on real configurations: graph states and edges,
// the graph build's wall time, CPU time (all threads) and critical path, and the
// classification's time, with 1 and 2 threads and partial-order reduction off and on.
//
// The critical path (StateGraph::critical_path_seconds: per parallel phase the busiest
// worker's CPU time, plus the coordinator's sequential numbering) estimates the build's
// wall time with an idle core per thread; its 1-thread / 2-thread ratio ("est.speedup")
// is the speed-up on an idle machine. The load average is printed with every row, since
// wall times on a shared machine say little.
//
//   state_graph_bench [--quick]     --quick: the smaller configurations only

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "analysis/availability.h"
#include "analysis/convergence.h"
#include "bench/cpu_time.h"
#include "spec/partition/config.h"

namespace {

using isr::bench::cpu_seconds;

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one;
  in >> one;
  return one;
}

struct Row {
  uint64_t states = 0, edges = 0;
  double graph = 0, critical = 0, sequential = 0, classify = 0, cpu = 0;
  std::string verdict;
  bool complete = true;
};

void print_header() {
  std::printf("%-44s %3s %3s %9s %10s %8s %8s %8s %8s %8s %11s %6s %s\n", "configuration", "por", "thr", "states",
              "edges", "graph s", "crit s", "seq s", "class s", "cpu s", "est.speedup", "load", "verdict");
}

void print(const std::string& name, bool por, int threads, const Row& r, const Row* one_thread) {
  char speedup[32] = "-";
  if (one_thread != nullptr && r.critical > 0) std::snprintf(speedup, sizeof speedup, "%.2fx", one_thread->critical / r.critical);
  std::printf("%-44s %3s %3d %9llu %10llu %8.2f %8.2f %8.2f %8.2f %8.2f %11s %6s %s%s\n", name.c_str(),
              por ? "on" : "off", threads, static_cast<unsigned long long>(r.states),
              static_cast<unsigned long long>(r.edges), r.graph, r.critical, r.sequential, r.classify, r.cpu, speedup,
              load_average().c_str(), r.verdict.c_str(), r.complete ? "" : " (incomplete)");
  std::fflush(stdout);
}

isr::spec::Config config(const std::vector<std::string>& overrides) {
  std::vector<std::string> all = {"consumer=false"};
  all.insert(all.end(), overrides.begin(), overrides.end());
  return isr::spec::load_config(nullptr, all);
}

// The figures every graph report carries (AvailabilityReport, ConvergenceReport).
template <class Report>
Row graph_row(const Report& r, double cpu, std::string verdict) {
  Row row;
  row.states = r.graph_states;
  row.edges = r.graph_edges;
  row.graph = r.graph_seconds;
  row.critical = r.graph_critical_path_seconds;
  row.sequential = r.graph_sequential_seconds;
  row.classify = r.classify_seconds;
  row.cpu = cpu;
  row.verdict = std::move(verdict);
  row.complete = r.complete;
  return row;
}

Row availability(const std::vector<std::string>& overrides, int failures, bool lossy, bool por, int threads) {
  isr::analysis::AvailabilityOptions o;
  o.failures = failures;
  o.lossy = lossy;
  o.por = por;
  o.threads = threads;
  const isr::spec::Config c = config(overrides);
  const double before = cpu_seconds();
  const auto r = isr::analysis::analyze_availability(c, o);
  return graph_row(r, cpu_seconds() - before, std::string(isr::analysis::availability_name(r.verdict)));
}

Row convergence(const std::vector<std::string>& overrides, bool por, int threads) {
  isr::analysis::ConvergenceOptions o;
  o.por = por;
  o.threads = threads;
  const isr::spec::Config c = config(overrides);
  const double before = cpu_seconds();
  const auto r = isr::analysis::analyze_convergence(c, o);
  return graph_row(r, cpu_seconds() - before, isr::analysis::convergence_verdict_name(r.verdict));
}

struct Case {
  std::string name;
  std::vector<std::string> overrides;
  int failures;  // -1: logs-converge instead of availability
  bool lossy;
  bool quick;
};

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else {
      std::fprintf(stderr, "usage: state_graph_bench [--quick]\n");
      return 2;
    }
  }
  const std::vector<Case> cases = {
      {"RF3 isr2 combined, f=2 (NCQ)", {}, 2, false, true},
      {"RF3 isr2 combined, 2 records, f=1", {"bounds.max_records=2"}, 1, false, true},
      {"RF3 isr2 combined, 2 records, f=1 lossy", {"bounds.max_records=2"}, 1, true, true},
      {"RF3 isr2 combined, 2 records, f=2", {"bounds.max_records=2"}, 2, false, false},
      {"RF3 isr2 dedicated 3 voters, f=2", {"controller.placement=dedicated"}, 2, false, false},
      {"RF3 isr2 dedicated 5 voters, f=2", {"controller.placement=dedicated", "controller.voters=5"}, 2, false, false},
      {"RF3 dedicated kip-903, 2 records, f=2",
       {"controller.placement=dedicated", "protocol=kip-903", "bounds.max_records=2"}, 2, false, false},
      {"converge: default, small epoch bounds",
       {"faults.max_lossy_crashes=0", "bounds.max_leader_epoch=2", "bounds.max_partition_epoch=3"}, -1, false, true},
      {"converge: default, power loss, small bounds",
       {"bounds.max_leader_epoch=2", "bounds.max_partition_epoch=3"}, -1, false, false},
  };
  print_header();
  for (const Case& c : cases) {
    if (quick && !c.quick) continue;
    for (bool por : {false, true}) {
      Row one;
      for (int threads : {1, 2}) {
        const Row r = c.failures < 0 ? convergence(c.overrides, por, threads)
                                     : availability(c.overrides, c.failures, c.lossy, por, threads);
        print(c.name, por, threads, r, threads == 1 ? nullptr : &one);
        if (threads == 1) one = r;
      }
    }
  }
  return 0;
}
