// The facts about a cluster state that rules and properties share (queries.h): who can
// talk to whom, whether the controller quorum can commit, who is the acting leader, and
// the ISR the leader counts (KIP-497 maximal ISR).
#include "spec/partition/queries.h"

#include "spec/partition/rules.h"

namespace isr::spec::rules {

bool is_replica(const Config& c, int node) { return node >= 0 && node < c.replica_slots(); }

NodeSet assignment(const Config& c, const ControllerState& ctl) {
  return c.reassignment() ? ctl.replicas : static_cast<NodeSet>((1u << c.replication_factor) - 1);
}

bool live_voter(const Config& c, const State& s, int node) {
  // KIP-853 (dynamic quorum): a node whose voter key is stale runs as an observer
  // (VoterSet.VoterNode.isVoter compares the directory id): it neither votes nor counts
  // for the high watermark, whatever it runs (stale_voters is zero on a static quorum).
  return c.is_voter(node) && !contains(s.controller.stale_voters, node) && runs(s, node) &&
         !(s.nodes[node].cut & kCutFromQuorum);
}

int voter_set_size(const Config& c, const State& s) {
  // RemoveVoter shrinks the voter set; AddVoter gives the id back (voters.cc).
  return c.controller.voters - size(s.controller.removed_voters);
}

bool zk_available(const Config& c, const State& s) {
  int live = 0;
  for (int n = 0; n < c.nodes(); ++n) live += live_voter(c, s, n);
  return 2 * live > voter_set_size(c, s);
}

bool zk_session_live(const State& s, int node) {
  const NodeState& n = s.nodes[node];
  return runs(s, node) && !(n.cut & kCutFromQuorum) && n.zk_registered;
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
  // A paused broker sends no heartbeat, so its session expires at the controller
  // (ReplicationControlManager.maybeFenceOneStaleBroker: the BrokerHeartbeatManager tracker expires it), as for a cut one.
  return runs(s, node) && !(n.cut & kCutFromQuorum) && runs(s, s.controller.active) && !(active.cut & kCutFromQuorum);
}

bool brokers_connected(const State& s, int a, int b) {
  const NodeState& x = s.nodes[a];
  const NodeState& y = s.nodes[b];
  return runs(s, a) && runs(s, b) && !(x.cut & kCutFromBrokers) && !(y.cut & kCutFromBrokers);
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

}  // namespace isr::spec::rules
