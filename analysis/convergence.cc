// logs-converge by backward reachability in the explicit state graph (convergence.h):
// mark the converged states, spread the mark backwards along fault-free edges, and
// every reachable state left unmarked is stuck.
#include "analysis/convergence.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "analysis/bound_limited.h"
#include "checker/graph/state_graph.h"
#include "counterexamples/trace/trace_writer.h"
#include "spec/partition/partition_model.h"

namespace isr::analysis {

using spec::State;

const char* convergence_verdict_name(ConvergenceVerdict v) {
  switch (v) {
    case ConvergenceVerdict::Converges: return "converges";
    case ConvergenceVerdict::Stuck: return "stuck";
    case ConvergenceVerdict::Incomplete: return "incomplete";
  }
  return "unknown";
}

bool live_logs_identical(const spec::Config& c, const State& s) {
  int first = -1;
  for (int r = 0; r < c.replication_factor; ++r) {
    if (!s.nodes[r].alive) continue;
    if (first < 0) {
      first = r;
      continue;
    }
    const spec::ReplicaState& a = s.replicas[first];
    const spec::ReplicaState& b = s.replicas[r];
    // Slots past the LEO are always empty (truncate_to clears them), so the arrays compare.
    if (a.leo != b.leo || std::memcmp(a.log, b.log, sizeof(a.log)) != 0) return false;
  }
  return true;
}

ConvergenceReport analyze_convergence(const spec::Config& config, const ConvergenceOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const spec::PartitionModel model(config);
  checker::StateGraphOptions graph_options;
  graph_options.symmetry = options.symmetry;
  graph_options.por = options.por;
  graph_options.threads = std::max(1, options.threads);  // as verify(): 0 or less is one thread
  graph_options.max_states = options.max_states;
  graph_options.progress_states = options.progress_states;
  const checker::StateGraph<spec::PartitionModel> graph = checker::explore_state_graph(model, graph_options);
  const auto classify_start = std::chrono::steady_clock::now();
  const size_t n = graph.vertex_count();

  ConvergenceReport report;
  report.graph_states = n;
  report.graph_edges = graph.edge_count();
  report.complete = graph.complete;
  report.por = graph.por;
  report.graph_seconds = graph.build_seconds;
  report.graph_critical_path_seconds = graph.critical_path_seconds;
  report.graph_sequential_seconds = graph.sequential_seconds;

  // Fault-free edges: everything but a node stop or a network cut.
  uint32_t crash_kind = std::numeric_limits<uint32_t>::max(), cut_kind = crash_kind;
  for (size_t k = 0; k < graph.kinds.size(); ++k) {
    if (graph.kinds[k] == "Crash") crash_kind = static_cast<uint32_t>(k);
    if (graph.kinds[k] == "Cut") cut_kind = static_cast<uint32_t>(k);
  }
  const checker::Predecessors fault_free = checker::predecessors(n, graph.edges, [&](const checker::StateGraphEdge& e) {
    return e.kind != crash_kind && e.kind != cut_kind;
  });

  std::vector<char> can_converge(n, 0);
  for (size_t v = 0; v < n; ++v) {
    can_converge[v] = live_logs_identical(config, graph.states[v]);
    report.converged_states += can_converge[v];
  }
  checker::mark_backwards(fault_free, can_converge);

  // Where the model stops enumerating partition changes Kafka would make.
  const std::vector<char> bound_limited = bound_limited_states(config, graph.states, fault_free);
  // In an incomplete graph the unexpanded vertices have successors nobody saw.
  const std::vector<char> unknown = graph.reaching_unexpanded(fault_free);

  // Vertices are in BFS order, so the first stuck one is nearest to an initial state.
  size_t witness = std::numeric_limits<size_t>::max();
  for (size_t v = 0; v < n; ++v) {
    if (can_converge[v]) continue;
    if (unknown[v]) {
      ++report.unknown_states;
    } else if (bound_limited[v]) {
      ++report.bound_limited_states;
    } else {
      ++report.stuck_states;
      if (witness == std::numeric_limits<size_t>::max()) witness = v;
    }
  }
  if (report.stuck_states > 0) {
    report.verdict = ConvergenceVerdict::Stuck;
    const auto path = graph.path_to(model, static_cast<uint32_t>(witness), "logs-converge");
    report.witness_steps = static_cast<int>(path.actions.size());
    report.witness_trace = counterexamples::trace_to_json(model, path, "convergence");
    report.witness_trace["property_description"] =
        "from the last state no fault-free path (no crash, no cut; restarts and heals allowed) brings the live "
        "replicas to identical logs";
  } else if (!report.complete) {
    report.verdict = ConvergenceVerdict::Incomplete;
  }
  const auto end = std::chrono::steady_clock::now();
  report.classify_seconds = std::chrono::duration<double>(end - classify_start).count();
  report.seconds = std::chrono::duration<double>(end - start).count();
  return report;
}

}  // namespace isr::analysis
