// Partition reassignment (KIP-455, AlterPartitionReassignments) as the KRaft controller
// runs it: an operator moves the partition to a new set of brokers; the controller adds
// the new replicas to the assignment at once and removes the old ones only when every
// target replica has joined the ISR (PartitionChangeBuilder.completeReassignmentIfNeeded,
// controller.cc). The adding replicas catch up by fetching like any follower and join
// the ISR through the leader's AlterPartition (isr.cc); a removed replica's broker deletes
// its log when it replays the change.
//
// Bounded by bounds.max_reassignments (0: the assignment never changes and none of this
// acts). A target is any non-empty set of brokers other than the current assignment.
#include <cstring>

#include "spec/partition/rules.h"

namespace isr::spec::rules {

// ReplicationControlManager.changePartitionReassignment with PartitionReassignmentReplicas
// (current, target): removing = current - target, adding = target - current, replicas =
// target + removing. `current` is the assignment as it stands, a reassignment in progress
// included (a new one replaces it). The builder runs with Election.ONLINE: no unclean
// leader, and the change completes at once when the target is already in the ISR.
PartitionChange reassignment_change(const State& s, NodeSet target) {
  const ControllerState& ctl = s.controller;
  PartitionChange change{ctl.isr, 0, false};
  change.sets_assignment = true;
  change.removing = static_cast<NodeSet>(ctl.replicas & ~target);
  change.adding = static_cast<NodeSet>(target & ~ctl.replicas);
  change.replicas = static_cast<NodeSet>(target | ctl.replicas);
  return change;
}

void reassignment_actions(const Config& c, const State& s, ActionList& out) {
  if (!c.reassignment() || s.faults.reassignments >= c.bounds.max_reassignments) return;
  // The caller (controller_actions) enumerates this only with a controller quorum:
  // QuorumController commits the change record through it.
  const NodeSet all = static_cast<NodeSet>((1u << c.replica_slots()) - 1);
  for (int target = 1; target <= all; ++target) {
    // The same assignment again leaves every list as it is: no change record.
    if (target == s.controller.replicas) continue;
    // validateManualPartitionAssignment accepts any registered brokers; every broker of
    // the model is registered (a stopped one keeps its registration, fenced).
    add_change_variants(c, s, reassignment_change(s, static_cast<NodeSet>(target)), ActionKind::Reassign, 0,
                        target, out);
  }
}

void apply_reassign(const Config& c, State& s, const Action& a) {
  const PartitionChange change = reassignment_change(s, a.arg);
  ++s.faults.reassignments;
  change_partition(c, s, change, a.other);
}

void remove_replica(State& s, int b) {
  ReplicaState& r = s.replicas[b];
  const uint8_t new_directory = r.new_directory;  // the disk's fact, not the replica's
  std::memset(static_cast<void*>(&r), 0, sizeof r);
  r.view_leader = kNoNode;
  r.new_directory = new_directory;
}

}  // namespace isr::spec::rules
