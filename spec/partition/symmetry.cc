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
#include <cstring>

// Inlined: a signature hashes a few dozen bytes per node of every generated state, where
// the library call's dispatch costs as much as the hash.
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include "checker/symmetry.h"
#include "spec/partition/partition_model.h"
#include "spec/partition/rules.h"

namespace isr::spec {
namespace {

using checker::map_id;
using checker::map_set;
using Perm = checker::Relabelling<kMaxNodes>;  // old node id -> new node id

void relabel(const Config& c, const Perm& p, const State& s, State& t) {
  t = s;
  for (int n = 0; n < c.nodes(); ++n) t.nodes[p[n]] = s.nodes[n];
  for (int r = 0; r < c.replication_factor; ++r) {
    const ReplicaState& from = s.replicas[r];
    ReplicaState& to = t.replicas[p[r]];
    to = from;
    to.view_leader = map_id(p, from.view_leader, kNoNode);
    to.view_isr = map_set(p, from.view_isr);
    to.alter_isr = map_set(p, from.alter_isr);
    for (int f = 0; f < c.replication_factor; ++f) {
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
uint64_t signature(const Config& c, const State& s, int n, bool active_is_a_node) {
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
  sig.self_flags[5] = active_is_a_node && ctl.active == n;
  sig.self_flags[6] = ctl.registered_epoch[n];
  sig.self_flags[7] = s.producer.inflight_leader == n;
  sig.self_flags[8] = s.history.last_leader == n;
  sig.self_flags[10] = static_cast<uint8_t>((ctl.deposed == n + 1) | (contains(ctl.zk_queued_demotion, n) << 1) |
                                            (contains(ctl.zk_queued_reconcile, n) << 2));
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

}  // namespace

void rules::relabel_nodes(const Config& c, const Perm& p, const State& s, State& t) { relabel(c, p, s, t); }

void rules::relabel_image(int nodes, const Perm& p, ControllerState& image) {
  const ControllerState from = image;
  image.leader = map_id(p, from.leader, kNoNode);
  image.isr = map_set(p, from.isr);
  image.elr = map_set(p, from.elr);
  image.last_known_elr = map_set(p, from.last_known_elr);
  image.directory_offline = map_set(p, from.directory_offline);
  image.fenced = map_set(p, from.fenced);
  image.zk_queued_demotion = map_set(p, from.zk_queued_demotion);
  image.zk_queued_reconcile = map_set(p, from.zk_queued_reconcile);
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

void PartitionModel::canonicalize(State& s) const {
  checker::canonicalize<kMaxNodes>(
      s, symmetry_classes_, [this](const State& x, int n) { return signature(config_, x, n, true); },
      [this](const Perm& p, const State& from, State& to) { relabel(config_, p, from, to); });
}

}  // namespace isr::spec
