// Write availability after node failures: once `failures` nodes have failed (and none
// comes back), can an acks=all write still be acknowledged, and if not, why?
//
// MODEL.md section 4: availability is checked, not only safety. The answer for one
// state is found by reverse reachability in the explicit state graph
// (checker/graph/state_graph.h): a state is *available* when some fault-free path from it
// acknowledges the next write. The other states are classified by cause, from the
// controller's committed metadata:
//   no-controller-quorum  a majority of voters is gone: the ISR cannot even shrink, so
//                         producers time out (they get no error);
//   no-eligible-leader    the quorum commits, but no live replica can be elected cleanly;
//   not-enough-replicas   there is a leader, but the ISR is below min.insync.replicas:
//                         acks=all writes are rejected with NOT_ENOUGH_REPLICAS.
// The verdict is the worst class over the *settled* states: all failures have happened
// and no fault-free step can change the class any more. docs/claims.md defines every
// term precisely (the write, settled, the exploration restrictions and why).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "spec/partition/config.h"

namespace isr::analysis {

// Ordered from best to worst (a larger value is worse).
enum class WriteAvailability { Available, NotEnoughReplicas, NoEligibleLeader, NoControllerQuorum };

// "available", "not-enough-replicas", "no-eligible-leader", "no-controller-quorum".
std::string_view availability_name(WriteAvailability a);
// The inverse of availability_name; false when `name` is none of them.
bool parse_availability(std::string_view name, WriteAvailability& out);

struct AvailabilityOptions {
  int failures = 1;       // node failures, exactly (the fault budget is set to this)
  bool lossy = false;     // failures are power losses (unflushed suffix lost), not kill -9
  int threads = 1;        // workers building the state graph; the report is the same for any count
  uint64_t max_states = 2'000'000;  // graph vertices; beyond it the report is incomplete
  bool symmetry = true;   // one vertex per orbit (the classes are invariant under it)
  // Partial-order reduction in the graph (checker/graph/state_graph.h): dead components cleared,
  // irrelevant actions dropped. Same verdict and witness length, fewer states
  // (docs/claims.md, "Threads and partial-order reduction").
  bool por = false;
  // Which nodes may fail: "any" node that matters (replicas and voters), or "brokers"
  // only (dedicated controller voters stay up).
  std::string failing_nodes = "any";
  const std::atomic<bool>* interrupt = nullptr;  // Ctrl-C / SIGTERM: stop, the report is incomplete
};

struct AvailabilityReport {
  WriteAvailability verdict = WriteAvailability::Available;  // worst class over settled states
  std::map<std::string, uint64_t> states_by_class;  // settled states per class name
  nlohmann::json witness_trace;  // trace v1 to a settled state of class `verdict`, when not available
  int witness_steps = 0;
  uint64_t graph_states = 0, graph_edges = 0;
  double seconds = 0;            // in all: graph_seconds + classify_seconds
  double graph_seconds = 0;      // building the state graph (wall)
  double graph_critical_path_seconds = 0;  // its wall time with an idle core per thread (WorkerPool)
  double graph_sequential_seconds = 0;     // of which its coordinator's (numbering)
  double classify_seconds = 0;   // reverse reachability, classes, settledness, witness (one thread)
  bool por = false;              // the reduction was in effect
  bool complete = true;          // false: the graph hit max_states; the figures are partial
  bool interrupted = false;      // the interrupt stopped the graph (complete is false too)
  uint64_t settled_states = 0;   // sum of states_by_class
  // States after all failures whose class an epoch bound may decide (an election or ISR
  // change beyond bounds.max_leader_epoch / max_partition_epoch is reachable from them):
  // left out of the verdict, counted here.
  uint64_t bound_limited_states = 0;
  // Settled states that are not available and have none of the three causes (a gap in
  // the classification; 0 in every configuration tested).
  uint64_t unexplained_states = 0;
  // After all failures, states not known to be available whose class depends on states
  // an incomplete graph did not expand (0 when complete).
  uint64_t unknown_states = 0;
};

// Builds the state graph of `config` with exactly `options.failures` node failures and
// classifies it. Throws spec::ConfigError for invalid options (failures < 0, more
// failures than nodes, unknown failing_nodes).
AvailabilityReport analyze_availability(const spec::Config& config, const AvailabilityOptions& options);

}  // namespace isr::analysis
