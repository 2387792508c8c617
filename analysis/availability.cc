// Write availability after node failures, by reverse reachability in the explicit state
// graph (see availability.h and docs/claims.md for the definitions).
#include "analysis/availability.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <string>
#include <vector>

#include "analysis/bound_limited.h"
#include "analysis/restricted_model.h"
#include "checker/graph/state_graph.h"
#include "counterexamples/trace/trace_writer.h"
#include "spec/partition/partition_model.h"
#include "spec/partition/queries.h"

namespace isr::analysis {
namespace {

using spec::ActionKind;
using spec::State;

// The failure scenario the analysis asks about, as a filter on the partition model's
// enabled actions (analysis/restricted_model.h):
//   - failures are node stops of one kind (kill -9, or power loss when lossy) of the
//     nodes allowed to fail; the budget is exactly `failures` (spec::FaultBudget);
//   - no failed node restarts (Restart is never enabled): "after f failures" means f
//     nodes are gone, and every step after the last failure is fault-free;
//   - the cluster is healthy when the first failure hits: the leader proposes no ISR
//     shrink before it. Without this, a follower could be dropped as slow before any
//     failure, and "two failures" would include "a lagging follower plus two failures",
//     a third unavailability in disguise (ISR shrinks after the first failure remain).
// Everything else (produce, fetch, elections, metadata propagation, timeouts) is the
// unchanged model, so every path of this model is a path of the partition model, and
// traces replay on it.
struct FailureScenario {
  bool lossy = false;
  bool brokers_only = false;

  bool operator()(const spec::Config& c, const State& s, const spec::Action& a) const {
    switch (a.kind) {
      case ActionKind::Restart:
        return false;
      case ActionKind::ShrinkIsr:
        return s.faults.crashes > 0;
      case ActionKind::Crash: {
        const auto kind = static_cast<spec::StopKind>(a.arg);
        if (kind != (lossy ? spec::StopKind::Power : spec::StopKind::Kill)) return false;
        return !brokers_only || c.is_broker(a.node);
      }
      default:
        return true;
    }
  }
};

using FailureScenarioModel = RestrictedModel<FailureScenario>;

static_assert(checker::Model<FailureScenarioModel>);

// Internal classes: the four public ones, and two that stay out of the verdict.
enum class Klass : uint8_t {
  Available,
  NotEnoughReplicas,
  NoEligibleLeader,
  NoControllerQuorum,
  BoundLimited,  // unavailable, but an epoch bound may be why
  Unexplained,   // unavailable with none of the three causes (transient, or a gap)
  Unknown,       // the graph is incomplete around it
  Outside,       // not every failure has happened, or no record is left to write
};

// Classes that end nothing and that the settledness search does not go through.
bool out_of_verdict(Klass k) { return k == Klass::BoundLimited || k == Klass::Unknown || k == Klass::Outside; }

WriteAvailability public_class(Klass k) { return static_cast<WriteAvailability>(k); }

// The cause of unavailability, read from the controller's committed metadata (what the
// brokers converge to): no quorum first, since without one nothing else can change.
Klass cause(const spec::Config& c, const State& s) {
  if (!spec::rules::quorum_available(c, s)) return Klass::NoControllerQuorum;
  const spec::ControllerState& ctl = s.controller;
  if (ctl.leader == spec::kNoNode || !s.nodes[ctl.leader].alive) return Klass::NoEligibleLeader;
  if (spec::size(ctl.isr) < c.min_insync_replicas) return Klass::NotEnoughReplicas;
  return Klass::Unexplained;
}

int count_failable(const spec::Config& c, bool brokers_only) {
  int n = 0;
  for (int node = 0; node < c.nodes(); ++node) {
    const bool matters = node < c.replication_factor || c.is_voter(node);
    if (matters && (!brokers_only || c.is_broker(node))) ++n;
  }
  return n;
}

}  // namespace

std::string_view availability_name(WriteAvailability a) {
  switch (a) {
    case WriteAvailability::Available: return "available";
    case WriteAvailability::NotEnoughReplicas: return "not-enough-replicas";
    case WriteAvailability::NoEligibleLeader: return "no-eligible-leader";
    case WriteAvailability::NoControllerQuorum: return "no-controller-quorum";
  }
  return "unknown";
}

bool parse_availability(std::string_view name, WriteAvailability& out) {
  for (WriteAvailability a : {WriteAvailability::Available, WriteAvailability::NotEnoughReplicas,
                              WriteAvailability::NoEligibleLeader, WriteAvailability::NoControllerQuorum}) {
    if (availability_name(a) == name) {
      out = a;
      return true;
    }
  }
  return false;
}

AvailabilityReport analyze_availability(const spec::Config& config, const AvailabilityOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (options.failing_nodes != "any" && options.failing_nodes != "brokers") {
    throw spec::ConfigError("failing_nodes", "expected \"any\" or \"brokers\", got \"" + options.failing_nodes + "\"");
  }
  const bool brokers_only = options.failing_nodes == "brokers";
  const int failable = count_failable(config, brokers_only);
  if (options.failures < 0 || options.failures > failable) {
    throw spec::ConfigError("failures", "expected 0.." + std::to_string(failable) +
                                            " (the nodes that may fail), got " + std::to_string(options.failures));
  }

  spec::Config c = config;
  c.faults.max_crashes = options.failures;
  c.faults.max_lossy_crashes = options.lossy ? options.failures : 0;
  c.faults.max_disk_losses = 0;
  c.faults.max_clean_shutdowns = 0;
  c.faults.max_network_cuts = 0;
  const FailureScenarioModel model(c, FailureScenario{options.lossy, brokers_only});

  checker::StateGraphOptions graph_options;
  graph_options.symmetry = options.symmetry;
  graph_options.por = options.por;
  graph_options.threads = std::max(1, options.threads);  // as verify(): 0 or less is one thread
  graph_options.max_states = options.max_states;
  graph_options.interrupt = options.interrupt;
  const checker::StateGraph<FailureScenarioModel> graph = checker::explore_state_graph(model, graph_options);
  const auto classify_start = std::chrono::steady_clock::now();
  const checker::Predecessors predecessors = graph.predecessors();
  const size_t n = graph.vertex_count();

  AvailabilityReport report;
  report.graph_states = n;
  report.graph_edges = graph.edge_count();
  report.complete = graph.complete;
  report.interrupted = graph.interrupted;
  report.por = graph.por;
  report.graph_seconds = graph.build_seconds;
  report.graph_critical_path_seconds = graph.critical_path_seconds;
  report.graph_sequential_seconds = graph.sequential_seconds;

  // The write of a state: the next record the producer has not sent yet. Records are
  // sent in order and `current` never decreases, so "record r acknowledged" is a fixed
  // target per record, and the states that can acknowledge r are one reverse search.
  const int records = c.bounds.max_records;
  std::vector<std::vector<char>> can_ack(static_cast<size_t>(records) + 1);
  for (int r = 1; r <= records; ++r) {
    std::vector<char>& marked = can_ack[static_cast<size_t>(r)];
    marked.assign(n, 0);
    for (size_t v = 0; v < n; ++v) {
      marked[v] = graph.states[v].producer.outcome[r - 1] == static_cast<uint8_t>(spec::SendOutcome::Acked);
    }
    checker::mark_backwards(predecessors, marked);
  }
  // States from which an election or partition change beyond the epoch bounds is
  // reachable: there the model stops enumerating changes Kafka would make.
  const std::vector<char> bound_limited = bound_limited_states(c, graph.states, predecessors);
  // In an incomplete graph, the states that can reach an unexpanded one have successors
  // the search never saw: their class is unknown.
  const std::vector<char> unknown = graph.reaching_unexpanded(predecessors);

  std::vector<Klass> klass(n, Klass::Outside);
  for (size_t v = 0; v < n; ++v) {
    const State& s = graph.states[v];
    const int next_record = s.producer.current + 1;
    if (s.faults.crashes != options.failures || next_record > records) continue;
    // A path that acknowledges the write is a fact even in an incomplete graph.
    if (can_ack[static_cast<size_t>(next_record)][v]) {
      klass[v] = Klass::Available;
    } else if (unknown[v]) {
      klass[v] = Klass::Unknown;
    } else if (bound_limited[v]) {
      klass[v] = Klass::BoundLimited;
    } else {
      klass[v] = cause(c, s);
    }
  }
  // Settled: no fault-free path changes the class. A change into BoundLimited does not
  // count (that class is an artefact of the bounds), and the search does not go through
  // such states. States outside the domain are left behind for good (crashes and the
  // record counter never decrease), so they end nothing.
  std::vector<char> unsettled(n, 0);
  for (const checker::StateGraphEdge& e : graph.edges) {
    const Klass from = klass[e.source];
    const Klass to = klass[e.target];
    if (out_of_verdict(from) || out_of_verdict(to)) continue;
    if (from != to) unsettled[e.source] = 1;
  }
  checker::mark_backwards(predecessors, unsettled, [&](uint32_t u) { return !out_of_verdict(klass[u]); });

  for (WriteAvailability a : {WriteAvailability::Available, WriteAvailability::NotEnoughReplicas,
                              WriteAvailability::NoEligibleLeader, WriteAvailability::NoControllerQuorum}) {
    report.states_by_class[std::string(availability_name(a))] = 0;
  }
  // The witness: the settled state of the worst class nearest to an initial state (the
  // first in BFS order among the nearest, so the same on every run).
  size_t witness = std::numeric_limits<size_t>::max();
  for (size_t v = 0; v < n; ++v) {
    const Klass k = klass[v];
    if (k == Klass::Outside) continue;
    if (k == Klass::BoundLimited) {
      ++report.bound_limited_states;
      continue;
    }
    if (k == Klass::Unknown) {
      ++report.unknown_states;
      continue;
    }
    if (unsettled[v]) continue;
    if (k == Klass::Unexplained) {
      ++report.unexplained_states;
      continue;
    }
    ++report.states_by_class[std::string(availability_name(public_class(k)))];
    ++report.settled_states;
    if (public_class(k) > report.verdict) {
      report.verdict = public_class(k);
      witness = v;
    }
  }
  if (report.verdict != WriteAvailability::Available) {
    const auto path = graph.path_to(model, static_cast<uint32_t>(witness),
                                    "availability:" + std::string(availability_name(report.verdict)));
    report.witness_steps = static_cast<int>(path.actions.size());
    report.witness_trace = counterexamples::trace_to_json(model, path, "availability");
  }
  const auto end = std::chrono::steady_clock::now();
  report.classify_seconds = std::chrono::duration<double>(end - classify_start).count();
  report.seconds = std::chrono::duration<double>(end - start).count();
  return report;
}

}  // namespace isr::analysis
