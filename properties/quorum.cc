// Replication quorums: the leader's HW is never computed over fewer replicas than the
// controller could elect (KIP-497), and a leaderless partition without ISR or ELR still
// knows whom to recover from (KIP-966).
#include "properties/predicates.h"
#include "spec/queries.h"

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

}  // namespace isr::properties
