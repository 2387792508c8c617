// Internal to spec/cluster/: the steps cluster_model.cc composes. Not public API.
#pragma once

#include "spec/cluster/cluster_model.h"

namespace isr::spec::cluster::rules {

// The partition model's actions that are controller decisions (a broker registration,
// heartbeat-driven fencing and unfencing, elections, AlterPartition, directory
// assignments: ReplicationControlManager writes). In the composed model the KRaft
// leader's controller makes them (decision_actions), the broker layer does not.
inline bool is_controller_decision(ActionKind kind) {
  switch (kind) {
    case ActionKind::FenceBroker:
    case ActionKind::RegisterBroker:
    case ActionKind::UnfenceBroker:
    case ActionKind::UncleanElection:
    case ActionKind::PreferredElection:
    case ActionKind::AssignReplicasToDirs:
    case ActionKind::AlterPartition: return true;
    default: return false;
  }
}

// The partition state as KRaft leader `voter`'s controller sees it: its in-memory image
// (committed records and its own uncommitted ones), itself as the active controller,
// and the brokers whose registration it has handled (answered once it commits) as
// registered (QuorumController replays its own records as it appends them).
State decision_scratch(const ClusterModel& m, const ClusterState& s, int voter);

// Appends to `out` the decisions of every active controller.
void decision_actions(const ClusterModel& m, const ClusterState& s, ClusterAction* out, int& count);
// Performs one decision: appends its record to the deciding leader's metadata log.
void apply_decision(const ClusterModel& m, ClusterState& s, const ClusterAction& a);

// After every step: what the quorum committed takes effect (images, answers), answers
// nobody waits for any more are dropped, records no log holds are freed, and records
// are renumbered in order of first appearance.
void settle(const ClusterModel& m, ClusterState& s);

// Frees records no log holds and numbers the rest in order of first appearance (voter,
// then offset), so that equal logs are equal bytes. Symmetry calls it after relabelling
// voters, whose order decides the numbering.
void renumber_records(int voters, ClusterState& s);

}  // namespace isr::spec::cluster::rules
