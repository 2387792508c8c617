// The partition model's names for `isrcheck list` (spec/common/listing.h).
#pragma once

#include <string_view>
#include <vector>

#include "spec/common/listing.h"

namespace isr::spec {

// what: "properties", "protocols" or "fixes" (each fix with the release that shipped it).
std::vector<NameRow> partition_listing(std::string_view what);

}  // namespace isr::spec
