// Model traces for what a client script does on a healthy cluster: the model's own
// prediction of a scenario that is not a counterexample ("kill -9 the leader: every acked
// record is read back"), so that the conformance suite compares Kafka with the model there
// too, with no hand-written expectation.
//
// A script is a list of client operations and faults ("produce; produce; kill leader;
// settle; consume; consume"). The search is breadth first over the partition model, in
// which the cluster's internal actions (fetches, ISR changes, fencing, elections,
// metadata) run freely and harness actions only as the script says, in order; every
// operation is taken only in a *settled* state, and the path ends in one: a state from
// which no run of internal actions changes anything a harness observes (docs/scenarios.md,
// "Observables"). That is what an unsteered real cluster does between two client calls:
// it settles within milliseconds. The search is fair as a real cluster's timers are: a
// live, connected follower is never shrunk from the ISR (it fetches long before
// replica.lag.time.max.ms). The shortest such path is the trace.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "spec/partition/config.h"

namespace isr::analysis {

// One script operation. `node` is a node id, or -1 for "the current leader" (kill
// leader) / "a follower" is not offered: name the node.
struct ScriptOp {
  std::string kind;   // produce, lose, retry, timeout, consume, kill, clean, disk, power, restart, cut, heal, pause, resume, elect
  int node = -1;      // crash/restart/cut/heal/elect; -1 with kill/clean/disk/power: the leader
  std::string side;   // cut/heal
};

// Parses "produce; produce; kill leader; restart 0; cut 1 brokers; consume". Throws
// std::invalid_argument naming the operation and the allowed forms.
std::vector<ScriptOp> parse_script(const std::string& text);

// Throws std::invalid_argument naming the operation when a node number is not one of the
// configuration's nodes (elect: of its brokers): a bad script is bad input, not a search
// that finds no witness.
void check_script_nodes(const spec::Config& config, const std::vector<ScriptOp>& script);

struct WitnessResult {
  bool found = false;
  nlohmann::json trace;   // trace format v1, property "witness"
  size_t states = 0;      // states searched
  std::string why;        // when not found
};

// The shortest settled path of the model of `config` that performs `script`. Searches at
// most `max_states` states.
WitnessResult find_witness(const spec::Config& config, const std::vector<ScriptOp>& script,
                           const std::string& description, size_t max_states = 2000000);

}  // namespace isr::analysis
