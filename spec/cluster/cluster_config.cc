// Parsing, validation and JSON of the composed model's configuration (cluster_config.h).
//
// The document is split: the cluster-only keys (the `kraft` section, the five cluster
// toggles under `fixes`, `properties`) are read here; everything else goes to the
// partition model's loader unchanged, so that its keys, defaults and error messages
// are the same in both modes. The quorum's configuration is then built through the
// KRaft model's own loader, which validates it again.
#include "spec/cluster/cluster_config.h"

#include <algorithm>

#include "io/json_fields.h"
#include "spec/cluster/cluster_properties.h"
#include "spec/kraft/kraft_properties.h"
#include "spec/partition/properties/catalog.h"

namespace isr::spec::cluster {
namespace {

using nlohmann::json;

const std::vector<ClusterFixInfo> kClusterFixes = {
    {"apply_after_commit",
     "QuorumController answers and brokers act on a decision only once its metadata record commits; off: at append"},
    {"persist_vote", "KRaft: a granted vote reaches the quorum-state file before the Vote response"},
    {"hw_own_epoch", "KRaft: the metadata HW passes the leader's epoch start offset first (Raft figure 8)"},
    {"directory_ids", "KRaft KIP-853: a voter back on an empty disk is not counted as the old voter"},
    {"one_voter_change", "KRaft KIP-853: AddVoter/RemoveVoter wait until the last VotersRecord is committed"},
};

const std::vector<std::string> kKraftKeys = {"max_epoch", "max_records", "max_lost_responses", "max_voter_changes"};

// The cluster mode's own defaults, under the user's document: a configuration small
// enough that the default check holds and finishes in seconds (docs/cluster.md).
json cluster_defaults() {
  return json{{"replication_factor", 2},
              {"consumer", false},
              {"min_insync_replicas", 1},
              {"faults", {{"max_lossy_crashes", 0}}},
              {"bounds", {{"max_leader_epoch", 2}, {"max_partition_epoch", 3}}}};
}

// The strict readers every model's configuration shares (io/json_fields.h), so that
// a bad value is worded the same in all three modes.
using io::json_fields::join;
using io::json_fields::read_bool;
using io::json_fields::read_int;
using io::json_fields::read_property_names;
using io::json_fields::require_range;
using io::json_fields::shown;

void apply_override(json& doc, const std::string& text) {
  io::json_fields::apply_override(doc, text, "kraft.max_epoch=3");
}

std::vector<std::string> all_property_names() {
  std::vector<std::string> all;
  for (const auto& p : properties::catalog()) all.emplace_back(p.name);
  for (const auto& p : properties::kraft_catalog()) all.emplace_back(p.name);
  for (const auto& p : properties::cluster_catalog()) all.emplace_back(p.name);
  return all;
}

// The keys of the composed model, checked before the partition model's loader sees the
// document, so that an unknown key is answered with this model's keys (`kraft`, the
// cluster-only fixes) rather than the partition model's alone.
void check_cluster_keys(const json& doc) {
  std::vector<std::string> top;
  // describe_json: every key, also those to_json writes only when set.
  const json partition_keys = spec::describe_json(spec::default_config());
  for (const auto& [key, value] : partition_keys.items()) top.push_back(key);
  top.emplace_back("kraft");
  io::json_fields::check_keys(doc, "", top);
  if (!doc.contains("fixes") || !doc["fixes"].is_object()) return;
  std::vector<std::string> fixes;
  for (const auto& f : spec::all_fixes()) fixes.emplace_back(f.name);
  for (const auto& f : kClusterFixes) fixes.emplace_back(f.name);
  io::json_fields::check_keys(doc["fixes"], "fixes", fixes);
}

}  // namespace

const std::vector<ClusterFixInfo>& cluster_only_fixes() { return kClusterFixes; }

ClusterConfig load_config(const nlohmann::json* document, const std::vector<std::string>& overrides) {
  json user = document != nullptr && !document->is_null() ? *document : json::object();
  if (!user.is_object()) throw ConfigError("--config", "expected a JSON object, got " + shown(user));
  for (const auto& o : overrides) apply_override(user, o);
  json doc = cluster_defaults();
  doc.merge_patch(user);
  check_cluster_keys(doc);

  ClusterConfig c;
  // The cluster-only keys.
  json kraft_section = json::object();
  if (doc.contains("kraft")) {
    kraft_section = doc["kraft"];
    doc.erase("kraft");
    if (!kraft_section.is_object()) throw ConfigError("kraft", "expected an object, got " + shown(kraft_section));
    for (const auto& [key, value] : kraft_section.items()) {
      if (std::find(kKraftKeys.begin(), kKraftKeys.end(), key) == kKraftKeys.end())
        throw ConfigError("kraft." + key, "unknown key; allowed keys: " + join(kKraftKeys) +
                                              " (crashes, cuts and disk losses are the nodes' faults: faults.*)");
    }
  }
  json kraft_fixes = json::object();
  if (doc.contains("fixes") && doc["fixes"].is_object()) {
    json& fixes = doc["fixes"];
    if (fixes.contains("apply_after_commit")) {
      c.apply_after_commit = read_bool(fixes["apply_after_commit"], "fixes.apply_after_commit");
      fixes.erase("apply_after_commit");
    }
    for (const char* name : {"persist_vote", "hw_own_epoch", "directory_ids", "one_voter_change"}) {
      if (!fixes.contains(name)) continue;
      kraft_fixes[name] = read_bool(fixes[name], std::string("fixes.") + name);
      fixes.erase(name);
    }
  }
  std::vector<std::string> wanted;
  bool properties_given = false;
  if (doc.contains("properties")) {
    wanted = read_property_names(doc["properties"]);
    properties_given = !wanted.empty();
    doc.erase("properties");
  }
  const auto all = all_property_names();
  std::vector<std::string> partition_wanted;
  for (const auto& name : wanted) {
    if (std::find(all.begin(), all.end(), name) == all.end())
      throw ConfigError("properties", "unknown property \"" + name + "\" for --model cluster; valid names: " + join(all));
    if (properties::find(name) != nullptr) partition_wanted.push_back(name);
  }
  if (!partition_wanted.empty()) doc["properties"] = partition_wanted;

  // The composed model's controller is the KRaft quorum, whatever the generation's default.
  if (!doc.contains("controller")) doc["controller"] = json::object();
  if (doc["controller"].is_object() && !doc["controller"].contains("mode")) doc["controller"]["mode"] = "kraft";
  c.partition = spec::load_config(&doc, {});
  if (c.partition.controller.mode != ControllerMode::Kraft)
    throw ConfigError("controller.mode", "--model cluster composes the partition with the KRaft quorum; allowed: "
                                         "\"kraft\" (protocol \"kip-497\" or later)");
  if (properties_given && partition_wanted.empty()) c.partition.properties.clear();
  // A paused voter would also have to freeze in the KRaft model (no timeout, no vote),
  // which the composed model does not express yet: the partition model has the pause.
  if (c.partition.faults.max_pauses != 0)
    throw ConfigError("faults.max_pauses", "must be 0 for --model cluster (process pauses are modelled by the "
                                           "partition model, --model partition), got " +
                                               std::to_string(c.partition.faults.max_pauses));
  // The composed controller makes the partition model's controller decisions through the
  // metadata log (cluster_rules.h); a reassignment is not among them yet.
  if (c.partition.bounds.max_reassignments != 0)
    throw ConfigError("bounds.max_reassignments", "must be 0 for --model cluster (reassignment is modelled by the "
                                                  "partition model, --model partition), got " +
                                                      std::to_string(c.partition.bounds.max_reassignments));

  // The partition model's dynamic quorum (KIP-853, spec/partition/voters.cc) is its own
  // abstraction of the voter set; the composed model's voters are the KRaft model's.
  if (c.partition.controller.quorum != QuorumKind::Static)
    throw ConfigError("controller.quorum", "must be \"static\" for --model cluster (the dynamic quorum is modelled by "
                                           "the partition model, --model partition), got \"dynamic\"");

  const int voters = c.partition.controller.voters;
  if (voters != 3 && voters != 5)
    throw ConfigError("controller.voters", "must be 3 or 5 for --model cluster (the KRaft quorum sizes the model "
                                           "checks), got " + std::to_string(voters));
  int max_epoch = 2, max_lost_responses = 0, max_voter_changes = 0;
  if (kraft_section.contains("max_epoch")) max_epoch = read_int(kraft_section["max_epoch"], "kraft.max_epoch");
  if (kraft_section.contains("max_records")) c.max_records = read_int(kraft_section["max_records"], "kraft.max_records");
  if (kraft_section.contains("max_lost_responses"))
    max_lost_responses = read_int(kraft_section["max_lost_responses"], "kraft.max_lost_responses");
  if (kraft_section.contains("max_voter_changes"))
    max_voter_changes = read_int(kraft_section["max_voter_changes"], "kraft.max_voter_changes");
  // Epoch 1's leader is in place at the start; each later epoch's leader writes one
  // LeaderChange record, each decision one record: all must fit the log.
  require_range(max_epoch, "kraft.max_epoch", 1, kraft::kMaxEpoch, "the KRaft model's epoch limit");
  require_range(c.max_records, "kraft.max_records", 0, kraft::kMaxLog - max_epoch,
                "kraft.max_epoch + kraft.max_records <= the metadata log capacity " + std::to_string(kraft::kMaxLog));
  require_range(max_lost_responses, "kraft.max_lost_responses", 0, 8, "a fault budget");
  // KIP-853: each AddVoter / RemoveVoter appends a VotersRecord to the same log.
  require_range(max_voter_changes, "kraft.max_voter_changes", 0, kraft::kMaxLog - max_epoch - c.max_records,
                "kraft.max_epoch + kraft.max_records + kraft.max_voter_changes <= the metadata log capacity " +
                    std::to_string(kraft::kMaxLog));

  json quorum_doc = {{"voters", voters},
                     {"fixes", kraft_fixes},
                     {"faults", {{"max_crashes", 0}, {"max_lost_responses", max_lost_responses}}},
                     {"bounds", {{"max_epoch", max_epoch}, {"max_appends", 0}, {"max_voter_changes", max_voter_changes}}}};
  std::vector<std::string> kraft_wanted;
  for (const auto& p : properties::kraft_catalog()) {
    const bool selected = !properties_given || std::find(wanted.begin(), wanted.end(), p.name) != wanted.end();
    if (selected) kraft_wanted.emplace_back(p.name);
  }
  // An empty list means "all" to the KRaft loader; the model filters it below.
  if (!kraft_wanted.empty()) quorum_doc["properties"] = kraft_wanted;
  c.quorum = kraft::load_config(&quorum_doc, {});
  if (kraft_wanted.empty()) c.quorum.properties.clear();

  // Every property checked, in catalog order: partition, KRaft, cluster.
  for (const auto& name : c.partition.properties) c.properties.push_back(name);
  for (const auto& name : c.quorum.properties) c.properties.push_back(name);
  for (const auto& p : properties::cluster_catalog()) {
    const bool selected = !properties_given || std::find(wanted.begin(), wanted.end(), p.name) != wanted.end();
    if (selected) c.properties.emplace_back(p.name);
  }
  if (c.properties.empty()) throw ConfigError("properties", "no property selected");
  return c;
}

ClusterConfig default_config() { return load_config(nullptr, {}); }

nlohmann::json to_json(const ClusterConfig& c) {
  json j = spec::to_json(c.partition);
  j["fixes"]["apply_after_commit"] = c.apply_after_commit;
  for (const auto& f : kraft::all_fixes()) j["fixes"][std::string(f.name)] = c.quorum.fixes.*f.toggle;
  j["kraft"] = {{"max_epoch", c.quorum.bounds.max_epoch},
                {"max_records", c.max_records},
                {"max_lost_responses", c.quorum.faults.max_lost_responses},
                {"max_voter_changes", c.quorum.bounds.max_voter_changes}};
  j["properties"] = c.properties;
  return j;
}

nlohmann::json describe_json(const ClusterConfig& c) {
  json j = to_json(c);
  const json partition = spec::describe_json(c.partition);
  j["admin_unclean_election"] = partition["admin_unclean_election"];
  j["expire_unsent_batches"] = partition["expire_unsent_batches"];
  j["faults"]["max_pauses"] = partition["faults"]["max_pauses"];
  return j;
}

}  // namespace isr::spec::cluster
