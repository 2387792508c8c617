// Symmetry reduction: the canonical form of a state under permutations of
// interchangeable nodes.
//
// Replicas are interchangeable because the model leaves the assignment order open
// (elections may pick any eligible replica, docs/model.md), except that voters and
// non-voters differ; dedicated voters are interchangeable among themselves. A
// permutation relabels every node reference in the state (node-indexed arrays, node
// sets, leader and controller ids), so a relabelled state is a real state of the same
// configuration, and every property is invariant under it.
//
// The canonical form is computed without trying every permutation: each node gets a
// signature made only of label-free facts (its own fields, whether it is in the ISR,
// whether it leads, ...); nodes are ordered by signature and only nodes with equal
// signatures are permuted exhaustively, keeping the bytewise smallest result. Since
// signatures do not depend on labels, the result is the same for every state of an
// orbit: the reduction is exact, and canonicalize is idempotent.
#include <algorithm>
#include <array>
#include <cstring>

#include <xxhash.h>

#include "spec/partition_model.h"
#include "spec/rules.h"

namespace isr::spec {
namespace {

using Perm = std::array<uint8_t, kMaxNodes>;  // old node id -> new node id

uint8_t map_id(const Perm& p, uint8_t id) { return id == kNoNode ? kNoNode : p[id]; }

NodeSet map_set(const Perm& p, NodeSet s) {
  NodeSet out = 0;
  for (int n = 0; s != 0; ++n, s >>= 1)
    if (s & 1u) out |= bit(p[n]);
  return out;
}

void relabel(const Config& c, const Perm& p, const State& s, State& t) {
  t = s;
  for (int n = 0; n < c.nodes(); ++n) t.nodes[p[n]] = s.nodes[n];
  for (int r = 0; r < c.replication_factor; ++r) {
    const ReplicaState& from = s.replicas[r];
    ReplicaState& to = t.replicas[p[r]];
    to = from;
    to.view_leader = map_id(p, from.view_leader);
    to.view_isr = map_set(p, from.view_isr);
    to.alter_isr = map_set(p, from.alter_isr);
    for (int f = 0; f < c.replication_factor; ++f) {
      to.fetch_offset[p[f]] = from.fetch_offset[f];
      to.fetch_epoch[p[f]] = from.fetch_epoch[f];
      to.fetch_broker_epoch[p[f]] = from.fetch_broker_epoch[f];
    }
    if (from.response.kind != static_cast<uint8_t>(FetchReply::None))
      to.response.leader = map_id(p, from.response.leader);
  }
  const ControllerState& cs = s.controller;
  ControllerState& ct = t.controller;
  ct.leader = map_id(p, cs.leader);
  ct.active = map_id(p, cs.active);
  ct.isr = map_set(p, cs.isr);
  ct.elr = map_set(p, cs.elr);
  ct.last_known_elr = map_set(p, cs.last_known_elr);
  ct.fenced = map_set(p, cs.fenced);
  ct.directory_offline = map_set(p, cs.directory_offline);
  for (int n = 0; n < c.nodes(); ++n) ct.registered_epoch[p[n]] = cs.registered_epoch[n];
  ct.deposed = cs.deposed == 0 ? 0 : static_cast<uint8_t>(p[cs.deposed - 1] + 1);
  t.producer.inflight_leader = map_id(p, s.producer.inflight_leader);
  t.history.last_leader = map_id(p, s.history.last_leader);
}

// Label-free facts about node n.
uint64_t signature(const Config& c, const State& s, int n) {
  struct {
    NodeState node;
    uint8_t self_flags[11];
    LogEntry log[kMaxLog];
    uint8_t numbers[10];
    FetchResponse response;
  } sig;
  std::memset(static_cast<void*>(&sig), 0, sizeof sig);
  sig.node = s.nodes[n];
  const ControllerState& ctl = s.controller;
  sig.self_flags[0] = contains(ctl.isr, n);
  sig.self_flags[1] = contains(ctl.elr, n);
  sig.self_flags[2] = contains(ctl.last_known_elr, n);
  sig.self_flags[3] = static_cast<uint8_t>(contains(ctl.fenced, n) | (contains(ctl.directory_offline, n) << 1) |
                                           (n < c.replication_factor ? s.replicas[n].new_directory << 2 : 0));
  sig.self_flags[4] = ctl.leader == n;
  sig.self_flags[5] = ctl.active == n;
  sig.self_flags[6] = ctl.registered_epoch[n];
  sig.self_flags[7] = s.producer.inflight_leader == n;
  sig.self_flags[8] = s.history.last_leader == n;
  sig.self_flags[10] = ctl.deposed == n + 1;
  if (n < c.replication_factor) {
    const ReplicaState& r = s.replicas[n];
    std::memcpy(sig.log, r.log, sizeof sig.log);
    sig.self_flags[9] = r.view_leader == n ? 1 : (r.view_leader == kNoNode ? 2 : 0);
    const uint8_t numbers[10] = {r.leo, r.hw, r.hw_checkpoint, r.flushed, r.view_leader_epoch,
                                 r.view_partition_epoch, r.needs_truncation, r.epoch_start_offset,
                                 r.alter_pending, r.view_valid};
    std::memcpy(sig.numbers, numbers, sizeof numbers);
    sig.response = r.response;
    sig.response.leader = r.response.kind != 0 && r.response.leader == n;
  }
  return XXH3_64bits(&sig, sizeof sig);
}

constexpr int kMaxTiedPermutations = 720;

}  // namespace

void rules::relabel_nodes(const Config& c, const Perm& p, const State& s, State& t) { relabel(c, p, s, t); }

std::vector<std::vector<uint8_t>> symmetry_classes_for(const Config& c) {
  std::vector<std::vector<uint8_t>> classes(2);
  for (int n = 0; n < c.replication_factor; ++n) classes[c.is_voter(n) ? 0 : 1].push_back(static_cast<uint8_t>(n));
  std::vector<uint8_t> other_voters;
  for (int n = c.replication_factor; n < c.nodes(); ++n)
    if (c.is_voter(n)) other_voters.push_back(static_cast<uint8_t>(n));
  classes.push_back(other_voters);
  std::erase_if(classes, [](const auto& v) { return v.size() < 2; });
  return classes;
}

void PartitionModel::canonicalize(State& s) const {
  if (symmetry_classes_.empty()) return;
  const Config& c = config_;
  Perm base;
  for (int n = 0; n < kMaxNodes; ++n) base[n] = static_cast<uint8_t>(n);
  // Tie groups: runs of class members with equal signatures, as (class slots, members).
  struct Tie {
    const uint8_t* slots;
    std::array<uint8_t, kMaxNodes> members;
    int size;
  };
  std::array<Tie, kMaxNodes> ties;
  int tie_count = 0;
  long combinations = 1;
  for (const auto& cls : symmetry_classes_) {
    std::array<std::pair<uint64_t, uint8_t>, kMaxNodes> order;
    const int k = static_cast<int>(cls.size());
    for (int i = 0; i < k; ++i) order[i] = {signature(c, s, cls[i]), cls[i]};
    std::sort(order.begin(), order.begin() + k);
    for (int i = 0; i < k; ++i) base[order[i].second] = cls[i];
    for (int i = 0; i < k;) {
      int j = i;
      while (j < k && order[j].first == order[i].first) ++j;
      if (j - i > 1) {
        Tie& t = ties[tie_count++];
        t.slots = &cls[i];
        t.size = j - i;
        for (int m = 0; m < t.size; ++m) t.members[m] = order[i + m].second;
        for (int m = 2; m <= t.size; ++m) combinations *= m;
      }
      i = j;
    }
  }
  State best;
  relabel(c, base, s, best);
  if (tie_count == 0 || combinations > kMaxTiedPermutations) {
    // Beyond the cap the tied nodes keep the base order: still a state of the orbit
    // (sound), only a less complete reduction.
    s = best;
    return;
  }
  // Enumerate every ordering of every tie group (odometer over next_permutation).
  State candidate;
  for (;;) {
    int g = 0;
    for (; g < tie_count; ++g) {
      Tie& t = ties[g];
      const bool more = std::next_permutation(t.members.begin(), t.members.begin() + t.size);
      if (more) break;  // members wrapped around to sorted order otherwise: carry on
    }
    if (g == tie_count) break;
    Perm p = base;
    for (int i = 0; i < tie_count; ++i)
      for (int m = 0; m < ties[i].size; ++m) p[ties[i].members[m]] = ties[i].slots[m];
    relabel(c, p, s, candidate);
    if (std::memcmp(&candidate, &best, sizeof(State)) < 0) best = candidate;
  }
  s = best;
}

}  // namespace isr::spec
