// Reading a scenario document (see scenario_reader.h).
#include "counterexamples/scenario/scenario_reader.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "counterexamples/scenario/scenario_format.h"
#include "counterexamples/trace/trace_reader.h"

namespace isr::counterexamples {

using nlohmann::json;

namespace {

int opt_int(const json& v) { return v.is_number_integer() ? v.get<int>() : cut::kNone; }

std::vector<int> int_list(const json& v, const std::string& field) {
  if (!v.is_array()) throw std::invalid_argument(field + ": not an array of node ids");
  std::vector<int> out;
  for (const json& x : v) out.push_back(x.get<int>());
  std::sort(out.begin(), out.end());
  return out;
}

// clients.producer of a scenario, or an empty object.
json producer_of(const json& scenario) {
  const json clients = scenario.value("clients", json::object());
  return clients.is_object() ? clients.value("producer", json::object()) : json::object();
}

}  // namespace

bool is_trace_document(const json& doc) {
  // Not `doc["format"] == kTraceFormatName`: clang resolves that through json's implicit
  // conversion to std::string, which throws on an object (found by fuzzing with clang).
  const auto format = doc.is_object() ? doc.find("format") : doc.end();
  return format != doc.end() && format->is_string() && format->get<std::string>() == kTraceFormatName;
}

cut::Condition scenario_condition(const json& until, const std::string& field) {
  if (!until.is_object()) throw std::invalid_argument(field + ": not an object");
  cut::Condition c;
  if (until.contains("leader")) c.leader = opt_int(until["leader"]);
  if (until.contains("leader_epoch")) c.leader_epoch = until["leader_epoch"].get<int>();
  if (until.contains("isr")) c.isr = int_list(until["isr"], field + ".isr");
  if (until.contains("elr")) c.elr = int_list(until["elr"], field + ".elr");
  if (until.contains("last_known_elr")) c.last_known_elr = int_list(until["last_known_elr"], field + ".last_known_elr");
  if (until.contains("fenced")) c.fenced = int_list(until["fenced"], field + ".fenced");
  if (until.contains("hw")) c.hw = opt_int(until["hw"]);
  if (until.contains("voters")) c.voters = int_list(until["voters"], field + ".voters");
  if (until.contains("observers")) c.observers = int_list(until["observers"], field + ".observers");
  const json replicas_1 = until.value("replicas", json::object());
  for (const auto& [id, r] : replicas_1.items()) {
    cut::ReplicaCondition& rc = c.replicas[std::stoi(id)];
    if (r.contains("alive")) rc.alive = r["alive"].get<bool>();
    if (r.contains("leo")) rc.leo = r["leo"].get<int>();
    if (r.contains("log")) {
      std::vector<cut::LogRecord> log;
      for (const json& e : r["log"]) log.push_back({e.at(0).get<int>(), e.at(1).get<int>()});
      rc.log = log;
    }
    if (r.contains("view")) {
      rc.has_view = r["view"].is_object();
      if (r["view"].is_object()) {
        rc.view_leader = opt_int(r["view"].value("leader", json()));
        rc.view_leader_epoch = r["view"].value("leader_epoch", 0);
        rc.view_isr = int_list(r["view"].value("isr", json::array()), field + ".replicas." + id + ".view.isr");
      }
    }
  }
  const json sends_2 = until.value("sends", json::object());
  for (const auto& [record, result] : sends_2.items()) {
    const std::optional<cut::SendResult> r = scenario_send_result(result.get<std::string>());
    if (!r) throw std::invalid_argument(field + ".sends." + record + ": unknown result " + result.dump());
    c.sends[std::stoi(record)] = *r;
  }
  return c;
}

std::optional<cut::SendResult> scenario_send_result(const std::string& name) {
  for (cut::SendResult r : {cut::SendResult::Unsent, cut::SendResult::Pending, cut::SendResult::Acked,
                            cut::SendResult::NotEnoughReplicas, cut::SendResult::NotEnoughReplicasAfterAppend,
                            cut::SendResult::RequestTimedOut, cut::SendResult::NotLeaderOrFollower}) {
    if (name == cut::send_result_name(r)) return r;
  }
  return std::nullopt;
}

cut::CrashKind scenario_crash_kind(const std::string& kind, const std::string& field) {
  if (kind == "kill") return cut::CrashKind::Kill;
  if (kind == "clean") return cut::CrashKind::Clean;
  if (kind == "power") return cut::CrashKind::PowerLoss;
  if (kind == "disk") return cut::CrashKind::DiskLoss;
  throw std::invalid_argument(field + ": unknown crash kind \"" + kind + "\"; allowed: kill, clean, power, disk");
}

cut::NetworkSide scenario_side(const std::string& side, const std::string& field) {
  if (side == "quorum") return cut::NetworkSide::Quorum;
  if (side == "brokers") return cut::NetworkSide::Brokers;
  if (side == "clients") return cut::NetworkSide::Clients;
  throw std::invalid_argument(field + ": unknown side \"" + side + "\"; allowed: quorum, brokers, clients");
}

int records_per_send(const json& scenario) {
  const json producer = producer_of(scenario);
  if (!producer.is_object() || !producer.contains("records_per_send")) return 1;
  const json& k = producer["records_per_send"];
  if (!k.is_number_integer() || k.get<long long>() < kMinRecordsPerSend || k.get<long long>() > kMaxRecordsPerSend) {
    throw std::invalid_argument("clients.producer.records_per_send: " + k.dump() + " is not allowed (an integer from " +
                                std::to_string(kMinRecordsPerSend) + " to " + std::to_string(kMaxRecordsPerSend) +
                                ": Kafka records per send, one batch)");
  }
  return k.get<int>();
}

int producer_request_timeout_ms(const json& scenario) {
  const json producer = producer_of(scenario);
  if (!producer.is_object() || !producer.contains("request.timeout.ms")) return kDefaultRequestTimeoutMs;
  const json& t = producer["request.timeout.ms"];
  if (!t.is_number_integer() || t.get<long long>() < kMinRequestTimeoutMs || t.get<long long>() > kMaxRequestTimeoutMs) {
    throw std::invalid_argument("clients.producer.request.timeout.ms: " + t.dump() +
                                " is not allowed (an integer from " + std::to_string(kMinRequestTimeoutMs) + " to " +
                                std::to_string(kMaxRequestTimeoutMs) + " ms)");
  }
  return t.get<int>();
}

}  // namespace isr::counterexamples
