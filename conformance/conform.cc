// One scenario against a real cluster (see conform.h).
#include "conformance/conform.h"

#include <chrono>
#include <cstdint>
#include <stdexcept>

#include "conformance/batch_mapping.h"
#include "conformance/real_kafka_cluster.h"
#include "conformance/steering.h"

namespace isr::conformance {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

int opt_int(const json& v) { return v.is_number_integer() ? v.get<int>() : cut::kNone; }

std::vector<int> int_list(const json& v, const std::string& field) {
  if (!v.is_array()) throw std::invalid_argument(field + ": not an array of node ids");
  std::vector<int> out;
  for (const json& x : v) out.push_back(x.get<int>());
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<cut::SendResult> send_result_named(const std::string& name) {
  for (cut::SendResult r : {cut::SendResult::Unsent, cut::SendResult::Pending, cut::SendResult::Acked,
                            cut::SendResult::NotEnoughReplicas, cut::SendResult::NotEnoughReplicasAfterAppend,
                            cut::SendResult::RequestTimedOut, cut::SendResult::NotLeaderOrFollower}) {
    if (name == cut::send_result_name(r)) return r;
  }
  return std::nullopt;
}

// The Condition of an observable-state object (`until`, `final`; docs/scenarios.md).
cut::Condition condition_of(const json& until, const std::string& field) {
  if (!until.is_object()) throw std::invalid_argument(field + ": not an object");
  cut::Condition c;
  if (until.contains("leader")) c.leader = opt_int(until["leader"]);
  if (until.contains("leader_epoch")) c.leader_epoch = until["leader_epoch"].get<int>();
  if (until.contains("isr")) c.isr = int_list(until["isr"], field + ".isr");
  if (until.contains("elr")) c.elr = int_list(until["elr"], field + ".elr");
  if (until.contains("last_known_elr")) c.last_known_elr = int_list(until["last_known_elr"], field + ".last_known_elr");
  if (until.contains("fenced")) c.fenced = int_list(until["fenced"], field + ".fenced");
  if (until.contains("hw")) c.hw = opt_int(until["hw"]);
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
    const std::optional<cut::SendResult> r = send_result_named(result.get<std::string>());
    if (!r) throw std::invalid_argument(field + ".sends." + record + ": unknown result " + result.dump());
    c.sends[std::stoi(record)] = *r;
  }
  return c;
}

json list_json(const std::vector<int>& v) { return json(v); }

// The observation in the shape of `until`.
json observation_json(const cut::PartitionObservation& o) {
  json out;
  out["leader"] = o.leader == cut::kNone ? json() : json(o.leader);
  out["leader_epoch"] = o.leader_epoch;
  out["isr"] = list_json(o.isr);
  out["elr"] = list_json(o.elr);
  out["last_known_elr"] = list_json(o.last_known_elr);
  out["fenced"] = list_json(o.fenced);
  out["hw"] = o.hw == cut::kNone ? json() : json(o.hw);
  json replicas = json::object();
  for (const auto& [id, r] : o.replicas) {
    json log = json::array();
    for (const cut::LogRecord& e : r.log) log.push_back({e.leader_epoch, e.record});
    json rj = {{"alive", r.alive}, {"leo", r.leo}, {"log", log}};
    rj["view"] = r.has_view ? json{{"leader", r.view_leader == cut::kNone ? json() : json(r.view_leader)},
                                   {"leader_epoch", r.view_leader_epoch},
                                   {"isr", r.view_isr}}
                            : json();
    replicas[std::to_string(id)] = rj;
  }
  out["replicas"] = replicas;
  json sends = json::object();
  for (const auto& [record, result] : o.sends) sends[std::to_string(record)] = cut::send_result_name(result);
  out["sends"] = sends;
  return out;
}

// "field | expected | observed" for every field `until` names.
std::vector<std::string> side_by_side(const json& until, const json& observed) {
  std::vector<std::string> out;
  auto row = [&](const std::string& field, const json& e, const json& o) {
    out.push_back((e == o ? "  " : "≠ ") + field + " | " + e.dump() + " | " + o.dump());
  };
  for (const auto& [key, value] : until.items()) {
    if (key == "replicas") {
      for (const auto& [id, r] : value.items()) {
        const json orep = observed["replicas"].value(id, json::object());
        for (const auto& [k, v] : r.items()) row("replicas." + id + "." + k, v, orep.value(k, json()));
      }
    } else {
      row(key, value, observed.value(key, json()));
    }
  }
  return out;
}

cut::CrashKind crash_kind(const std::string& kind, const std::string& field) {
  if (kind == "kill") return cut::CrashKind::Kill;
  if (kind == "clean") return cut::CrashKind::Clean;
  if (kind == "power") return cut::CrashKind::PowerLoss;
  if (kind == "disk") return cut::CrashKind::DiskLoss;
  throw std::invalid_argument(field + ": unknown crash kind \"" + kind + "\"; allowed: kill, clean, power, disk");
}

cut::NetworkSide side_of(const std::string& side, const std::string& field) {
  if (side == "quorum") return cut::NetworkSide::Quorum;
  if (side == "brokers") return cut::NetworkSide::Brokers;
  if (side == "clients") return cut::NetworkSide::Clients;
  throw std::invalid_argument(field + ": unknown side \"" + side + "\"; allowed: quorum, brokers, clients");
}

const char* const kOps[] = {"produce", "expire_send", "crash", "restart", "cut",  "heal",
                            "consume", "elect_preferred", "pause", "resume", "wait"};

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Conforms: return "conforms";
    case Verdict::Diverges: return "diverges";
    case Verdict::NotExecutable: return "not executable here";
    case Verdict::Interrupted: return "interrupted";
    case Verdict::Error: return "error";
  }
  return "?";
}

json ConformResult::to_json() const {
  return {{"name", name},        {"verdict", verdict_name(verdict)}, {"step", step},
          {"step_text", step_text}, {"expected", expected},        {"observed", observed},
          {"side_by_side", side_by_side}, {"reason", reason},       {"steered", steered},
          {"notes", notes},      {"steps_run", steps_run},          {"setup_seconds", setup_seconds},
          {"run_seconds", run_seconds}, {"new_cluster", new_cluster}, {"work_dir", work_dir}};
}

namespace {

// One step of validate_scenario.
void validate_step(const json& st, const std::string& f) {
  const std::string op = st.value("op", "");
  if (std::find(std::begin(kOps), std::end(kOps), op) == std::end(kOps)) {
    throw std::invalid_argument(f + ".op: unknown op \"" + op +
                                "\"; allowed: produce, expire_send, crash, restart, cut, heal, consume, "
                                "elect_preferred, pause, resume, wait");
  }
  if (op == "wait") condition_of(st.value("until", json()), f + ".until");
  if (op == "crash") crash_kind(st.value("kind", ""), f + ".kind");
  if (op == "cut" || op == "heal") side_of(st.value("side", ""), f + ".side");
  if ((op == "produce" || op == "expire_send") && !send_result_named(st.value("expect", ""))) {
    throw std::invalid_argument(f + ".expect: unknown send result " + st.value("expect", json()).dump());
  }
}

// Runs `check`, turning what json's get<> and std::stoi throw on a value of the wrong
// type or out of range (an exit 4 "internal error" before, found by fuzz/) into
// invalid_argument naming `field`, the part of the scenario being validated.
template <class F>
void with_typed_values(const std::string& field, F&& check) {
  auto refuse = [&](const std::string& what) {
    throw std::invalid_argument(field + ": a value has the wrong type or is out of range (" + what +
                                "); see docs/scenarios.md");
  };
  try {
    check();
  } catch (const json::exception& e) {
    const std::string what = e.what();
    const auto end = what.find("] ");
    refuse(end == std::string::npos ? what : what.substr(end + 2));
  } catch (const std::out_of_range&) {
    refuse("a number out of range");
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()) == "stoi") refuse("a key that is not a number");
    throw;
  }
}

void validate_document(const json& s) {
  if (!s.is_object()) throw std::invalid_argument("the document is not a JSON object");
  // Type first, then value: comparing a json with a literal may convert the json
  // implicitly (clang), which throws on a value of another type.
  if (!s.contains("format") || !s["format"].is_string() || s["format"].get<std::string>() != "isrcheck-scenario") {
    throw std::invalid_argument("format: expected \"isrcheck-scenario\" (or a trace, \"isrcheck-trace\")");
  }
  if (!s.contains("version") || !s["version"].is_number_integer() || s["version"].get<int64_t>() != 1) throw std::invalid_argument("version: expected 1");
  for (const char* f : {"cluster", "topic", "clients", "initial", "expected"}) {
    if (!s.contains(f) || !s[f].is_object()) throw std::invalid_argument(std::string(f) + ": missing or not an object");
  }
  if (!s.contains("steps") || !s["steps"].is_array()) throw std::invalid_argument("steps: missing or not an array");
  records_per_send(s);             // clients.producer.records_per_send, when present, is 1..1000
  producer_request_timeout_ms(s);  // clients.producer.request.timeout.ms, when present, is 100..5000
  with_typed_values("initial.until", [&] { condition_of(s["initial"].value("until", json()), "initial.until"); });
  with_typed_values("expected.final", [&] { condition_of(s["expected"].value("final", json()), "expected.final"); });
  for (size_t i = 0; i < s["steps"].size(); ++i) {
    const json& st = s["steps"][i];
    const std::string f = "steps[" + std::to_string(i) + "]";
    if (!st.is_object()) throw std::invalid_argument(f + ": not an object");
    with_typed_values(f, [&] { validate_step(st, f); });
  }
}

}  // namespace

void validate_scenario(const json& s) {
  with_typed_values("scenario", [&] { validate_document(s); });
}

ConformResult run_scenario(KafkaSession& session, const json& scenario, ConformResult* partial) {
  ConformResult result;
  ConformResult& r = partial != nullptr ? *partial : result;
  r = ConformResult{};
  r.name = scenario.value("name", "scenario");
  const auto started = Clock::now();
  auto diverge = [&](int step, const std::string& text, const std::string& expected, const std::string& observed) {
    r.verdict = Verdict::Diverges;
    r.step = step;
    r.step_text = text;
    r.expected = expected;
    r.observed = observed;
  };
  const std::string reason = not_executable_reason(scenario, session.options().kafka_version);
  if (!reason.empty()) {
    r.verdict = Verdict::NotExecutable;
    r.reason = reason;
    return r;
  }
  std::unique_ptr<RealKafkaCluster> cluster;
  int current = 0;
  std::string current_text = "setup";
  try {
    cluster = std::make_unique<RealKafkaCluster>(session, scenario);
    r.setup_seconds = session.last_setup_seconds();
    r.new_cluster = session.started_new_cluster();
    r.work_dir = session.work_dir();
    r.steered = cluster->plan().notes;
    const auto run_started = Clock::now();
    auto wait_for = [&](const json& until, const std::string& field) {
      std::string why;
      if (cluster->wait_until(condition_of(until, field), &why)) return true;
      const json observed = cluster->last_describe();
      cut::PartitionObservation o = cluster->describe_partition();
      const json oj = observation_json(o);
      diverge(current, current_text, "the observable state of " + field + " (within the wait budget)", why);
      r.side_by_side = side_by_side(until, oj);
      (void)observed;
      return false;
    };
    current_text = "initial state";
    if (!wait_for(scenario["initial"]["until"], "initial.until")) goto done;
    for (const json& st : scenario["steps"]) {
      current = st.value("step", current + 1);
      const std::string op = st.value("op", "");
      current_text = "step " + std::to_string(current) + " (" + st.value("description", op) + ")";
      if (op == "wait") {
        current_text = "step " + std::to_string(current) + " (wait)";
        if (!wait_for(st["until"], "steps[" + std::to_string(current - 1) + "].until")) goto done;
      } else if (op == "produce" || op == "expire_send") {
        const int record = st.value("record", 0);
        const cut::SendResult got = op == "expire_send"                 ? cluster->expire_send(record)
                                    : st.value("response_lost", false) ? cluster->produce_response_lost(record, st.value("broker", 0))
                                                                       : cluster->produce(record, st.value("broker", 0));
        const std::string expect = st.value("expect", "");
        if (expect != cut::send_result_name(got)) {
          diverge(current, current_text, "send of record " + std::to_string(record) + " " + expect,
                  "send of record " + std::to_string(record) + " " + cut::send_result_name(got) + " (driver: " +
                      cluster->last_send_answer() + ")");
          goto done;
        }
      } else if (op == "consume") {
        const int offset = st.value("offset", 0);
        const std::optional<int> got = cluster->consume(offset, st.value("broker", 0));
        const json expect = st.value("expect_record", json());
        const json got_json = got ? json(*got) : json();
        if (expect != got_json) {
          diverge(current, current_text, "offset " + std::to_string(offset) + " holds " + expect.dump(),
                  "offset " + std::to_string(offset) + " holds " + got_json.dump());
          goto done;
        }
      } else if (op == "crash") {
        std::optional<int> leader_after;
        if (st.contains("leader_after") && st["leader_after"].is_number_integer()) leader_after = st["leader_after"].get<int>();
        cluster->crash(st.value("node", 0), crash_kind(st.value("kind", ""), "kind"), leader_after);
      } else if (op == "restart") {
        cluster->restart(st.value("node", 0));
      } else if (op == "cut") {
        cluster->cut(st.value("node", 0), side_of(st.value("side", ""), "side"));
      } else if (op == "heal") {
        cluster->heal(st.value("node", 0), side_of(st.value("side", ""), "side"));
      } else if (op == "elect_preferred") {
        cluster->elect_preferred(st.value("leader", 0));
      } else if (op == "pause") {
        cluster->pause(st.value("node", 0));
      } else if (op == "resume") {
        cluster->resume(st.value("node", 0));
      }
      ++r.steps_run;
    }
    current = -1;
    current_text = "the end (expected.final)";
    if (!wait_for(scenario["expected"]["final"], "expected.final")) goto done;
    r.verdict = Verdict::Conforms;
  done:
    r.run_seconds = std::chrono::duration<double>(Clock::now() - run_started).count();
    r.notes = cluster->notes();
  } catch (const Interrupted&) {
    r.verdict = Verdict::Interrupted;
    r.step = current;
    r.step_text = current_text;
    r.reason = "interrupted at " + current_text;
    if (cluster) r.notes = cluster->notes();
    r.run_seconds = std::chrono::duration<double>(Clock::now() - started).count();
    throw;
  } catch (const NotExecutable& e) {
    r.verdict = Verdict::NotExecutable;
    r.reason = e.what();
  } catch (const UnexpectedAnswer& e) {
    diverge(current, current_text, "an answer the scenario names", e.what());
    if (cluster) r.notes = cluster->notes();
  } catch (const DriverError& e) {
    if (e.kind == "kafka" || e.kind == "timeout") {
      // Kafka refused or did not complete an operation the trace performs: a divergence.
      diverge(current, current_text, "the operation succeeds", e.what());
    } else {
      r.verdict = Verdict::Error;
      r.step = current;
      r.step_text = current_text;
      r.reason = e.what();
    }
    if (cluster) r.notes = cluster->notes();
  } catch (const std::invalid_argument& e) {
    r.verdict = Verdict::Error;
    r.reason = std::string("bad scenario: ") + e.what();
  }
  if (r.run_seconds == 0) r.run_seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return r;
}

}  // namespace isr::conformance
