// KIP-853 dynamic voters: the voter set a replica uses (the last VotersRecord of its
// log) and the leader's handling of AddRaftVoter and RemoveRaftVoter. Each rule names
// the class of Kafka's raft module (org.apache.kafka.raft, 3.9 and 4.x) it follows.
//
// Who asks does not matter to the leader: an operator (kafka-metadata-quorum
// add-controller / remove-controller) or, since auto-join shipped (absent from 3.9.1's
// QuorumConfig, present in 4.4.0's), an observer with controller.quorum.auto.join.enable
// asking to remove its own old key and add its current one. Both are these actions on the
// observer's id, bounded together by bounds.max_voter_changes.
//
// A request and its handling are one step: the leader's checks, the ApiVersions round
// trip to the new voter (AddVoterHandler.handleApiVersionsResponse) and the append of
// the VotersRecord. The requester's wait for the commit changes no state the model keeps.
#include "spec/kraft/kraft_rules.h"

namespace isr::spec::kraft::rules {
namespace {

using K = KraftActionKind;

// The checks both handlers make before touching the voter set
// (AddVoterHandler.handleAddVoterRequest, RemoveVoterHandler.handleRemoveVoterRequest).
bool leader_may_change_voters(const KraftConfig& c, const Voter& l) {
  // kraft.version >= 1 (KRaftVersion.isReconfigSupported): a quorum with static voters
  // (pre-KIP-853, fixes.directory_ids off) answers UNSUPPORTED_VERSION.
  if (!c.fixes.directory_ids) return false;
  // "waiting for leader to establish HWM and fence previous voter changes": the
  // leader's HW is known only once it covers an entry of its own epoch
  // (LeaderState.maybeUpdateHighWatermark) -> REQUEST_TIMED_OUT.
  if (l.hw == 0) return false;
  // "waiting for voters to commit the latest voter change": the last VotersRecord's
  // offset must be below the HW -> REQUEST_TIMED_OUT. The bootstrap set is committed.
  // (LeaderState.isOperationPending, the handler state of a request in flight, is the
  // same condition once the append is one step with the request.)
  if (c.fixes.one_voter_change && latest_voters(c, l).offset >= l.hw) return false;
  return true;
}

}  // namespace

Voters latest_voters(const KraftConfig& c, const Voter& v) {
  for (int o = v.leo - 1; o >= 0; --o)
    if (v.log[o].members != 0) return {v.log[o].members, v.log[o].dirs, o};
  return {static_cast<VoterSet>((1u << c.voters) - 1), 0, -1};
}

bool in_voter_set(const KraftConfig& c, const Voters& set, int id, int generation) {
  if (!has(set.members, id)) return false;
  // ReplicaKey.equals: the directory id the set names must be the replica's.
  return !c.fixes.directory_ids || generation == (has(set.dirs, id) ? 1 : 0);
}

bool is_voter(const KraftConfig& c, const KraftState& s, int id) {
  const Voter& v = s.voters[id];
  return in_voter_set(c, latest_voters(c, v), id, v.new_directory);
}

void voter_change_actions(const KraftConfig& c, const KraftState& s, ActionList& list) {
  if (s.faults.voter_changes >= c.bounds.max_voter_changes) return;
  for (int l = 0; l < c.voters; ++l) {
    const Voter& x = s.voters[l];
    // Only the leader handles the requests (NOT_LEADER_OR_FOLLOWER elsewhere), and the
    // VotersRecord needs room in the log.
    if (!x.alive || x.role != static_cast<uint8_t>(Role::Leader) || x.leo >= kMaxLog) continue;
    if (!leader_may_change_voters(c, x)) continue;
    const Voters set = latest_voters(c, x);
    for (int t = 0; t < c.voters; ++t) {
      if (has(set.members, t)) {
        // VoterSet.removeVoter: the key must be the member's (else VOTER_NOT_FOUND, no
        // change; the model names the member's key) and the set keeps one voter.
        if (count(set.members) > 1) list.add(K::RemoveVoter, l, t);
        continue;
      }
      // AddVoter: an id already in the set is DUPLICATE_VOTER, so a voter back on a new
      // disk is first removed under its old key. The new voter answers ApiVersions (it is
      // reachable), and LeaderState.isReplicaCaughtUp: its key has fetched up to the
      // leader's end offset in this epoch (ReplicaState.lastCaughtUpTimestamp > 0). The
      // leader is never an observer it has seen fetch, so it cannot add itself back. A
      // second disk loss gives a directory no VotersRecord of the model can name.
      if (t == l || !connected(s, l, t) || !has(x.caught_up, t) || s.voters[t].new_directory > 1) continue;
      list.add(K::AddVoter, l, t);
    }
  }
}

// AddVoterHandler.handleApiVersionsResponse: VoterSet.addVoter, then
// LeaderState.appendVotersRecord. The leader's HW is computed over the new set at once
// (LeaderState.updateLocalState with the last voter set).
void apply_add_voter(const KraftConfig& c, KraftState& s, const KraftAction& a) {
  const Voter& l = s.voters[a.node];
  const Voters set = latest_voters(c, l);
  const auto t = member(a.other);
  const auto dirs = static_cast<uint8_t>((set.dirs & ~t) | (s.voters[a.other].new_directory == 1 ? t : 0));
  ++s.faults.voter_changes;
  leader_append(c, s, a.node, static_cast<uint8_t>(set.members | t), dirs);
}

// RemoveVoterHandler.handleRemoveVoterRequest: VoterSet.removeVoter, then
// LeaderState.appendVotersRecord. A leader that removed itself keeps leading until it
// resigns once the record commits (RemoveVoterHandler.highWatermarkUpdated ->
// requestResign): the model's Resign action, enabled for every leader, covers it.
void apply_remove_voter(const KraftConfig& c, KraftState& s, const KraftAction& a) {
  const Voters set = latest_voters(c, s.voters[a.node]);
  const auto t = member(a.other);
  ++s.faults.voter_changes;
  leader_append(c, s, a.node, static_cast<uint8_t>(set.members & ~t), static_cast<uint8_t>(set.dirs & ~t));
}

}  // namespace isr::spec::kraft::rules
