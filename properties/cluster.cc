// committed-metadata-only: brokers act on committed metadata only. KRaft brokers replay
// the metadata log up to the high watermark (MetadataLoader reads committed batches,
// KIP-631), and the controller answers a write (BrokerRegistration, AlterPartition)
// once its records commit (QuorumController's deferred event queue, KIP-631/KIP-595).
// So a partition view whose (leader, leader epoch) differs from what the committed
// record of that partition epoch says, or a broker epoch beyond the committed
// registration, means a decision took effect that the quorum may never commit: a stale
// controller's decision.
#include "properties/cluster.h"

namespace isr::properties {

using spec::cluster::ClusterConfig;
using spec::cluster::ClusterState;

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

const std::vector<ClusterPropertyInfo>& cluster_catalog() {
  static const std::vector<ClusterPropertyInfo> all = {
      {"committed-metadata-only",
       "every partition metadata a broker acts on (view epochs, broker epoch) comes from a committed metadata record",
       committed_metadata_only},
  };
  return all;
}

}  // namespace isr::properties
