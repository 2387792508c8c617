// Elections (KIP-595): election and fetch timeouts, Vote requests and responses,
// BeginQuorumEpoch, and a leader resigning. Each rule names the method of Kafka's raft
// module (org.apache.kafka.raft) it follows.
//
// A Vote round trip is one step: the voter handles the request (persisting its vote
// before replying, QuorumState.transitionToVoted) and the candidate handles the
// response at once. Enabled only when it changes something, so that rejected requests
// that change nobody's state are not enumerated.
#include <cstring>

#include "spec/kraft/kraft_rules.h"

namespace isr::spec::kraft::rules {
namespace {

using K = KraftActionKind;

bool same_state(const KraftState& a, const KraftState& b) {
  return std::memcmp(&a, &b, sizeof(KraftState)) == 0;
}

// OffsetAndEpoch.compareTo(endOffset()) >= 0 in KafkaRaftClient.handleVoteRequest: the
// candidate's log is at least as up to date as the voter's (epoch first, then offset).
bool log_up_to_date(const Voter& candidate, const Voter& voter) {
  const int ce = last_epoch(candidate);
  const int ve = last_epoch(voter);
  return ce != ve ? ce > ve : candidate.leo >= voter.leo;
}

// EpochState.canGrantVote for the voter's current state (same epoch as the candidate).
bool can_grant_vote(const Voter& voter, int candidate, bool up_to_date) {
  switch (static_cast<Role>(voter.role)) {
    case Role::Unattached: return up_to_date;                  // UnattachedState
    case Role::Voted: return voter.voted_for == candidate;     // VotedState: the same candidate again
    case Role::Candidate:                                      // voted for itself
    case Role::Leader:
    case Role::Follower:                                       // a leader is known in this epoch
    case Role::Resigned: return false;
  }
  return false;
}

// QuorumState.transitionToLeader, then KafkaRaftClient.onBecomeLeader: the epoch start
// offset is the log end offset, the LeaderChange control record is appended at once
// (LeaderState.appendLeaderChangeMessageAndBootstrapRecords) and no follower has fetched
// yet. The HW is empty until LeaderState.maybeUpdateHighWatermark sets it.
void become_leader(const KraftConfig& c, KraftState& s, int l) {
  Voter& v = s.voters[l];
  v.role = static_cast<uint8_t>(Role::Leader);
  v.leader = static_cast<uint8_t>(l);
  v.epoch_start_offset = v.leo;
  v.hw = 0;
  std::memset(v.end_offset, 0, sizeof v.end_offset);
  std::memset(v.end_offset_new, 0, sizeof v.end_offset_new);
  v.caught_up = 0;
  s.history.leaders[v.epoch] |= member(l);
  if (v.leo < kMaxLog) leader_append(c, s, l);
}

}  // namespace

void become_unattached(Voter& v, int epoch) {
  v.epoch = static_cast<uint8_t>(epoch);
  v.voted_for = kNone;
  v.leader = kNone;
  v.role = static_cast<uint8_t>(Role::Unattached);
  v.granted = 0;
  v.epoch_start_offset = 0;
  std::memset(v.end_offset, 0, sizeof v.end_offset);
  std::memset(v.end_offset_new, 0, sizeof v.end_offset_new);
  v.caught_up = 0;
}

void become_follower(Voter& v, int epoch, int leader) {
  if (v.epoch != epoch) v.voted_for = kNone;
  v.epoch = static_cast<uint8_t>(epoch);
  v.leader = static_cast<uint8_t>(leader);
  v.role = static_cast<uint8_t>(Role::Follower);
  v.granted = 0;
  v.epoch_start_offset = 0;
  std::memset(v.end_offset, 0, sizeof v.end_offset);
  std::memset(v.end_offset_new, 0, sizeof v.end_offset_new);
  v.caught_up = 0;
}

void election_actions(const KraftConfig& c, const KraftState& s, ActionList& list) {
  KraftState next;
  auto add_if_changes = [&](KraftActionKind kind, int node, int other,
                            void (*apply)(const KraftConfig&, KraftState&, const KraftAction&)) {
    next = s;
    apply(c, next, KraftAction{kind, static_cast<uint8_t>(node), static_cast<uint8_t>(other)});
    if (!same_state(next, s)) list.add(kind, node, other);
  };
  for (int v = 0; v < c.voters; ++v) {
    const Voter& x = s.voters[v];
    // A voter (not an observer) that is not leading may time out in any state:
    // FollowerState's fetch timer, Unattached/Voted/Candidate/Resigned election timers
    // (KafkaRaftClient.pollFollowerAsVoter, pollCandidate, pollUnattached, pollResigned).
    // A resigned leader that is no longer a voter (it removed itself, KIP-853) times out
    // too, into the next epoch without a candidacy (pollResigned).
    if (x.alive && x.role != static_cast<uint8_t>(Role::Leader) && x.epoch + 1 <= c.bounds.max_epoch &&
        (is_voter(c, s, v) || x.role == static_cast<uint8_t>(Role::Resigned)))
      list.add(K::Timeout, v);
  }
  for (int cand = 0; cand < c.voters; ++cand) {
    const Voter& x = s.voters[cand];
    if (!x.alive || x.role != static_cast<uint8_t>(Role::Candidate)) continue;
    // A replica restarted as the candidate its quorum-state file names, though its log's
    // voter set no longer holds it (KIP-853): CandidateState's constructor rejects a
    // local key outside the set, so it never asks for votes.
    if (!is_voter(c, s, cand)) continue;
    for (int v = 0; v < c.voters; ++v) {
      if (v == cand || has(x.granted, v) || !connected(s, cand, v)) continue;
      add_if_changes(K::Vote, cand, v, apply_vote);
      // The same request, its response lost (budget faults.max_lost_responses): the voter
      // handled it, the candidate never counts it. Without this variant a vote that
      // completes a majority always made the candidate leader at once, while in Kafka the
      // candidate may time out first (CandidateState's election timer; the Vote is resent
      // only until then), leaving an epoch whose majority voted and that has no leader.
      if (s.faults.lost_responses >= c.faults.max_lost_responses) continue;
      next = s;
      apply_vote(c, next, KraftAction{K::Vote, static_cast<uint8_t>(cand), static_cast<uint8_t>(v), 1});
      if (std::memcmp(&next.voters, &s.voters, sizeof s.voters) != 0) list.add(K::Vote, cand, v, 1);
    }
  }
  for (int l = 0; l < c.voters; ++l) {
    const Voter& x = s.voters[l];
    if (!x.alive || x.role != static_cast<uint8_t>(Role::Leader)) continue;
    for (int v = 0; v < c.voters; ++v) {
      if (v == l || !connected(s, l, v)) continue;
      add_if_changes(K::BeginEpoch, l, v, apply_begin_epoch);
    }
    list.add(K::Resign, l);
  }
}

// QuorumState.transitionToCandidate: a new epoch, a vote for itself persisted first. A
// resigned non-voter moves to the next epoch Unattached instead (pollResigned), so that
// no Fetch response names it leader again.
void apply_timeout(const KraftConfig& c, KraftState& s, const KraftAction& a) {
  Voter& v = s.voters[a.node];
  const bool voter = is_voter(c, s, a.node);
  become_unattached(v, v.epoch + 1);
  if (!voter) return;
  v.voted_for = a.node;
  v.role = static_cast<uint8_t>(Role::Candidate);
  v.granted = member(a.node);
  // CandidateState counts a majority of the candidate's latest voter set.
  if (count(v.granted) >= majority(latest_voters(c, v))) become_leader(c, s, a.node);
}

// KafkaRaftClient.handleVoteRequest on voter `other`, then handleVoteResponse on
// candidate `node` (CandidateState.recordGrantedVote, maybeTransitionToLeader).
void apply_vote(const KraftConfig& c, KraftState& s, const KraftAction& a) {
  Voter& cand = s.voters[a.node];
  Voter& voter = s.voters[a.other];
  const bool lost = a.arg == 1;  // the response never reaches the candidate
  if (lost) ++s.faults.lost_responses;
  // The candidate asks the voters of its latest voter set only (CandidateState). KIP-853:
  // the request names the voter's key (id and directory id); a replica whose directory
  // id differs answers INVALID_VOTER_KEY and changes nothing. The replica's own voter set
  // is not consulted: an observer by its own log still votes when asked by its key.
  const Voters set = latest_voters(c, cand);
  if (!in_voter_set(c, set, a.other, voter.new_directory)) return;
  const int epoch = cand.epoch;
  if (epoch < voter.epoch) {
    if (lost) return;
    // FENCED_LEADER_EPOCH: the response carries the higher epoch and, if known, its
    // leader (KafkaRaftClient.maybeHandleCommonResponse -> maybeTransition).
    if (voter.leader != kNone && voter.leader != a.node)
      become_follower(cand, voter.epoch, voter.leader);
    else
      become_unattached(cand, voter.epoch);
    return;
  }
  // A higher epoch moves the voter to Unattached first, whatever its role (even a leader).
  if (epoch > voter.epoch) become_unattached(voter, epoch);
  if (!can_grant_vote(voter, a.node, log_up_to_date(cand, voter))) return;
  // QuorumState.transitionToVoted writes the vote to the quorum-state file before the
  // response is sent (whether it survives a crash is fixes.persist_vote, kraft_faults.cc).
  voter.voted_for = a.node;
  voter.role = static_cast<uint8_t>(Role::Voted);
  if (lost) return;
  cand.granted |= member(a.other);
  if (count(cand.granted) >= majority(set)) become_leader(c, s, a.node);
}

// KafkaRaftClient.handleBeginQuorumEpochRequest -> maybeTransition: a voter in a lower
// epoch, or in the same epoch without a known leader, follows the sender. Observers
// (KIP-853 new directory ids) find the leader the same way here, standing for their
// bootstrap-server discovery.
void apply_begin_epoch(const KraftConfig&, KraftState& s, const KraftAction& a) {
  const Voter& leader = s.voters[a.node];
  Voter& v = s.voters[a.other];
  const auto role = static_cast<Role>(v.role);
  const bool same_epoch_without_leader =
      v.epoch == leader.epoch &&
      (role == Role::Unattached || role == Role::Voted || role == Role::Candidate);
  if (v.epoch < leader.epoch || same_epoch_without_leader) become_follower(v, leader.epoch, a.node);
}

// QuorumState.transitionToResigned: the check-quorum timer expired
// (LeaderState.timeUntilCheckQuorumExpires) or the leader shuts down. It keeps its epoch
// and grants no vote in it; its election timer makes it a candidate later.
void apply_resign(const KraftConfig&, KraftState& s, const KraftAction& a) {
  Voter& v = s.voters[a.node];
  v.role = static_cast<uint8_t>(Role::Resigned);
  std::memset(v.end_offset, 0, sizeof v.end_offset);
  std::memset(v.end_offset_new, 0, sizeof v.end_offset_new);
  v.caught_up = 0;
  v.epoch_start_offset = 0;
}

}  // namespace isr::spec::kraft::rules
