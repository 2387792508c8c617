// committed-metadata-only: brokers act on committed metadata only. KRaft brokers replay
// the metadata log up to the high watermark (MetadataLoader reads committed batches,
// KIP-631), and the controller answers a write (BrokerRegistration, AlterPartition)
// once its records commit (QuorumController's deferred event queue, KIP-631/KIP-595).
// So a partition view whose (leader, leader epoch) differs from what the committed
// record of that partition epoch says, or a broker epoch beyond the committed
// registration, means a decision took effect that the quorum may never commit: a stale
// controller's decision.
#include "spec/cluster/cluster_properties.h"

#include "spec/common/state_words.h"

namespace isr::properties {

using spec::cluster::ClusterConfig;
using spec::cluster::ClusterState;
using nlohmann::json;

bool committed_metadata_only(const ClusterConfig& c, const ClusterState& s) {
  const spec::Config& pc = c.partition;
  for (int r = 0; r < pc.replication_factor; ++r) {
    if (!s.partition.nodes[r].alive) continue;
    const spec::ReplicaState& rep = s.partition.replicas[r];
    if (!rep.view_valid) continue;
    const int pe = rep.view_partition_epoch;
    if (s.history.committed_leader_epoch[pe] == 0) return false;  // no committed record made it
    if (s.history.committed_leader[pe] != rep.view_leader ||
        s.history.committed_leader_epoch[pe] != rep.view_leader_epoch + 1)
      return false;
  }
  for (int b = 0; b < pc.brokers; ++b) {
    const spec::NodeState& n = s.partition.nodes[b];
    if (n.alive && n.broker_epoch > s.committed.registered_epoch[b]) return false;
  }
  return true;
}

std::string metadata_record_places(const json& state, const json& record) {
  std::vector<std::string> places;
  const long long committed = integer_or(field(field(state, "metadata"), "committed_offset"), 0);
  bool is_committed = false;
  for (const json& voter : set_members(field(field(state, "quorum"), "nodes"))) {
    const std::vector<json> ids = set_members(field(voter, "records"));
    for (size_t o = 0; o < ids.size(); ++o) {
      if (ids[o] != field(record, "id")) continue;
      places.push_back("offset " + std::to_string(o) + " of " + node_name(field(voter, "node")));
      if (static_cast<long long>(o) < committed && integer_or(field(voter, "hw"), 0) > static_cast<long long>(o)) {
        is_committed = true;
      }
    }
  }
  return "at " + (places.empty() ? std::string("no log") : join(places, ", ")) +
         (is_committed ? " (committed)" : " (uncommitted)");
}

namespace {

// committed-metadata-only: the first live broker acting on metadata no committed record
// produced, and where the record it came from sits.
std::string explain_committed_metadata_only(const json& state) {
  const json& metadata = field(state, "metadata");
  const json& epochs = field(metadata, "committed_partition_epochs");
  const std::vector<json> registered = set_members(field(field(metadata, "committed"), "registered_epochs"));
  const std::string committed = "the quorum has committed only offsets below " +
                                compact(field(metadata, "committed_offset"));
  for (const json& node : set_members(field(state, "nodes"))) {
    if (field(node, "alive") == false) continue;
    const json& view = field(field(node, "replica"), "view");
    if (view.is_object()) {
      const json& pe = field(view, "partition_epoch");
      const json& done = field(epochs, compact(pe).c_str());
      if (!done.is_object() || field(done, "leader") != field(view, "leader") ||
          field(done, "leader_epoch") != field(view, "leader_epoch")) {
        std::string from;
        for (const json& record : set_members(field(metadata, "records"))) {
          const json& image = field(record, "image");
          if (field(image, "partition_epoch") == pe && field(image, "leader") == field(view, "leader") &&
              field(image, "leader_epoch") == field(view, "leader_epoch")) {
            from = ": it comes from the " + scalar_text(field(record, "decision")) + " record " +
                   metadata_record_places(state, record);
            break;
          }
        }
        return "broker " + node_name(field(node, "id")) + " acts on partition epoch " + compact(pe) + " (leader " +
               node_name(field(view, "leader")) + ", leader epoch " + compact(field(view, "leader_epoch")) + ", ISR " +
               node_set_text(field(view, "isr")) + "), which no committed metadata record produced" + from + "; " +
               committed;
      }
    }
    const json& id = field(node, "id");
    const long long n = integer_or(id, -1);
    if (n >= 0 && n < static_cast<long long>(registered.size()) &&
        integer_or(field(node, "broker_epoch"), 0) > integer_or(registered[n], 0)) {
      return "broker " + node_name(id) + " runs with broker epoch " + compact(field(node, "broker_epoch")) +
             " but its committed registration has broker epoch " + compact(registered[n]) + "; " + committed;
    }
  }
  return {};
}

}  // namespace

const std::vector<ClusterPropertyInfo>& cluster_catalog() {
  static const std::vector<ClusterPropertyInfo> all = {
      {"committed-metadata-only",
       "every partition metadata a broker acts on (view epochs, broker epoch) comes from a committed metadata record",
       committed_metadata_only, explain_committed_metadata_only},
  };
  return all;
}

const ClusterPropertyInfo* find_cluster(std::string_view name) {
  for (const ClusterPropertyInfo& p : cluster_catalog()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::string explain_cluster(std::string_view property, const json& last_state) {
  const ClusterPropertyInfo* p = find_cluster(property);
  return p != nullptr && p->explain != nullptr ? p->explain(last_state) : std::string();
}

}  // namespace isr::properties
