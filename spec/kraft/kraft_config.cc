// Parsing, validation and JSON of the KRaft model's configuration (see kraft_config.h).
// Same layering as spec/config.cc: defaults, the --config document, then each --set
// key=value; parsed strictly, then validated as a whole.
#include "spec/kraft/kraft_config.h"

#include <algorithm>
#include <climits>
#include <sstream>

#include "properties/kraft.h"

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
};

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::string shown(const json& v) {
  std::string text = v.dump();
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

void check_keys(const json& object, const std::string& prefix, const std::vector<std::string>& allowed) {
  if (!object.is_object())
    throw ConfigError(prefix.empty() ? "config" : prefix, "expected an object, got " + shown(object));
  for (const auto& [key, value] : object.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      throw ConfigError(prefix.empty() ? key : prefix + "." + key, "unknown key; allowed keys: " + join(allowed));
  }
}

int read_int(const json& v, const std::string& field) {
  if (!v.is_number_integer()) throw ConfigError(field, "expected an integer, got " + shown(v));
  const bool out_of_range = v.is_number_unsigned()
                                ? v.get<uint64_t>() > static_cast<uint64_t>(INT_MAX)
                                : v.get<int64_t>() > INT_MAX || v.get<int64_t>() < INT_MIN;
  if (out_of_range) throw ConfigError(field, shown(v) + " is out of range");
  return static_cast<int>(v.get<int64_t>());
}

bool read_bool(const json& v, const std::string& field) {
  if (!v.is_boolean()) throw ConfigError(field, "expected true or false, got " + shown(v));
  return v.get<bool>();
}

void require_range(int value, const std::string& field, int lo, int hi, const std::string& why = "") {
  if (value >= lo && value <= hi) return;
  std::string message = "must be between " + std::to_string(lo) + " and " + std::to_string(hi);
  if (!why.empty()) message += " (" + why + ")";
  throw ConfigError(field, message + ", got " + std::to_string(value));
}

// `key=value` with dotted keys; the value is JSON when it parses, else the literal text.
void apply_override(json& doc, const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError("--set", "expected key=value (for example fixes.persist_vote=false), got '" + text + "'");
  const std::string key = text.substr(0, eq);
  json value = json::parse(text.substr(eq + 1), nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) value = text.substr(eq + 1);
  json* node = &doc;
  std::string path;
  std::stringstream parts(key);
  std::string part;
  std::vector<std::string> components;
  while (std::getline(parts, part, '.')) components.push_back(part);
  for (size_t i = 0; i < components.size(); ++i) {
    if (components[i].empty()) throw ConfigError("--set", "empty component in key '" + key + "'");
    if (!node->is_object()) throw ConfigError(path, "is not an object, so '" + key + "' cannot be set");
    path = path.empty() ? components[i] : path + "." + components[i];
    if (i + 1 == components.size()) {
      (*node)[components[i]] = value;
    } else {
      if (!node->contains(components[i])) (*node)[components[i]] = json::object();
      node = &(*node)[components[i]];
    }
  }
}

std::vector<std::string> read_property_names(const json& v) {
  std::vector<std::string> names;
  auto add = [&](std::string name) {
    name.erase(0, name.find_first_not_of(" \t"));
    name.erase(name.find_last_not_of(" \t") + 1);
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  if (v.is_string()) {
    std::stringstream in(v.get<std::string>());
    std::string item;
    while (std::getline(in, item, ',')) add(item);
  } else if (v.is_array()) {
    for (const auto& item : v) {
      if (!item.is_string()) throw ConfigError("properties", "expected property names (strings), got " + shown(item));
      add(item.get<std::string>());
    }
  } else {
    throw ConfigError("properties", "expected a list of property names or a comma-separated string, got " + shown(v));
  }
  return names;
}

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
    check_keys(b, "bounds", {"max_epoch", "max_appends"});
    if (b.contains("max_epoch")) c.bounds.max_epoch = read_int(b["max_epoch"], "bounds.max_epoch");
    if (b.contains("max_appends")) c.bounds.max_appends = read_int(b["max_appends"], "bounds.max_appends");
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
  for (const auto& o : overrides) apply_override(doc, o);
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
              {"bounds", {{"max_epoch", c.bounds.max_epoch}, {"max_appends", c.bounds.max_appends}}},
              {"properties", c.properties}};
}

}  // namespace isr::spec::kraft
