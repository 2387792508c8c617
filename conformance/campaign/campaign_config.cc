// The campaign configuration's reader (see campaign_config.h).
#include "conformance/campaign/campaign_config.h"

#include "io/config_error.h"
#include "io/json_fields.h"

namespace isr::conformance::campaign {

using nlohmann::json;
namespace jf = io::json_fields;

namespace {

const std::vector<std::string> kTopKeys = {
    "acks",           "min_insync_replicas", "unclean_leader_election", "records",    "fault_percent",
    "max_faults",     "max_concurrent",      "fault_sends_min",         "fault_sends_max", "gap_ms_min",
    "gap_ms_max",     "quiet_ms",            "settle_timeout_ms",       "faults",     "brokers",
    "replication_factor", "session_timeout_ms"};

std::vector<std::string> kind_names() { return {kFaultKindNames.begin(), kFaultKindNames.end()}; }

}  // namespace

std::vector<std::string> campaign_keys() {
  std::vector<std::string> out;
  for (const std::string& k : kTopKeys)
    if (k != "faults") out.push_back(k);
  for (const char* k : kFaultKindNames) out.push_back(std::string("faults.") + k);
  return out;
}

CampaignConfig load_campaign_config(const json* document, const std::vector<std::string>& overrides) {
  json doc = document != nullptr && !document->is_null() ? *document : json::object();
  if (!doc.is_object()) throw io::ConfigError("--config", "expected a JSON object, got " + jf::type_of(doc));
  for (const std::string& o : overrides) jf::apply_override(doc, o, "acks=1");
  jf::check_keys(doc, "", kTopKeys);
  CampaignConfig c;
  if (doc.contains("acks")) {
    const json& v = doc["acks"];
    const std::string s = v.is_string() ? v.get<std::string>() : v.is_number_integer() ? v.dump() : "";
    if (s != "all" && s != "1") {
      throw io::ConfigError("acks", "expected \"all\" or \"1\" (a campaign's producer needs an answer to count acked "
                                    "records), got " + jf::shown(v));
    }
    c.acks = s;
  }
  auto integer = [&](const char* key, int& field, int lo, int hi, const std::string& why) {
    if (!doc.contains(key)) return;
    field = jf::read_int(doc[key], key);
    jf::require_range(field, key, lo, hi, why);
  };
  // A campaign's cluster is 3 combined nodes with replication factor 3 (the harness's
  // partition has replicas 0, 1, 2); the keys are accepted to say so when set otherwise.
  int fixed = kNodes;
  integer("brokers", fixed, kNodes, kNodes, "a campaign runs 3 nodes");
  integer("replication_factor", fixed, kNodes, kNodes, "a campaign's partition has 3 replicas");
  integer("min_insync_replicas", c.min_insync_replicas, 1, kNodes, "at most the replication factor, 3");
  if (doc.contains("unclean_leader_election"))
    c.unclean_leader_election = jf::read_bool(doc["unclean_leader_election"], "unclean_leader_election");
  integer("records", c.records, 1, kMaxRecordsPerRun, "the model's producer sends at most 6 records");
  integer("fault_percent", c.fault_percent, 0, 100, "a percentage");
  // Every fault bumps epochs (leader, partition, broker) that the model bounds at 14.
  integer("max_faults", c.max_faults, 0, 6, "the model's epochs are bounded at 14, a fault spends several");
  integer("max_concurrent", c.max_concurrent, 1, 2, "a third would stop the controller quorum for good");
  integer("fault_sends_min", c.fault_sends_min, 0, kMaxRecordsPerRun, "sends a fault lasts");
  integer("fault_sends_max", c.fault_sends_max, c.fault_sends_min, kMaxRecordsPerRun, "at least fault_sends_min");
  integer("gap_ms_min", c.gap_ms_min, 0, 60000, "milliseconds");
  integer("gap_ms_max", c.gap_ms_max, c.gap_ms_min, 60000, "milliseconds, at least gap_ms_min");
  integer("quiet_ms", c.quiet_ms, 0, 600000, "milliseconds");
  integer("settle_timeout_ms", c.settle_timeout_ms, 1000, 600000, "milliseconds");
  if (doc.contains("session_timeout_ms")) {
    c.session_timeout_ms = jf::read_int(doc["session_timeout_ms"], "session_timeout_ms");
    if (c.session_timeout_ms != 0) {
      // Kafka requires it above broker.heartbeat.interval.ms (the driver's 250 ms).
      jf::require_range(c.session_timeout_ms, "session_timeout_ms", 500, 60000,
                        "milliseconds, or 0 for the driver's 1500");
    }
  }
  if (doc.contains("faults")) {
    jf::check_keys(doc["faults"], "faults", kind_names());
    for (std::size_t k = 0; k < kFaultKindNames.size(); ++k) {
      const std::string key = kFaultKindNames[k];
      if (!doc["faults"].contains(key)) continue;
      c.weights[k] = jf::read_int(doc["faults"][key], "faults." + key);
      jf::require_range(c.weights[k], "faults." + key, 0, 1000, "a relative weight");
    }
  }
  int total = 0;
  for (int w : c.weights) total += w;
  if (total == 0 && c.max_faults > 0 && c.fault_percent > 0) {
    throw io::ConfigError("faults", "every weight is 0: give one kind a weight (kill, clean, pause, cut_brokers, "
                                    "cut_quorum, cut_clients), or set max_faults=0");
  }
  return c;
}

json to_json(const CampaignConfig& c) {
  json faults = json::object();
  for (std::size_t k = 0; k < kFaultKindNames.size(); ++k) faults[kFaultKindNames[k]] = c.weights[k];
  return {{"acks", c.acks},
          {"brokers", kNodes},
          {"replication_factor", kNodes},
          {"min_insync_replicas", c.min_insync_replicas},
          {"unclean_leader_election", c.unclean_leader_election},
          {"records", c.records},
          {"fault_percent", c.fault_percent},
          {"max_faults", c.max_faults},
          {"max_concurrent", c.max_concurrent},
          {"fault_sends_min", c.fault_sends_min},
          {"fault_sends_max", c.fault_sends_max},
          {"gap_ms_min", c.gap_ms_min},
          {"gap_ms_max", c.gap_ms_max},
          {"quiet_ms", c.quiet_ms},
          {"settle_timeout_ms", c.settle_timeout_ms},
          {"session_timeout_ms", c.session_timeout_ms},
          {"faults", faults}};
}

std::string short_name(const CampaignConfig& c) {
  return "acks=" + c.acks + " min.isr=" + std::to_string(c.min_insync_replicas) +
         " unclean=" + (c.unclean_leader_election ? "on" : "off");
}

}  // namespace isr::conformance::campaign
