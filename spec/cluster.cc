// Facts every rule needs: who can talk to whom, whether the controller quorum can
// commit, who is the acting leader; the log primitives (append, truncate); and the
// leader's high-watermark rule with the delayed-produce completion it triggers.
#include <algorithm>

#include "spec/rules.h"

namespace isr::spec::rules {

bool is_replica(const Config& c, int node) { return node >= 0 && node < c.replication_factor; }

bool live_voter(const Config& c, const State& s, int node) {
  return c.is_voter(node) && s.nodes[node].alive && !(s.nodes[node].cut & kCutFromQuorum);
}

bool zk_available(const Config& c, const State& s) {
  int live = 0;
  for (int n = 0; n < c.nodes(); ++n) live += live_voter(c, s, n);
  return 2 * live > c.controller.voters;
}

bool zk_session_live(const State& s, int node) {
  const NodeState& n = s.nodes[node];
  return n.alive && !(n.cut & kCutFromQuorum) && n.zk_registered;
}

bool quorum_available(const Config& c, const State& s) {
  if (zk_mode(c)) {
    // ZooKeeper mode: the controller is the broker holding /controller (an ephemeral
    // znode of its session); it writes partition state to the ensemble.
    return !s.controller.controller_vacant && zk_session_live(s, s.controller.active) && zk_available(c, s);
  }
  // KIP-595 (KRaft): a metadata record commits once a majority of voters has it, and
  // only the active controller (the Raft leader) appends records.
  if (!live_voter(c, s, s.controller.active)) return false;
  return zk_available(c, s);
}

bool reaches_controller(const State& s, int node) {
  const NodeState& n = s.nodes[node];
  const NodeState& active = s.nodes[s.controller.active];
  return n.alive && !(n.cut & kCutFromQuorum) && active.alive && !(active.cut & kCutFromQuorum);
}

bool brokers_connected(const State& s, int a, int b) {
  const NodeState& x = s.nodes[a];
  const NodeState& y = s.nodes[b];
  return x.alive && y.alive && !(x.cut & kCutFromBrokers) && !(y.cut & kCutFromBrokers);
}

bool believes_leader(const State& s, int node) {
  return s.nodes[node].alive && s.replicas[node].view_leader == node;
}

int active_leader(const State& s) {
  const int l = s.controller.leader;
  if (l == kNoNode || !believes_leader(s, l)) return -1;
  return s.replicas[l].view_leader_epoch == s.controller.leader_epoch ? l : -1;
}

NodeSet maximal_isr(const Config& c, const ReplicaState& leader) {
  // KIP-497: while an AlterPartition is in flight the leader assumes the larger of the
  // current and proposed ISR, so that the HW never counts fewer replicas than the
  // controller may already have committed (Partition.PendingExpandIsr/PendingShrinkIsr).
  if (c.fixes.maximal_isr && leader.alter_pending) return leader.view_isr | leader.alter_isr;
  return leader.view_isr;
}

bool tracks_flush(const Config& c) { return c.faults.max_lossy_crashes > 0; }

void append(const Config& c, ReplicaState& r, LogEntry entry) {
  r.log[r.leo++] = entry;
  // log.flush.interval.messages=1 fsyncs every append; Kafka's default leaves it to the
  // OS, so the suffix past `flushed` is lost by a power failure (MODEL.md, flush policy).
  if (tracks_flush(c) && c.flush == FlushPolicy::EveryAppend) r.flushed = r.leo;
}

void truncate_to(ReplicaState& r, int offset) {
  if (offset >= r.leo) return;
  for (int i = offset; i < r.leo; ++i) r.log[i] = LogEntry{};
  r.leo = static_cast<uint8_t>(offset);
  // UnifiedLog.truncateTo keeps the HW and checkpoints within the log end.
  r.hw = std::min(r.hw, r.leo);
  r.flushed = std::min(r.flushed, r.leo);
  r.hw_checkpoint = std::min(r.hw_checkpoint, r.leo);
}

int latest_epoch(const ReplicaState& r) { return r.leo == 0 ? -1 : r.log[r.leo - 1].epoch; }

void maybe_increment_hw(const Config& c, State& s, int leader) {
  ReplicaState& l = s.replicas[leader];
  if (!believes_leader(s, leader)) return;
  const NodeSet isr = maximal_isr(c, l);
  // KAFKA-15583 (3.7, KIP-966 part 1): Partition.maybeIncrementLeaderHW returns at once
  // while isUnderMinIsr (the committed ISR, not the maximal one, below min ISR), with or
  // without ELR, so that every replica that leaves the ISR below min ISR (into the ELR)
  // holds the whole HW prefix.
  if (c.fixes.hw_frozen_below_min_isr && size(l.view_isr) < c.min_insync_replicas) return;
  // Partition.maybeIncrementLeaderHW: the new HW is the smallest LEO among the (maximal)
  // ISR, as the leader knows them from the followers' fetch offsets.
  int hw = l.leo;
  for (int f = 0; f < c.replication_factor; ++f) {
    if (f == leader || !contains(isr, f)) continue;
    int known = l.fetch_offset[f];
    // KIP-320 era fix: a follower's fetch state counts only once it fetched in this
    // leader epoch (Replica.resetReplicaState on becoming leader); otherwise a stale
    // offset from an earlier term of this leader can advance the HW.
    if (c.fixes.hw_current_epoch_followers && l.fetch_epoch[f] != l.view_leader_epoch) known = 0;
    hw = std::min(hw, known);
  }
  if (hw > l.hw) {
    l.hw = static_cast<uint8_t>(hw);
    complete_delayed_produce(c, s, leader);
  }
}

void complete_delayed_produce(const Config& c, State& s, int leader) {
  ProducerState& p = s.producer;
  if (p.current == 0 || p.inflight_leader != leader) return;
  uint8_t& outcome = p.outcome[p.current - 1];
  if (outcome != static_cast<uint8_t>(SendOutcome::InFlight)) return;
  const ReplicaState& l = s.replicas[leader];
  if (l.hw < p.inflight_offset) return;
  // Partition.checkEnoughReplicasReachOffset: the HW passed the batch, but the answer is
  // NOT_ENOUGH_REPLICAS_AFTER_APPEND if the ISR shrank below min ISR meanwhile.
  if (size(maximal_isr(c, l)) < c.min_insync_replicas) {
    answer_retriable(c, s, SendOutcome::NotEnoughReplicasAfterAppend);
    return;
  }
  outcome = static_cast<uint8_t>(SendOutcome::Acked);
  p.inflight_leader = kNoNode;
  p.inflight_offset = 0;
}

}  // namespace isr::spec::rules
