// The partition model's names for `isrcheck list` (spec/common/listing.h).
#include "spec/partition/listing.h"

#include "spec/partition/action_meanings.h"
#include "spec/partition/config.h"
#include "spec/partition/properties/catalog.h"

namespace isr::spec {

std::vector<NameRow> partition_listing(std::string_view what) {
  std::vector<NameRow> rows;
  if (what == "actions") return partition_action_meanings();
  if (what == "properties") {
    for (const auto& p : properties::catalog()) rows.push_back({p.name, p.description, {}});
  } else if (what == "protocols") {
    for (const auto p : all_protocols()) rows.push_back({protocol_name(p), protocol_description(p), {}});
  } else {
    for (const auto& f : all_fixes()) rows.push_back({f.name, f.description, f.kafka_version});
  }
  return rows;
}

}  // namespace isr::spec
