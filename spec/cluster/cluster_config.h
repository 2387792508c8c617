// The configuration of the composed model (`--model cluster`): every key of the
// partition model's configuration (spec/partition/config.h), five more toggles under `fixes`,
// and a `kraft` section with the controller quorum's bounds.
//
//   {"brokers": 3, "replication_factor": 3, ..., "fixes": {..., "apply_after_commit": true,
//    "persist_vote": true, "hw_own_epoch": true, "directory_ids": true, "one_voter_change": true},
//    "kraft": {"max_epoch": 2, "max_records": 1, "max_lost_responses": 0, "max_voter_changes": 0}}
//
// The quorum's voters are the partition configuration's controller voters (combined or
// dedicated), 3 or 5. Invalid input raises spec::ConfigError naming the dotted field.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "spec/kraft/kraft_config.h"
#include "spec/partition/config.h"

namespace isr::spec::cluster {

struct ClusterConfig {
  Config partition;            // its `properties`: the partition properties checked
  kraft::KraftConfig quorum;   // voters, KRaft fixes, max_epoch, lost responses; its
                               // `properties`: the KRaft properties checked
  // QuorumController answers and exposes a decision only once its record commits
  // (brokers replay committed records only, MetadataLoader); off: brokers and the
  // waiting requester see a decision as soon as the leader appends it.
  bool apply_after_commit = true;
  int max_records = 1;         // metadata records (decisions) appended over the run
  std::vector<std::string> properties;  // every property checked, in report order

  int voter_node(int voter) const {
    return partition.controller.placement == Placement::Combined ? voter : partition.brokers + voter;
  }
  // The voter a node hosts, or -1.
  int node_voter(int node) const {
    if (!partition.is_voter(node)) return -1;
    return partition.controller.placement == Placement::Combined ? node : node - partition.brokers;
  }
};

// The cluster-only toggles (`fixes.<name>`), for `list fixes --model cluster`.
struct ClusterFixInfo {
  std::string_view name;
  std::string_view description;
};
const std::vector<ClusterFixInfo>& cluster_only_fixes();

// Defaults, then the JSON document (may be null), then each dotted `key=value`.
ClusterConfig load_config(const nlohmann::json* document, const std::vector<std::string>& overrides);
ClusterConfig default_config();

// The configuration as traces record it (the partition keys as spec::to_json writes them).
nlohmann::json to_json(const ClusterConfig& c);

// Every key, as `describe --model cluster` prints it (spec::describe_json's partition keys).
nlohmann::json describe_json(const ClusterConfig& c);

}  // namespace isr::spec::cluster
