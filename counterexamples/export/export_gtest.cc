// Scenario -> GoogleTest source (see export_gtest.h).
#include "counterexamples/export/export_gtest.h"

#include <sstream>
#include <vector>

#include "counterexamples/trace/trace_reader.h"
#include "spec/partition/properties/catalog.h"

namespace isr::counterexamples {

using nlohmann::ordered_json;

namespace {

const ordered_json& need(const ordered_json& object, const std::string& parent, const char* key) {
  if (!object.is_object() || !object.contains(key)) {
    throw TraceFormatError(parent.empty() ? key : parent + "." + key, "missing");
  }
  return object[key];
}

std::string send_result_code(const std::string& kafka_name) {
  if (kafka_name == "acked") return "SendResult::Acked";
  if (kafka_name == "pending") return "SendResult::Pending";
  if (kafka_name == "unsent") return "SendResult::Unsent";
  if (kafka_name == "NOT_ENOUGH_REPLICAS") return "SendResult::NotEnoughReplicas";
  if (kafka_name == "NOT_ENOUGH_REPLICAS_AFTER_APPEND") return "SendResult::NotEnoughReplicasAfterAppend";
  if (kafka_name == "REQUEST_TIMED_OUT") return "SendResult::RequestTimedOut";
  if (kafka_name == "NOT_LEADER_OR_FOLLOWER") return "SendResult::NotLeaderOrFollower";
  throw TraceFormatError("send result", "unknown \"" + kafka_name +
                                            "\"; allowed: acked, pending, unsent, NOT_ENOUGH_REPLICAS, "
                                            "NOT_ENOUGH_REPLICAS_AFTER_APPEND, REQUEST_TIMED_OUT, "
                                            "NOT_LEADER_OR_FOLLOWER");
}

std::string node_code(const ordered_json& v) { return v.is_number_integer() ? v.dump() : "kNone"; }

std::string ints_code(const ordered_json& v) {
  std::string out = "std::vector<int>{";
  for (size_t i = 0; v.is_array() && i < v.size(); ++i) out += (i ? ", " : "") + v[i].dump();
  return out + "}";
}

std::string log_code(const ordered_json& v) {
  std::string out = "std::vector<LogRecord>{";
  for (size_t i = 0; v.is_array() && i < v.size(); ++i) {
    out += (i ? ", " : "") + std::string("{") + v[i][0].dump() + ", " + v[i][1].dump() + "}";
  }
  return out + "}";
}

// A string literal (the values we quote are digests and names: no quotes inside).
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

// Statements filling Condition `c` from an observable state (`until`) and a model hint.
void condition_code(std::ostream& out, const ordered_json& until, const ordered_json& model,
                    const std::string& indent) {
  out << indent << "Condition c;\n";
  if (until.contains("leader")) out << indent << "c.leader = " << node_code(until["leader"]) << ";\n";
  if (until.contains("leader_epoch")) out << indent << "c.leader_epoch = " << until["leader_epoch"].dump() << ";\n";
  for (const char* set : {"isr", "elr", "last_known_elr", "fenced", "voters", "observers"}) {
    if (until.contains(set)) out << indent << "c." << set << " = " << ints_code(until[set]) << ";\n";
  }
  if (until.contains("hw")) out << indent << "c.hw = " << node_code(until["hw"]) << ";\n";
  if (until.contains("replicas")) {
    for (const auto& [id, r] : until["replicas"].items()) {
      const std::string rc = "c.replicas[" + id + "]";
      if (r.contains("alive")) out << indent << rc << ".alive = " << r["alive"].dump() << ";\n";
      if (r.contains("leo")) out << indent << rc << ".leo = " << r["leo"].dump() << ";\n";
      if (r.contains("log")) out << indent << rc << ".log = " << log_code(r["log"]) << ";\n";
      if (r.contains("view")) {
        const ordered_json& view = r["view"];
        out << indent << rc << ".has_view = " << (view.is_object() ? "true" : "false") << ";\n";
        if (view.is_object()) {
          out << indent << rc << ".view_leader = " << node_code(view["leader"]) << ";\n";
          out << indent << rc << ".view_leader_epoch = " << view["leader_epoch"].dump() << ";\n";
          out << indent << rc << ".view_isr = " << ints_code(view["isr"]) << ";\n";
        }
      }
    }
  }
  if (until.contains("sends")) {
    for (const auto& [record, result] : until["sends"].items()) {
      out << indent << "c.sends[" << record << "] = " << send_result_code(result.get<std::string>()) << ";\n";
    }
  }
  if (model.is_object()) {
    if (model.contains("state")) out << indent << "c.model_state = " << quoted(model["state"].get<std::string>()) << ";\n";
    if (model.contains("steps")) out << indent << "c.model_steps = " << model["steps"].dump() << ";\n";
  }
}

std::string crash_kind_code(const std::string& mode) {
  if (mode == "clean") return "CrashKind::Clean";
  if (mode == "kill") return "CrashKind::Kill";
  if (mode == "power") return "CrashKind::PowerLoss";
  if (mode == "disk") return "CrashKind::DiskLoss";
  throw TraceFormatError("crash.kind", "unknown \"" + mode + "\"; allowed: clean, kill, power, disk");
}

std::string side_code(const std::string& side) {
  if (side == "quorum") return "NetworkSide::Quorum";
  if (side == "brokers") return "NetworkSide::Brokers";
  if (side == "clients") return "NetworkSide::Clients";
  throw TraceFormatError("side", "unknown \"" + side + "\"; allowed: quorum, brokers, clients");
}

// A comment line: no newlines, no raw-string terminators.
std::string comment(std::string text) {
  for (char& ch : text)
    if (ch == '\n' || ch == '\r') ch = ' ';
  return text;
}

// A guard's end: the property the trace violates, judged on what the implementation did.
// The records it judges are the trace's lost ones; a send the implementation did not
// acknowledge cannot be lost (it was never promised).
void guard_end(std::ostream& out, const ordered_json& violation, const ordered_json& records) {
  out << "  const PartitionObservation end = cluster->describe_partition();\n"
      << "  for (const std::string& step : off_path) std::cout << \"[ guard    ] not on the trace's path at \" << step << \"\\n\";\n"
      << "  // The hazard: " << comment(violation.value("observed_as", std::string())) << "\n";
  // An acknowledged record stays in the log of every later leader; with no leader at the
  // end (the partition offline) nothing was served without it.
  for (const ordered_json& r : records.value("acked_missing_on_leader", ordered_json::array())) {
    out << "  if (end.sends.count(" << r.dump() << ") && end.sends.at(" << r.dump() << ") == SendResult::Acked &&\n"
        << "      end.leader != kNone && end.replicas.count(end.leader)) {\n"
        << "    EXPECT_TRUE(holds_record(end.replicas.at(end.leader), " << r.dump() << ")) << \"acked record "
        << r.dump() << " is not on the leader N\" << end.leader;\n  }\n";
  }
  for (const ordered_json& r : records.value("acked_missing_everywhere", ordered_json::array())) {
    out << "  if (end.sends.count(" << r.dump() << ") && end.sends.at(" << r.dump() << ") == SendResult::Acked) {\n"
        << "    bool somewhere = false;\n"
        << "    for (const auto& [node, replica] : end.replicas) somewhere = somewhere || holds_record(replica, "
        << r.dump() << ");\n"
        << "    EXPECT_TRUE(somewhere) << \"acked record " << r.dump() << " is on no replica\";\n  }\n";
  }
  if (properties::client_evidence(violation.value("property", std::string())) ==
      properties::ClientEvidence::ReadRecordChanged) {
    out << "  if (end.leader != kNone && end.replicas.count(end.leader)) {\n"
        << "    const std::vector<LogRecord>& log = end.replicas.at(end.leader).log;\n"
        << "    for (const auto& [offset, record] : served) {\n"
        << "      EXPECT_TRUE(static_cast<size_t>(offset) < log.size() && log[offset].record == record)\n"
        << "          << \"the record read at offset \" << offset << \" changed or is gone\";\n"
        << "    }\n  }\n";
  }
  out << "}\n\n}  // namespace\n";
}

}  // namespace

std::string cpp_identifier(const std::string& name) {
  std::string out;
  for (char ch : name) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
    if (ok) {
      out += ch;
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out = "s_" + out;
  return out;
}

std::string scenario_to_gtest(const ordered_json& scenario, GtestKind kind) {
  const bool guard = kind == GtestKind::Guard;
  const std::string name = need(scenario, "", "name").get<std::string>();
  const std::string id = cpp_identifier(name);
  const ordered_json& steps = need(scenario, "", "steps");
  const ordered_json& expected = need(scenario, "", "expected");
  const ordered_json& violation = need(expected, "expected", "violation");
  const ordered_json& records = need(expected, "expected", "records");

  std::ostringstream out;
  out << "// Generated by `isrcheck export --format gtest" << (guard ? " --guard" : "") << "` from scenario \""
      << comment(name) << "\".\n"
      << (guard ? "// A regression guard: it fails if the hazard below happens (docs/scenarios.md).\n"
                : "// A reproduction: it passes where the hazard below happens (docs/scenarios.md).\n")
      << "// Do not edit: regenerate from the trace. docs/scenarios.md describes the scenario.\n"
      << "// " << comment(need(violation, "expected.violation", "explanation").get<std::string>()) << "\n"
      << "//\n"
      << "// Link with one adapter defining isr::cut::make_cluster_under_test (ours drives the\n"
      << "// model: counterexamples/export/model_cluster.h).\n"
      << (guard ? "#include <iostream>\n#include <map>\n" : "")
      << "#include <optional>\n#include <string>\n#include <vector>\n\n"
      << "#include <gtest/gtest.h>\n\n"
      << "#include \"counterexamples/scenario/cluster_under_test.h\"\n\n"
      << "namespace {\n\n"
      << "using namespace isr::cut;\n\n"
      << "// The scenario itself, for adapters that read the cluster and client settings.\n"
      << "constexpr const char kScenario_" << id << "[] = R\"scenario_json(" << scenario.dump()
      << ")scenario_json\";\n\n"
      << "[[maybe_unused]] bool holds_record(const ReplicaObservation& r, int record) {\n"
      << "  for (const LogRecord& e : r.log)\n"
      << "    if (e.record == record) return true;\n"
      << "  return false;\n"
      << "}\n\n"
      << "TEST(" << (guard ? "Guard" : "Scenario") << ", " << id << ") {\n"
      << "  std::unique_ptr<ClusterUnderTest> cluster = make_cluster_under_test({\"" << id << "\", kScenario_"
      << id << "});\n"
      << "  ASSERT_NE(cluster, nullptr);\n"
      << "  std::string why;\n";
  if (guard) {
    out << "  std::vector<std::string> off_path;  // waits the implementation did not reach\n"
        << "  std::map<int, int> served;            // offset -> record the consumer was served\n";
  }

  if (scenario.contains("initial")) {
    out << "  {  // the cluster is up: the topic created, its leader elected\n";
    condition_code(out, scenario["initial"]["until"], scenario["initial"].value("model", ordered_json()), "    ");
    out << "    ASSERT_TRUE(cluster->wait_until(c, &why)) << \"initial state: \" << why;\n  }\n";
  }

  for (const ordered_json& step : steps) {
    const std::string op = need(step, "steps[]", "op").get<std::string>();
    const std::string label = "step " + step.value("step", ordered_json(0)).dump();
    const std::string what = step.contains("description") ? step["description"].get<std::string>() : op;
    out << "  // " << comment(label + ": " + what) << "\n";
    if (op == "produce") {
      const bool lost = step.value("response_lost", false);
      const std::string call = std::string("cluster->") + (lost ? "produce_response_lost(" : "produce(") +
                               step["record"].dump() + ", " + step["broker"].dump() + ")";
      if (guard) {
        // Whatever the answer: the end judges what was acknowledged.
        out << "  " << call << ";\n";
      } else {
        out << "  EXPECT_EQ(" << call << ", " << send_result_code(step["expect"].get<std::string>()) << ") << \""
            << label << "\";\n";
      }
    } else if (op == "expire_send") {
      if (guard) {
        out << "  cluster->expire_send(" << step["record"].dump() << ");\n";
      } else {
        out << "  EXPECT_EQ(cluster->expire_send(" << step["record"].dump() << "), SendResult::RequestTimedOut) << \""
            << label << "\";\n";
      }
    } else if (op == "consume") {
      const ordered_json& record = step["expect_record"];
      const std::string call = "cluster->consume(" + step["offset"].dump() + ", " + step["broker"].dump() + ")";
      if (guard) {
        // What the consumer was served must stay at its offset (judged at the end).
        out << "  if (const std::optional<int> r = " << call << ") served[" << step["offset"].dump() << "] = *r;\n";
      } else {
        out << "  EXPECT_EQ(" << call << ", "
            << (record.is_number_integer() ? "std::optional<int>(" + record.dump() + ")" : "std::nullopt")
            << ") << \"" << label << "\";\n";
      }
    } else if (op == "crash") {
      std::string leader_after = "std::nullopt";
      if (step.contains("leader_after")) {
        const ordered_json& l = step["leader_after"];
        if (l.is_number_integer()) leader_after = "std::optional<int>(" + l.dump() + ")";
        if (l.is_null()) leader_after = "std::optional<int>(kNone)";
      }
      out << "  cluster->crash(" << step["node"].dump() << ", " << crash_kind_code(step["kind"].get<std::string>())
          << ", " << leader_after << ");\n";
    } else if (op == "restart") {
      out << "  cluster->restart(" << step["node"].dump() << ");\n";
    } else if (op == "cut" || op == "heal") {
      out << "  cluster->" << op << "(" << step["node"].dump() << ", " << side_code(step["side"].get<std::string>())
          << ");\n";
    } else if (op == "elect_preferred") {
      out << "  cluster->elect_preferred(" << step["leader"].dump() << ");\n";
    } else if (op == "pause" || op == "resume" || op == "remove_voter" || op == "add_voter") {
      out << "  cluster->" << op << "(" << step["node"].dump() << ");\n";
    } else if (op == "wait") {
      out << "  {\n";
      condition_code(out, need(step, "steps[]", "until"), step.value("model", ordered_json()), "    ");
      if (guard) {
        out << "    if (!cluster->wait_until(c, &why)) off_path.push_back(\"" << label << ": \" + why);\n  }\n";
      } else {
        out << "    ASSERT_TRUE(cluster->wait_until(c, &why)) << \"" << label << ": \" << why;\n  }\n";
      }
    } else {
      throw TraceFormatError("steps[].op", "unknown \"" + op +
                                               "\"; allowed: produce, expire_send, consume, crash, restart, "
                                               "cut, heal, elect_preferred, pause, resume, remove_voter, add_voter, wait");
    }
  }

  if (guard) {
    guard_end(out, violation, records);
    return out.str();
  }
  out << "  // The end: every observation the trace ends with.\n  {\n";
  condition_code(out, need(expected, "expected", "final"), ordered_json(), "    ");
  out << "    const std::vector<std::string> differences = cluster->differences(c, cluster->describe_partition());\n"
      << "    EXPECT_TRUE(differences.empty()) << \"final state differs: \" << (differences.empty() ? \"\" : "
         "differences.front());\n  }\n";

  // The violation in client terms.
  out << "  [[maybe_unused]] const PartitionObservation end = cluster->describe_partition();\n";
  const ordered_json& leader = records.value("leader", ordered_json());
  const ordered_json& missing_leader = records.value("acked_missing_on_leader", ordered_json::array());
  if (leader.is_number_integer() && !missing_leader.empty()) {
    out << "  // " << comment(violation.value("observed_as", std::string())) << "\n"
        << "  ASSERT_EQ(end.replicas.count(" << leader.dump() << "), 1u);\n";
    for (const ordered_json& r : missing_leader) {
      out << "  EXPECT_EQ(end.sends.at(" << r.dump() << "), SendResult::Acked);\n"
          << "  EXPECT_FALSE(holds_record(end.replicas.at(" << leader.dump() << "), " << r.dump()
          << ")) << \"acked record " << r.dump() << " is on the leader\";\n";
    }
  }
  const ordered_json& missing_everywhere = records.value("acked_missing_everywhere", ordered_json::array());
  for (const ordered_json& r : missing_everywhere) {
    out << "  EXPECT_EQ(end.sends.at(" << r.dump() << "), SendResult::Acked);\n"
        << "  for (const auto& [node, replica] : end.replicas) {\n"
        << "    EXPECT_FALSE(holds_record(replica, " << r.dump() << ")) << \"acked record " << r.dump()
        << " is on replica \" << node;\n  }\n";
  }
  const ordered_json& consumed = expected.value("consumed", ordered_json::array());
  if (properties::client_evidence(violation.value("property", std::string())) ==
          properties::ClientEvidence::ReadRecordChanged &&
      leader.is_number_integer()) {
    out << "  {  // a record read earlier is not at its offset on the leader any more\n"
        << "    const std::vector<LogRecord>& log = end.replicas.at(" << leader.dump() << ").log;\n"
        << "    bool changed = false;\n";
    for (const ordered_json& c : consumed) {
      out << "    changed = changed || !(" << c["offset"].dump() << "u < log.size()) || log[" << c["offset"].dump()
          << "].record != " << c["record"].dump() << ";\n";
    }
    out << "    EXPECT_TRUE(changed);\n  }\n";
  }
  out << "}\n\n}  // namespace\n";
  return out.str();
}

}  // namespace isr::counterexamples
