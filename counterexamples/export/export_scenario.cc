// Trace -> implementation-neutral scenario (see export_scenario.h, docs/scenarios.md).
#include "counterexamples/export/export_scenario.h"

#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "counterexamples/render/render_words.h"
#include "counterexamples/scenario/scenario_writer.h"
#include "counterexamples/trace/trace_reader.h"
#include "spec/partition/config.h"
#include "spec/partition/metadata_version.h"
#include "spec/partition/properties/catalog.h"
#include "spec/partition/state.h"

namespace isr::counterexamples {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

// Action kinds a harness performs itself; every other kind is the cluster's own doing.
constexpr std::string_view kHarnessKinds[] = {"Produce", "ProduceTimeout", "Crash",   "Restart",
                                              "Cut",     "Heal",           "Consume", "PreferredElection",
                                              "Pause",   "Resume",         "RemoveVoter",
                                              "AddVoter"};
// Every kind of the partition model (spec/partition/describe.cc), to refuse traces we do not know.
constexpr std::string_view kInternalKinds[] = {
    "Fetch",          "FetchResponse",  "EpochQuery",        "ShrinkIsr",      "AlterPartition",
    "FenceBroker",    "RegisterBroker", "UnfenceBroker",     "UncleanElection", "MetadataUpdate",
    "ControllerFailover", "Flush",      "CheckpointHw",      "SessionExpiry",  "BrokerBounce",
    "DeposedWrite",   "StaleLeaderAndIsr", "AssignReplicasToDirs"};

bool known_kind(std::string_view kind) {
  return is_harness_action(kind) ||
         std::find(std::begin(kInternalKinds), std::end(kInternalKinds), kind) != std::end(kInternalKinds);
}

int int_of(const json& value, int fallback = 0) { return value.is_number_integer() ? value.get<int>() : fallback; }

// A count from the trace's configuration that sizes a loop here (nodes, replicas): read
// as the model bounds it, so that a hand-edited trace cannot make the export unbounded.
int config_count(const json& value, const std::string& name, int fallback, int hi) {
  if (value.is_null()) return fallback;
  if (!value.is_number_integer() || value.get<long long>() < 1 || value.get<long long>() > hi) {
    throw TraceFormatError("config." + name, "expected 1.." + std::to_string(hi) + " (the model's limit), found " +
                                                 value.dump());
  }
  return value.get<int>();
}

// The node object of `id` in a state, or null.
const json* node_of(const json& state, int id) {
  const json& nodes = field(state, "nodes");
  if (!nodes.is_array()) return nullptr;
  for (const json& node : nodes)
    if (field(node, "id") == id) return &node;
  return nullptr;
}

// The controller's leader when it is alive and acts as leader in the controller's leader
// epoch (rules::active_leader), else -1: the broker a client's requests reach.
int acting_leader(const json& state) {
  const json& controller = field(state, "controller");
  const json& leader = field(controller, "leader");
  if (!leader.is_number_integer()) return -1;
  const json* node = node_of(state, leader.get<int>());
  if (node == nullptr || field(*node, "alive") != true) return -1;
  const json& replica = field(*node, "replica");
  if (field(replica, "role") != "leader") return -1;
  if (field(field(replica, "view"), "leader_epoch") != field(controller, "leader_epoch")) return -1;
  return leader.get<int>();
}

std::vector<int> records_in(const json& replica) {
  std::vector<int> out;
  const json& log = field(replica, "log");
  if (!log.is_array()) return out;
  for (const json& entry : log)
    if (entry.is_array() && entry.size() == 2) out.push_back(int_of(entry[1]));
  return out;
}

bool contains_record(const std::vector<int>& records, int record) {
  return std::find(records.begin(), records.end(), record) != records.end();
}

ordered_json int_list(const std::vector<int>& values) {
  ordered_json out = ordered_json::array();
  for (int v : values) out.push_back(v);
  return out;
}

// Records (ids) whose outcome in `state` satisfies `pred`, in id order.
template <class Pred>
std::vector<int> records_where(const json& state, Pred pred) {
  std::vector<std::pair<int, std::string>> outcomes;
  const json& all = field(field(state, "producer"), "outcomes");
  if (all.is_object()) {
    for (const auto& [key, value] : all.items()) {
      outcomes.emplace_back(std::stoi(key), value.is_string() ? value.template get<std::string>() : "");
    }
  }
  std::sort(outcomes.begin(), outcomes.end());
  std::vector<int> out;
  for (const auto& [record, outcome] : outcomes)
    if (pred(outcome)) out.push_back(record);
  return out;
}

std::string protocol_kafka_versions(const std::string& protocol) {
  if (protocol == "hw-truncation") return "before 0.11 (ZooKeeper controller)";
  if (protocol == "kip-101") return "0.11 (ZooKeeper controller)";
  if (protocol == "kip-279") return "2.0 (ZooKeeper controller)";
  if (protocol == "kip-320") return "2.1 to 2.6 (ZooKeeper controller)";
  if (protocol == "kip-497") return "2.7 to 3.4";
  if (protocol == "kip-903") return "3.5 to 3.9";
  if (protocol == "kip-966") return "4.0 and later";
  return "unknown";
}

ordered_json cluster_section(const json& config) {
  const int brokers = config_count(field(config, "brokers"), "brokers", 3, spec::kMaxNodes);
  const json& controller = field(config, "controller");
  const bool dedicated = field(controller, "placement") == "dedicated";
  const int voters = config_count(field(controller, "voters"), "controller.voters", 3, spec::kMaxNodes);
  const int nodes = brokers + (dedicated ? voters : 0);
  ordered_json node_list = ordered_json::array();
  ordered_json voter_ids = ordered_json::array();
  for (int n = 0; n < nodes; ++n) {
    const bool broker = n < brokers;
    const bool voter = dedicated ? n >= brokers : n < voters;
    ordered_json roles = ordered_json::array();
    if (broker) roles.push_back("broker");
    if (voter) {
      roles.push_back("controller");
      voter_ids.push_back(n);
    }
    node_list.push_back({{"id", n}, {"roles", roles}});
  }
  const std::string protocol = field(config, "protocol").is_string() ? config["protocol"].get<std::string>() : "";
  ordered_json broker_config = {
      {"min.insync.replicas", std::to_string(int_of(field(config, "min_insync_replicas"), 1))},
      {"unclean.leader.election.enable", field(config, "unclean_leader_election") == true ? "true" : "false"},
  };
  if (field(config, "flush") == "every-append") broker_config["log.flush.interval.messages"] = "1";
  ordered_json features = ordered_json::object();
  if (field(config, "eligible_leader_replicas") == true) features["eligible.leader.replicas.version"] = 1;
  // Kafka 4.x formats a new cluster with ELR on (KIP-966): a kip-966 trace without it
  // runs with the feature off, or the controller elects from an ELR the model never kept.
  else if (field(config, "protocol") == "kip-966") features["eligible.leader.replicas.version"] = 0;
  // Two of the fixes are gated by metadata.version in a KRaft cluster, so a trace without
  // them runs on a release whose storage is formatted at an older feature level
  // (spec/partition/metadata_version.h, which conform's release check shares).
  const json& fixes = field(config, "fixes");
  if (field(controller, "mode") == "kraft" && fixes.is_object()) {
    const int level = spec::metadata_version_level(field(fixes, "isr_shrink_keeps_leader_epoch") != false,
                                                   field(fixes, "directory_assignment") != false);
    if (level != 0) features["metadata.version"] = level;
  }
  ordered_json controller_out = {{"placement", dedicated ? "dedicated" : "combined"}, {"voters", voter_ids}};
  // ZooKeeper mode: the voters are the ZooKeeper ensemble and the controller is a broker
  // (docs/model.md, "ZooKeeper-mode controller"); KRaft scenarios keep their old form.
  if (field(controller, "mode") == "zookeeper") controller_out["mode"] = "zookeeper";
  // KIP-853: the harness formats a dynamic quorum (--initial-controllers, directory ids
  // chosen before the format, controller.quorum.bootstrap.servers); static scenarios keep
  // their old form.
  if (field(controller, "quorum") == "dynamic") controller_out["quorum"] = "dynamic";
  return {{"nodes", node_list},
          {"controller", controller_out},
          {"protocol", {{"generation", protocol}, {"kafka_versions", protocol_kafka_versions(protocol)}}},
          {"broker_config", broker_config},
          {"features", features},
          {"flush", field(config, "flush")}};
}

ordered_json topic_section(const json& config) {
  const int rf = config_count(field(config, "replication_factor"), "replication_factor", 3, spec::kMaxReplicas);
  ordered_json replicas = ordered_json::array();
  for (int r = 0; r < rf; ++r) replicas.push_back(r);
  ordered_json topic_config = {
      {"min.insync.replicas", std::to_string(int_of(field(config, "min_insync_replicas"), 1))},
      {"unclean.leader.election.enable", field(config, "unclean_leader_election") == true ? "true" : "false"}};
  if (field(config, "flush") == "every-append") topic_config["flush.messages"] = "1";
  return {{"name", "isrcheck-scenario"},
          {"partitions", 1},
          {"replication_factor", rf},
          {"replicas", replicas},
          {"config", topic_config}};
}

ordered_json clients_section(const json& config) {
  const json& acks = field(config, "acks");
  return {{"producer",
           {{"acks", acks.is_string() ? acks.get<std::string>() : compact(acks)},
            {"enable.idempotence", field(config, "idempotence") == true},
            {"retries", int_of(field(field(config, "bounds"), "max_retries"))},
            {"max.in.flight.requests.per.connection", 1},
            {"record_value", "record-<k>"}}},
          {"consumer", {{"enabled", field(config, "consumer") != false}, {"isolation.level", "read_uncommitted"}}}};
}

// Sends and their Kafka results, for every record sent so far.
ordered_json sends_of(const json& state) {
  ordered_json out = ordered_json::object();
  const json& outcomes = field(field(state, "producer"), "outcomes");
  for (int record : records_where(state, [](const std::string& o) { return o != "unsent"; })) {
    out[std::to_string(record)] = kafka_send_result(outcomes[std::to_string(record)].get<std::string>());
  }
  return out;
}

ordered_json op_for(const json& action, const json& before, const json& after, const json& config) {
  const std::string kind = action.at("kind").get<std::string>();
  ordered_json op;
  if (kind == "Produce") {
    const int record = int_of(field(action, "record"));
    const json& outcome = field(field(field(after, "producer"), "outcomes"), std::to_string(record).c_str());
    op = {{"op", "produce"}, {"record", record}, {"broker", field(action, "broker")},
          {"acks", field(config, "acks")},
          {"expect", kafka_send_result(outcome.is_string() ? outcome.get<std::string>() : "")}};
    // A retry of the send in progress (the producer's Sender re-enqueues the batch), not
    // a new send: a real producer with retries does it by itself.
    if (int_of(field(field(before, "producer"), "current")) == record) op["retry"] = true;
    // The broker handled the request but its response never reaches the client
    // (faults.max_lost_produce_responses): a harness drops that response.
    if (field(action, "response_lost") == true) op["response_lost"] = true;
    // acks=0 to a broker that does not lead: it drops the request, so the record reaches
    // no broker although the client counts it as sent (a harness drops the request).
    if (field(config, "acks") == "0") {
      const json* node = node_of(before, int_of(field(action, "broker"), -1));
      if (node == nullptr || field(field(*node, "replica"), "role") != "leader") op["request_lost"] = true;
    }
  } else if (kind == "ProduceTimeout") {
    op = {{"op", "expire_send"}, {"record", field(action, "record")}, {"expect", "REQUEST_TIMED_OUT"}};
  } else if (kind == "Crash") {
    op = {{"op", "crash"}, {"node", field(action, "node")}, {"kind", field(action, "mode")}};
    if (action.contains("leader_after")) op["leader_after"] = action["leader_after"];
  } else if (kind == "Restart") {
    op = {{"op", "restart"}, {"node", field(action, "node")}};
  } else if (kind == "Cut" || kind == "Heal") {
    op = {{"op", kind == "Cut" ? "cut" : "heal"}, {"node", field(action, "node")}, {"side", field(action, "side")}};
  } else if (kind == "Consume") {
    const int offset = int_of(field(field(before, "consumer"), "position"));
    const json& read = field(field(after, "consumer"), "read");
    op = {{"op", "consume"}, {"broker", field(action, "broker")}, {"offset", offset},
          {"expect_record", read.is_array() && static_cast<int>(read.size()) > offset ? read[offset] : json()}};
  } else if (kind == "Pause" || kind == "Resume") {
    op = {{"op", kind == "Pause" ? "pause" : "resume"}, {"node", field(action, "node")}};
  } else if (kind == "RemoveVoter" || kind == "AddVoter") {
    op = {{"op", kind == "RemoveVoter" ? "remove_voter" : "add_voter"}, {"node", field(action, "node")}};
  } else if (kind == "PreferredElection") {
    op = {{"op", "elect_preferred"}, {"leader", field(action, "leader")}};
  }
  return op;
}

}  // namespace

bool is_harness_action(std::string_view kind) {
  return std::find(std::begin(kHarnessKinds), std::end(kHarnessKinds), kind) != std::end(kHarnessKinds);
}

std::string kafka_send_result(std::string_view outcome) {
  if (outcome == "acked") return "acked";
  if (outcome == "in-flight") return "pending";
  if (outcome == "retrying") return "pending";  // the client retries inside send(): nothing seen yet
  if (outcome == "unsent") return "unsent";
  if (outcome == "not-enough-replicas") return "NOT_ENOUGH_REPLICAS";
  if (outcome == "not-enough-replicas-after-append") return "NOT_ENOUGH_REPLICAS_AFTER_APPEND";
  if (outcome == "timed-out") return "REQUEST_TIMED_OUT";
  if (outcome == "not-leader") return "NOT_LEADER_OR_FOLLOWER";
  return std::string(outcome);
}

ordered_json observable_state(const json& state, const json& config) {
  const json& controller = field(state, "controller");
  const bool elr = field(config, "eligible_leader_replicas") == true;
  const int leader = acting_leader(state);
  ordered_json out;
  out["leader"] = field(controller, "leader");
  out["leader_epoch"] = field(controller, "leader_epoch");
  out["isr"] = field(controller, "isr");
  if (elr) {
    out["elr"] = field(controller, "elr");
    out["last_known_elr"] = field(controller, "last_known_elr");
  }
  out["fenced"] = field(controller, "fenced");
  // Dynamic quorum (KIP-853): the voter set's ids and the wiped voters running as observers.
  if (controller.contains("voter_set")) {
    out["voters"] = field(controller, "voter_set");
    out["observers"] = field(controller, "observers");
  }
  out["hw"] = leader < 0 ? json() : field(field(*node_of(state, leader), "replica"), "hw");
  ordered_json replicas = ordered_json::object();
  const json& nodes = field(state, "nodes");
  for (const json& node : nodes.is_array() ? nodes : json::array()) {
    const json& replica = field(node, "replica");
    if (replica.is_null()) continue;
    ordered_json r;
    r["alive"] = field(node, "alive");
    // A stopped broker's log is what its disk holds (the model applies a power or disk
    // loss at the stop), readable with kafka-dump-log.sh; its metadata view is gone.
    r["leo"] = field(replica, "leo");
    r["log"] = field(replica, "log");
    if (field(node, "paused") == true) {
      // A frozen broker answers no request: its metadata view is not observable (it is
      // the view it had when paused, which the trace's later steps show once it resumes).
      r["paused"] = true;
    } else if (field(node, "alive") == true) {
      const json& view = field(replica, "view");
      if (view.is_object()) {
        r["view"] = {{"leader", field(view, "leader")},
                     {"leader_epoch", field(view, "leader_epoch")},
                     {"isr", field(view, "isr")}};
      } else {
        r["view"] = nullptr;
      }
    }
    replicas[compact(field(node, "id"))] = r;
  }
  out["replicas"] = replicas;
  out["sends"] = sends_of(state);
  return out;
}

std::string state_digest(const json& state) {
  const std::string text = state.dump();
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(XXH3_64bits(text.data(), text.size())));
  return hex;
}

ordered_json trace_to_scenario(const json& trace, std::string_view name) {
  check_trace(trace);
  if (trace.at("model") != "partition") {
    throw TraceFormatError("model", "unsupported model " + trace.at("model").dump() + "; allowed: partition");
  }
  const json& config = trace.at("config");
  const json& steps = trace.at("steps");
  const std::string property = trace.at("property").get<std::string>();

  ordered_json out = new_scenario(name);
  out["source"] = {{"trace_format", kTraceFormatName},
                   {"model", "partition"},
                   {"engine", field(trace, "engine")},
                   {"property", property},
                   {"trace_steps", steps.size() - 1},
                   {"model_config", config}};
  out["cluster"] = cluster_section(config);
  out["topic"] = topic_section(config);
  out["clients"] = clients_section(config);
  out["initial"] = {{"until", observable_state(steps[0].at("state"), config)},
                    {"model", {{"state", state_digest(steps[0].at("state"))}, {"steps", 0}}}};

  ordered_json ops = ordered_json::array();
  std::vector<size_t> run;  // trace steps of the pending run of internal actions
  auto flush_run = [&](size_t upto) {
    if (run.empty()) return;
    ordered_json internal = ordered_json::array();
    ordered_json indices = ordered_json::array();
    for (size_t i : run) {
      internal.push_back(step_action_name(steps[i]));
      indices.push_back(i);
    }
    const json& reached = steps[upto].at("state");
    ops.push_back({{"op", "wait"},
                   {"until", observable_state(reached, config)},
                   {"internal", internal},
                   {"trace_steps", indices},
                   {"model", {{"state", state_digest(reached)}, {"steps", run.size()}}}});
    run.clear();
  };
  for (size_t i = 1; i < steps.size(); ++i) {
    const json& action = steps[i].at("action");
    const std::string field_name = "steps[" + std::to_string(i) + "].action.kind";
    if (!action.contains("kind") || !action["kind"].is_string()) throw TraceFormatError(field_name, "missing");
    const std::string kind = action["kind"].get<std::string>();
    if (kind == "Reassign") {
      // An operator's AlterPartitionReassignments (bounds.max_reassignments): the scenario
      // language has no operation for it yet, and the cluster would not do it on its own.
      throw TraceFormatError(field_name, "a partition reassignment (Reassign) has no scenario operation: not exportable");
    }
    if (!known_kind(kind)) {
      throw TraceFormatError(field_name, "unknown action kind \"" + kind + "\" of the partition model");
    }
    if (!is_harness_action(kind)) {
      run.push_back(i);
      continue;
    }
    flush_run(i - 1);
    ordered_json op = op_for(action, steps[i - 1].at("state"), steps[i].at("state"), config);
    op["trace_steps"] = ordered_json::array({i});
    op["description"] = step_action_name(steps[i]);
    op["model"] = {{"state", state_digest(steps[i].at("state"))}, {"steps", 1}};
    ops.push_back(std::move(op));
  }
  flush_run(steps.size() - 1);
  for (size_t i = 0; i < ops.size(); ++i) {
    ordered_json numbered = {{"step", i + 1}};
    numbered.update(ops[i]);
    ops[i] = numbered;
  }
  out["steps"] = ops;

  // Expected observations at the end.
  const json& last = steps.back().at("state");
  const int leader = acting_leader(last);
  const json& controller_leader = field(field(last, "controller"), "leader");
  const std::vector<int> sent = records_where(last, [](const std::string& o) { return o != "unsent"; });
  const std::vector<int> acked = records_where(last, [](const std::string& o) { return o == "acked"; });
  std::vector<int> on_leader;
  if (controller_leader.is_number_integer()) {
    const json* node = node_of(last, controller_leader.get<int>());
    if (node != nullptr) on_leader = records_in(field(*node, "replica"));
  }
  std::set<int> anywhere;
  for (const json& node : field(last, "nodes")) {
    for (int r : records_in(field(node, "replica"))) anywhere.insert(r);
  }
  std::vector<int> missing_leader, missing_everywhere, may_be_absent;
  for (int r : acked) {
    if (!contains_record(on_leader, r)) missing_leader.push_back(r);
    if (!anywhere.count(r)) missing_everywhere.push_back(r);
  }
  for (int r : sent)
    if (!contains_record(acked, r)) may_be_absent.push_back(r);
  std::sort(on_leader.begin(), on_leader.end());
  on_leader.erase(std::unique(on_leader.begin(), on_leader.end()), on_leader.end());

  ordered_json consumed = ordered_json::array();
  const json& read = field(field(last, "consumer"), "read");
  for (size_t o = 0; read.is_array() && o < read.size(); ++o) consumed.push_back({{"offset", o}, {"record", read[o]}});

  ordered_json expected;
  expected["sends"] = sends_of(last);
  expected["consumed"] = consumed;
  expected["final"] = observable_state(last, config);
  expected["records"] = {{"sent", int_list(sent)},
                         {"acked", int_list(acked)},
                         {"leader", controller_leader},
                         {"on_leader", int_list(on_leader)},
                         {"on_any_replica", int_list(std::vector<int>(anywhere.begin(), anywhere.end()))},
                         {"must_be_present", int_list(acked)},
                         {"may_be_absent", int_list(may_be_absent)},
                         {"acked_missing_on_leader", int_list(missing_leader)},
                         {"acked_missing_everywhere", int_list(missing_everywhere)}};
  expected["violation"] = {
      {"property", property},
      {"description", field(trace, "property_description")},
      {"explanation", violation_sentence(trace)},
      {"observed_as", properties::observed_as(
                          property, {missing_leader, missing_everywhere,
                                     leader >= 0 ? leader : int_of(controller_leader, -1)})}};
  out["expected"] = expected;
  return out;
}

}  // namespace isr::counterexamples
