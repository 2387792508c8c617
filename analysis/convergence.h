// logs-converge: from every reachable state, once the faults stop, the live replicas can
// still come to hold identical logs. A liveness property (AG EF over the explicit state
// graph, checker/graph/state_graph.h), the companion of log-matching: log-matching says the
// replicas never disagree below their high watermarks, logs-converge that whatever they
// disagree on above them can always be repaired by replication alone.
//
// Precisely, for the configuration's model with its fault budget:
//   converged(s)   every alive replica has the same log (same entries, same LEO);
//   fault-free     every action except Crash and Cut: restarts and heals are allowed
//                  (they are never budgeted, MODEL.md section 2), and so are produce,
//                  fetch, elections, ISR changes, metadata propagation and timeouts;
//   verdict        every reachable state has a fault-free path to a converged state.
// A state without one is *stuck*: its replicas keep different logs forever, whatever
// the cluster does next (the pre-KIP-101 divergence below the HW is the classic case).
// Stuck states from which a partition change beyond an epoch bound
// (bounds.max_leader_epoch / max_partition_epoch) is reachable are left out of the
// verdict and counted (the model stops enumerating changes Kafka would make there), as
// the availability analysis does. docs/convergence.md has the details.
#pragma once

#include <atomic>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "spec/partition/config.h"
#include "spec/partition/state.h"

namespace isr::analysis {

enum class ConvergenceVerdict { Converges, Stuck, Incomplete };

// "converges", "stuck", "incomplete".
const char* convergence_verdict_name(ConvergenceVerdict v);

struct ConvergenceOptions {
  uint64_t max_states = 2'000'000;  // graph vertices; beyond it the verdict is incomplete unless stuck
  bool symmetry = true;             // one vertex per orbit (converged() is invariant under it)
  int threads = 1;                  // workers building the state graph; the report is the same for any count
  // Partial-order reduction in the graph (checker/graph/state_graph.h): dead components cleared,
  // irrelevant actions dropped; the same verdict and witness length (docs/convergence.md).
  bool por = false;
  std::atomic<uint64_t>* progress_states = nullptr;  // the graph's vertices so far (progress lines)
};

struct ConvergenceReport {
  ConvergenceVerdict verdict = ConvergenceVerdict::Converges;
  uint64_t graph_states = 0, graph_edges = 0;
  bool complete = true;               // the whole reachable graph was built
  uint64_t converged_states = 0;      // states where the live replicas' logs are identical
  uint64_t stuck_states = 0;          // no fault-free path to a converged state (in the verdict)
  uint64_t bound_limited_states = 0;  // would be stuck, but an epoch bound is reachable: left out
  uint64_t unknown_states = 0;        // not known to converge, and can reach an unexpanded vertex
  // The stuck state nearest to an initial state, with the shortest trace to it (trace v1,
  // property "logs-converge", engine "convergence"); null when none.
  nlohmann::json witness_trace;
  int witness_steps = 0;
  double seconds = 0;                 // in all: graph_seconds + classify_seconds
  double graph_seconds = 0;           // building the state graph (wall)
  double graph_critical_path_seconds = 0;  // its wall time with an idle core per thread (WorkerPool)
  double graph_sequential_seconds = 0;     // of which its coordinator's (numbering)
  double classify_seconds = 0;        // the backward searches and the witness (one thread)
  bool por = false;                   // the reduction was in effect
};

// Builds the state graph of `config` (with its fault budget) and decides logs-converge.
ConvergenceReport analyze_convergence(const spec::Config& config, const ConvergenceOptions& options);

// converged(s): every alive replica holds the same log.
bool live_logs_identical(const spec::Config& config, const spec::State& s);

}  // namespace isr::analysis
