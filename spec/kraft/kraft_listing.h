// The KRaft quorum model's names for `isrcheck list --model kraft` (spec/common/listing.h).
#pragma once

#include <string_view>
#include <vector>

#include "spec/common/listing.h"

namespace isr::spec::kraft {

// what: "properties" or "fixes"; "protocols" throws NotListed: the quorum model has no
// protocol generations, its fixes are toggled one by one.
std::vector<NameRow> kraft_listing(std::string_view what);

}  // namespace isr::spec::kraft
