// Faults of the controller quorum, each bounded by a budget (healing is free): a voter
// process stops (its disk survives: the flushed metadata log and the quorum-state file),
// a voter loses its disk too, a stopped voter starts again, a voter is cut off from all
// others and the cut heals. Also the facts about connectivity the other rule files share.
#include <cstring>

#include "spec/kraft/kraft_rules.h"

namespace isr::spec::kraft::rules {

using K = KraftActionKind;

bool connected(const KraftState& s, int a, int b) {
  const Voter& x = s.voters[a];
  const Voter& y = s.voters[b];
  return x.alive && y.alive && !x.cut && !y.cut;
}

int last_epoch(const Voter& v) { return v.leo == 0 ? 0 : v.log[v.leo - 1].epoch; }

void fault_actions(const KraftConfig& c, const KraftState& s, ActionList& list) {
  for (int v = 0; v < c.voters; ++v) {
    const Voter& x = s.voters[v];
    if (x.alive && s.faults.crashes < c.faults.max_crashes) {
      list.add(K::Crash, v, 0, 0);
      if (s.faults.disk_losses < c.faults.max_disk_losses) list.add(K::Crash, v, 0, 1);
    }
    if (!x.alive) list.add(K::Restart, v);
    if (x.alive && !x.cut && s.faults.cuts < c.faults.max_network_cuts) list.add(K::Cut, v);
    if (x.cut) list.add(K::Heal, v);
  }
}

// The process stops: everything in memory is gone (role, votes received, the HW, the
// leader's view of its followers). The log was flushed before it was acknowledged
// (KafkaRaftClient.appendAsFollower flushes on voters; the leader counts itself after
// flushLeaderLog), so it survives, as does the quorum-state file. With `arg` = 1 the
// disk is lost as well: the node is formatted again and gets a new directory id (KIP-853).
void apply_crash(const KraftConfig& c, KraftState& s, const KraftAction& a) {
  Voter& v = s.voters[a.node];
  ++s.faults.crashes;
  v.alive = 0;
  v.role = 0;
  v.granted = 0;
  v.hw = 0;
  v.epoch_start_offset = 0;
  std::memset(v.end_offset, 0, sizeof v.end_offset);
  std::memset(v.end_offset_new, 0, sizeof v.end_offset_new);
  v.caught_up = 0;
  if (a.arg == 1) {
    ++s.faults.disk_losses;
    for (Entry& e : v.log) e = Entry{};
    v.leo = 0;
    v.epoch = 0;
    v.voted_for = kNone;
    v.leader = kNone;
    // Generations past the first matter only to AddVoter (no VotersRecord of the model
    // names them); without voter changes every new directory is alike.
    v.new_directory = tracks_observers(c) && v.new_directory >= 1 ? 2 : 1;
    // The leaders' ReplicaState of this replica belonged to its old key: the new key has
    // never caught up.
    for (Voter& l : s.voters) l.caught_up = static_cast<VoterSet>(l.caught_up & ~member(a.node));
  }
}

// QuorumState.initialize from the quorum-state file: a former leader starts Resigned in
// its epoch (so that it cannot vote in it again), a voter that voted for itself starts
// as a Candidate (even if it learnt the epoch's leader since), a voter that knows the
// leader follows it, one that voted starts Voted, and otherwise Unattached. Without fixes.persist_vote the vote never
// reached the file.
void apply_restart(const KraftConfig& c, KraftState& s, const KraftAction& a) {
  Voter& v = s.voters[a.node];
  v.alive = 1;
  if (!c.fixes.persist_vote) v.voted_for = kNone;
  if (v.leader == a.node) {
    v.role = static_cast<uint8_t>(Role::Resigned);
  } else if (v.voted_for == a.node) {
    // ElectionState.isVotedCandidate is checked before hasLeader: a candidate that then
    // followed another leader of its epoch (its vote for itself stays in the file,
    // QuorumState.transitionToFollower) restarts as a Candidate, which forgets that leader.
    v.role = static_cast<uint8_t>(Role::Candidate);
    v.leader = kNone;
    v.granted = member(a.node);
  } else if (v.leader != kNone) {
    v.role = static_cast<uint8_t>(Role::Follower);
  } else if (v.voted_for != kNone) {
    v.role = static_cast<uint8_t>(Role::Voted);
  } else {
    v.role = static_cast<uint8_t>(Role::Unattached);
  }
}

void apply_cut(const KraftConfig&, KraftState& s, const KraftAction& a) {
  s.voters[a.node].cut = 1;
  ++s.faults.cuts;
}

void apply_heal(const KraftConfig&, KraftState& s, const KraftAction& a) { s.voters[a.node].cut = 0; }

}  // namespace isr::spec::kraft::rules
