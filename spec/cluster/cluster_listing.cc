// The composed model's names for `isrcheck list --model cluster`.
#include "spec/cluster/cluster_listing.h"

#include "spec/cluster/cluster_config.h"
#include "spec/cluster/cluster_properties.h"
#include "spec/kraft/kraft_action_meanings.h"
#include "spec/kraft/kraft_properties.h"
#include "spec/partition/action_meanings.h"
#include "spec/partition/listing.h"

namespace isr::spec::cluster {

namespace {

// The composed model's action kinds (cluster_describe.cc's action_kinds): the partition
// model's, its controller failover excepted (the KRaft quorum elects the controller
// here), and the quorum's elections and fetches as Kraft<Kind>. The quorum's appends,
// crashes, restarts, cuts and heals are the partition model's node actions and metadata
// records here, not actions of their own.
std::vector<NameRow> cluster_actions() {
  static const char* const kQuorumKinds[][2] = {{"Timeout", "KraftTimeout"},
                                                {"Vote", "KraftVote"},
                                                {"BeginEpoch", "KraftBeginEpoch"},
                                                {"Fetch", "KraftFetch"},
                                                {"Resign", "KraftResign"},
                                                {"AddVoter", "KraftAddVoter"},
                                                {"RemoveVoter", "KraftRemoveVoter"}};
  std::vector<NameRow> rows;
  for (const NameRow& row : partition_action_meanings()) {
    if (row.name != "ControllerFailover") rows.push_back(row);
  }
  for (const auto& [kind, name] : kQuorumKinds) {
    for (const NameRow& row : kraft::kraft_action_meanings()) {
      if (row.name == kind) rows.push_back({name, row.description, {}});
    }
  }
  return rows;
}

}  // namespace

std::vector<NameRow> cluster_listing(std::string_view what) {
  if (what == "actions") return cluster_actions();
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
