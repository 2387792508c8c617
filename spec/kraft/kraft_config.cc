// Parsing, validation and JSON of the KRaft model's configuration (see kraft_config.h).
// Same layering as spec/partition/config.cc: defaults, the --config document, then each --set
// key=value; parsed strictly, then validated as a whole.
#include "spec/kraft/kraft_config.h"

#include <algorithm>

#include "io/json_fields.h"
#include "spec/kraft/kraft_properties.h"

namespace isr::spec::kraft {
namespace {

using nlohmann::json;

const std::vector<KraftFixInfo> kFixes = {
    {"persist_vote",
     "QuorumState persists a granted vote before the Vote response; off: a restarted voter may vote twice",
     &Fixes::persist_vote},
    {"hw_own_epoch",
     "LeaderState.maybeUpdateHighWatermark: the HW passes the leader's epoch start offset first; off: figure 8",
     &Fixes::hw_own_epoch},
    {"directory_ids",
     "KIP-853: a voter back on an empty disk has a new directory id and is not counted as the old voter",
     &Fixes::directory_ids},
    {"one_voter_change",
     "KIP-853: AddVoter/RemoveVoter wait until the last VotersRecord is committed; off: two voter changes in flight",
     &Fixes::one_voter_change},
};

// The field readers and messages are the partition model's (io/json_fields.h).
using namespace io::json_fields;  // join, shown, check_keys, read_int, apply_override, ...

void parse(const json& doc, KraftConfig& c, bool& properties_given) {
  check_keys(doc, "", {"voters", "fixes", "faults", "bounds", "properties"});
  if (doc.contains("voters")) c.voters = read_int(doc["voters"], "voters");
  if (doc.contains("fixes")) {
    std::vector<std::string> allowed;
    for (const auto& f : kFixes) allowed.emplace_back(f.name);
    check_keys(doc["fixes"], "fixes", allowed);
    for (const auto& f : kFixes) {
      const std::string name(f.name);
      if (doc["fixes"].contains(name)) c.fixes.*f.toggle = read_bool(doc["fixes"][name], "fixes." + name);
    }
  }
  if (doc.contains("faults")) {
    const json& f = doc["faults"];
    check_keys(f, "faults", {"max_crashes", "max_disk_losses", "max_network_cuts", "max_lost_responses"});
    if (f.contains("max_crashes")) c.faults.max_crashes = read_int(f["max_crashes"], "faults.max_crashes");
    if (f.contains("max_disk_losses")) c.faults.max_disk_losses = read_int(f["max_disk_losses"], "faults.max_disk_losses");
    if (f.contains("max_network_cuts"))
      c.faults.max_network_cuts = read_int(f["max_network_cuts"], "faults.max_network_cuts");
    if (f.contains("max_lost_responses"))
      c.faults.max_lost_responses = read_int(f["max_lost_responses"], "faults.max_lost_responses");
  }
  if (doc.contains("bounds")) {
    const json& b = doc["bounds"];
    check_keys(b, "bounds", {"max_epoch", "max_appends", "max_voter_changes"});
    if (b.contains("max_epoch")) c.bounds.max_epoch = read_int(b["max_epoch"], "bounds.max_epoch");
    if (b.contains("max_appends")) c.bounds.max_appends = read_int(b["max_appends"], "bounds.max_appends");
    if (b.contains("max_voter_changes"))
      c.bounds.max_voter_changes = read_int(b["max_voter_changes"], "bounds.max_voter_changes");
  }
  if (doc.contains("properties")) {
    c.properties = read_property_names(doc["properties"]);
    properties_given = !c.properties.empty();
  }
}

void validate(const KraftConfig& c) {
  if (c.voters != 3 && c.voters != 5)
    throw ConfigError("voters", "must be 3 or 5 (the controller quorum sizes the model checks), got " +
                                    std::to_string(c.voters));
  require_range(c.bounds.max_epoch, "bounds.max_epoch", 1, kMaxEpoch, "the model's epoch limit");
  // Each epoch's leader appends one LeaderChange record, so logs hold at most
  // max_epoch + max_appends entries.
  require_range(c.bounds.max_appends, "bounds.max_appends", 0, kMaxLog - c.bounds.max_epoch,
                "bounds.max_epoch + bounds.max_appends <= the log capacity " + std::to_string(kMaxLog));
  // Each voter change appends one VotersRecord to the same logs.
  require_range(c.bounds.max_voter_changes, "bounds.max_voter_changes", 0,
                kMaxLog - c.bounds.max_epoch - c.bounds.max_appends,
                "bounds.max_epoch + bounds.max_appends + bounds.max_voter_changes <= the log capacity " +
                    std::to_string(kMaxLog));
  require_range(c.faults.max_crashes, "faults.max_crashes", 0, 8);
  require_range(c.faults.max_disk_losses, "faults.max_disk_losses", 0, c.faults.max_crashes,
                "a kind of crash, so at most faults.max_crashes");
  require_range(c.faults.max_network_cuts, "faults.max_network_cuts", 0, 8);
  require_range(c.faults.max_lost_responses, "faults.max_lost_responses", 0, 8);
}

void resolve_properties(KraftConfig& c, bool given) {
  std::vector<std::string> all;
  for (const auto& p : properties::kraft_catalog()) all.emplace_back(p.name);
  if (!given) {
    c.properties = all;
    return;
  }
  for (const auto& name : c.properties) {
    if (properties::find_kraft(name) == nullptr)
      throw ConfigError("properties", "unknown property \"" + name + "\" for --model kraft; valid names: " + join(all));
  }
}

}  // namespace

const std::vector<KraftFixInfo>& all_fixes() { return kFixes; }

KraftConfig load_config(const nlohmann::json* document, const std::vector<std::string>& overrides) {
  json doc = document != nullptr && !document->is_null() ? *document : json::object();
  if (!doc.is_object()) throw ConfigError("--config", "expected a JSON object, got " + shown(doc));
  for (const auto& o : overrides) apply_override(doc, o, "fixes.persist_vote=false");
  KraftConfig c;
  bool properties_given = false;
  parse(doc, c, properties_given);
  // A disk loss is a kind of crash: asking for one implies the crash budget for it.
  if (doc.contains("faults") && doc["faults"].contains("max_disk_losses") && !doc["faults"].contains("max_crashes"))
    c.faults.max_crashes = std::max(c.faults.max_crashes, c.faults.max_disk_losses);
  validate(c);
  resolve_properties(c, properties_given);
  return c;
}

KraftConfig default_config() { return load_config(nullptr, {}); }

nlohmann::json to_json(const KraftConfig& c) {
  json fixes = json::object();
  for (const auto& f : kFixes) fixes[std::string(f.name)] = c.fixes.*f.toggle;
  return json{{"voters", c.voters},
              {"fixes", fixes},
              {"faults",
               {{"max_crashes", c.faults.max_crashes},
                {"max_disk_losses", c.faults.max_disk_losses},
                {"max_network_cuts", c.faults.max_network_cuts},
                {"max_lost_responses", c.faults.max_lost_responses}}},
              {"bounds",
               {{"max_epoch", c.bounds.max_epoch},
                {"max_appends", c.bounds.max_appends},
                {"max_voter_changes", c.bounds.max_voter_changes}}},
              {"properties", c.properties}};
}

}  // namespace isr::spec::kraft
