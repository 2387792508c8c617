// Replication quorums: the leader's HW is never computed over fewer replicas than the
// controller could elect (KIP-497), and a leaderless partition without ISR or ELR still
// knows whom to recover from (KIP-966).
#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "spec/common/state_words.h"
#include "spec/partition/properties/predicates.h"
#include "spec/partition/queries.h"

namespace isr::properties {

using namespace spec;

bool replication_quorum_superset(const Config& c, const State& s) {
  const int l = rules::active_leader(s);
  if (l < 0) return true;
  const ReplicaState& leader = s.replicas[l];
  // ELR members count only while the HW can move: below min ISR it is frozen (KIP-966),
  // and they hold everything below it from when they left the ISR.
  const bool frozen = c.eligible_leader_replicas && c.fixes.hw_frozen_below_min_isr &&
                      size(leader.view_isr) < c.min_insync_replicas;
  NodeSet required = s.controller.isr;
  if (c.eligible_leader_replicas && !frozen) required |= s.controller.elr;
  const NodeSet used = rules::maximal_isr(c, leader);
  return (required & static_cast<NodeSet>(~used)) == 0;
}

bool min_isr_recovery_quorum(const Config&, const State& s) {
  const ControllerState& ctl = s.controller;
  return ctl.isr != 0 || ctl.elr != 0 || ctl.last_known_elr != 0;
}

// --- explanations, for counterexamples: the trace's last state (state_to_json) -------

using nlohmann::json;

std::string explain_replication_quorum_superset(const json& state) {
  const json& controller = field(state, "controller");
  const json* leader = node_by_id(state, field(controller, "leader"));
  if (leader == nullptr) return {};
  const json& view = field(field(*leader, "replica"), "view");
  const std::vector<json> leader_isr = set_members(field(view, "isr"));
  for (const char* set : {"isr", "elr"}) {
    for (const json& id : set_members(field(controller, set))) {
      if (std::find(leader_isr.begin(), leader_isr.end(), id) != leader_isr.end()) continue;
      return "the controller has " + node_name(id) + " in the " + (std::string(set) == "isr" ? "ISR " : "ELR ") +
             node_set_text(field(controller, set)) + " but the leader " + node_name(field(controller, "leader")) +
             " counts only " + node_set_text(field(view, "isr")) +
             " for its high watermark and acks=all: it can commit a record " + node_name(id) +
             " lacks, and " + node_name(id) + " can still be elected";
    }
  }
  return {};
}

std::string explain_min_isr_recovery_quorum(const json& state) {
  const json& controller = field(state, "controller");
  if (!set_members(field(controller, "isr")).empty() || !set_members(field(controller, "elr")).empty()) return {};
  return "the ISR and the ELR are both empty and LastKnownELR " + node_set_text(field(controller, "last_known_elr")) +
         " names no replica: nothing tells which replica still holds the committed records (KIP-966)";
}

}  // namespace isr::properties
