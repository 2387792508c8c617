// The composed model's names for `isrcheck list --model cluster`.
#include "spec/cluster/cluster_listing.h"

#include "spec/cluster/cluster_config.h"
#include "spec/cluster/cluster_properties.h"
#include "spec/kraft/kraft_properties.h"
#include "spec/partition/listing.h"

namespace isr::spec::cluster {

std::vector<NameRow> cluster_listing(std::string_view what) {
  std::vector<NameRow> rows = partition_listing(what);
  if (what == "properties") {
    for (const auto& p : properties::kraft_catalog()) rows.push_back({p.name, p.description, {}});
    for (const auto& p : properties::cluster_catalog()) rows.push_back({p.name, p.description, {}});
  } else if (what == "fixes") {
    for (const auto& f : cluster_only_fixes()) rows.push_back({f.name, f.description, "-"});
  }
  return rows;
}

}  // namespace isr::spec::cluster
