// The ZooKeeper-mode controller (controller.mode=zookeeper: Kafka 0.10 to 3.x), the
// generations before KRaft. What differs from KRaft (controller.cc):
//
//  - Liveness is a ZooKeeper session per broker holding the ephemeral /brokers/ids/N
//    (KafkaZkClient.registerBroker). A killed broker stays "alive" for the controller
//    until ZooKeeper expires its session (zookeeper.session.timeout.ms): SessionExpiry is
//    its own step. A restart cannot register while the old znode exists
//    (KafkaZkClient.CheckedEphemeral.getAfterNodeExists: NODEEXISTS, startup fails).
//  - The controller is the broker that created /controller (KafkaController.elect),
//    which bumps /controller_epoch; it learns broker changes from a watch on
//    /brokers/ids and handles them in one event (KafkaController.processBrokerChange):
//    new brokers (onBrokerStartup), bounced ones (KIP-380, 2.2: same id, new czxid
//    broker epoch: onBrokerFailure then onBrokerStartup), dead ones (onBrokerFailure).
//    Before KIP-380 a bounce whose deletion the controller never saw goes unnoticed
//    (KAFKA-1120, KAFKA-7235): the broker stays in the ISR.
//  - A controller that lost /controller may still perform one queued partition-state
//    write (the single-threaded event queue, KAFKA-6082's commit message); since 2.1 every
//    controller write is a ZooKeeper multi with a CheckOp on /controller_epoch's
//    zkVersion (KafkaZkClient.updateLeaderAndIsr(..., expectedControllerEpochZkVersion)),
//    which makes it fail. Brokers refuse requests of an older controller epoch than they
//    have seen (ReplicaManager.becomeLeaderOrFollower: STALE_CONTROLLER_EPOCH).
//  - Before KIP-497 the leader writes ISR changes itself (Partition.updateIsr ->
//    ReplicationUtils.updateLeaderAndIsr), a compare-and-set on the zkVersion it cached;
//    on failure it keeps its ISR and logs "Cached zkVersion ... skip updating ISR" until
//    a LeaderAndIsr brings a new version (it does not re-read the znode).
//
// The partition state znode is ControllerState (leader, leader epoch, ISR, partition
// epoch = zkVersion, state_controller_epoch); the controller's cached context is not
// modelled apart from its live brokers (`fenced`, `registered_epoch`): every controller
// election re-reads the znode (PartitionStateMachine.doElectLeaderForPartitions).
#include <algorithm>

#include "spec/partition/rules.h"

namespace isr::spec::rules {
namespace {

bool epoch_fits(int next, int bound) { return next <= bound && next < kMaxEpoch; }

bool reaches_zk(const State& s, int node) {
  const NodeState& n = s.nodes[node];
  return runs(s, node) && !(n.cut & kCutFromQuorum);
}

// A LeaderAndIsr carrying the znode's state would change the broker's view: only a newer
// leader epoch is applied (ReplicaManager.becomeLeaderOrFollower).
bool view_behind(const ReplicaState& r, const ControllerState& ctl) {
  return !r.view_valid || r.view_leader_epoch < ctl.leader_epoch;
}

// An UpdateMetadata would change a follower's view at the same leader epoch. A broker's
// Metadata answer (the view the model compares) is its ZkMetadataCache, which every
// UpdateMetadata replaces (ReplicaManager.maybeUpdateMetadataCache -> ZkMetadataCache
// .updateMetadata: no leader-epoch check, only the controller epoch), and the controller
// sends one to every live broker after each write: its own (ControllerBrokerRequestBatch
// .addLeaderAndIsrRequestForBrokers adds UpdateMetadata for liveOrShuttingDownBrokerIds)
// and the leader's ISR changes (KafkaController.processAlterPartition ->
// sendUpdateMetadataRequest, 2.7 to 3.9; before KIP-497 processIsrChangeNotification).
// A follower's own partition state (Partition.makeFollower) keeps the ISR of its last
// LeaderAndIsr, but nothing in the model reads a follower's ISR (it is replaced when
// the broker becomes leader), so the view stands for the cache. The leader's view is its
// Partition's ISR and zkVersion, which only its own writes and LeaderAndIsr change.
bool cache_behind(int b, const ReplicaState& r, const ControllerState& ctl) {
  return r.view_valid && r.view_leader != b && r.view_leader_epoch == ctl.leader_epoch &&
         r.view_partition_epoch < ctl.partition_epoch;
}

// The writes of onControllerFailover's state machines for the brokers whose znode is
// gone, from KAFKA-3143 (2.3.0; the model's kip-497 and later, as KIP-380 of 2.2 is):
// ZkReplicaStateMachine.startup moves their replicas to OfflineReplica, one write per
// dead broker (handleStateChanges groups by replica): doRemoveReplicasFromIsr takes the
// replica out of the ISR (not its last member) and sets leader -1 where it led, a
// LeaderAndIsr.newLeaderAndIsr (leader epoch + 1). Then ZkPartitionStateMachine.startup
// finds the partition leaderless (initializePartitionState: OfflinePartition) and elects
// (triggerOnlinePartitionStateChange, OfflinePartitionLeaderElectionStrategy: a live ISR
// replica, or with the topic's unclean.leader.election.enable any live replica), a second
// bump (seen on Kafka 3.9.1 and 2.7.2, docs/conformance.md): failover_elect.
// Before 2.3 ReplicaStateMachine.startup moved only the live replicas (to OnlineReplica):
// the dead ones are left to the next BrokerChange here (the model's FenceBroker).
// False when a write would exceed the epoch bounds.
bool zk_failover_writes(const Config& c, State& s) {
  ControllerState& ctl = s.controller;
  if (c.protocol < Protocol::Kip497) return true;
  // Not modelled (left to FenceBroker, as before 2.3): two or more dead ISR members, whose
  // removals Kafka makes in its Map's order (the last member stays), which the model would
  // have to enumerate to stay symmetric.
  NodeSet dead_isr = 0;
  for (int b = 0; b < c.replication_factor; ++b)
    if (!contains(ctl.fenced, b) && !s.nodes[b].zk_registered && contains(ctl.isr, b)) dead_isr |= bit(b);
  if (size(dead_isr) > 1) return true;
  for (int b = 0; b < c.replication_factor; ++b) {
    if (contains(ctl.fenced, b) || s.nodes[b].zk_registered) continue;
    ctl.fenced |= bit(b);  // not in the live brokers the new controller read: no queue
    ctl.zk_queued_demotion &= static_cast<NodeSet>(~bit(b));
    ctl.zk_queued_reconcile &= static_cast<NodeSet>(~bit(b));
    if (!contains(ctl.isr, b)) continue;  // doRemoveReplicasFromIsr writes only where it is a member
    const bool leader_changed = ctl.leader == b;
    const int leader = leader_changed ? kNoNode : ctl.leader;
    if (!epoch_fits(ctl.leader_epoch + 1, c.bounds.max_leader_epoch) ||
        !epoch_fits(ctl.partition_epoch + 1, c.bounds.max_partition_epoch)) {
      return false;
    }
    zk_queue_leader_change(c, s, leader);
    ctl.leader = static_cast<uint8_t>(leader);
    ++ctl.leader_epoch;  // newLeaderAndIsr bumps whether or not the leader changed
    ++ctl.partition_epoch;
    if (size(ctl.isr) > 1) ctl.isr &= static_cast<NodeSet>(~bit(b));
    zk_after_controller_write(c, s, leader_changed);
  }
  return true;
}

// ZkPartitionStateMachine.startup's election, of `leader` (kNoNode: none, the partition
// stays OfflinePartition). Kafka takes the first eligible replica in assignment order;
// the model lets it be any (docs/model.md, "Elections pick any eligible replica").
NodeSet failover_leader_options(const Config& c, const State& s) {
  if (c.protocol < Protocol::Kip497 || s.controller.leader != kNoNode) return 0;
  bool unclean = false;
  return leader_options(c, s, PartitionChange{s.controller.isr, 0, c.unclean_leader_election}, unclean);
}

bool failover_elect(const Config& c, State& s, int leader) {
  if (leader == kNoNode) return true;
  return change_partition(c, s, PartitionChange{s.controller.isr, 0, c.unclean_leader_election}, leader);
}

void add_deposed_actions(const Config& c, const State& s, ActionList& out) {
  const ControllerState& ctl = s.controller;
  if (ctl.deposed == 0) return;
  const int z = ctl.deposed - 1;
  // Its queued event runs once it is connected again (with a new session).
  if (!reaches_zk(s, z) || !zk_available(c, s)) return;
  // Nothing queued, or the write fails (KAFKA-6082: BADVERSION on /controller_epoch; or the
  // znode's controller epoch is newer: "aborted leader election"): it resigns.
  out.add(ActionKind::DeposedWrite, z, kNoNode);
  if (c.fixes.controller_epoch_zk_version || ctl.state_controller_epoch > ctl.deposed_epoch) return;
  if (!epoch_fits(ctl.leader_epoch + 1, c.bounds.max_leader_epoch) ||
      !epoch_fits(ctl.partition_epoch + 1, c.bounds.max_partition_epoch)) {
    return;
  }
  // The queued event moves leadership to another ISR member (a controlled shutdown or
  // failure of the leader as it saw it, or a preferred-replica election), compare-and-set
  // on the zkVersion it has just read, so it succeeds when nobody wrote in between.
  for (int r = 0; r < c.replication_factor; ++r)
    if (r != ctl.leader && contains(ctl.isr, r)) out.add(ActionKind::DeposedWrite, z, r);
}

}  // namespace

bool bounce_pending(const Config& c, const State& s, int b) {
  const NodeState& n = s.nodes[b];
  return zk_mode(c) && c.fixes.bounced_broker_epochs && !contains(s.controller.fenced, b) && n.zk_registered &&
         n.zk_epoch != s.controller.registered_epoch[b];
}

bool zk_view_update_due(const State& s, int b) {
  const ControllerState& ctl = s.controller;
  const ReplicaState& r = s.replicas[b];
  return !ctl.deposed_wrote && (view_behind(r, ctl) || cache_behind(b, r, ctl));
}

bool leader_writes_isr(const Config& c) { return zk_mode(c) && !c.fixes.maximal_isr; }

void zk_session_actions(const Config& c, const State& s, ActionList& out) {
  if (!zk_available(c, s)) return;  // only an ensemble with a quorum expires sessions
  for (int n = 0; n < c.brokers; ++n) {
    const NodeState& node = s.nodes[n];
    if (node.zk_registered) {
      // No heartbeat for zookeeper.session.timeout.ms: the process that opened it is
      // gone (a restarted process has a session of its own, broker epoch 0 until it
      // registers) or cut off (a live broker behind a cut keeps it until it expires).
      if (!reaches_zk(s, n) || node.broker_epoch == 0) out.add(ActionKind::SessionExpiry, n);
    } else if (reaches_zk(s, n) && node.zk_epoch + 1 < kMaxEpoch) {
      // A starting broker, or a live one whose session expired, creates /brokers/ids/N
      // in a new session (KafkaServer.startup, KafkaController's RegisterBrokerAndReelect).
      out.add(ActionKind::RegisterBroker, n, kNoNode);  // no election: the controller reacts later
    }
  }
}

void zk_controller_actions(const Config& c, const State& s, ActionList& out) {
  const ControllerState& ctl = s.controller;
  zk_session_actions(c, s, out);
  if (ctl.controller_vacant && zk_available(c, s) && epoch_fits(ctl.controller_epoch + 1, kMaxEpoch - 1)) {
    // /controller is gone: every live broker's watch fires and one of them creates it.
    // A deposed controller runs its queued event before its own Reelect.
    for (int n = 0; n < c.brokers; ++n) {
      if (!zk_session_live(s, n) || ctl.deposed == n + 1) continue;
      // Its startup writes must fit the epoch bounds (zk_failover_writes); one action per
      // leader its election may pick (arg kFailoverElects, other = that leader).
      State trial = s;
      if (!zk_failover_writes(c, trial)) continue;
      const NodeSet options = failover_leader_options(c, trial);
      if (options == 0) {
        out.add(ActionKind::ControllerFailover, n);
        continue;
      }
      for (int r = 0; r < c.replication_factor; ++r) {
        if (!contains(options, r)) continue;
        State elected = trial;
        if (failover_elect(c, elected, r)) out.add(ActionKind::ControllerFailover, n, r, kFailoverElects);
      }
    }
  }
  add_deposed_actions(c, s, out);
  if (ctl.deposed_wrote) {
    // The deposed controller's LeaderAndIsr, accepted by brokers that have not yet heard
    // from a newer controller.
    for (int b = 0; b < c.replication_factor; ++b) {
      const NodeState& n = s.nodes[b];
      if (runs(s, b) && n.broker_epoch != 0 && n.controller_epoch_seen <= ctl.deposed_epoch &&
          view_behind(s.replicas[b], ctl)) {
        out.add(ActionKind::StaleLeaderAndIsr, b);
      }
    }
  }
  if (!quorum_available(c, s)) return;
  // BrokerChange: bounces first (the same event handles them before dead brokers).
  bool any_bounce = false;
  for (int b = 0; b < c.replication_factor; ++b) any_bounce |= bounce_pending(c, s, b);
  for (int b = 0; b < c.replication_factor; ++b) {
    const bool is_fenced = contains(ctl.fenced, b);
    if (any_bounce) {
      if (!bounce_pending(c, s, b)) continue;
      State failed = s;
      failed.controller.fenced |= bit(b);
      add_change_variants(c, failed, fencing_change(c, s, b), ActionKind::BrokerBounce, b, 0, out);
      continue;
    }
    if (!is_fenced && !s.nodes[b].zk_registered) {
      // onBrokerFailure: leaders move (OfflinePartition election), the replica goes
      // OfflineReplica (ReplicaStateMachine.doRemoveReplicasFromIsr: out of the ISR
      // unless it is the last member).
      add_fencing_actions(c, s, b, ActionKind::FenceBroker, 0, out);
    }
    if (is_fenced && s.nodes[b].zk_registered) {
      // onBrokerStartup: OnlineReplica, and elections for partitions without a leader.
      State started = s;
      started.controller.fenced &= static_cast<NodeSet>(~bit(b));
      // triggerOnlinePartitionStateChange: unclean when the topic allows it.
      add_change_variants(c, started, PartitionChange{ctl.isr, 0, c.unclean_leader_election},
                          ActionKind::UnfenceBroker, b, 0, out);
    }
  }
  election_actions(c, s, out);
  for (int b = 0; b < c.replication_factor; ++b) {
    // LeaderAndIsr / UpdateMetadata from the controller, to the incarnation it knows.
    const NodeState& n = s.nodes[b];
    if (!reaches_controller(s, b) || contains(ctl.fenced, b)) continue;
    if (n.broker_epoch == 0 || ctl.registered_epoch[b] != n.broker_epoch) continue;
    if (n.controller_epoch_seen < ctl.controller_epoch || zk_view_update_due(s, b)) out.add(ActionKind::MetadataUpdate, b);
  }
}

void zk_after_controller_write(const Config& c, State& s, bool leader_changed) {
  ControllerState& ctl = s.controller;
  ctl.state_controller_epoch = ctl.controller_epoch;
  if (ctl.deposed_wrote) {
    ctl.deposed_wrote = 0;
    if (ctl.deposed == 0) ctl.deposed_epoch = 0;
  }
  if (!c.fixes.bounced_broker_epochs && leader_changed) {
    // Before KIP-380 requests carry no broker epoch: the LeaderAndIsr of an election
    // reaches whichever incarnation now runs on each live replica, noticed or not.
    for (int b = 0; b < c.replication_factor; ++b)
      if (!contains(ctl.fenced, b) && s.nodes[b].zk_registered) ctl.registered_epoch[b] = s.nodes[b].zk_epoch;
  }
}

bool zk_leader_writes_isr(const Config& c, State& s, int leader, NodeSet isr) {
  ControllerState& ctl = s.controller;
  ReplicaState& l = s.replicas[leader];
  if (!reaches_zk(s, leader) || !zk_available(c, s)) return false;
  if (l.view_partition_epoch != ctl.partition_epoch) return false;  // BADVERSION: skip updating ISR
  if (!epoch_fits(ctl.partition_epoch + 1, c.bounds.max_partition_epoch)) return false;
  ctl.isr = isr;
  ++ctl.partition_epoch;
  // The znode records the controller epoch of the LeaderAndIsr that made it leader.
  ctl.state_controller_epoch = s.nodes[leader].controller_epoch_seen;
  l.view_isr = isr;
  l.view_partition_epoch = ctl.partition_epoch;
  return true;
}

// ControllerChannelManager keeps one LinkedBlockingQueue per live broker, drained in
// order by its RequestSendThread, which retries a request until it is sent; the queue
// goes when the controller drops the broker (processBrokerChange: removeBroker for dead
// and bounced brokers, addBroker for new and bounced ones) or resigns
// (onControllerResignation -> controllerChannelManager.shutdown). Every election the
// controller writes sends a LeaderAndIsr to the partition's live replicas
// (ControllerBrokerRequestBatch.sendLeaderAndIsrRequest, liveOrShuttingDownBrokerIds;
// 2.x to 3.9), and ReplicaManager.becomeLeaderOrFollower applies each one with a newer
// leader epoch in turn. So a broker that stays live skips no leader epoch: its view
// before the newest request is the controller's state before that write. The model's
// MetadataUpdate jumps to the newest state in one step; what the skipped requests did to
// the broker is kept here, one bit per broker: whether one of them made it not leader
// (Partition.makeFollower, then a makeLeader with isNewLeader true). A broker that is
// fenced, bounced or outlives a controller failover starts from an empty queue, and its
// next request carries the state of that moment: it may skip (clear the bit).
void zk_queue_leader_change(const Config& c, State& s, int new_leader) {
  ControllerState& ctl = s.controller;
  for (int b = 0; b < c.replication_factor; ++b) {
    if (contains(ctl.fenced, b)) {
      ctl.zk_queued_demotion &= static_cast<NodeSet>(~bit(b));
      ctl.zk_queued_reconcile &= static_cast<NodeSet>(~bit(b));
      continue;
    }
    const ReplicaState& r = s.replicas[b];
    // The request for the state before this write is still queued (not yet applied).
    const bool queued = !r.view_valid || r.view_leader_epoch < ctl.leader_epoch;
    if (queued && ctl.leader != b) ctl.zk_queued_demotion |= bit(b);
    // The broker applies the new request right after the current state's (queued, or
    // applied already): one leader epoch apart, so KAFKA-7164's gap never shows here.
    if (follower_reconciles(c, ctl.leader, ctl.leader_epoch, b, new_leader, ctl.leader_epoch + 1))
      ctl.zk_queued_reconcile |= bit(b);
  }
}

void zk_start_queue(const Config& c, State& s, int b) {
  ControllerState& ctl = s.controller;
  ctl.zk_queued_reconcile &= static_cast<NodeSet>(~bit(b));
  // The first request is the current state, compared with the broker's own view: a
  // broker that missed epochs (fenced meanwhile, or the old controller's queue lost) sees
  // the gap KAFKA-7164 is about.
  if (follower_reconciles(c, s.replicas[b], b, ctl.leader, ctl.leader_epoch)) ctl.zk_queued_reconcile |= bit(b);
}

bool zk_take_queued_demotion(State& s, int b) {
  const bool demoted = contains(s.controller.zk_queued_demotion, b);
  s.controller.zk_queued_demotion &= static_cast<NodeSet>(~bit(b));
  return demoted;
}

bool zk_take_queued_reconcile(State& s, int b) {
  const bool reconcile = contains(s.controller.zk_queued_reconcile, b);
  s.controller.zk_queued_reconcile &= static_cast<NodeSet>(~bit(b));
  return reconcile;
}

void zk_apply_register_broker(const Config&, State& s, const Action& a) {
  NodeState& n = s.nodes[a.node];
  n.zk_registered = 1;
  ++n.zk_epoch;  // the new znode's czxid: the broker epoch of KIP-380
  n.broker_epoch = n.zk_epoch;
}

void zk_apply_controller_failover(const Config& c, State& s, const Action& a) {
  ControllerState& ctl = s.controller;
  const int old = ctl.active;
  if (old != a.node && !ctl.controller_stopped && !ctl.deposed_wrote) {
    // The old controller has not yet noticed: its queue may still hold a write.
    ctl.deposed = static_cast<uint8_t>(old + 1);
    ctl.deposed_epoch = ctl.controller_epoch;
  }
  ctl.active = a.node;
  ++ctl.controller_epoch;
  // The old controller's queues are gone; the new one sends every live broker the state
  // it reads (onControllerFailover), which a broker may reach by skipping epochs.
  ctl.zk_queued_demotion = 0;
  for (int b = 0; b < c.replication_factor; ++b) {
    if (contains(ctl.fenced, b)) ctl.zk_queued_reconcile &= static_cast<NodeSet>(~bit(b));
    else zk_start_queue(c, s, b);
  }
  ctl.controller_vacant = 0;
  ctl.controller_stopped = 0;
  // onControllerFailover reads the live brokers and their epochs from /brokers/ids; the
  // brokers whose znode is gone are handled by its state machines (zk_failover_writes).
  for (int b = 0; b < c.brokers; ++b)
    if (!contains(ctl.fenced, b) && s.nodes[b].zk_registered) ctl.registered_epoch[b] = s.nodes[b].zk_epoch;
  // Enabled only when these fit the bounds (zk_controller_actions).
  zk_failover_writes(c, s);
  failover_elect(c, s, a.arg == kFailoverElects ? a.other : kNoNode);
}

void apply_session_expiry(const Config&, State& s, const Action& a) {
  s.nodes[a.node].zk_registered = 0;
  if (a.node == s.controller.active) s.controller.controller_vacant = 1;  // /controller goes too
}

void apply_broker_bounce(const Config& c, State& s, const Action& a) {
  const int b = a.node;
  ControllerState& ctl = s.controller;
  // onBrokerFailure(bounced) ...
  fence(c, s, b, a.other);
  ctl.zk_queued_demotion &= static_cast<NodeSet>(~bit(b));  // removeBroker, addBroker: a new queue
  ctl.fenced &= static_cast<NodeSet>(~bit(b));
  zk_start_queue(c, s, b);
  // ... then onBrokerStartup(bounced), whose OnlinePartition election may only pick the
  // broker itself (no other replica was eligible a moment ago), uncleanly when the topic
  // allows it (collectUncleanLeaderElectionState).
  ctl.registered_epoch[b] = s.nodes[b].zk_epoch;
  if (ctl.leader == kNoNode) {
    bool unclean = false;
    const PartitionChange change{ctl.isr, 0, c.unclean_leader_election};
    const NodeSet options = leader_options(c, s, change, unclean);
    if (options != 0) change_partition(c, s, change, __builtin_ctz(options));
  }
}

void apply_deposed_write(const Config&, State& s, const Action& a) {
  ControllerState& ctl = s.controller;
  ctl.deposed = 0;
  if (a.other == kNoNode) {
    ctl.deposed_epoch = 0;  // never set together with deposed_wrote (see failover)
    return;
  }
  ctl.leader = a.other;
  ++ctl.leader_epoch;
  ++ctl.partition_epoch;
  ctl.state_controller_epoch = ctl.deposed_epoch;
  ctl.deposed_wrote = 1;
}

void apply_stale_leader_and_isr(const Config& c, State& s, const Action& a) {
  NodeState& n = s.nodes[a.node];
  n.controller_epoch_seen = std::max(n.controller_epoch_seen, s.controller.deposed_epoch);
  // The deposed controller's request, one of its own queue: asked against the view.
  ControllerState& ctl = s.controller;
  if (follower_reconciles(c, s.replicas[a.node], a.node, ctl.leader, ctl.leader_epoch))
    ctl.zk_queued_reconcile |= bit(a.node);
  adopt_partition_state(c, s, a.node);
}

}  // namespace isr::spec::rules
