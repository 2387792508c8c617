// KIP-853's dynamic quorum in the partition model (controller.quorum=dynamic): what a
// combined voter that lost its disk is when it comes back, and the operator's steps that
// make it a voter again.
//
// Kafka 3.9+ (kraft.version 1) names a voter by its replica key (id, directory id), and
// VoterSet.VoterNode.isVoter(ReplicaKey) matches the directory id as well. A node whose
// disk was replaced is formatted with `kafka-storage format --no-initial-controllers`,
// which writes a new directory id (meta.properties `directory.id`): the voter set still
// holds its old key, so the node runs as an observer (it fetches the metadata log, votes
// for no one, counts for no high watermark) and the old key is a voter that never
// answers. An operator then runs `kafka-metadata-quorum remove-controller` for the old
// key and `add-controller` for the new one (Admin.removeRaftVoter / addRaftVoter).
// Kafka 4.4 can also do both by itself (controller.quorum.auto.join.enable, default
// false: KafkaRaftClient.pollFollowerAsObserver); that switch is not modelled.
//
// The partition model has no KRaft log, so "caught up" is the broker's own replay of the
// metadata log since its restart (the combined node's broker and controller share one
// RaftManager): AddVoterHandler asks LeaderState.isReplicaCaughtUp of the same fetches.
#include "spec/partition/rules.h"

namespace isr::spec::rules {

void voter_actions(const Config& c, const State& s, ActionList& out) {
  const ControllerState& ctl = s.controller;
  if (ctl.stale_voters == 0 || !quorum_available(c, s)) return;
  for (int n = 0; n < c.nodes(); ++n) {
    if (!contains(ctl.stale_voters, n)) continue;
    if (!contains(ctl.removed_voters, n)) {
      // RemoveVoterHandler.handleRemoveVoterRequest (kafka-raft 4.4.0): the leader, its
      // high watermark established in its epoch and no voter change pending, removes the
      // key (VoterSet.removeVoter) and commits a VotersRecord. The stale key's node
      // need not run: the old key is what is removed, wherever its node is.
      out.add(ActionKind::RemoveVoter, n);
    } else if (runs(s, n) && !(s.nodes[n].cut & kCutFromQuorum) &&
               (!is_replica(c, n) || s.replicas[n].view_valid)) {
      // AddVoterHandler.handleAddVoterRequest: refused while the id is still in the voter
      // set ("The voter id for %s is already part of the set of voters"), so only after
      // RemoveVoter; then the new voter must answer ApiVersions ("New voter %s is not ready
      // to receive requests") and be caught up (LeaderState.isReplicaCaughtUp, else
      // "lagging behind"): it runs, reaches the quorum and has replayed the metadata log.
      out.add(ActionKind::AddVoter, n);
    }
  }
}

void apply_remove_voter(const Config&, State& s, const Action& a) {
  s.controller.removed_voters |= bit(a.node);
}

void apply_add_voter(const Config&, State& s, const Action& a) {
  // The node's new key is the voter set's: it votes and counts again.
  s.controller.removed_voters &= static_cast<NodeSet>(~bit(a.node));
  s.controller.stale_voters &= static_cast<NodeSet>(~bit(a.node));
}

}  // namespace isr::spec::rules
