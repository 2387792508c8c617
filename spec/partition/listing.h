// The partition model's names for `isrcheck list` (spec/common/listing.h).
#pragma once

#include <string_view>
#include <vector>

#include "spec/common/listing.h"

namespace isr::spec {

// what: "properties", "protocols", "fixes" (each fix with the release that shipped it) or
// "actions" (each action kind with what it stands for in Kafka).
std::vector<NameRow> partition_listing(std::string_view what);

}  // namespace isr::spec
