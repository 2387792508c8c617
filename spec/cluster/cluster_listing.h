// The composed model's names for `isrcheck list --model cluster` (spec/common/listing.h).
#pragma once

#include <string_view>
#include <vector>

#include "spec/common/listing.h"

namespace isr::spec::cluster {

// The composed model checks the partition, KRaft and cluster properties and takes the
// partition model's protocols and fixes plus its own fixes (docs/cluster.md).
std::vector<NameRow> cluster_listing(std::string_view what);

}  // namespace isr::spec::cluster
