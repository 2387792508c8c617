// The recorded-execution format: header, observation shape, parsing (see recording.h).
#include "counterexamples/scenario/recording.h"

#include <algorithm>
#include <iterator>
#include <utility>
#include <sstream>
#include <stdexcept>

#include "counterexamples/scenario/scenario_reader.h"

namespace isr::counterexamples {

using nlohmann::json;

namespace {

template <size_t N>
bool one_of(const std::string& value, const char* const (&allowed)[N]) {
  return std::find_if(std::begin(allowed), std::end(allowed), [&](const char* a) { return value == a; }) !=
         std::end(allowed);
}

template <size_t N>
std::string listing(const char* const (&allowed)[N]) {
  std::string out;
  for (const char* a : allowed) out += (out.empty() ? "" : ", ") + std::string(a);
  return out;
}

// A field of an event line: `where` is "line 3", the error names the field and what is allowed.
struct Line {
  const json& doc;
  std::string where;

  [[noreturn]] void fail(const std::string& field, const std::string& allowed) const {
    const json v = doc.contains(field) ? doc[field] : json();
    throw std::invalid_argument(where + ": " + field + ": " + (doc.contains(field) ? v.dump() : "missing") +
                                " is not allowed (" + allowed + ")");
  }
  int integer(const std::string& field, int min, int max) const {
    if (!doc.contains(field) || !doc[field].is_number_integer() || doc[field].get<long long>() < min ||
        doc[field].get<long long>() > max) {
      fail(field, "an integer from " + std::to_string(min) + " to " + std::to_string(max));
    }
    return doc[field].get<int>();
  }
  std::string text(const std::string& field, const std::string& allowed_text) const {
    if (!doc.contains(field) || !doc[field].is_string()) fail(field, allowed_text);
    return doc[field].get<std::string>();
  }
};

constexpr int kMaxId = 1000;

cut::SendResult outcome_of(const Line& line, const std::string& field) {
  const std::string name =
      line.text(field, "a send result: unsent, pending, acked, NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS_AFTER_APPEND, "
                       "REQUEST_TIMED_OUT, NOT_LEADER_OR_FOLLOWER");
  const std::optional<cut::SendResult> r = scenario_send_result(name);
  if (!r) {
    line.fail(field, "a send result: unsent, pending, acked, NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS_AFTER_APPEND, "
                     "REQUEST_TIMED_OUT, NOT_LEADER_OR_FOLLOWER");
  }
  return *r;
}

// The observable-state object of an observe event, checked field by field before the
// scenario reader turns it into a condition (which assumes the shape).
void check_observation(const json& state, const std::string& where) {
  auto bad = [&](const std::string& field, const std::string& allowed) {
    throw std::invalid_argument(where + ": state." + field + ": not allowed (" + allowed + ")");
  };
  auto node_or_null = [](const json& v) { return v.is_null() || v.is_number_integer(); };
  auto ints = [](const json& v) {
    return v.is_array() && std::all_of(v.begin(), v.end(), [](const json& x) { return x.is_number_integer(); });
  };
  auto digits = [](const std::string& k) {
    return !k.empty() && k.size() < 7 && std::all_of(k.begin(), k.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  for (const auto& [key, v] : state.items()) {
    if (key == "leader" || key == "hw") {
      if (!node_or_null(v)) bad(key, "an integer or null");
    } else if (key == "leader_epoch") {
      if (!v.is_number_integer()) bad(key, "an integer");
    } else if (key == "isr" || key == "elr" || key == "last_known_elr" || key == "fenced" || key == "voters" ||
               key == "observers") {
      if (!ints(v)) bad(key, "an array of node ids");
    } else if (key == "replicas") {
      if (!v.is_object()) bad(key, "an object of node id -> replica");
      for (const auto& [id, r] : v.items()) {
        const std::string f = "replicas." + id;
        if (!digits(id)) bad(f, "a node id (digits) as the key");
        if (!r.is_object()) bad(f, "an object with alive, leo, log, view");
        if (r.contains("alive") && !r["alive"].is_boolean()) bad(f + ".alive", "true or false");
        if (r.contains("leo") && !r["leo"].is_number_integer()) bad(f + ".leo", "an integer");
        if (r.contains("log")) {
          if (!r["log"].is_array()) bad(f + ".log", "an array of [leader epoch, record]");
          for (const json& e : r["log"])
            if (!ints(e) || e.size() != 2) bad(f + ".log", "an array of [leader epoch, record]");
        }
        if (r.contains("view") && !r["view"].is_null()) {
          const json& view = r["view"];
          if (!view.is_object() || !node_or_null(view.value("leader", json())) ||
              !view.value("leader_epoch", json(0)).is_number_integer() || !ints(view.value("isr", json::array()))) {
            bad(f + ".view", "null or {leader: id or null, leader_epoch: integer, isr: [ids]}");
          }
        }
      }
    } else if (key == "sends") {
      if (!v.is_object()) bad(key, "an object of record id -> send result");
      for (const auto& [record, result] : v.items()) {
        if (!digits(record)) bad(key + "." + record, "a record id (digits) as the key");
        if (!result.is_string() || !scenario_send_result(result.get<std::string>())) {
          bad(key + "." + record,
              "a send result: unsent, pending, acked, NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS_AFTER_APPEND, "
              "REQUEST_TIMED_OUT, NOT_LEADER_OR_FOLLOWER");
        }
      }
    } else {
      bad(key, "one of leader, leader_epoch, isr, elr, last_known_elr, fenced, hw, replicas, sends, voters, observers");
    }
  }
}

// A client call's broker; null when the harness does not know which broker the client's
// metadata chose (a campaign's producer sends to the leader it knows, which changes with
// the faults): -1, any broker.
int known_broker(const Line& line) {
  if (line.doc.contains("broker") && line.doc["broker"].is_null()) return -1;
  if (!line.doc.contains("broker")) line.fail("broker", "a node id from 0 to " + std::to_string(kMaxId) + ", or null: not known");
  return line.integer("broker", 0, kMaxId);
}

// A committed metadata record (docs/recording.md, "Decisions").
RecordedEvent parse_decision(const Line& line, RecordedEvent e) {
  const json& doc = line.doc;
  e.op = line.text("op", listing(kRecordingDecisionOps));
  if (!one_of(e.op, kRecordingDecisionOps)) line.fail("op", listing(kRecordingDecisionOps));
  if (!doc.contains("metadata_offset") || !doc["metadata_offset"].is_number_integer() ||
      doc["metadata_offset"].get<long long>() < 0) {
    line.fail("metadata_offset", "the record's offset in __cluster_metadata, an integer >= 0");
  }
  e.metadata_offset = doc["metadata_offset"].get<long long>();
  e.record_type = line.text("record_type", "Kafka's metadata record name, e.g. PartitionChangeRecord");
  // Bounds inside its group: events of the same group, before / after it in the file.
  if (doc.contains("after_seq") || doc.contains("before_seq")) {
    if (!e.group) line.fail(doc.contains("after_seq") ? "after_seq" : "before_seq", "only in a group");
    if (doc.contains("after_seq")) e.after_seq = line.integer("after_seq", 1, e.seq - 1);
    if (doc.contains("before_seq")) e.before_seq = line.integer("before_seq", 1, e.seq - 1);
  }
  auto ids = [&](const std::string& field, bool required) {
    std::vector<int> out;
    if (!doc.contains(field)) {
      if (required) line.fail(field, "an array of node ids");
      return out;
    }
    const json& v = doc[field];
    if (!v.is_array()) line.fail(field, "an array of node ids");
    for (const json& x : v) {
      if (!x.is_number_integer() || x.get<long long>() < 0 || x.get<long long>() > kMaxId) {
        line.fail(field, "an array of node ids from 0 to " + std::to_string(kMaxId));
      }
      out.push_back(x.get<int>());
    }
    return out;
  };
  if (e.op == "partition") {
    e.leader = line.integer("leader", -1, kMaxId);
    e.leader_epoch = line.integer("leader_epoch", 0, 1 << 30);
    e.isr = ids("isr", true);
    e.elr = ids("elr", false);
    e.last_known_elr = ids("last_known_elr", false);
    return e;
  }
  e.broker = line.integer("broker", 0, kMaxId);
  if (e.op == "register_broker") {
    if (!doc.contains("fenced") || !doc["fenced"].is_boolean()) line.fail("fenced", "true or false");
    e.fencing = doc["fenced"].get<bool>() ? "fence" : "unfence";
  } else if (e.op == "broker_change") {
    e.fencing = line.text("fencing", "fence, unfence, none");
    if (e.fencing != "fence" && e.fencing != "unfence" && e.fencing != "none") line.fail("fencing", "fence, unfence, none");
  } else {
    e.fencing = e.op == "fence_broker" ? "fence" : "unfence";
  }
  return e;
}

RecordedEvent parse_event(const json& doc, const std::string& where, int expected_seq) {
  if (!doc.is_object()) throw std::invalid_argument(where + ": not a JSON object");
  const Line line{doc, where};
  RecordedEvent e;
  e.raw = doc;
  e.seq = line.integer("seq", expected_seq, expected_seq);
  e.kind = line.text("kind", listing(kRecordingKinds));
  if (!one_of(e.kind, kRecordingKinds)) line.fail("kind", listing(kRecordingKinds));
  if (doc.contains("group")) e.group = line.integer("group", 1, 1 << 30);
  if (e.kind == "note" || e.kind == "sample") return e;  // informative, never validated
  if (e.kind == "decision") return parse_decision(line, std::move(e));
  if (e.kind == "observe") {
    if (!doc.contains("state") || !doc["state"].is_object()) line.fail("state", "an observable-state object");
    e.observed = doc["state"];
    check_observation(e.observed, where);
    try {
      (void)scenario_condition(e.observed, "state");
    } catch (const std::invalid_argument& err) {
      throw std::invalid_argument(where + ": " + err.what());
    } catch (const json::exception& err) {
      throw std::invalid_argument(where + ": state: a field has the wrong type (" + std::string(err.what()) + ")");
    }
    return e;
  }
  if (e.kind == "fault") {
    e.op = line.text("op", listing(kRecordingFaultOps));
    if (!one_of(e.op, kRecordingFaultOps)) line.fail("op", listing(kRecordingFaultOps));
    if (e.op == "elect_preferred") {
      e.leader = line.integer("leader", 0, kMaxId);
      return e;
    }
    e.node = line.integer("node", 0, kMaxId);
    if (e.op == "crash") {
      e.crash_kind = line.text("crash_kind", "kill, clean, power, disk");
      try {
        (void)scenario_crash_kind(e.crash_kind, "crash_kind");
      } catch (const std::invalid_argument&) {
        line.fail("crash_kind", "kill, clean, power, disk");
      }
    } else if (e.op == "cut" || e.op == "heal") {
      e.side = line.text("side", "quorum, brokers, clients");
      if (e.side != "quorum" && e.side != "brokers" && e.side != "clients") line.fail("side", "quorum, brokers, clients");
    }
    return e;
  }
  e.op = line.text("op", listing(kRecordingClientOps));
  if (!one_of(e.op, kRecordingClientOps)) line.fail("op", listing(kRecordingClientOps));
  if (e.op == "consume") {
    e.offset = line.integer("offset", 0, 1 << 20);
    e.broker = known_broker(line);
    if (!doc.contains("read")) line.fail("read", "the record id read, or null when nothing was readable");
    if (!doc["read"].is_null()) e.read = line.integer("read", 1, 1 << 20);
    return e;
  }
  e.record = line.integer("record", 1, 1 << 20);
  if (e.op == "produce") {
    e.broker = known_broker(line);
    if (doc.contains("response_lost")) {
      if (!doc["response_lost"].is_boolean()) line.fail("response_lost", "true or false");
      e.response_lost = doc["response_lost"].get<bool>();
    }
  }
  e.outcome = outcome_of(line, "outcome");
  return e;
}

}  // namespace

json recording_header(const json& scenario, const std::string& kafka_version) {
  const json source = scenario.value("source", json::object());
  return {{"format", kRecordingFormatName},
          {"version", kRecordingFormatVersion},
          {"scenario", scenario.value("name", "scenario")},
          {"kafka_version", kafka_version},
          {"model", source.value("model", "partition")},
          {"model_config", source.value("model_config", json::object())},
          {"producer", scenario.value("clients", json::object()).value("producer", json::object())},
          {"records_per_send", records_per_send(scenario)}};
}

json recorded_observation(const cut::PartitionObservation& o, int unknown_value) {
  json out = json::object();
  auto list = [&](const char* field, const std::vector<int>& v) {
    if (std::find(v.begin(), v.end(), unknown_value) == v.end()) out[field] = v;
  };
  auto optional_node = [&](const char* field, int v) {
    if (v != unknown_value) out[field] = v == cut::kNone ? json() : json(v);
  };
  optional_node("leader", o.leader);
  if (o.leader_epoch != unknown_value) out["leader_epoch"] = o.leader_epoch;
  list("isr", o.isr);
  list("elr", o.elr);
  list("last_known_elr", o.last_known_elr);
  list("fenced", o.fenced);
  // Dynamic quorum only (KIP-853): static clusters' recordings keep their shape.
  if (!o.voters.empty()) {
    list("voters", o.voters);
    list("observers", o.observers);
  }
  optional_node("hw", o.hw);
  json replicas = json::object();
  for (const auto& [id, r] : o.replicas) {
    json rj = {{"alive", r.alive}};
    if (r.leo != unknown_value) rj["leo"] = r.leo;
    json log = json::array();
    for (const cut::LogRecord& e : r.log) log.push_back({e.leader_epoch, e.record});
    rj["log"] = log;
    if (!r.has_view) {
      rj["view"] = json();
    } else if (r.view_leader != unknown_value && r.view_leader_epoch != unknown_value &&
               std::find(r.view_isr.begin(), r.view_isr.end(), unknown_value) == r.view_isr.end()) {
      rj["view"] = {{"leader", r.view_leader == cut::kNone ? json() : json(r.view_leader)},
                    {"leader_epoch", r.view_leader_epoch},
                    {"isr", r.view_isr}};
    }
    replicas[std::to_string(id)] = rj;
  }
  out["replicas"] = replicas;
  json sends = json::object();
  for (const auto& [record, result] : o.sends) sends[std::to_string(record)] = cut::send_result_name(result);
  out["sends"] = sends;
  return out;
}

namespace {

// A decision's after_seq / before_seq must name a harness event of its own group. Line
// numbers are seq + 1 (the header is line 1).
void check_decision_groups(const std::vector<RecordedEvent>& events) {
  for (const RecordedEvent& e : events) {
    const std::string where = "line " + std::to_string(e.seq + 1);
    for (const auto& [field, seq] : {std::pair{"after_seq", e.after_seq}, std::pair{"before_seq", e.before_seq}}) {
      if (seq == 0) continue;
      const RecordedEvent& bound = events[static_cast<std::size_t>(seq - 1)];
      if (bound.group != e.group || (bound.kind != "fault" && bound.kind != "client" && bound.kind != "observe")) {
        throw std::invalid_argument(where + ": " + field + ": " + std::to_string(seq) +
                                    " is not allowed (the seq of a harness event of the same group)");
      }
    }
  }
}

}  // namespace

Recording parse_recording(const std::string& text) {
  Recording out;
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = "line " + std::to_string(number);
    json doc;
    try {
      doc = json::parse(line);
    } catch (const json::parse_error& e) {
      throw std::invalid_argument(where + ": not JSON (" + std::string(e.what()) + ")");
    }
    if (out.header.is_null()) {
      if (!doc.is_object() || doc.value("format", json()) != kRecordingFormatName) {
        throw std::invalid_argument(where + ": format: the first line must be the header with format \"" +
                                    std::string(kRecordingFormatName) + "\"");
      }
      if (doc.value("version", json()) != kRecordingFormatVersion) {
        throw std::invalid_argument(where + ": version: " + doc.value("version", json()).dump() +
                                    " is not allowed (" + std::to_string(kRecordingFormatVersion) + ")");
      }
      if (!doc.contains("model_config") || !doc["model_config"].is_object()) {
        throw std::invalid_argument(where + ": model_config: missing or not an object (the model configuration "
                                            "the recorded scenario was exported from)");
      }
      out.header = doc;
      continue;
    }
    out.events.push_back(parse_event(doc, where, static_cast<int>(out.events.size()) + 1));
  }
  if (out.header.is_null()) throw std::invalid_argument("line 1: format: empty recording, no header");
  check_decision_groups(out.events);
  return out;
}

std::string recording_text(const json& header, const std::vector<json>& events) {
  std::string out = header.dump() + "\n";
  for (const json& e : events) out += e.dump() + "\n";
  return out;
}

namespace {
std::string broker_text(int broker) { return broker < 0 ? std::string("?") : std::to_string(broker); }
}  // namespace

std::string event_text(const RecordedEvent& e) {
  std::string out = e.kind;
  if (e.kind == "observe") return out + " " + e.observed.dump();
  if (e.kind == "note") return out + " " + e.raw.value("text", "");
  if (e.kind == "sample") return out + " " + e.raw.value("state", nlohmann::json()).dump();
  if (e.kind == "decision") {
    out += " " + e.record_type + " at metadata offset " + std::to_string(e.metadata_offset);
    auto ids = [](const std::vector<int>& v) {
      std::string t = "[";
      for (std::size_t i = 0; i < v.size(); ++i) t += (i ? "," : "") + std::to_string(v[i]);
      return t + "]";
    };
    if (e.op == "partition") {
      return out + ": leader " + (e.leader < 0 ? std::string("none") : std::to_string(e.leader)) + ", leader epoch " +
             std::to_string(e.leader_epoch) + ", isr " + ids(e.isr) + ", elr " + ids(e.elr);
    }
    return out + ": broker " + std::to_string(e.broker) + (e.fencing == "none" ? "" : ", " + e.fencing + "d");
  }
  out += " " + e.op;
  if (e.op == "elect_preferred") return out + " leader " + std::to_string(e.leader);
  if (e.kind == "fault") {
    out += " node " + std::to_string(e.node);
    if (!e.crash_kind.empty()) out += " " + e.crash_kind;
    if (!e.side.empty()) out += " " + e.side;
    return out;
  }
  if (e.op == "consume") {
    return out + " offset " + std::to_string(e.offset) + " from broker " + broker_text(e.broker) + ": read " +
           (e.read ? std::to_string(*e.read) : std::string("nothing"));
  }
  out += " record " + std::to_string(e.record);
  if (e.op == "produce") out += " to broker " + broker_text(e.broker) + (e.response_lost ? " (answer dropped)" : "");
  return out + ": " + cut::send_result_name(*e.outcome);
}

}  // namespace isr::counterexamples
