// logs-converge by backward reachability in the explicit state graph (convergence.h):
// mark the converged states, spread the mark backwards along fault-free edges, and
// every reachable state left unmarked is stuck.
#include "analysis/convergence.h"

#include <chrono>
#include <cstring>
#include <deque>
#include <limits>
#include <string>
#include <vector>

#include "checker/state_graph.h"
#include "counterexamples/trace/trace_writer.h"
#include "spec/partition_model.h"

namespace isr::analysis {
namespace {

using spec::State;

// Backward adjacency over the edges `keep` accepts, in compressed form (offsets into one
// array of sources): millions of edges, so no per-vertex vectors.
struct Reverse {
  std::vector<uint64_t> begin;  // vertex v's sources are from[begin[v] .. begin[v+1])
  std::vector<uint32_t> from;
};

template <class Keep>
Reverse reverse_edges(size_t n, const std::vector<checker::StateGraphEdge>& edges, Keep keep) {
  Reverse r;
  r.begin.assign(n + 1, 0);
  for (const auto& e : edges)
    if (keep(e)) ++r.begin[e.target + 1];
  for (size_t v = 0; v < n; ++v) r.begin[v + 1] += r.begin[v];
  r.from.resize(r.begin[n]);
  std::vector<uint64_t> at(r.begin.begin(), r.begin.end() - 1);
  for (const auto& e : edges)
    if (keep(e)) r.from[at[e.target]++] = e.source;
  return r;
}

// Marks, in place, every vertex with a path (along the kept edges) into a marked one.
void spread_backwards(const Reverse& r, std::vector<char>& marked) {
  std::deque<uint32_t> queue;
  for (size_t v = 0; v < marked.size(); ++v)
    if (marked[v]) queue.push_back(static_cast<uint32_t>(v));
  while (!queue.empty()) {
    const uint32_t v = queue.front();
    queue.pop_front();
    for (uint64_t i = r.begin[v]; i < r.begin[v + 1]; ++i) {
      const uint32_t u = r.from[i];
      if (!marked[u]) {
        marked[u] = 1;
        queue.push_back(u);
      }
    }
  }
}

}  // namespace

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
  graph_options.max_states = options.max_states;
  const checker::StateGraph<spec::PartitionModel> graph = checker::explore_state_graph(model, graph_options);
  const size_t n = graph.vertex_count();

  ConvergenceReport report;
  report.graph_states = n;
  report.graph_edges = graph.edge_count();
  report.complete = graph.complete;

  // Fault-free edges: everything but a node stop or a network cut.
  uint32_t crash_kind = std::numeric_limits<uint32_t>::max(), cut_kind = crash_kind;
  for (size_t k = 0; k < graph.kinds.size(); ++k) {
    if (graph.kinds[k] == "Crash") crash_kind = static_cast<uint32_t>(k);
    if (graph.kinds[k] == "Cut") cut_kind = static_cast<uint32_t>(k);
  }
  const Reverse fault_free = reverse_edges(n, graph.edges, [&](const checker::StateGraphEdge& e) {
    return e.kind != crash_kind && e.kind != cut_kind;
  });

  std::vector<char> can_converge(n, 0);
  for (size_t v = 0; v < n; ++v) {
    can_converge[v] = live_logs_identical(config, graph.states[v]);
    report.converged_states += can_converge[v];
  }
  spread_backwards(fault_free, can_converge);

  // Where the model stops enumerating partition changes Kafka would make.
  std::vector<char> bound_limited(n, 0);
  for (size_t v = 0; v < n; ++v) {
    const spec::ControllerState& ctl = graph.states[v].controller;
    bound_limited[v] = ctl.leader_epoch >= config.bounds.max_leader_epoch ||
                       ctl.partition_epoch >= config.bounds.max_partition_epoch;
  }
  spread_backwards(fault_free, bound_limited);
  // In an incomplete graph the unexpanded vertices have successors nobody saw.
  std::vector<char> unknown(n, 0);
  for (size_t v = graph.expanded; v < n; ++v) unknown[v] = 1;
  spread_backwards(fault_free, unknown);

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
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace isr::analysis
