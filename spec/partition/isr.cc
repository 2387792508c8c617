// ISR changes proposed by the leader and committed by the controller.
//
// Leader: Partition.maybeShrinkIsr (the followers that have not caught up to the leader's
// LEO within replica.lag.time.max.ms, all in one change) and Partition.maybeExpandIsr (a
// follower that caught up), both sent as AlterPartition (KIP-497). Controller:
// ReplicationControlManager.alterPartition, which compare-and-sets on the partition
// epoch, checks broker epochs (KIP-903) and maintains the ELR (KIP-966).
#include "spec/partition/rules.h"

namespace isr::spec::rules {
namespace {

bool caught_up(const ReplicaState& leader, int follower) {
  // Replica.isCaughtUp: a follower whose last fetch reached the leader's LEO is in sync
  // however long ago that was; time only matters for followers behind the LEO.
  return leader.fetch_offset[follower] >= leader.leo;
}

void propose(const Config& c, ReplicaState& leader, NodeSet isr) {
  leader.alter_pending = 1;
  leader.alter_isr = isr;
  // Before KIP-497 the leader used a new ISR as soon as it decided on it. Modelled as
  // applying the proposal locally at once, which is the window maximal ISR closes.
  if (!c.fixes.maximal_isr) leader.view_isr = isr;
}

// Calls `f` with every non-empty set of leader `l`'s ISR followers that are behind its
// LEO: Partition.getOutOfSyncReplicas returns those whose last caught-up time is older
// than replica.lag.time.max.ms, and which of the lagging ones have crossed that line
// when the leader's isr-expiration task runs is a matter of timing, so every subset is
// one of Kafka's schedules (Partition.maybeShrinkIsr removes the whole set in one
// change, since 0.8). One-follower sets come first, in node order (the order of the
// model before sets, which keeps the search's tie-breaks and its traces), then the
// larger ones by their bits.
template <class F>
void for_each_shrink(const Config& c, const ReplicaState& leader, int l, F&& f) {
  NodeSet lagging = 0;
  for (int r = 0; r < c.replica_slots(); ++r)
    if (r != l && contains(leader.view_isr, r) && !caught_up(leader, r)) lagging |= bit(r);
  for (int r = 0; r < c.replica_slots(); ++r)
    if (contains(lagging, r)) f(bit(r));
  for (unsigned sub = 1; sub <= lagging; ++sub)
    if ((sub & ~static_cast<unsigned>(lagging)) == 0 && size(static_cast<NodeSet>(sub)) > 1) f(static_cast<NodeSet>(sub));
}

void add_shrink(ActionList& out, int l, NodeSet removed) {
  const Action a = shrink_action(l, removed);
  out.add(a.kind, a.node, a.other, a.arg);
}

}  // namespace

void isr_actions(const Config& c, const State& s, ActionList& out) {
  for (int l = 0; l < c.replica_slots(); ++l) {
    // A paused leader still believes it leads, but proposes nothing until it resumes.
    if (!believes_leader(s, l) || !runs(s, l)) continue;
    const ReplicaState& leader = s.replicas[l];
    if (leader_writes_isr(c)) {
      // ZooKeeper mode before KIP-497: the leader writes the shrink itself; a write whose
      // compare-and-set fails changes nothing and is not enumerated.
      for_each_shrink(c, leader, l, [&](NodeSet removed) {
        State trial = s;
        if (zk_leader_writes_isr(c, trial, l, leader.view_isr & static_cast<NodeSet>(~removed)))
          add_shrink(out, l, removed);
      });
      continue;
    }
    if (leader.alter_pending) {
      if (leader.alter_pending != kAlterAwaitingMetadata && reaches_controller(s, l) && quorum_available(c, s)) {
        // A change that completes a reassignment without this leader elects another
        // (any of the target ISR: the target order is the operator's, left open).
        const NodeSet elects = alter_partition_new_leaders(c, s, l);
        if (elects == 0) out.add(ActionKind::AlterPartition, l);
        for (int r = 0; r < c.replica_slots(); ++r)
          if (contains(elects, r)) out.add(ActionKind::AlterPartition, l, r, kAlterElects);
      }
      continue;  // one AlterPartition in flight at a time (Partition.partitionState)
    }
    for_each_shrink(c, leader, l, [&](NodeSet removed) { add_shrink(out, l, removed); });
  }
}

void apply_shrink_isr(const Config& c, State& s, const Action& a) {
  ReplicaState& leader = s.replicas[a.node];
  const NodeSet kept = leader.view_isr & static_cast<NodeSet>(~shrink_removed(a));
  if (leader_writes_isr(c)) {
    // Partition.maybeShrinkIsr -> updateIsr, then maybeIncrementLeaderHW.
    zk_leader_writes_isr(c, s, a.node, kept);
    maybe_increment_hw(c, s, a.node);
    return;
  }
  // Partition.prepareIsrShrink: one AlterPartition of the ISR without every removed
  // follower; the controller's PartitionChangeBuilder then puts each of them in the ELR
  // when the new ISR is below min ISR (maybePopulateTargetElr, controller.cc).
  propose(c, leader, kept);
  maybe_increment_hw(c, s, a.node);
}

void maybe_expand_isr(const Config& c, State& s, int l, int f) {
  ReplicaState& leader = s.replicas[l];
  if (leader.alter_pending || contains(leader.view_isr, f)) return;
  // Only a replica of the leader's assignment is a candidate (an adding one included:
  // Partition.maybeExpandIsr iterates remoteReplicasMap).
  if (c.reassignment() && !contains(leader.view_replicas, f)) return;
  // Partition.isFollowerInSync: caught up to the HW in the current leader epoch; KIP-320
  // also requires reaching the leader's epoch start offset, so that a follower cannot
  // join with a log that still ends in an older, diverging epoch.
  if (leader.fetch_offset[f] < leader.hw) return;
  if (c.fixes.isr_join_epoch_start && leader.fetch_offset[f] < leader.epoch_start_offset) return;
  if (leader_writes_isr(c)) {
    zk_leader_writes_isr(c, s, l, leader.view_isr | bit(f));  // Partition.maybeExpandIsr -> updateIsr
    return;
  }
  propose(c, leader, leader.view_isr | bit(f));
  // KIP-903: the request carries the broker epoch the follower fetched with.
  leader.alter_broker_epoch = leader.fetch_broker_epoch[f];
}

namespace {

// ReplicationControlManager.alterPartition's checks of leader `l`'s request, before the
// change is built.
bool alter_acceptable(const Config& c, const State& s, int l) {
  const ReplicaState& leader = s.replicas[l];
  const ControllerState& ctl = s.controller;
  const NodeSet proposed = leader.alter_isr;
  const int proposed_broker_epoch = leader.alter_broker_epoch;
  // FENCED_LEADER_EPOCH / INVALID_UPDATE_VERSION: the request must come from the current
  // leader, based on the current partition epoch (compare-and-set).
  bool accept = ctl.leader == l && leader.view_leader_epoch == ctl.leader_epoch &&
                leader.view_partition_epoch == ctl.partition_epoch;
  const NodeSet added = proposed & static_cast<NodeSet>(~ctl.isr);
  for (int f = 0; accept && f < c.replica_slots(); ++f) {
    if (!contains(added, f)) continue;
    // INELIGIBLE_REPLICA (KIP-841, 3.3; ReplicationControlManager.validateAlterPartitionData
    // -> ineligibleReplicasForIsr): a fenced or shutting-down broker cannot join the ISR.
    // Before it the controller took the leader's word for it.
    if (c.fixes.isr_join_unfenced_only && contains(ctl.fenced, f)) accept = false;
    // KIP-903: STALE_BROKER_EPOCH when the follower restarted since the fetch the
    // leader based its decision on.
    if (c.fixes.alter_partition_broker_epochs && proposed_broker_epoch != ctl.registered_epoch[f]) {
      accept = false;
    }
  }
  return accept;
}

}  // namespace

NodeSet alter_partition_new_leaders(const Config& c, const State& s, int l) {
  // The leader is in its own proposal and unfenced, so it stays leader unless the change
  // completes a reassignment that removes it (only with reassignment).
  if (!c.reassignment() || !alter_acceptable(c, s, l)) return 0;
  bool unclean = false;
  const NodeSet options =
      leader_options(c, s, PartitionChange{s.replicas[l].alter_isr, 0, false, true}, unclean);
  return contains(options, s.controller.leader) ? 0 : options;
}

void apply_alter_partition(const Config& c, State& s, const Action& a) {
  const int l = a.node;
  ReplicaState& leader = s.replicas[l];
  ControllerState& ctl = s.controller;
  const NodeSet proposed = leader.alter_isr;
  bool accept = alter_acceptable(c, s, l);
  const PartitionChange change{proposed, 0, false, true};
  int new_leader = ctl.leader;
  if (accept && c.reassignment()) {
    // A change completing a reassignment without this leader elects the one isr_actions
    // chose, or nobody when no target replica can lead.
    bool unclean = false;
    const NodeSet options = leader_options(c, s, change, unclean);
    if (!contains(options, ctl.leader))
      new_leader = a.arg == kAlterElects && contains(options, a.other) ? a.other : kNoNode;
  }
  leader.alter_pending = 0;
  leader.alter_isr = 0;
  leader.alter_broker_epoch = 0;
  if (accept) accept = change_partition(c, s, change, new_leader);
  if (accept && c.reassignment() && (new_leader != l || ctl.leader_epoch != leader.view_leader_epoch)) {
    // The change completed a reassignment: it moved leadership, and
    // ReplicationControlManager.alterPartition answers NEW_LEADER_ELECTED
    // (Partition.handleAlterPartitionError), or it removed a replica and bumped the leader
    // epoch, and Partition.handleAlterPartitionUpdate ignores the answer of a newer epoch.
    // Either way the leader keeps its pending state (its maximal ISR still holds the HW
    // back, no other ISR change) until the metadata replaces it, and does not retry.
    // (The same holds for an epoch bumped by an ISR shrink before KAFKA-15021, which still
    // clears it below: docs/fidelity.md, AlterPartition commit.)
    leader.alter_pending = kAlterAwaitingMetadata;
    leader.alter_isr = proposed;
    return;
  }
  if (!accept) {
    // The leader learns the current state from the next metadata update; before KIP-497
    // a locally applied proposal stays in use until then.
    return;
  }
  // Partition.handleAlterPartitionUpdate ignores a response whose leader epoch is not the
  // leader's own (a shrink bumped it before KAFKA-15021); the leader then learns the new
  // state from the metadata update.
  if (ctl.leader_epoch != leader.view_leader_epoch) return;
  // The AlterPartition response carries the committed ISR and partition epoch.
  leader.view_isr = ctl.isr;
  leader.view_partition_epoch = ctl.partition_epoch;
  maybe_increment_hw(c, s, l);
  complete_delayed_produce(c, s, l);
}

}  // namespace isr::spec::rules
