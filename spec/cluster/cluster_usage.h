// What a composed-model configuration (`--model cluster`) switches on and a search may
// never use: checker/hooks.h's HasUsage for the cluster model (issue 29 point 2). The
// partition's features keep their bits and words (spec/partition/usage.h: unclean
// election, ELR, each node fault, retries, preferred elections); the quorum adds its lost
// Fetch responses (kraft.max_lost_responses) and the metadata records (kraft.max_records:
// a controller decision appended to the KRaft log).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "spec/cluster/cluster_config.h"
#include "spec/cluster/cluster_state.h"
#include "spec/common/unused_switch.h"

namespace isr::spec::cluster {

// The names of the bits, in bit order: the partition model's, then the quorum's.
std::vector<std::string_view> usage_names();

uint32_t usage_seen(const ClusterState& s);

// For a complete search whose states' usage bits ORed to `used`.
std::vector<UnusedSwitch> unused_switches(const ClusterConfig& c, uint32_t used);

}  // namespace isr::spec::cluster
