// Follower replication: the fetch request as the leader handles it, the fetch response
// as the follower applies it, and log reconciliation after a leader change
// (OffsetsForLeaderEpoch, KIP-101 and KIP-279).
//
// Brokers: Partition.fetchRecords / updateFollowerFetchState (leader side),
// AbstractFetcherThread.processFetchRequest and truncateToEpochEndOffsets (follower side).
#include <algorithm>
#include <cstring>

#include "spec/partition/rules.h"

namespace isr::spec::rules {
namespace {

// Why a leader refuses a fetch or an epoch query, or None when it serves it.
bool leader_refuses(const Config& c, const State& s, int follower, int leader) {
  // NOT_LEADER_OR_FOLLOWER: the target does not believe it leads.
  if (!believes_leader(s, leader)) return true;
  // Reassignment: Partition.fetchRecords answers NOT_LEADER_OR_FOLLOWER to a replica that
  // is not in the leader's assignment (getReplica finds none): an added replica fetches
  // once its leader has replayed the change, a removed one no longer does.
  if (c.reassignment() && !contains(s.replicas[leader].view_replicas, follower)) return true;
  // KIP-320: requests carry the requester's current leader epoch; the leader answers
  // FENCED_LEADER_EPOCH (older) or UNKNOWN_LEADER_EPOCH (newer) instead of serving it.
  if (c.fixes.fetch_epoch_fencing &&
      s.replicas[follower].view_leader_epoch != s.replicas[leader].view_leader_epoch) {
    return true;
  }
  return false;
}

// The end offset of `epoch` in a log whose leader-epoch cache is derived from its
// entries (LeaderEpochFileCache): the start offset of the first larger epoch, or the
// LEO when none is larger. `current_epoch`/`current_start` add the entry a leader
// assigns when it becomes leader before appending anything (Partition.makeLeader).
int end_offset_for(const ReplicaState& r, int epoch, int current_epoch, int current_start) {
  for (int i = 0; i < r.leo; ++i)
    if (r.log[i].epoch > epoch) return i;
  if (current_epoch > epoch) return current_start;
  return r.leo;
}

bool has_epoch_at_or_below(const ReplicaState& r, int epoch, int current_epoch) {
  if (r.leo > 0 && r.log[0].epoch <= epoch) return true;
  return current_epoch <= epoch && current_epoch >= 0;
}

// The largest epoch <= `epoch` the leader knows (KIP-279), or -1.
int largest_epoch_at_or_below(const ReplicaState& r, int epoch, int current_epoch) {
  int best = -1;
  for (int i = 0; i < r.leo; ++i)
    if (r.log[i].epoch <= epoch) best = std::max(best, static_cast<int>(r.log[i].epoch));
  if (current_epoch <= epoch) best = std::max(best, current_epoch);
  return best;
}

// A fetch (or epoch query) whose round trip would leave the state as it is (a caught-up
// follower with nothing new, or a request the leader refuses) is not enumerated: the
// fetcher simply polls again later, and the state in between, with the empty response
// in flight, behaves like the state before it. Leaving these out changes no verdict and
// keeps idle polling from multiplying the state space.
bool changes_anything(const Config& c, const State& s, const Action& a) {
  State trial = s;
  if (a.kind == ActionKind::EpochQuery) {
    apply_epoch_query(c, trial, a);
  } else {
    apply_fetch_request(c, trial, a);
    apply_fetch_response(c, trial, Action{ActionKind::FetchResponse, a.node, 0, 0});
  }
  return std::memcmp(&trial, &s, sizeof(State)) != 0;
}

}  // namespace

void replication_actions(const Config& c, const State& s, ActionList& out) {
  for (int f = 0; f < c.replica_slots(); ++f) {
    const ReplicaState& r = s.replicas[f];
    if (!runs(s, f)) continue;  // a paused follower neither fetches nor handles a response
    if (r.response.kind != static_cast<uint8_t>(FetchReply::None)) {
      out.add(ActionKind::FetchResponse, f);
      continue;  // one fetch outstanding per follower (the fetcher thread waits for it)
    }
    const int l = r.view_leader;
    if (l == kNoNode || l == f || !brokers_connected(s, f, l)) continue;
    const bool query = r.needs_truncation && c.fixes.leader_epoch_truncation;
    const Action a{query ? ActionKind::EpochQuery : ActionKind::Fetch, static_cast<uint8_t>(f),
                   static_cast<uint8_t>(l), 0};
    if (!changes_anything(c, s, a)) continue;
    out.add(a.kind, f, l);
  }
}

void apply_fetch_request(const Config& c, State& s, const Action& a) {
  const int f = a.node;
  const int l = a.other;
  ReplicaState& follower = s.replicas[f];
  ReplicaState& leader = s.replicas[l];
  FetchResponse& resp = follower.response;
  resp = FetchResponse{};
  resp.leader = static_cast<uint8_t>(l);
  resp.leader_epoch = follower.view_leader_epoch;
  resp.offset = follower.leo;
  if (leader_refuses(c, s, f, l)) {
    resp.kind = static_cast<uint8_t>(FetchReply::Fenced);
    return;
  }
  if (follower.leo > leader.leo) {
    // OFFSET_OUT_OF_RANGE: the follower holds offsets the leader does not (possible
    // only where epoch-based truncation is missing or disabled).
    resp.kind = static_cast<uint8_t>(FetchReply::OutOfRange);
    resp.leader_leo = leader.leo;
    return;
  }
  // Partition.readRecords reads the data and captures the leader's HW
  // (`initialHighWatermark`) before Partition.fetchRecords calls
  // updateFollowerFetchState, which is what may advance the HW
  // (maybeIncrementLeaderHW); ReplicaManager.readFromLog puts that captured HW into the
  // response. So the fetch that lets the HW pass an offset still carries the old HW,
  // and the follower learns the new one from its next fetch.
  const uint8_t hw_at_read = leader.hw;
  // Partition.updateFollowerFetchState: the fetch offset is the follower's LEO.
  leader.fetch_offset[f] = follower.leo;
  // KIP-903: the fetch carries the follower's broker epoch, later sent with the ISR
  // expansion so that the controller can reject a stale incarnation.
  leader.fetch_broker_epoch[f] = s.nodes[f].broker_epoch;
  maybe_expand_isr(c, s, l, f);
  maybe_increment_hw(c, s, l);
  resp.kind = static_cast<uint8_t>(FetchReply::Data);
  if (follower.leo < leader.leo) resp.entry = leader.log[follower.leo];
  resp.leader_hw = hw_at_read;
  resp.leader_leo = leader.leo;
}

void apply_fetch(const Config& c, State& s, const Action& a) {
  apply_fetch_request(c, s, a);
  // One step for the whole round trip unless responses are modelled in flight: the
  // follower's fetcher thread blocks on its request, so only what changes meanwhile at
  // the follower itself (a new epoch, a crash) can tell the two apart.
  if (!c.async_fetch_responses) apply_fetch_response(c, s, Action{ActionKind::FetchResponse, a.node, 0, 0});
}

void apply_fetch_response(const Config& c, State& s, const Action& a) {
  const int f = a.node;
  ReplicaState& r = s.replicas[f];
  const FetchResponse resp = r.response;
  r.response = FetchResponse{};
  // AbstractFetcherThread drops a response for a partition whose leader or leader epoch
  // changed while the request was outstanding.
  if (resp.leader != r.view_leader || resp.leader_epoch != r.view_leader_epoch) return;
  switch (static_cast<FetchReply>(resp.kind)) {
    case FetchReply::Data:
      if (resp.entry.record != 0 && resp.offset == r.leo && r.leo < kMaxLog) append(c, r, resp.entry);
      // ReplicaFetcherThread.processPartitionData: follower HW = min(leader HW, LEO).
      r.hw = static_cast<uint8_t>(std::min<int>(resp.leader_hw, r.leo));
      break;
    case FetchReply::OutOfRange:
      // ReplicaFetcherThread.handleOffsetOutOfRange (pre-KIP-101 path): truncate to
      // the leader's LEO when the follower is ahead of it.
      truncate_to(r, resp.leader_leo);
      break;
    case FetchReply::Fenced:
    case FetchReply::None:
      break;  // wait for newer metadata
  }
}

void apply_epoch_query(const Config& c, State& s, const Action& a) {
  const int f = a.node;
  const int l = a.other;
  ReplicaState& r = s.replicas[f];
  const ReplicaState& leader = s.replicas[l];
  if (leader_refuses(c, s, f, l)) return;  // retried after the next metadata update
  // KAFKA-7415 (2.0.1, 2.1.0): makeLeader caches its epoch at the LEO before any append. Before
  // it the leader's LeaderEpochFileCache held only the epochs of its log's entries, and
  // endOffsetFor answered UNDEFINED_EPOCH_OFFSET for an epoch above its latest or below
  // its first (0.11.0 and 2.0.0 LeaderEpochFileCache.endOffsetFor), upon which the
  // follower truncated to its HW (AbstractFetcherThread.getOffsetTruncationState, 2.0.0).
  const bool cached = c.fixes.leader_epoch_cached_on_election;
  const int leader_epoch = cached ? leader.view_leader_epoch : -1;
  const int leader_start = leader.epoch_start_offset;
  // The follower asks for the end offset of its latest epoch and truncates there.
  // KIP-279 iterates until the follower's latest epoch is one the leader also has; each
  // round is one OffsetsForLeaderEpoch request, taken together here because the follower
  // sends nothing else in between.
  while (r.leo > 0) {
    const int epoch = latest_epoch(r);
    if (!cached && (leader.leo == 0 || epoch > latest_epoch(leader) || epoch < leader.log[0].epoch)) {
      truncate_to(r, r.hw);
      break;
    }
    if (!c.fixes.largest_epoch_lookup) {
      // KIP-101 (0.11): the leader answers the start offset of the first epoch larger
      // than the requested one, or UNDEFINED when it knows no epoch at or below it; the
      // follower then falls back to its high watermark.
      if (!has_epoch_at_or_below(leader, epoch, leader_epoch)) {
        truncate_to(r, r.hw);
      } else {
        truncate_to(r, end_offset_for(leader, epoch, leader_epoch, leader_start));
      }
      break;
    }
    const int answer_epoch = largest_epoch_at_or_below(leader, epoch, leader_epoch);
    if (answer_epoch < 0) {
      truncate_to(r, 0);  // the leader has nothing this old: nothing of ours is shared
      break;
    }
    const int leader_end = end_offset_for(leader, answer_epoch, leader_epoch, leader_start);
    const int own_end = end_offset_for(r, answer_epoch, -1, 0);
    truncate_to(r, std::min(leader_end, own_end));
    if (answer_epoch == epoch) break;
  }
  r.needs_truncation = 0;
}

}  // namespace isr::spec::rules
