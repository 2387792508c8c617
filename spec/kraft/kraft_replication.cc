// Replication of the metadata log (KIP-595 is pull based): a follower's Fetch carries
// its log end offset and last fetched epoch; the leader validates them against its log
// and either answers with a diverging epoch, on which the follower truncates, or with
// the next batch and its high watermark. The HW is the leader's: the largest offset a
// majority of voters has, past the leader's epoch start offset.
//
// A Fetch round trip is one step, one batch per response, enabled only when it changes
// something (the follower polls again later otherwise).
#include <algorithm>
#include <cstring>
#include <utility>

#include "spec/kraft/kraft_rules.h"

namespace isr::spec::kraft::rules {
namespace {

using K = KraftActionKind;

// KafkaMetadataLog.truncateToEndOffset: the follower keeps what agrees with the leader's
// diverging epoch and end offset.
int truncation_offset(const Voter& f, OffsetAndEpoch diverging) {
  if (diverging.epoch == 0) return std::min(diverging.offset, static_cast<int>(f.leo));
  const OffsetAndEpoch local = end_offset_for_epoch(f, diverging.epoch);
  if (local.epoch == diverging.epoch) return std::min(local.offset, diverging.offset);
  return local.offset;
}

void truncate_to(Voter& v, int offset) {
  for (int o = offset; o < v.leo; ++o) v.log[o] = Entry{};
  v.leo = static_cast<uint8_t>(offset);
  // KafkaRaftClient.handleFetchResponse refuses to truncate below the HW (it throws);
  // that only happens once a fix is off, where the model lets the HW follow the log.
  v.hw = std::min(v.hw, v.leo);
}

// Records what the leader's HW now covers; a covered entry that differs from one
// committed before is a lost commit (committed-metadata-durable).
void record_commits(KraftState& s, int leader) {
  const Voter& l = s.voters[leader];
  History& h = s.history;
  for (int o = 0; o < l.hw; ++o) {
    if (o < h.committed_len) {
      if (!(l.log[o] == h.committed[o])) h.commit_conflict = 1;
    } else {
      h.committed[o] = l.log[o];
      h.committed_in[o] = l.epoch;
    }
  }
  h.committed_len = std::max(h.committed_len, l.hw);
}

}  // namespace

OffsetAndEpoch end_offset_for_epoch(const Voter& v, int epoch) {
  for (int o = v.leo - 1; o >= 0; --o) {
    if (v.log[o].epoch <= epoch) return {o + 1, v.log[o].epoch};
  }
  return {0, 0};
}

void leader_append(const KraftConfig& c, KraftState& s, int leader, uint8_t members, uint8_t dirs) {
  Voter& l = s.voters[leader];
  l.log[l.leo] = Entry{l.epoch, static_cast<uint8_t>(leader + 1), members, dirs};
  ++l.leo;
  // KafkaRaftClient.flushLeaderLog -> LeaderState.updateLocalState.
  maybe_update_hw(c, s, leader);
}

void maybe_update_hw(const KraftConfig& c, KraftState& s, int leader) {
  Voter& l = s.voters[leader];
  // followersByDescendingFetchOffset().get(voters / 2): the largest offset a majority
  // (the leader included) has reached. A voter that has not fetched in this epoch
  // counts as 0 (Optional.empty sorts last). The voters are those of the leader's
  // latest VotersRecord, committed or not (LeaderState.updateVoterAndObserverStates);
  // the leader counts itself only while its own key is one of them.
  const Voters set = latest_voters(c, l);
  uint8_t offsets[kMaxVoters];
  int n = 0;
  for (int v = 0; v < c.voters; ++v) {
    if (!has(set.members, v)) continue;
    const int generation = has(set.dirs, v) ? 1 : 0;
    if (v == leader && in_voter_set(c, set, v, l.new_directory))
      offsets[n++] = l.leo;
    else
      offsets[n++] = c.fixes.directory_ids && generation == 1 ? l.end_offset_new[v] : l.end_offset[v];
  }
  // Descending insertion sort: at most kMaxVoters offsets.
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && offsets[j - 1] < offsets[j]; --j) std::swap(offsets[j - 1], offsets[j]);
  const int candidate = offsets[n / 2];
  // The KRaft rule: "The leader must commit one record from its own epoch before it is
  // allowed to expose records from any previous epoch" (highWatermarkUpdateOffset >
  // epochStartOffset). Without it, Raft's figure 8.
  if (c.fixes.hw_own_epoch && candidate <= l.epoch_start_offset) return;
  if (candidate <= l.hw) return;
  l.hw = static_cast<uint8_t>(candidate);
  record_commits(s, leader);
}

void replication_actions(const KraftConfig& c, const KraftState& s, ActionList& list) {
  KraftState next;
  for (int f = 0; f < c.voters; ++f) {
    const Voter& x = s.voters[f];
    if (!x.alive || x.role != static_cast<uint8_t>(Role::Follower) || x.leader == kNone) continue;
    const Voter& l = s.voters[x.leader];
    if (!connected(s, f, x.leader) || l.role != static_cast<uint8_t>(Role::Leader) ||
        l.epoch != x.epoch)
      continue;
    next = s;
    apply_fetch(c, next, KraftAction{K::Fetch, static_cast<uint8_t>(f), x.leader, 0});
    if (std::memcmp(&next, &s, sizeof s) == 0) continue;
    list.add(K::Fetch, f, x.leader, 0);
    if (s.faults.lost_responses >= c.faults.max_lost_responses) continue;
    // The same request, its response lost: only the leader's side happens.
    next = s;
    apply_fetch(c, next, KraftAction{K::Fetch, static_cast<uint8_t>(f), x.leader, 1});
    if (std::memcmp(&next.voters, &s.voters, sizeof s.voters) != 0) list.add(K::Fetch, f, x.leader, 1);
  }
  for (int l = 0; l < c.voters; ++l) {
    const Voter& x = s.voters[l];
    if (x.alive && x.role == static_cast<uint8_t>(Role::Leader) &&
        s.faults.appends < c.bounds.max_appends && x.leo < kMaxLog)
      list.add(K::Append, l);
  }
}

// KafkaRaftClient.handleFetchRequest / tryCompleteFetchRequest on leader `other`, then
// handleFetchResponse on follower `node`.
void apply_fetch(const KraftConfig& c, KraftState& s, const KraftAction& a) {
  Voter& f = s.voters[a.node];
  Voter& l = s.voters[a.other];
  // ReplicatedLog.validateOffsetAndEpoch(fetchOffset, lastFetchedEpoch).
  const OffsetAndEpoch at_leader = end_offset_for_epoch(l, last_epoch(f));
  const bool lost = a.arg == 1;
  if (lost) ++s.faults.lost_responses;
  if (at_leader.epoch != last_epoch(f) || at_leader.offset < f.leo) {
    if (lost) return;
    // DIVERGING: the follower truncates and fetches again (no HW in this response path).
    truncate_to(f, truncation_offset(f, at_leader));
    return;
  }
  // VALID: LeaderState.updateReplicaState counts the fetch offset of a voter of the
  // leader's latest set only; with directory ids a replica with a new directory id is an
  // observer (ReplicaState.matchesKey).
  const int generation = f.new_directory;
  const bool new_key = c.fixes.directory_ids && generation == 1;
  if (in_voter_set(c, latest_voters(c, l), a.node, generation)) {
    (new_key ? l.end_offset_new : l.end_offset)[a.node] = f.leo;
    maybe_update_hw(c, s, a.other);
  } else if (tracks_observers(c) && generation <= 1) {
    // An observer's ReplicaState (LeaderState.observerStates), which becomes its voter
    // state when AddVoter adds its key. Kept only when a voter change can read it.
    (new_key ? l.end_offset_new : l.end_offset)[a.node] = f.leo;
  }
  // ReplicaState.updateFollowerState: a fetch at the leader's end offset sets
  // lastCaughtUpTimestamp (Kafka also accepts the end offset of the previous fetch; in
  // the model the replica fetches again while the leader does not append).
  if (tracks_observers(c) && f.leo >= l.leo) l.caught_up |= member(a.node);
  if (lost) return;
  // The response: the batch at the fetch offset, if any, and the leader's HW.
  if (f.leo < l.leo) {
    f.log[f.leo] = l.log[f.leo];
    ++f.leo;
  }
  // KafkaRaftClient.updateFollowerHighWatermark: min(leader HW, log end offset); an
  // empty leader HW (-1) is not applied, and it never moves backwards (FollowerState).
  const uint8_t hw = std::min(l.hw, f.leo);
  if (l.hw > 0 && hw > f.hw) f.hw = hw;
}

void apply_append(const KraftConfig& c, KraftState& s, const KraftAction& a) {
  ++s.faults.appends;
  leader_append(c, s, a.node);
}

}  // namespace isr::spec::kraft::rules
