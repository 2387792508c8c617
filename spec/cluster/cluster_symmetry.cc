// Symmetry reduction for the composed model. A node and the KRaft voter it hosts are
// one process, so a permutation of interchangeable nodes (the partition model's
// classes: replicas that are voters, replicas that are not, other voters) relabels the
// partition part, the quorum part (through the node -> voter map), the voters' record
// payloads, and every node reference inside the metadata records.
//
// Records are renumbered in order of first appearance after each relabelling, so that
// relabellings compose. A node's signature is its partition-model signature and that
// of the KRaft voter it hosts; the generic engine of checker/symmetry.h computes the
// canonical form from them.
#include <algorithm>
#include <array>
#include <cstring>

#include "checker/symmetry.h"
#include "spec/cluster/cluster_model.h"
#include "spec/cluster/cluster_rules.h"
#include "spec/kraft/kraft_rules.h"
#include "spec/partition/rules.h"

namespace isr::spec::cluster {
namespace {

using checker::map_id;
using checker::map_set;
using Perm = checker::Relabelling<kMaxNodes>;  // old node id -> new node id

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
    spec::rules::relabel_image(nodes, p, r.image);
    if (r.answer != 0) r.answer_node = p[r.answer_node];
  }
  spec::rules::relabel_image(nodes, p, t.bootstrap);
  spec::rules::relabel_image(nodes, p, t.committed);
  for (uint8_t& leader : t.history.committed_leader) leader = map_id(p, leader, kNoNode);
  rules::renumber_records(voters, t);
}

// Label-free facts about node n: its partition-model signature (controller.active is
// not relabelled here, so it is not a node reference) and that of the voter it hosts.
// Record payloads and images are left out: their numbering depends on voter order.
uint64_t signature(const ClusterConfig& c, const ClusterState& s, int n) {
  checker::SignatureHash h;
  h.add(spec::rules::node_signature(c.partition, s.partition, n, false));
  const int v = c.node_voter(n);
  h.add(v >= 0 ? kraft::rules::voter_signature(c.quorum.voters, s.quorum, v) : 0);
  return h.value();
}

}  // namespace

const ClusterState& ClusterModel::canonical_form(const ClusterState& s,
                                                 checker::CanonicalScratch<ClusterState>& scratch) const {
  return checker::canonical_form<kMaxNodes>(
      s, symmetry_classes_, sizeof(ClusterState), [this](const ClusterState& x, int n) { return signature(config_, x, n); },
      [this](const Perm& p, const ClusterState& from, ClusterState& to) { relabel(config_, p, from, to); }, scratch);
}

void ClusterModel::canonicalize(ClusterState& s) const {
  checker::CanonicalScratch<ClusterState> scratch;
  const ClusterState& c = canonical_form(s, scratch);
  if (&c != &s) s = c;
}

}  // namespace isr::spec::cluster
