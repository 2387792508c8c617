// Faults and the background disk activity they interact with: node stops of four kinds,
// restarts, network cuts and heals, process pauses and resumes, fsync of the log, and
// the HW checkpoint.
//
// Kafka does not fsync on acknowledgement by default (log.flush.interval.messages is
// unbounded): a process kill keeps the page cache, a power loss drops the unflushed
// suffix, a disk loss drops everything (MODEL.md section 5). The HW is written to
// replication-offset-checkpoint periodically (replica.high.watermark.checkpoint.interval.ms),
// so a restarted broker may come back with a stale HW.
#include <algorithm>

#include "spec/partition/rules.h"

namespace isr::spec::rules {
namespace {

bool matters(const Config& c, int node) { return is_replica(c, node) || c.is_voter(node); }

// Stop kinds a node may still suffer under the remaining budgets.
bool budget_allows(const Config& c, const State& s, StopKind kind) {
  const FaultBudget& b = c.faults;
  const FaultCounters& used = s.faults;
  if (used.crashes >= b.max_crashes) return false;
  switch (kind) {
    case StopKind::Kill: return true;
    case StopKind::Power: return used.lossy < b.max_lossy_crashes;
    case StopKind::Disk: return used.disk_losses < b.max_disk_losses;
    case StopKind::Clean: return used.clean_shutdowns < b.max_clean_shutdowns;
    case StopKind::None: return false;
  }
  return false;
}

void forget_process_state(State& s, int node) {
  ReplicaState& r = s.replicas[node];
  // What lives only in memory is gone; the HW is reloaded from the checkpoint at start.
  r.hw = std::min(r.hw_checkpoint, r.leo);
  r.view_valid = 0;
  r.view_leader = kNoNode;
  r.view_leader_epoch = 0;
  r.view_partition_epoch = 0;
  r.view_isr = 0;
  r.view_replicas = 0;
  r.needs_truncation = 0;
  r.epoch_start_offset = 0;
  r.alter_pending = 0;
  r.alter_isr = 0;
  r.alter_broker_epoch = 0;
  for (int f = 0; f < kMaxReplicas; ++f) {
    r.fetch_offset[f] = 0;
    r.fetch_broker_epoch[f] = 0;
  }
  r.response = FetchResponse{};
}

// A produce request parked in the node's delayed-produce purgatory lives in the broker's
// memory and dies with the process: the client's connection drops, NetworkClient fails
// the in-flight request as disconnected and Sender retries the batch or fails it
// (NETWORK_EXCEPTION, retriable; outcome unknown, like a timeout). After a controlled
// shutdown the broker has already applied its loss of leadership, which completed the
// request with NOT_LEADER_OR_FOLLOWER (ReplicaManager.applyDelta -> makeFollower ->
// completeDelayedRequests). Either way no later HW of a later incarnation can
// acknowledge it: an ack is only ever for the batch appended at that offset.
void drop_parked_produce(const Config& c, State& s, int node, bool leadership_moved_first) {
  ProducerState& p = s.producer;
  if (p.current == 0 || p.inflight_leader != node) return;
  uint8_t& outcome = p.outcome[p.current - 1];
  if (outcome == static_cast<uint8_t>(SendOutcome::InFlight) && leadership_moved_first) {
    answer_retriable(c, s, SendOutcome::NotLeader);  // retried inside the client while it may
    return;
  }
  if (outcome == static_cast<uint8_t>(SendOutcome::InFlight)) outcome = static_cast<uint8_t>(SendOutcome::TimedOut);
  p.inflight_leader = kNoNode;
  p.inflight_offset = 0;
}

}  // namespace

void fault_actions(const Config& c, const State& s, ActionList& out) {
  static constexpr StopKind kKinds[] = {StopKind::Clean, StopKind::Kill, StopKind::Power, StopKind::Disk};
  static constexpr NetworkSide kSides[] = {kCutFromQuorum, kCutFromBrokers, kCutFromClients};
  for (int n = 0; n < c.nodes(); ++n) {
    if (!matters(c, n)) continue;
    const NodeState& node = s.nodes[n];
    const bool replica = is_replica(c, n);
    if (node.alive) {
      for (StopKind kind : kKinds) {
        // Data-loss kinds only mean something where there is a log.
        if (!replica && kind != StopKind::Kill) continue;
        // A stopped (SIGSTOP) process handles SIGTERM only once it continues; SIGKILL,
        // a power loss and a disk loss do not need its cooperation.
        if (node.paused && kind == StopKind::Clean) continue;
        if (!budget_allows(c, s, kind)) continue;
        // BrokerLifecycleManager enters controlled shutdown only from RUNNING, so only a
        // registered incarnation (broker epoch != 0) asks for it; any other "Skipping
        // controlled shutdown" and stops at once.
        if (kind == StopKind::Clean && replica && node.broker_epoch != 0 && quorum_available(c, s) &&
            reaches_controller(s, n) && !contains(s.controller.fenced, n)) {
          // Controlled shutdown: one variant per leader the controller may move to.
          const int before = out.count;
          add_fencing_actions(c, s, n, ActionKind::Crash, static_cast<int>(kind), out);
          if (out.count > before) continue;
        }
        out.add(ActionKind::Crash, n, kind == StopKind::Clean ? kWithoutController : 0, static_cast<int>(kind));
      }
    } else {
      out.add(ActionKind::Restart, n);
    }
    // Process pause (SIGSTOP; a long GC pause, a VM freeze): budgeted; its end is not.
    if (node.paused) {
      out.add(ActionKind::Resume, n);
    } else if (node.alive && s.faults.pauses < c.faults.max_pauses) {
      out.add(ActionKind::Pause, n);
    }
    for (NetworkSide side : kSides) {
      if (!replica && side != kCutFromQuorum) continue;
      if (node.cut & side) {
        out.add(ActionKind::Heal, n, 0, side);
      } else if (node.alive && s.faults.cuts < c.faults.max_network_cuts) {
        out.add(ActionKind::Cut, n, 0, side);
      }
    }
    if (!replica || !runs(s, n)) continue;  // flushes and checkpoints are the process's own writes
    const ReplicaState& r = s.replicas[n];
    if (tracks_flush(c) && c.flush == FlushPolicy::None && r.flushed < r.leo)
      out.add(ActionKind::Flush, n);
    // The checkpoint is only read after a restart, so it matters only while a crash can
    // still happen.
    if (r.hw_checkpoint != r.hw && s.faults.crashes < c.faults.max_crashes)
      out.add(ActionKind::CheckpointHw, n);
  }
}

void apply_crash(const Config& c, State& s, const Action& a) {
  const int n = a.node;
  const StopKind kind = static_cast<StopKind>(a.arg);
  FaultCounters& used = s.faults;
  ++used.crashes;
  if (kind == StopKind::Power) ++used.lossy;
  if (kind == StopKind::Disk) ++used.disk_losses;
  if (kind == StopKind::Clean) ++used.clean_shutdowns;
  if (is_replica(c, n)) {
    ReplicaState& r = s.replicas[n];
    switch (kind) {
      case StopKind::Clean:
        // Controlled shutdown (KIP-841 in KRaft): the controller moves leadership away and
        // takes the broker out of the ISR before it stops; without a quorum the broker
        // gives up waiting and stops anyway. It then flushes and checkpoints everything.
        if (a.other != kWithoutController) fence(c, s, n, a.other);
        if (tracks_flush(c)) r.flushed = r.leo;
        r.hw_checkpoint = r.hw;
        break;
      case StopKind::Kill:
        break;  // the page cache survives a process kill
      case StopKind::Power:
        truncate_to(r, r.flushed);
        break;
      case StopKind::Disk:
        truncate_to(r, 0);
        r.hw_checkpoint = 0;
        // The replaced disk is formatted again: a new directory id (KIP-858,
        // MetaPropertiesEnsemble / DirectoryId.random at format time).
        if (c.fixes.directory_assignment && !zk_mode(c)) r.new_directory = 1;
        // KIP-853: on a dynamic quorum the voter set's key for a voter on this node names
        // the lost directory: the node comes back an observer (voters.cc).
        if (c.controller.quorum == QuorumKind::Dynamic && c.is_voter(n)) s.controller.stale_voters |= bit(n);
        break;
      case StopKind::None:
        break;
    }
    drop_parked_produce(c, s, n, kind == StopKind::Clean && a.other != kWithoutController);
    forget_process_state(s, n);
  }
  NodeState& node = s.nodes[n];
  node.alive = 0;
  node.paused = 0;  // a kill -9 ends a stopped process as well
  node.last_stop = static_cast<uint8_t>(kind);
  // LogManager.shutdown(brokerEpoch) writes the clean-shutdown file with the epoch of
  // BrokerLifecycleManager, -1 when the incarnation never registered; LogManager deletes
  // the file when it starts, so any other stop leaves none.
  node.clean_shutdown_epoch = kind == StopKind::Clean ? node.broker_epoch : 0;
  node.broker_epoch = 0;  // the incarnation is gone; a restart registers anew
  if (zk_mode(c)) {
    ControllerState& ctl = s.controller;
    // The controller's event queue dies with the process.
    if (ctl.active == n) ctl.controller_stopped = 1;
    if (ctl.deposed == n + 1) {
      ctl.deposed = 0;
      ctl.deposed_epoch = 0;
    }
    // A clean shutdown closes the ZooKeeper session (its znodes go at once); any other
    // stop leaves the session to expire (SessionExpiry).
    if (kind == StopKind::Clean && n < c.brokers) {
      node.zk_registered = 0;
      if (ctl.active == n) ctl.controller_vacant = 1;
    }
  }
}

void apply_restart(const Config& c, State& s, const Action& a) {
  const int n = a.node;
  s.nodes[n].alive = 1;
  s.nodes[n].controller_epoch_seen = 0;  // ReplicaManager.controllerEpoch starts over
  if (!is_replica(c, n)) return;
  ReplicaState& r = s.replicas[n];
  // Log recovery: the HW comes from the checkpoint, bounded by the recovered log. After
  // a kill -9 the log is recovered from the page cache, but LogLoader.recoverLog leaves
  // the recovery point at the last flush (min(recoveryPointCheckpoint, logEndOffset)): the
  // recovered suffix is still unflushed, and a later power loss can take it. So
  // `flushed` keeps what was fsynced before the stop (all of it after a clean stop).
  r.hw = std::min(r.hw_checkpoint, r.leo);
}

// Pause: the process is frozen with everything it holds, in memory and on disk. Nothing
// is lost: the fetch response in flight to it waits in its socket, the produce request
// parked in its purgatory stays parked, its view of the partition stays what it was.
// Everything else follows from the node taking no step (`runs`): no fetch and no
// heartbeat, so the controller may expire its session and fence it
// (ReplicationControlManager.maybeFenceOneStaleBroker, the heartbeat tracker's maybeRemoveExpired, then handleBrokerFenced),
// and a paused voter takes no part in the quorum (KafkaRaftClient does not poll).
void apply_pause(const Config&, State& s, const Action& a) {
  s.nodes[a.node].paused = 1;
  ++s.faults.pauses;
}

// Resume: the process continues from where it stopped, with its stale view. A paused
// leader still believes it leads its old epoch until a MetadataUpdate tells it
// otherwise (ReplicaManager.applyDelta -> Partition.makeFollower); meanwhile it accepts
// produce requests, and KIP-320's epoch check makes followers of the new epoch refuse
// it. A fenced broker's next heartbeat unfences it (UnfenceBroker: the same broker epoch,
// BrokerHeartbeatManager.calculateNextBrokerState with wantFence false).
void apply_resume(const Config&, State& s, const Action& a) { s.nodes[a.node].paused = 0; }

void apply_cut(const Config&, State& s, const Action& a) {
  NodeState& node = s.nodes[a.node];
  node.cut |= a.arg;
  ++s.faults.cuts;
  // Messages in flight across the cut are lost.
  if (a.arg == kCutFromBrokers) s.replicas[a.node].response = FetchResponse{};
}

void apply_heal(const Config&, State& s, const Action& a) {
  s.nodes[a.node].cut &= static_cast<uint8_t>(~a.arg);
}

void apply_flush(const Config&, State& s, const Action& a) {
  ReplicaState& r = s.replicas[a.node];
  r.flushed = r.leo;
}

void apply_checkpoint_hw(const Config&, State& s, const Action& a) {
  ReplicaState& r = s.replicas[a.node];
  r.hw_checkpoint = r.hw;
}

}  // namespace isr::spec::rules
