// One scenario against a real cluster (see conform.h).
#include "conformance/conform.h"

#include <chrono>
#include <stdexcept>

#include "conformance/real_kafka_cluster.h"
#include "conformance/steering.h"
#include "conformance/zookeeper_mode.h"
#include "counterexamples/scenario/decision_merge.h"
#include "counterexamples/scenario/recording.h"
#include "counterexamples/scenario/scenario_reader.h"

namespace isr::conformance {

using nlohmann::json;
using counterexamples::scenario_condition;
using counterexamples::scenario_crash_kind;
using counterexamples::scenario_side;
using Clock = std::chrono::steady_clock;

namespace {

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
  // Dynamic quorum only (KIP-853): static clusters' observations keep their shape.
  if (!o.voters.empty()) {
    out["voters"] = list_json(o.voters);
    out["observers"] = list_json(o.observers);
  }
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
    r.recording_header = counterexamples::recording_header(scenario, session.options().kafka_version);
    // Every call below is made and awaited by this one thread, so the harness knows the
    // order of all the events it records: none gets a `group` (docs/recording.md).
    size_t notes_recorded = 0;
    auto ms_since_start = [&] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - run_started).count();
    };
    long long event_started = 0;
    auto record_event = [&](json event) {
      // What the adapter did around the call first (steering holds, mappings): notes.
      const std::vector<std::string>& notes = cluster->notes();
      for (; notes_recorded < notes.size(); ++notes_recorded) {
        r.recording.push_back({{"seq", r.recording.size() + 1}, {"kind", "note"}, {"step", current},
                               {"text", notes[notes_recorded]}});
      }
      json line = {{"seq", r.recording.size() + 1}};
      line.update(event);
      line["step"] = current;
      line["t_start_ms"] = event_started;
      line["t_end_ms"] = ms_since_start();
      r.recording.push_back(std::move(line));
    };
    // The scenario's partition: a reused cluster may have more brokers than its replicas
    // (the driver describes every node), and those hold no replica of this partition.
    const json topic_replicas = scenario.value("topic", json::object()).value("replicas", json());
    auto record_observation = [&](bool met) {
      json state = counterexamples::recorded_observation(cluster->last_observation(), kUnknownObservable);
      if (topic_replicas.is_array()) {
        json kept = json::object();
        for (const json& id : topic_replicas) {
          const std::string key = id.dump();
          if (state["replicas"].contains(key)) kept[key] = state["replicas"][key];
        }
        state["replicas"] = kept;
      }
      record_event({{"kind", "observe"}, {"condition_met", met}, {"state", state}});
    };
    auto wait_for = [&](const json& until, const std::string& field) {
      std::string why;
      event_started = ms_since_start();
      const bool met = cluster->wait_until(scenario_condition(until, field), &why);
      record_observation(met);
      if (met) return true;
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
      event_started = ms_since_start();
      if (op == "wait") {
        current_text = "step " + std::to_string(current) + " (wait)";
        if (!wait_for(st["until"], "steps[" + std::to_string(current - 1) + "].until")) goto done;
      } else if (op == "produce" || op == "expire_send") {
        const int record = st.value("record", 0);
        const cut::SendResult got = op == "expire_send"                 ? cluster->expire_send(record)
                                    : st.value("response_lost", false) ? cluster->produce_response_lost(record, st.value("broker", 0))
                                                                       : cluster->produce(record, st.value("broker", 0));
        // `outcome` is the adapter's result in the scenario's words, after the mappings of
        // docs/conformance.md; `answer` is what the driver reported.
        json event = {{"kind", "client"},
                      {"op", op},
                      {"record", record},
                      {"outcome", cut::send_result_name(got)},
                      {"answer", cluster->last_send_answer()}};
        if (op == "produce") {
          event["broker"] = st.value("broker", 0);
          event["response_lost"] = st.value("response_lost", false);
        }
        record_event(event);
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
        record_event({{"kind", "client"}, {"op", "consume"}, {"offset", offset}, {"broker", st.value("broker", 0)},
                {"read", got_json}});
        if (expect != got_json) {
          diverge(current, current_text, "offset " + std::to_string(offset) + " holds " + expect.dump(),
                  "offset " + std::to_string(offset) + " holds " + got_json.dump());
          goto done;
        }
      } else if (op == "crash") {
        std::optional<int> leader_after;
        if (st.contains("leader_after") && st["leader_after"].is_number_integer()) leader_after = st["leader_after"].get<int>();
        cluster->crash(st.value("node", 0), scenario_crash_kind(st.value("kind", ""), "kind"), leader_after);
        record_event({{"kind", "fault"}, {"op", "crash"}, {"node", st.value("node", 0)}, {"crash_kind", st.value("kind", "")}});
      } else if (op == "restart") {
        cluster->restart(st.value("node", 0));
        record_event({{"kind", "fault"}, {"op", op}, {"node", st.value("node", 0)}});
      } else if (op == "cut" || op == "heal") {
        const cut::NetworkSide side = scenario_side(st.value("side", ""), "side");
        if (op == "cut") cluster->cut(st.value("node", 0), side);
        else cluster->heal(st.value("node", 0), side);
        record_event({{"kind", "fault"}, {"op", op}, {"node", st.value("node", 0)}, {"side", st.value("side", "")}});
      } else if (op == "elect_preferred") {
        cluster->elect_preferred(st.value("leader", 0));
        record_event({{"kind", "fault"}, {"op", op}, {"leader", st.value("leader", 0)}});
      } else if (op == "pause") {
        cluster->pause(st.value("node", 0));
        record_event({{"kind", "fault"}, {"op", op}, {"node", st.value("node", 0)}});
      } else if (op == "resume") {
        cluster->resume(st.value("node", 0));
        record_event({{"kind", "fault"}, {"op", op}, {"node", st.value("node", 0)}});
      } else if (op == "remove_voter" || op == "add_voter") {
        // An operator's KIP-853 step, recorded with the harness's other operator and fault
        // steps (like elect_preferred).
        if (op == "remove_voter") cluster->remove_voter(st.value("node", 0));
        else cluster->add_voter(st.value("node", 0));
        record_event({{"kind", "fault"}, {"op", op}, {"node", st.value("node", 0)}});
      }
      ++r.steps_run;
    }
    current = -1;
    current_text = "the end (expected.final)";
    event_started = ms_since_start();
    if (!wait_for(scenario["expected"]["final"], "expected.final")) goto done;
    r.verdict = Verdict::Conforms;
  done:
    r.run_seconds = std::chrono::duration<double>(Clock::now() - run_started).count();
    r.notes = cluster->notes();
    // The controller's committed decisions, read from the metadata log now that the run is
    // over and before the cluster is reused or stopped, merged into the one event log
    // (docs/recording.md, "Decisions"). ZooKeeper mode has no such log: its recordings stay
    // as they were.
    if (session.options().read_metadata_log && !zookeeper_scenario(scenario)) {
      try {
        const std::vector<json> decisions = cluster->metadata_decisions();
        const counterexamples::MergedRecording merged = counterexamples::merge_decisions(r.recording, decisions);
        r.recording = merged.events;
        r.recording_header["decisions"] = {{"source", "__cluster_metadata"}, {"count", decisions.size()},
                                           {"groups", merged.groups}};
      } catch (const DriverError& e) {
        r.recording_header["decisions"] = {{"source", "__cluster_metadata"}, {"error", e.what()}};
      }
    }
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
