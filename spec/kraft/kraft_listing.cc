// The KRaft quorum model's names for `isrcheck list --model kraft`.
#include "spec/kraft/kraft_listing.h"

#include "spec/kraft/kraft_action_meanings.h"
#include "spec/kraft/kraft_config.h"
#include "spec/kraft/kraft_properties.h"

namespace isr::spec::kraft {

std::vector<NameRow> kraft_listing(std::string_view what) {
  std::vector<NameRow> rows;
  if (what == "protocols") {
    throw NotListed("the kraft model has no protocol generations; see `list fixes --model kraft`");
  }
  if (what == "actions") return kraft_action_meanings();
  if (what == "properties") {
    for (const auto& p : properties::kraft_catalog()) rows.push_back({p.name, p.description, {}});
  } else {
    for (const auto& f : all_fixes()) rows.push_back({f.name, f.description, {}});
  }
  return rows;
}

}  // namespace isr::spec::kraft
