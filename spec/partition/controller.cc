// The KRaft controller's side of one partition: partition changes and leader elections
// (PartitionChangeBuilder), broker fencing, registration and unfencing
// (ReplicationControlManager, BrokerHeartbeatManager), controller failover, and the
// brokers catching up with the metadata log (ReplicaManager.applyDelta ->
// Partition.makeLeader / makeFollower).
//
// The quorum itself is abstracted (MODEL.md section 1): a change commits only while the
// active controller is live and a majority of voters is live (quorum_available).
#include "spec/partition/rules.h"

namespace isr::spec::rules {
namespace {

bool acceptable_leader(const State& s, int r) {
  // ReplicationControlManager.LeaderAcceptor.test: ClusterControlManager.isActive (the
  // broker is registered, unfenced and not in controlled shutdown; the model fences a
  // broker as it enters controlled shutdown), and ClusterControlManager.hasOnlineDir(broker,
  // partition.directory(broker)): the replica's assigned log directory is among the
  // directories of the broker's registration (DirectoryId.isOnline; one per broker here).
  // After a disk loss the broker registers a new directory id, so the assignment names an
  // offline one until AssignReplicasToDirs (KIP-858, fixes.directory_assignment).
  return !contains(s.controller.fenced, r) && !contains(s.controller.directory_offline, r);
}

bool epoch_fits(int next, int bound) { return next <= bound && next < kMaxEpoch; }

}  // namespace

namespace {

struct Targets {
  NodeSet isr, elr, last_known;
  NodeSet replicas, adding, removing;  // the assignment after the change
};

// PartitionChangeBuilder.completeReassignmentIfNeeded ->
// PartitionReassignmentReplicas.maybeCompleteReassignment, the first step of every build():
// a reassignment in progress completes once every target replica is in the target ISR;
// the replicas being removed then leave both the assignment and the ISR. It does not
// complete while that would leave the ISR or the assignment empty.
void complete_reassignment(Targets& t) {
  if (t.adding == 0 && t.removing == 0) return;
  const NodeSet keep = static_cast<NodeSet>(~t.removing);
  const NodeSet isr = t.isr & keep;
  const NodeSet replicas = t.replicas & keep;
  if (t.removing != 0 && (isr == 0 || replicas == 0)) return;
  if ((isr & replicas) != replicas) return;
  t.isr = isr;
  t.replicas = replicas;
  t.adding = 0;
  t.removing = 0;
}

// PartitionChangeBuilder.maybePopulateTargetElr (KIP-966): at or above min ISR the ELR is
// empty; below it, replicas leaving the ISR become eligible leaders unless they restarted
// after an unclean shutdown. The same method also computes a LastKnownELR of all former
// ISR members (KIP-966's design for unclean recovery), but Kafka 4.4 never writes it:
// maybeUpdateRecordElr returns before setLastKnownElr while
// useLastKnownLeaderInBalancedRecovery is true, which ReplicationControlManager never
// changes. LastKnownELR is maintained only by maybeUpdateLastKnownLeader
// (last_known_after below), so here it is carried over unchanged.
Targets elr_targets(const Config& c, const State& s, const PartitionChange& change) {
  const ControllerState& ctl = s.controller;
  Targets t{change.target_isr, ctl.elr, ctl.last_known_elr, assignment(c, ctl), ctl.adding, ctl.removing};
  if (change.sets_assignment) {
    t.replicas = change.replicas;
    t.adding = change.adding;
    t.removing = change.removing;
  }
  complete_reassignment(t);
  if (!c.eligible_leader_replicas) return t;
  if (size(t.isr) >= c.min_insync_replicas) {
    t.elr = 0;
    return t;
  }
  const NodeSet candidates = ctl.elr | ctl.isr;
  t.elr = candidates & static_cast<NodeSet>(~t.isr) & static_cast<NodeSet>(~change.unclean_shutdown);
  return t;
}

// isValidNewLeader: in the ISR, or in the ELR when the ISR is empty; and acceptable.
bool valid_leader(const State& s, const Targets& t, int r) {
  return (contains(t.isr, r) || (t.isr == 0 && contains(t.elr, r))) && acceptable_leader(s, r);
}

// PartitionChangeBuilder.canElectLastKnownLeader (Kafka 4.x): with ELR on, when the
// target ISR and ELR are both empty and LastKnownELR holds exactly one broker, that
// broker (the last leader) is elected, as an unclean election (ElectionResult.unclean),
// whether or not unclean.leader.election.enable is set. Before KAFKA-19522 the check
// that it is acceptable (unfenced, not shutting down) only logged.
int last_known_leader(const Config& c, const State& s, const Targets& t) {
  const NodeSet lke = s.controller.last_known_elr;
  if (!c.eligible_leader_replicas || !c.fixes.last_known_elr) return kNoNode;
  if (t.isr != 0 || t.elr != 0 || size(lke) != 1) return kNoNode;
  const int r = __builtin_ctz(lke);
  if (c.fixes.last_known_leader_unfenced && !acceptable_leader(s, r)) return kNoNode;
  return r;
}

// PartitionChangeBuilder.maybeUpdateLastKnownLeader: when the partition loses its leader
// and LastKnownELR is empty, it records the leader it had; once a leader is elected again
// it is cleared.
NodeSet last_known_after(const Config& c, const ControllerState& ctl, NodeSet current, int leader) {
  if (!c.eligible_leader_replicas || !c.fixes.last_known_elr) return current;
  if (leader == kNoNode && ctl.leader != kNoNode && ctl.last_known_elr == 0) return bit(ctl.leader);
  if (leader != kNoNode && leader != ctl.leader && ctl.last_known_elr != 0) return 0;
  return current;
}

// Whether a change that keeps the leader bumps the leader epoch because the ISR lost a
// member. Since KAFKA-15021 (3.6, MetadataVersion.isLeaderEpochBumpRequiredOnIsrShrink
// false from 3.6-IV0; PartitionChangeBuilder.triggerLeaderEpochBumpForIsrShrinkIfNeeded)
// it does not. Before it, the KRaft controller bumped it on every shrink
// (PartitionChangeBuilder.triggerLeaderEpochBumpIfNeeded, 2.8-3.5), the leader's own
// AlterPartition included; the ZooKeeper controller bumped it on the removals it made
// itself (ReplicaStateMachine.doRemoveReplicasFromIsr -> LeaderAndIsr.newLeaderAndIsr)
// while a leader's own ISR write kept it (Partition.shrinkIsr writing to ZooKeeper before
// 2.7, KafkaController.processAlterIsr in 2.7). The generations before kip-903 stand for
// the ZooKeeper era here (MODEL.md section 3).
bool bumps_leader_epoch_on_shrink(const Config& c, const ControllerState& ctl, NodeSet target_isr,
                                  const PartitionChange& change) {
  if (c.fixes.isr_shrink_keeps_leader_epoch) return false;
  if ((ctl.isr & static_cast<NodeSet>(~target_isr)) == 0) return false;
  // The KRaft controller before 3.6 bumps on the leader's own AlterPartition too, in every
  // generation that has it (2.8 to 3.5: kip-497 and kip-903; triggerLeaderEpochBumpIfNeeded
  // of kafka-metadata 3.4.1 sets the leader whenever the target ISR drops a member, with no
  // metadata.version check; seen on a KRaft 3.4.1 cluster, docs/conformance.md "Older
  // releases"); the ZooKeeper controller never did: KafkaController.processAlterPartition
  // (3.9) writes the LeaderAndIsr the request carries, with the leader's own leader epoch,
  // in every generation (seen on Kafka 3.9.1 in ZooKeeper mode, docs/conformance.md).
  return !change.from_leader || !zk_mode(c);
}

}  // namespace

NodeSet leader_options(const Config& c, const State& s, const PartitionChange& change, bool& unclean) {
  // PartitionChangeBuilder.electAnyLeader, in its order: the current leader while valid;
  // else a valid ISR member (or, with the ISR empty, an unfenced ELR member); else the
  // last known leader; else, for Election.UNCLEAN, any acceptable replica.
  const Targets t = elr_targets(c, s, change);
  const int current = s.controller.leader;
  unclean = false;
  if (current != kNoNode && valid_leader(s, t, current)) return bit(current);
  // Candidates come from the target replicas (electAnyLeader streams targetReplicas).
  NodeSet options = 0;
  for (int r = 0; r < c.replica_slots(); ++r)
    if (contains(t.replicas, r) && valid_leader(s, t, r)) options |= bit(r);
  if (options != 0) return options;
  const int last_known = last_known_leader(c, s, t);
  if (last_known != kNoNode) {
    unclean = true;
    return bit(last_known);
  }
  if (change.allow_unclean) {
    for (int r = 0; r < c.replica_slots(); ++r)
      if (contains(t.replicas, r) && acceptable_leader(s, r)) options |= bit(r);
    unclean = options != 0;
  }
  return options;
}

bool change_partition(const Config& c, State& s, const PartitionChange& change, int leader) {
  ControllerState& ctl = s.controller;
  bool unclean = false;
  leader_options(c, s, change, unclean);
  Targets t = elr_targets(c, s, change);
  if (leader != ctl.leader && leader != kNoNode) {
    if (unclean) {
      // An unclean election (tryElection with ElectionResult.unclean, the last known
      // leader included) sets the ISR to the new leader, and maybeUpdateRecordElr clears
      // the ELR: acknowledged data may be lost.
      t.isr = bit(leader);
      t.elr = 0;
    } else if (!contains(t.isr, leader) && contains(t.elr, leader)) {
      // tryElection: a leader elected from the ELR becomes the whole ISR.
      t.isr = bit(leader);
      t.elr &= static_cast<NodeSet>(~bit(leader));
    }
  }
  // build(): without ELR the ISR is never emptied; its last member stays.
  if (!c.eligible_leader_replicas && t.isr == 0) t.isr = ctl.isr;
  t.last_known = last_known_after(c, ctl, t.last_known, leader);
  const bool leader_changed = leader != ctl.leader;
  const NodeSet old_replicas = assignment(c, ctl);
  const bool assignment_changed = t.replicas != old_replicas || t.adding != ctl.adding || t.removing != ctl.removing;
  if (!leader_changed && t.isr == ctl.isr && t.elr == ctl.elr && t.last_known == ctl.last_known_elr &&
      !assignment_changed)
    return true;  // changeRecordIsNoOp: nothing is written
  // PartitionChangeBuilder.triggerLeaderEpochBumpForReplicaReassignmentIfNeeded: a change
  // whose replicas no longer contain every old replica (a reassignment removing one, as
  // it completes) bumps the leader epoch with the same leader, so that the removed
  // replicas' fetches are fenced. Adding replicas, or starting a reassignment, does not.
  const bool removes_replicas = (old_replicas & static_cast<NodeSet>(~t.replicas)) != 0;
  const bool bump = leader_changed || removes_replicas || bumps_leader_epoch_on_shrink(c, ctl, t.isr, change);
  const int leader_epoch = ctl.leader_epoch + (bump ? 1 : 0);
  const int partition_epoch = ctl.partition_epoch + 1;
  if (!epoch_fits(leader_epoch, c.bounds.max_leader_epoch) ||
      !epoch_fits(partition_epoch, c.bounds.max_partition_epoch)) {
    return false;
  }
  if (zk_mode(c) && bump) zk_queue_leader_change(c, s, leader);
  ctl.leader = static_cast<uint8_t>(leader);
  ctl.leader_epoch = static_cast<uint8_t>(leader_epoch);
  ctl.partition_epoch = static_cast<uint8_t>(partition_epoch);
  ctl.isr = t.isr;
  ctl.elr = t.elr;
  ctl.last_known_elr = t.last_known;
  if (c.reassignment()) {
    ctl.replicas = t.replicas;
    ctl.adding = t.adding;
    ctl.removing = t.removing;
  }
  if (unclean && leader_changed) ctl.unclean_elected = 1;
  if (zk_mode(c)) zk_after_controller_write(c, s, leader_changed);
  return true;
}

// The partition change that fences `broker`: it leaves the ISR and loses leadership
// (handleBrokerFenced, and handleBrokerInControlledShutdown for a clean stop). With
// unclean.leader.election.enable on, the same change elects an out-of-sync replica
// when no ISR or ELR member can lead: ReplicationControlManager.generateLeaderAndIsrUpdates
// (kafka-metadata 4.4) sets PartitionChangeBuilder.Election.UNCLEAN whenever
// uncleanLeaderElectionEnabledForTopic, and electAnyLeader falls through to the first
// acceptable replica in one PartitionChangeRecord: one leader-epoch bump, not a fencing
// to "no leader" followed by an election. The ZooKeeper controller does the same in one
// write: KafkaController.onReplicasBecomeOffline -> PartitionStateMachine
// .triggerOnlinePartitionStateChange -> OfflinePartitionLeaderElectionStrategy, whose
// collectUncleanLeaderElectionState reads the topic's unclean.leader.election.enable and
// offlinePartitionLeaderElection takes the first live replica (3.9 branch, core/).
PartitionChange fencing_change(const Config& c, const State& s, int broker) {
  return PartitionChange{static_cast<NodeSet>(s.controller.isr & ~bit(broker)), 0, c.unclean_leader_election};
}

// The change that unfences `broker` (registration or resumed heartbeats); a broker that
// restarted after an unclean shutdown leaves the ELR (KIP-966).
//
// ClusterControlManager.registerBroker: a new incarnation's shutdown was clean only when
// the broker epoch of its clean-shutdown file equals the epoch the controller stored for
// the broker (previousBrokerEpoch == storedBrokerEpoch), i.e. the registered incarnation
// itself shut down cleanly; then ReplicationControlManager.handleBrokerShutdown only
// takes it out of the ISR (the model has fenced it out already) and leaves the ELR
// alone (4.4.0). Otherwise, with ELR on, it is an unclean shutdown: out of ISR and ELR
// (generateLeaderAndIsrUpdates with brokerWithUncleanShutdown, KAFKA-15586, KAFKA-18106).
PartitionChange unfencing_change(const Config& c, const State& s, int broker, bool registering) {
  const NodeState& node = s.nodes[broker];
  const bool clean_marker = node.last_stop == static_cast<uint8_t>(StopKind::Clean) &&
                            node.clean_shutdown_epoch != 0 &&
                            node.clean_shutdown_epoch == s.controller.registered_epoch[broker];
  const bool unclean_stop = registering && !clean_marker;
  const bool leaves_elr = c.fixes.unclean_restart_leaves_elr && unclean_stop;
  // handleBrokerUnfenced elects leaderless partitions through generateLeaderAndIsrUpdates
  // too, with Election.UNCLEAN when the topic allows it: the returning broker may be
  // elected uncleanly in the same change.
  return PartitionChange{s.controller.isr, static_cast<NodeSet>(leaves_elr ? bit(broker) : 0),
                         c.unclean_leader_election};
}

// Adds one action per leader the change may elect (other = that leader, or kNoNode),
// keeping only those within the epoch bounds. `s` already has the broker's fencing
// flag updated.
void add_change_variants(const Config& c, const State& s, const PartitionChange& change, ActionKind kind,
                         int node, int arg, ActionList& out) {
  bool unclean = false;
  const NodeSet options = leader_options(c, s, change, unclean);
  if (options == 0) {
    State trial = s;
    if (change_partition(c, trial, change, kNoNode)) out.add(kind, node, kNoNode, arg);
    return;
  }
  for (int r = 0; r < c.replica_slots(); ++r) {
    if (!contains(options, r)) continue;
    State trial = s;
    if (change_partition(c, trial, change, r)) out.add(kind, node, r, arg);
  }
}

void add_fencing_actions(const Config& c, const State& s, int broker, ActionKind kind, int arg,
                         ActionList& out) {
  State fenced = s;
  fenced.controller.fenced |= bit(broker);
  add_change_variants(c, fenced, fencing_change(c, s, broker), kind, broker, arg, out);
}

void fence(const Config& c, State& s, int broker, int new_leader) {
  const PartitionChange change = fencing_change(c, s, broker);
  s.controller.fenced |= bit(broker);
  s.controller.zk_queued_demotion &= static_cast<NodeSet>(~bit(broker));  // ZooKeeper: removeBroker
  s.controller.zk_queued_reconcile &= static_cast<NodeSet>(~bit(broker));
  change_partition(c, s, change, new_leader);
}

void controller_actions(const Config& c, const State& s, ActionList& out) {
  if (zk_mode(c)) {
    zk_controller_actions(c, s, out);
    return;
  }
  const ControllerState& ctl = s.controller;
  // Controller failover (KIP-595 election among the voters): when the active controller
  // is dead or cut off, another live voter takes over if a majority is live.
  if (!live_voter(c, s, ctl.active) && epoch_fits(ctl.controller_epoch + 1, kMaxEpoch - 1)) {
    int live = 0;
    for (int n = 0; n < c.nodes(); ++n) live += live_voter(c, s, n);
    if (2 * live > voter_set_size(c, s)) {
      for (int n = 0; n < c.nodes(); ++n)
        if (live_voter(c, s, n)) out.add(ActionKind::ControllerFailover, n);
    }
  }
  if (!quorum_available(c, s)) return;
  for (int b = 0; b < c.replica_slots(); ++b) {
    const NodeState& node = s.nodes[b];
    const bool is_fenced = contains(ctl.fenced, b);
    if (!is_fenced && (!reaches_controller(s, b) || node.broker_epoch == 0)) {
      // The broker's session expired (broker.session.timeout.ms: dead or cut off), or a
      // restarted incarnation is replacing it.
      add_fencing_actions(c, s, b, ActionKind::FenceBroker, 0, out);
    }
    if (is_fenced && reaches_controller(s, b)) {
      // BrokerRegistration (new broker epoch) after a restart, or BrokerHeartbeat from a
      // broker that is reachable again; unfencing triggers elections of leaderless
      // partitions it is eligible for.
      const bool registering = node.broker_epoch == 0;
      if (registering && ctl.registered_epoch[b] + 1 >= kMaxEpoch) continue;
      State unfenced = s;
      unfenced.controller.fenced &= static_cast<NodeSet>(~bit(b));
      const PartitionChange change = unfencing_change(c, s, b, registering);
      if (registering && s.replicas[b].new_directory) {
        // KIP-858: the broker registers its new directory, and Kafka unfences it in a later
        // heartbeat. Usually that heartbeat comes first (it goes at once, the directory
        // assignment 100 ms later) and the broker is not electable in the unfencing change
        // (arg 0); if its AssignReplicasToDirs commits first, it is (arg kAssignedFirst).
        add_change_variants(c, unfenced, change, ActionKind::RegisterBroker, b, kAssignedFirst, out);
        unfenced.controller.directory_offline |= bit(b);
      }
      add_change_variants(c, unfenced, change, registering ? ActionKind::RegisterBroker : ActionKind::UnfenceBroker,
                          b, 0, out);
    }
  }
  election_actions(c, s, out);
  for (int b = 0; b < c.replica_slots(); ++b) {
    // KIP-858: the restarted broker created the replica's log in its new directory when
    // it replayed the partition (ReplicaManager.applyDelta -> Partition.makeFollower /
    // makeLeader -> LogManager.getOrCreateLog), then reports it
    // (ReplicaManager.maybeUpdateTopicAssignment -> AssignmentsManager, batched for 100 ms,
    // after the unfencing heartbeat in practice); the controller records the new directory
    // (ReplicationControlManager.handleAssignReplicasToDirs: a PartitionChangeRecord with
    // only the directory, a new partition epoch) and elects nobody: the directory is
    // online, so only for an offline one does it call generateLeaderAndIsrUpdates. The
    // broker becomes an acceptable leader for the next election (the next fencing,
    // unfencing or registration), not at once.
    if (!contains(ctl.directory_offline, b) || !s.nodes[b].alive || s.nodes[b].broker_epoch == 0 ||
        !reaches_controller(s, b) || !s.replicas[b].view_valid ||
        !epoch_fits(ctl.partition_epoch + 1, c.bounds.max_partition_epoch)) {
      continue;
    }
    out.add(ActionKind::AssignReplicasToDirs, b);
  }
  for (int b = 0; b < c.replica_slots(); ++b) {
    const ReplicaState& r = s.replicas[b];
    // Brokers replay the metadata log once registered (a restarted broker registers first).
    if (!reaches_controller(s, b) || s.nodes[b].broker_epoch == 0) continue;
    if (!contains(assignment(c, ctl), b)) {
      // Reassignment: a broker no longer assigned has something to replay only while it
      // still holds the replica (its view, or its log after a restart).
      if (r.view_valid || r.leo > 0) out.add(ActionKind::MetadataUpdate, b);
      continue;
    }
    if (!r.view_valid || r.view_leader != ctl.leader || r.view_leader_epoch != ctl.leader_epoch ||
        r.view_partition_epoch != ctl.partition_epoch) {
      out.add(ActionKind::MetadataUpdate, b);
    }
  }
  reassignment_actions(c, s, out);
}

void election_actions(const Config& c, const State& s, ActionList& out) {
  const ControllerState& ctl = s.controller;
  if (ctl.leader == kNoNode && c.admin_unclean_election) {
    // An operator's Admin.electLeaders(ElectionType.UNCLEAN) on a leaderless partition
    // (ReplicationControlManager.electLeader: ELECTION_NOT_NEEDED while it has a leader;
    // Election.UNCLEAN whatever the topic config; ZooKeeper mode:
    // KafkaController.processReplicaLeaderElection with OfflinePartitionLeaderElectionStrategy
    // (allowUnclean = AdminClientTriggered)). It is the only separate unclean election:
    // with unclean.leader.election.enable on, the controller elects in the change that
    // fences or unfences a broker (fencing_change, unfencing_change), and the periodic
    // ReplicationControlManager.maybeElectUncleanLeaders (unclean.leader.election.interval.ms)
    // and ZooKeeper's UncleanLeaderElectionEnable event only catch partitions left
    // leaderless before the config was turned on, which a fixed configuration never has.
    bool unclean = false;
    const PartitionChange change{ctl.isr, 0, true};
    const NodeSet options = leader_options(c, s, change, unclean);
    for (int r = 0; unclean && r < c.replica_slots(); ++r) {
      State trial = s;
      if (contains(options, r) && change_partition(c, trial, change, r))
        out.add(ActionKind::UncleanElection, r);
    }
  }
  if (ctl.leader != kNoNode && s.faults.leader_moves < c.bounds.max_leader_moves &&
      epoch_fits(ctl.leader_epoch + 1, c.bounds.max_leader_epoch) &&
      epoch_fits(ctl.partition_epoch + 1, c.bounds.max_partition_epoch)) {
    // Preferred replica election (auto.leader.rebalance.enable, kafka-leader-election):
    // leadership moves, without a failure, to the preferred replica if it is in the ISR
    // and unfenced. Which replica is preferred is the assignment order, left open; during
    // a reassignment it is the first target replica (electPreferredLeader takes
    // targetReplicas.get(0), and the replicas list puts the removing ones last).
    for (int r = 0; r < c.replica_slots(); ++r) {
      if (r != ctl.leader && contains(ctl.isr, r) && !contains(ctl.removing, r) && acceptable_leader(s, r))
        out.add(ActionKind::PreferredElection, r);
    }
  }
}

void apply_fence_broker(const Config& c, State& s, const Action& a) { fence(c, s, a.node, a.other); }

void apply_register_broker(const Config& c, State& s, const Action& a) {
  if (zk_mode(c)) return zk_apply_register_broker(c, s, a);
  const int b = a.node;
  ControllerState& ctl = s.controller;
  const PartitionChange change = unfencing_change(c, s, b, true);
  ctl.registered_epoch[b] = static_cast<uint8_t>(ctl.registered_epoch[b] + 1);
  s.nodes[b].broker_epoch = ctl.registered_epoch[b];
  ctl.fenced &= static_cast<NodeSet>(~bit(b));
  // KIP-858: the registration lists the broker's directories (BrokerRegistrationRequest
  // logDirs -> RegisterBrokerRecord, ClusterControlManager.registerBroker); after a disk
  // loss that is the new id only, and the partition still names the old one, unless the
  // broker's AssignReplicasToDirs committed before its unfencing (kAssignedFirst).
  if (s.replicas[b].new_directory) {
    if (a.arg != kAssignedFirst) ctl.directory_offline |= bit(b);
    s.replicas[b].new_directory = 0;
  }
  change_partition(c, s, change, a.other);
}

void apply_assign_replicas_to_dirs(const Config&, State& s, const Action& a) {
  // handleAssignReplicasToDirs -> PartitionChangeBuilder.setDirectory(...).build(): the
  // record changes the directory only; no leader or ISR change, the partition epoch moves
  // (PartitionRegistration.merge), so an AlterPartition in flight is now stale.
  ControllerState& ctl = s.controller;
  ctl.directory_offline &= static_cast<NodeSet>(~bit(a.node));
  ctl.partition_epoch = static_cast<uint8_t>(ctl.partition_epoch + 1);
}

void apply_unfence_broker(const Config& c, State& s, const Action& a) {
  const PartitionChange change = unfencing_change(c, s, a.node, false);
  s.controller.fenced &= static_cast<NodeSet>(~bit(a.node));
  // ZooKeeper mode: onBrokerStartup; the controller learns the epoch from the znode.
  if (zk_mode(c)) s.controller.registered_epoch[a.node] = s.nodes[a.node].zk_epoch;
  s.controller.zk_queued_demotion &= static_cast<NodeSet>(~bit(a.node));  // addBroker: a new queue
  if (zk_mode(c)) zk_start_queue(c, s, a.node);
  change_partition(c, s, change, a.other);
}

void apply_unclean_election(const Config& c, State& s, const Action& a) {
  change_partition(c, s, PartitionChange{s.controller.isr, 0, true}, a.node);
}

void apply_preferred_election(const Config& c, State& s, const Action& a) {
  ControllerState& ctl = s.controller;
  if (zk_mode(c)) zk_queue_leader_change(c, s, a.node);
  ctl.leader = a.node;
  ++ctl.leader_epoch;
  ++ctl.partition_epoch;
  ++s.faults.leader_moves;
  if (zk_mode(c)) zk_after_controller_write(c, s, true);
}

void apply_metadata_update(const Config& c, State& s, const Action& a) {
  const int b = a.node;
  if (zk_mode(c)) {
    // A LeaderAndIsr or UpdateMetadata from the current controller; it carries the
    // partition state the controller knows, which predates a deposed controller's write
    // (no watch tells it). ReplicaManager.becomeLeaderOrFollower applies a partition's
    // state only for a newer leader epoch; a follower's metadata cache takes every
    // UpdateMetadata, ISR changes included (zookeeper.cc, cache_behind).
    s.nodes[b].controller_epoch_seen = s.controller.controller_epoch;
    if (zk_view_update_due(s, b)) adopt_partition_state(c, s, b);
    return;
  }
  adopt_partition_state(c, s, b);
}

namespace {

// Partition.makeLeader on a new leader epoch calls Replica.resetReplicaState for every
// follower with isNewLeader = !isLeader, read from the broker's own Partition state
// before this update is applied (KAFKA-2721, 0.9.0.0; the same rule in 2.x, 3.x and 4.x).
// Only a broker that was not leader in its own view forgets the followers' log end
// offsets (and the broker epochs they fetched with); a broker that was already leader
// keeps them, even when one update skips leader epochs it never saw (MetadataLoader
// publishes everything committed as one delta, and ReplicaManager.applyLocalLeadersDelta
// calls makeLeader once), and makeLeader then runs maybeIncrementLeaderHW over them.
// With the toggle off, the rule of 0.8.x, where makeLeader reset them on every call.
// Kafka's lastCaughtUpTime / lastFetchTimeMs have no counterpart: time is not modelled.
void reset_follower_state(const Config& c, ReplicaState& r, bool was_leader) {
  if (was_leader && c.fixes.reelected_leader_keeps_followers) return;
  for (int f = 0; f < kMaxReplicas; ++f) {
    r.fetch_offset[f] = 0;  // LogOffsetMetadata.UNKNOWN_OFFSET_METADATA: below any HW
    r.fetch_broker_epoch[f] = 0;
  }
}

}  // namespace

// Partition.makeFollower's answer (true: ReplicaManager.makeFollowers restarts the
// fetcher, which truncates, to the HW before KIP-101 and by OffsetsForLeaderEpoch after,
// and drops the fetch it had in flight). Up to 2.0.0 only a new leader did (0.10.2,
// 0.11.0, 2.0.0: `leaderReplicaIdOpt.isDefined && leaderReplicaIdOpt.get ==
// newLeaderBrokerId` -> false); 2.0.1 also a leader epoch more than one above the
// broker's own (KAFKA-7164, commit 69283b4038a); 2.1.0 any new leader epoch (KIP-320,
// KAFKA-7395, commit bcef30d614b). A restarted broker has a fresh Partition, which
// always answers true. For a request making `b` follower of `leader` at `epoch`.
bool follower_reconciles(const Config& c, const ReplicaState& r, int b, int leader, int epoch) {
  if (!r.view_valid) return leader != b;
  return follower_reconciles(c, r.view_leader, r.view_leader_epoch, b, leader, epoch);
}

bool follower_reconciles(const Config& c, int had_leader, int had_epoch, int b, int leader, int epoch) {
  if (leader == b) return false;  // makeLeader: no fetcher
  if (had_leader != leader) return true;
  if (had_epoch == epoch) return false;
  if (c.fixes.reconcile_on_every_epoch) return true;
  return c.fixes.reconcile_on_epoch_gap && epoch > had_epoch + 1;
}

void adopt_partition_state(const Config& c, State& s, int b) {
  ReplicaState& r = s.replicas[b];
  const ControllerState& ctl = s.controller;
  // ZooKeeper mode: the requests this update replays before the newest one (see
  // zk_queue_leader_change) made the broker a follower first: its makeLeader then sees
  // isNewLeader, and parked produce requests were answered when it lost leadership.
  const bool demoted_in_queue = zk_take_queued_demotion(s, b);
  const bool queued_reconcile = zk_take_queued_reconcile(s, b);
  // The broker's own view before this update (Partition's leaderReplicaIdOpt, leaderEpoch).
  const bool had_view = r.view_valid;
  const int had_leader = r.view_leader;
  const int had_epoch = r.view_leader_epoch;
  const bool led = r.view_valid && r.view_leader == b;
  const bool was_leader = led && !demoted_in_queue;
  const bool epoch_changed = !r.view_valid || r.view_leader_epoch != ctl.leader_epoch;
  const bool partition_changed = !r.view_valid || r.view_partition_epoch != ctl.partition_epoch;
  if (led && (demoted_in_queue || ctl.leader != b)) {
    // Losing leadership completes parked produce requests with NOT_LEADER_OR_FOLLOWER
    // (ReplicaManager.completeDelayedOperationsWhenNotPartitionLeader). A new leader epoch
    // for the same leader does not: Partition.checkEnoughReplicasReachOffset has no epoch
    // check, so the request stays parked until the HW passes it.
    ProducerState& p = s.producer;
    if (p.current != 0 && p.inflight_leader == b &&
        p.outcome[p.current - 1] == static_cast<uint8_t>(SendOutcome::InFlight)) {
      answer_retriable(c, s, SendOutcome::NotLeader);
    }
  }
  if (c.reassignment() && !contains(ctl.replicas, b)) {
    // ReplicaManager.applyDelta: a partition the broker is no longer a replica of is among
    // the delta's local deletes (TopicsDelta.localChanges), and stopPartitions deletes its
    // log; a broker that restarted with such a log deletes it as a stray replica.
    remove_replica(s, b);
    return;
  }
  // A newer partition epoch replaces any pending ISR state with the committed one.
  if (partition_changed) {
    r.alter_pending = 0;
    r.alter_isr = 0;
    r.alter_broker_epoch = 0;
  }
  r.view_valid = 1;
  r.view_leader = ctl.leader;
  r.view_leader_epoch = ctl.leader_epoch;
  r.view_partition_epoch = ctl.partition_epoch;
  r.view_isr = ctl.isr;
  if (c.reassignment()) {
    // Partition.updateAssignmentAndIsr (makeLeader / makeFollower, on every change, a new
    // leader epoch or not): a leader keeps the state of the followers it had and starts
    // an added replica from unknown; a removed one is dropped, and a follower keeps none
    // (remoteReplicasMap.clear()).
    const NodeSet kept = static_cast<NodeSet>((was_leader && ctl.leader == b ? r.view_replicas : 0) & ctl.replicas);
    for (int f = 0; f < c.replica_slots(); ++f) {
      if (contains(kept, f)) continue;
      r.fetch_offset[f] = 0;
      r.fetch_broker_epoch[f] = 0;
    }
    r.view_replicas = ctl.replicas;
  }
  if (ctl.leader == b) {
    if (epoch_changed) {
      // Partition.makeLeader: the leader epoch starts at the current LEO (the epoch cache
      // entry KIP-101 relies on); the leader never truncates.
      // A follower's makeFollower replayed before it truncated to the HW (pre-KIP-101).
      if (demoted_in_queue && !c.fixes.leader_epoch_truncation) truncate_to(r, r.hw);
      r.epoch_start_offset = r.leo;
      r.needs_truncation = 0;
      r.response = FetchResponse{};
      reset_follower_state(c, r, was_leader);
    }
    maybe_increment_hw(c, s, b);
    complete_delayed_produce(c, s, b);
    return;
  }
  if (!epoch_changed) return;
  // Partition.makeFollower, once per new leader epoch; the fetcher restarts only when it
  // answers true. Under ZooKeeper the broker applies every queued LeaderAndIsr in turn, so
  // the question is asked per request (zk_take_queued_reconcile); a change of leader or,
  // with KIP-320, of epoch between the first and the last is seen by some request too,
  // which is why the endpoints' answer (without the gap rule) may be added.
  const bool reconcile =
      !had_view ||
      (zk_mode(c) ? queued_reconcile || had_leader != ctl.leader ||
                        (c.fixes.reconcile_on_every_epoch && had_epoch != ctl.leader_epoch)
                  : follower_reconciles(c, had_leader, had_epoch, b, ctl.leader, ctl.leader_epoch));
  if (!reconcile) {
    // The fetcher keeps its state (AbstractFetcherThread partitionStates untouched): a
    // response in flight is applied, and a truncation still pending stays pending.
    if (r.response.kind != 0) r.response.leader_epoch = ctl.leader_epoch;
    return;
  }
  r.response = FetchResponse{};
  if (!c.fixes.leader_epoch_truncation) {
    // Before KIP-101 a new follower truncated its log to its high watermark.
    truncate_to(r, r.hw);
  } else if (r.leo > 0) {
    r.needs_truncation = 1;  // reconcile with OffsetsForLeaderEpoch before fetching
  }
}

void apply_controller_failover(const Config& c, State& s, const Action& a) {
  if (zk_mode(c)) return zk_apply_controller_failover(c, s, a);
  s.controller.active = a.node;
  ++s.controller.controller_epoch;
}

}  // namespace isr::spec::rules
