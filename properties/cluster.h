// The properties of the composed model (`--model cluster`) beyond the partition and
// KRaft catalogs, which it checks too (on its partition and quorum parts).
#pragma once

#include <string_view>
#include <vector>

#include "spec/cluster/cluster_config.h"
#include "spec/cluster/cluster_state.h"

namespace isr::properties {

struct ClusterPropertyInfo {
  std::string_view name;
  std::string_view description;
  bool (*holds)(const spec::cluster::ClusterConfig& c, const spec::cluster::ClusterState& s);
};

// The cluster-only properties, in report order.
const std::vector<ClusterPropertyInfo>& cluster_catalog();

// Every partition-metadata fact a live broker acts on (its view's leader, leader epoch
// and partition epoch; its broker epoch) was produced by a committed metadata record.
bool committed_metadata_only(const spec::cluster::ClusterConfig& c, const spec::cluster::ClusterState& s);

}  // namespace isr::properties
