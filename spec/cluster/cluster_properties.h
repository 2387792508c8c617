// The properties of the composed model (`--model cluster`) beyond the partition and
// KRaft catalogs, which it checks too (on its partition and quorum parts).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "spec/cluster/cluster_config.h"
#include "spec/cluster/cluster_state.h"

namespace isr::properties {

struct ClusterPropertyInfo {
  std::string_view name;
  std::string_view description;
  bool (*holds)(const spec::cluster::ClusterConfig& c, const spec::cluster::ClusterState& s);
  // How a counterexample's last state (the composed state's JSON) breaks it, in Kafka
  // terms; empty when that state does not show it.
  std::string (*explain)(const nlohmann::json& last_state);
};

// The cluster-only properties, in report order.
const std::vector<ClusterPropertyInfo>& cluster_catalog();
// nullptr when unknown.
const ClusterPropertyInfo* find_cluster(std::string_view name);
// The named property's explanation of a trace's last state (empty when unknown).
std::string explain_cluster(std::string_view property, const nlohmann::json& last_state);
// Where a metadata record sits in the voters' logs: "at offset 1 of N2 (uncommitted)".
std::string metadata_record_places(const nlohmann::json& state, const nlohmann::json& record);

// Every partition-metadata fact a live broker acts on (its view's leader, leader epoch
// and partition epoch; its broker epoch) was produced by a committed metadata record.
bool committed_metadata_only(const spec::cluster::ClusterConfig& c, const spec::cluster::ClusterState& s);

}  // namespace isr::properties
