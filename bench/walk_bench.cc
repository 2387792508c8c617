// Random-walk throughput and shrink time on the partition model (prints a table).
//
//   walk_bench [--walks N] [--depth D] [--seed S]
//
// Rows: steps per second of the whole engine (enumeration, weighted choice, next state,
// every property, fingerprints, coverage) on the default model with 1 and 2 threads,
// the same with properties excluded (the engine and model alone), and the time to find
// and shrink an acked-write loss under acks=1. The target is >= 1M steps/s per core.
// "per core" divides by the CPU time the process used (getrusage), not by wall time, so
// the figure stays meaningful on a machine shared with other work.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "bench/cpu_time.h"
#include "checker/walk/random_walk.h"
#include "spec/partition/config.h"
#include "spec/partition/partition_model.h"

namespace {

using isr::checker::WalkOptions;
using isr::checker::WalkOutcome;
using isr::spec::PartitionModel;

// The default model, whose properties always hold, minus its properties: measures the
// engine and the model's transitions alone.
class WithoutProperties {
 public:
  using State = PartitionModel::State;
  using Action = PartitionModel::Action;
  using Property = isr::checker::Property<State, WithoutProperties>;
  explicit WithoutProperties(const PartitionModel& m) : m_(m) {}
  std::vector<State> initial_states() const { return m_.initial_states(); }
  template <class Sink>
  void for_each_action(const State& s, Sink&& sink) const {
    m_.for_each_action(s, sink);
  }
  State next_state(const State& s, const Action& a) const { return m_.next_state(s, a); }
  const std::vector<Property>& properties() const { return none_; }
  void canonicalize(State& s) const { m_.canonicalize(s); }
  std::string action_name(const Action& a) const { return m_.action_name(a); }
  std::string_view action_kind(const Action& a) const { return m_.action_kind(a); }
  std::vector<std::string_view> action_kinds() const { return m_.action_kinds(); }
  nlohmann::json action_to_json(const Action& a) const { return m_.action_to_json(a); }
  nlohmann::json state_to_json(const State& s) const { return m_.state_to_json(s); }
  nlohmann::json config_json() const { return m_.config_json(); }

 private:
  const PartitionModel& m_;
  std::vector<Property> none_;
};

struct Row {
  std::string what;
  unsigned threads;
  uint64_t steps;
  double seconds;
  double cpu_seconds;
  std::string note;
};

using isr::bench::cpu_seconds;

template <class M>
Row walk_row(const std::string& what, const M& model, WalkOptions o, unsigned threads) {
  o.threads = threads;
  const double cpu_before = cpu_seconds();
  const auto r = isr::checker::simulate(model, o);
  const double cpu = cpu_seconds() - cpu_before;
  std::string note = "walks " + std::to_string(r.stats.walks_completed) + ", deadlocks " +
                     std::to_string(r.stats.deadlocks) + ", distinct states " +
                     (r.stats.distinct_states_exact ? "" : "~") +
                     std::to_string(r.stats.distinct_states);
  if (r.outcome == WalkOutcome::kViolation) note += ", VIOLATION " + r.violation->property;
  return Row{what, threads, r.stats.steps, r.stats.seconds, cpu, note};
}

uint64_t arg(int argc, char** argv, const char* name, uint64_t fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return std::strtoull(argv[i + 1], nullptr, 10);
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  WalkOptions o;
  o.walks = arg(argc, argv, "--walks", 20000);
  o.depth = arg(argc, argv, "--depth", 100);
  o.seed = arg(argc, argv, "--seed", 1);

  const PartitionModel model(isr::spec::default_config());
  const WithoutProperties bare(model);
  std::vector<Row> rows;
  rows.push_back(walk_row("default model, all properties", model, o, 1));
  rows.push_back(walk_row("default model, all properties", model, o, 2));
  rows.push_back(walk_row("default model, no properties", bare, o, 1));

  std::printf("random walks: %llu walks x depth %llu, seed %llu, %u hardware threads\n\n",
              static_cast<unsigned long long>(o.walks), static_cast<unsigned long long>(o.depth),
              static_cast<unsigned long long>(o.seed), std::thread::hardware_concurrency());
  std::printf("%-32s %7s %10s %8s %8s %12s %14s  %s\n", "run", "threads", "steps", "wall s",
              "cpu s", "steps/s", "steps/cpu-s", "notes");
  for (const Row& r : rows) {
    const double rate = r.seconds > 0 ? static_cast<double>(r.steps) / r.seconds : 0;
    const double per_core = r.cpu_seconds > 0 ? static_cast<double>(r.steps) / r.cpu_seconds : 0;
    std::printf("%-32s %7u %10llu %8.3f %8.3f %12.0f %14.0f  %s\n", r.what.c_str(), r.threads,
                static_cast<unsigned long long>(r.steps), r.seconds, r.cpu_seconds, rate,
                per_core, r.note.c_str());
  }

  // Shrinking: losses the model must reproduce (MODEL.md 5): acks=1 loses an
  // acknowledged write when the leader dies (found at once, short); an unclean election
  // after two crashes loses a record the consumer read, and, with reads and timeouts
  // weighted out as a user hunting acked loss would, an acknowledged write (long).
  struct Scenario {
    const char* name;
    std::vector<std::string> overrides;
    std::map<std::string, double, std::less<>> weights;
  };
  const std::vector<std::string> unclean = {"unclean_leader_election=true", "faults.max_crashes=2",
                                            "faults.max_lossy_crashes=0"};
  auto with = [](std::vector<std::string> base, const std::string& extra) {
    base.push_back(extra);
    return base;
  };
  const Scenario scenarios[] = {
      {"acks=1, one crash", {"acks=1", "properties=no-acked-loss"}, {}},
      {"unclean election, read lost", with(unclean, "properties=consistent-read"), {}},
      {"unclean election, acked lost", with(unclean, "properties=no-acked-loss"),
       {{"Consume", 0.0}, {"ProduceTimeout", 0.0}}},
  };
  std::printf("\nshrinking (depth %llu, seed %llu, 1 thread):\n",
              static_cast<unsigned long long>(o.depth), static_cast<unsigned long long>(o.seed));
  std::printf("%-32s %-16s %6s %8s %8s %6s %10s %10s %9s %9s\n", "scenario", "property", "walk",
              "walk s", "found", "final", "candidates", "BFS states", "shrink s", "shortest");
  int status = 0;
  for (const Scenario& scenario : scenarios) {
    const PartitionModel buggy(isr::spec::load_config(nullptr, scenario.overrides));
    WalkOptions s = o;
    s.walks = 100000;
    s.threads = 1;
    s.weights = scenario.weights;
    const auto r = isr::checker::simulate(buggy, s);
    if (r.outcome != WalkOutcome::kViolation) {
      std::printf("%-32s no violation in %llu walks\n", scenario.name,
                  static_cast<unsigned long long>(r.stats.walks_completed));
      status = 1;
      continue;
    }
    const auto& v = *r.violation;
    std::printf("%-32s %-16s %6llu %8.3f %8zu %6zu %10llu %10llu %9.3f %9s\n", scenario.name,
                v.property.c_str(), static_cast<unsigned long long>(v.walk_index),
                r.stats.seconds, v.shrink.length_before, v.shrink.length_after,
                static_cast<unsigned long long>(v.shrink.candidates_tried),
                static_cast<unsigned long long>(v.shrink.bfs_states), v.shrink.seconds,
                v.shrink.proven_shortest ? "proven" : "unknown");
  }
  return status;
}
