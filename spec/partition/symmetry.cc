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
// This file supplies the relabelling and each node's label-free signature (its own
// fields, whether it is in the ISR, whether it leads, ...); the generic engine of
// checker/symmetry.h computes the canonical form from them.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>

#include "checker/symmetry.h"
#include "spec/partition/partition_model.h"
#include "spec/partition/rules.h"

namespace isr::spec {
namespace {

using checker::map_id;
using checker::map_set;
using Perm = checker::Relabelling<kMaxNodes>;  // old node id -> new node id

// Writes t's first `bytes` bytes (at least the configuration's used prefix: the slots
// relabelled below lie in it).
void relabel(const Config& c, size_t bytes, const Perm& p, const State& s, State& t) {
  std::memcpy(static_cast<void*>(&t), &s, bytes);
  for (int n = 0; n < c.nodes(); ++n) t.nodes[p[n]] = s.nodes[n];
  for (int r = 0; r < c.replica_slots(); ++r) {
    const ReplicaState& from = s.replicas[r];
    ReplicaState& to = t.replicas[p[r]];
    to = from;
    to.view_leader = map_id(p, from.view_leader, kNoNode);
    to.view_isr = map_set(p, from.view_isr);
    to.alter_isr = map_set(p, from.alter_isr);
    to.view_replicas = map_set(p, from.view_replicas);
    for (int f = 0; f < c.replica_slots(); ++f) {
      to.fetch_offset[p[f]] = from.fetch_offset[f];
      to.fetch_broker_epoch[p[f]] = from.fetch_broker_epoch[f];
    }
    if (from.response.kind != static_cast<uint8_t>(FetchReply::None))
      to.response.leader = map_id(p, from.response.leader, kNoNode);
  }
  const ControllerState& cs = s.controller;
  ControllerState& ct = t.controller;
  rules::relabel_image(c.nodes(), p, ct);
  ct.active = map_id(p, cs.active, kNoNode);
  ct.deposed = cs.deposed == 0 ? 0 : static_cast<uint8_t>(p[cs.deposed - 1] + 1);
  t.producer.inflight_leader = map_id(p, s.producer.inflight_leader, kNoNode);
  t.history.last_leader = map_id(p, s.history.last_leader, kNoNode);
}

// Label-free facts about node n. `active_is_a_node`: whether controller.active names
// a node the relabelling moves (the composed model keeps it fixed: not a label there).
// Read as words straight from the state (checker::SignatureHash says why).
uint64_t signature(const Config& c, const State& s, int n, bool active_is_a_node) {
  using checker::load_word;
  static_assert(sizeof(NodeState) == 9 && sizeof(LogEntry) * kMaxLog == 16 && sizeof(FetchResponse) == 8);
  const ControllerState& ctl = s.controller;
  const NodeState& node = s.nodes[n];
  checker::SignatureHash h;
  // The node's own 9 bytes (the 8 first as a word; nodes[] is followed by replicas[],
  // so the load never leaves the state).
  h.add(load_word(&node));
  // Whether n is in each of the controller's node sets, four sets a load: bit n of each
  // 16-bit set of a word is moved to the set's bit 0. isr, elr, last_known_elr and fenced
  // are adjacent, as are directory_offline, zk_queued_demotion, zk_queued_reconcile and
  // replicas (KIP-455: n assigned), and adding, removing (being added, being removed).
  static_assert(offsetof(ControllerState, fenced) - offsetof(ControllerState, isr) == 6 &&
                offsetof(ControllerState, replicas) - offsetof(ControllerState, directory_offline) == 6 &&
                offsetof(ControllerState, removing) - offsetof(ControllerState, adding) == 2);
  constexpr uint64_t kBit0OfEachSet = 0x0001000100010001ull;
  const uint64_t in_sets = ((load_word(&ctl.isr) >> n) & kBit0OfEachSet) |
                           ((load_word(&ctl.directory_offline) >> n) & kBit0OfEachSet) << 1 |
                           (((uint64_t{ctl.adding} | uint64_t{ctl.removing} << 16) >> n) & kBit0OfEachSet) << 2;
  h.add(in_sets);
  uint64_t flags = node.paused;
  flags |= uint64_t{ctl.leader == n} << 13;
  flags |= uint64_t{active_is_a_node && ctl.active == n} << 14;
  flags |= uint64_t{s.producer.inflight_leader == n} << 15;
  flags |= uint64_t{s.history.last_leader == n} << 16;
  flags |= uint64_t{ctl.deposed == n + 1} << 17;
  flags |= uint64_t{ctl.registered_epoch[n]} << 24;
  // KIP-853 (controller.quorum=dynamic): its voter key is stale, or removed.
  flags |= uint64_t{contains(ctl.stale_voters, n)} << 59;
  flags |= uint64_t{contains(ctl.removed_voters, n)} << 60;
  if (n < c.replica_slots()) {
    const ReplicaState& r = s.replicas[n];
    flags |= uint64_t{r.new_directory} << 19;
    flags |= uint64_t{r.view_leader == n ? 1u : (r.view_leader == kNoNode ? 2u : 0u)} << 20;
    flags |= uint64_t{r.epoch_start_offset} << 32;
    flags |= uint64_t{r.alter_pending} << 40;
    flags |= uint64_t{r.view_valid} << 48;
    h.add(load_word(&r.log[0]));
    h.add(load_word(&r.log[kMaxLog / 2]));
    // leo, hw, hw_checkpoint, flushed, view_leader (a label: masked out), view_leader_epoch,
    // view_partition_epoch, needs_truncation.
    static_assert(offsetof(ReplicaState, needs_truncation) - offsetof(ReplicaState, leo) == 7);
    h.add(load_word(&r.leo) & ~(uint64_t{0xFF} << 8 * (offsetof(ReplicaState, view_leader) - offsetof(ReplicaState, leo))));
    FetchResponse response = r.response;
    response.leader = r.response.kind != 0 && r.response.leader == n;
    h.add(load_word(&response));
  }
  // How the controller's leader sees node n (its fetch state and ISR views): label-free
  // facts too (the leader is named by its role), and the ones that most often tell
  // otherwise identical followers apart, so that fewer tied orderings are relabelled.
  if (ctl.leader < c.replica_slots() && n < c.replica_slots()) {
    const ReplicaState& l = s.replicas[ctl.leader];
    h.add(uint64_t{l.fetch_offset[n]} | uint64_t{l.fetch_broker_epoch[n]} << 8 |
          uint64_t{contains(l.view_isr, n)} << 16 | uint64_t{contains(l.alter_isr, n)} << 17);
  }
  h.add(flags);
  return h.value();
}

}  // namespace

void rules::relabel_nodes(const Config& c, const Perm& p, const State& s, State& t) {
  relabel(c, sizeof(State), p, s, t);
}

void rules::relabel_image(int nodes, const Perm& p, ControllerState& image) {
  const ControllerState from = image;
  image.leader = map_id(p, from.leader, kNoNode);
  image.isr = map_set(p, from.isr);
  image.elr = map_set(p, from.elr);
  image.last_known_elr = map_set(p, from.last_known_elr);
  image.directory_offline = map_set(p, from.directory_offline);
  image.fenced = map_set(p, from.fenced);
  image.zk_queued_demotion = map_set(p, from.zk_queued_demotion);
  image.replicas = map_set(p, from.replicas);
  image.adding = map_set(p, from.adding);
  image.removing = map_set(p, from.removing);
  image.zk_queued_reconcile = map_set(p, from.zk_queued_reconcile);
  image.stale_voters = map_set(p, from.stale_voters);
  image.removed_voters = map_set(p, from.removed_voters);
  for (int n = 0; n < nodes; ++n) image.registered_epoch[p[n]] = from.registered_epoch[n];
}

uint64_t rules::node_signature(const Config& c, const State& s, int n, bool active_is_a_node) {
  return signature(c, s, n, active_is_a_node);
}

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

const State& PartitionModel::canonical_form(const State& s, checker::CanonicalScratch<State>& scratch) const {
  return checker::canonical_form<kMaxNodes>(
      s, symmetry_classes_, prefix_bytes_, [this](const State& x, int n) { return signature(config_, x, n, true); },
      [this](const Perm& p, const State& from, State& to) { relabel(config_, prefix_bytes_, p, from, to); }, scratch);
}

void PartitionModel::canonicalize(State& s) const {
  checker::CanonicalScratch<State> scratch;
  const State& c = canonical_form(s, scratch);
  // The representative's bytes past the prefix were never written; s's are zero.
  if (&c != &s) std::memcpy(static_cast<void*>(&s), &c, prefix_bytes_);
}

}  // namespace isr::spec
