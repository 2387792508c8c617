// Symmetry reduction for the composed model. A node and the KRaft voter it hosts are
// one process, so a permutation of interchangeable nodes (the partition model's
// classes: replicas that are voters, replicas that are not, other voters) relabels the
// partition part, the quorum part (through the node -> voter map), the voters' record
// payloads, and every node reference inside the metadata records.
//
// The canonical form is the bytewise smallest relabelling over the whole group (every
// permutation of every class: 6 for three combined nodes), with records renumbered in
// order of first appearance after each relabelling: exact and idempotent.
#include <algorithm>
#include <array>
#include <cstring>

#include "spec/cluster/cluster_model.h"
#include "spec/cluster/cluster_rules.h"
#include "spec/kraft/kraft_rules.h"
#include "spec/rules.h"

namespace isr::spec::cluster {
namespace {

using Perm = std::array<uint8_t, kMaxNodes>;

uint8_t map_id(const Perm& p, uint8_t id) { return id == kNoNode ? kNoNode : p[id]; }

NodeSet map_set(const Perm& p, NodeSet s) {
  NodeSet out = 0;
  for (int n = 0; s != 0; ++n, s >>= 1)
    if (s & 1u) out |= bit(p[n]);
  return out;
}

void relabel_image(int nodes, const Perm& p, ControllerState& image) {
  const ControllerState from = image;
  image.leader = map_id(p, from.leader);
  image.isr = map_set(p, from.isr);
  image.elr = map_set(p, from.elr);
  image.last_known_elr = map_set(p, from.last_known_elr);
  image.directory_offline = map_set(p, from.directory_offline);
  image.fenced = map_set(p, from.fenced);
  for (int n = 0; n < nodes; ++n) image.registered_epoch[p[n]] = from.registered_epoch[n];
}

void relabel(const ClusterConfig& c, const Perm& p, const ClusterState& s, ClusterState& t) {
  const int nodes = c.partition.nodes();
  const int voters = c.quorum.voters;
  t = s;
  spec::rules::relabel_nodes(c.partition, p, s.partition, t.partition);
  t.partition.controller.active = s.partition.controller.active;  // unused: not a label
  std::array<uint8_t, kraft::kMaxVoters> q{};
  for (int v = 0; v < kraft::kMaxVoters; ++v) q[v] = static_cast<uint8_t>(v);
  for (int v = 0; v < voters; ++v) q[v] = static_cast<uint8_t>(c.node_voter(p[c.voter_node(v)]));
  kraft::rules::relabel_voters(voters, q, s.quorum, t.quorum);
  for (int v = 0; v < voters; ++v) std::memcpy(t.payload[q[v]], s.payload[v], sizeof s.payload[v]);
  for (MetadataRecord& r : t.records) {
    if (r.decision == 0) continue;
    relabel_image(nodes, p, r.image);
    if (r.answer != 0) r.answer_node = p[r.answer_node];
  }
  relabel_image(nodes, p, t.bootstrap);
  relabel_image(nodes, p, t.committed);
  for (uint8_t& leader : t.history.committed_leader) leader = map_id(p, leader);
  rules::renumber_records(voters, t);
}

}  // namespace

void ClusterModel::canonicalize(ClusterState& s) const {
  if (symmetry_classes_.empty()) return;
  // Odometer over the permutations of every class.
  std::array<std::array<uint8_t, kMaxNodes>, kMaxNodes> orders;
  const int classes = static_cast<int>(symmetry_classes_.size());
  for (int k = 0; k < classes; ++k)
    for (size_t i = 0; i < symmetry_classes_[k].size(); ++i) orders[k][i] = static_cast<uint8_t>(i);
  ClusterState best = s;
  ClusterState candidate;
  for (;;) {
    int k = 0;
    for (; k < classes; ++k) {
      auto& order = orders[k];
      if (std::next_permutation(order.begin(), order.begin() + symmetry_classes_[k].size())) break;
    }
    if (k == classes) break;
    Perm p;
    for (int n = 0; n < kMaxNodes; ++n) p[n] = static_cast<uint8_t>(n);
    for (int j = 0; j < classes; ++j) {
      const auto& members = symmetry_classes_[j];
      for (size_t i = 0; i < members.size(); ++i) p[members[i]] = members[orders[j][i]];
    }
    relabel(config_, p, s, candidate);
    if (std::memcmp(&candidate, &best, sizeof(ClusterState)) < 0) best = candidate;
  }
  s = best;
}

}  // namespace isr::spec::cluster
