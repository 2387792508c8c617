// Trace validation of recorded executions (analysis/trace_validation.h): the recording
// format's reader, the Kafka mapping of events to model actions, and the committed
// recordings of a real Kafka 4.4.0 run (tests/data/recordings/): the real one explained,
// its corrupted copy (an unclean election with unclean election off) unexplained at the
// event where it was planted.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "analysis/trace_validation.h"
#include "counterexamples/export/model_cluster.h"
#include "counterexamples/scenario/recording.h"
#include "counterexamples/scenario/scenario_reader.h"
#include "io/files.h"
#include "spec/partition/config.h"
#include "tests/trace_test_support.h"

namespace isr::analysis {
namespace {

using nlohmann::json;
using counterexamples::parse_recording;
using counterexamples::Recording;
using V = ValidationResult::Verdict;

const std::string kSource = ISRCHECK_SOURCE_DIR;
const std::string kSuite = kSource + "/conformance/suite/";
const std::string kRecordings = kSource + "/tests/data/recordings/";

// The sanitizer pass (.ci/README.md) does not search the model's own recording of a: its
// search is the largest of TheModelsOwnRunOfAScenarioIsExplained (~45 s under ASan); the
// other two run the same code there. TheRealKafkaRecordingsAreExplained runs in the plain
// pass only (ISRCHECK_PLAIN_PASS_ONLY, CMakeLists.txt) and searches all ten recordings.
#if defined(__SANITIZE_ADDRESS__)
bool searched_in_this_build(const std::string& recording) { return recording != "a-rf3-kill-leader-acked-kept"; }
#else
bool searched_in_this_build(const std::string&) { return true; }
#endif

std::string header_line(const json& model_config) {
  return json({{"format", "isrcheck-recording"}, {"version", 1}, {"scenario", "t"}, {"model_config", model_config}})
             .dump() +
         "\n";
}

// The recording a faithful harness would make of `scenario` if the cluster were the model
// itself: the model adapter (counterexamples/export/model_cluster.h) runs its steps, and
// every wait's observation is the adapter's (as conform records Kafka's).
std::string record_on_model(const json& scenario) {
  auto cluster = counterexamples::ModelCluster::from_scenario(scenario);
  std::vector<json> events;
  auto add = [&](json e) {
    e["seq"] = events.size() + 1;
    events.push_back(std::move(e));
  };
  auto wait = [&](const json& until) {
    std::string why;
    EXPECT_TRUE(cluster->wait_until(counterexamples::scenario_condition(until, "until"), &why)) << why;
    add({{"kind", "observe"}, {"state", counterexamples::recorded_observation(cluster->describe_partition(), -999)}});
  };
  wait(scenario["initial"]["until"]);
  for (const json& st : scenario["steps"]) {
    const std::string op = st["op"];
    const int node = st.value("node", 0);
    if (op == "wait") {
      wait(st["until"]);
    } else if (op == "produce") {
      const cut::SendResult r = cluster->produce(st["record"], st["broker"]);
      add({{"kind", "client"}, {"op", op}, {"record", st["record"]}, {"broker", st["broker"]},
           {"outcome", cut::send_result_name(r)}});
    } else if (op == "crash") {
      cluster->crash(node, counterexamples::scenario_crash_kind(st["kind"], "kind"), std::nullopt);
      add({{"kind", "fault"}, {"op", op}, {"node", node}, {"crash_kind", st["kind"]}});
    } else if (op == "restart") {
      cluster->restart(node);
      add({{"kind", "fault"}, {"op", op}, {"node", node}});
    } else if (op == "cut") {
      cluster->cut(node, counterexamples::scenario_side(st["side"], "side"));
      add({{"kind", "fault"}, {"op", op}, {"node", node}, {"side", st["side"]}});
    } else if (op == "consume") {
      const std::optional<int> read = cluster->consume(st["offset"], st["broker"]);
      add({{"kind", "client"}, {"op", op}, {"offset", st["offset"]}, {"broker", st["broker"]},
           {"read", read ? json(*read) : json()}});
    } else {
      ADD_FAILURE() << "record_on_model: op " << op << " not used by the scenarios of this test";
    }
  }
  wait(scenario["expected"]["final"]);
  return counterexamples::recording_text(counterexamples::recording_header(scenario, "model"), events);
}

ValidationResult validate_text(const std::string& text, int max_internal = 8) {
  const Recording r = parse_recording(text);
  const spec::Config config = spec::load_config(&r.header["model_config"], {});
  ValidateOptions options;
  options.max_internal = max_internal;
  return validate_recording(r, config, options);
}

std::string read(const std::string& path) { return io::files::read_file(path); }

TEST(RecordingFormat, BadLinesNameTheLineTheFieldAndTheAllowedValues) {
  const std::string header = header_line(json::object());
  auto error = [&](const std::string& text) {
    try {
      (void)parse_recording(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error(""), "line 1: format: empty recording, no header");
  EXPECT_NE(error("{\"format\":\"isrcheck-trace\"}\n").find("line 1: format: the first line must be the header"),
            std::string::npos);
  EXPECT_NE(error(header + R"({"seq":1,"kind":"fault","op":"explode","node":0})").find(
                "line 2: op: \"explode\" is not allowed (crash, restart, cut, heal, pause, resume, elect_preferred, "
                "remove_voter, add_voter)"),
            std::string::npos);
  EXPECT_NE(error(header + R"({"seq":1,"kind":"fault","op":"crash","node":0,"crash_kind":"melt"})")
                .find("line 2: crash_kind: \"melt\" is not allowed (kill, clean, power, disk)"),
            std::string::npos);
  EXPECT_NE(error(header + R"({"seq":2,"kind":"note"})").find("line 2: seq: 2 is not allowed (an integer from 1 to 1)"),
            std::string::npos);
  EXPECT_NE(error(header + R"({"seq":1,"kind":"client","op":"produce","record":1,"broker":0,"outcome":"ok"})")
                .find("line 2: outcome: \"ok\" is not allowed (a send result: unsent, pending, acked"),
            std::string::npos);
  EXPECT_NE(error(header + R"({"seq":1,"kind":"observe","state":{"isr":3}})")
                .find("line 2: state.isr: not allowed (an array of node ids)"),
            std::string::npos);
  EXPECT_NE(error(header + R"({"seq":1,"kind":"observe","state":{"replicas":{"zero":{}}}})")
                .find("line 2: state.replicas.zero: not allowed (a node id (digits) as the key)"),
            std::string::npos);
  EXPECT_NE(error(header + R"({"seq":1,"kind":"observe","state":{"leaders":1}})")
                .find("line 2: state.leaders: not allowed (one of leader, leader_epoch, isr"),
            std::string::npos);
  EXPECT_NE(error(header + "{\"seq\":1,\"kind\":\"gossip\"}").find("line 2: kind: \"gossip\" is not allowed (fault, client, observe, note, sample, decision)"),
            std::string::npos);
  EXPECT_EQ(error(header + R"({"seq":1,"kind":"note","text":"steered"})"), "no error");
}

TEST(RecordingFormat, AnObservationLeavesOutWhatTheHarnessCouldNotRead) {
  cut::PartitionObservation o;
  o.leader = 1;
  o.leader_epoch = -999;
  o.isr = {-999};
  o.elr = {};
  o.hw = cut::kNone;
  o.replicas[0].leo = -999;
  o.replicas[0].log = {{0, 1}};
  const json j = counterexamples::recorded_observation(o, -999);
  EXPECT_EQ(j["leader"], 1);
  EXPECT_FALSE(j.contains("leader_epoch"));
  EXPECT_FALSE(j.contains("isr"));
  EXPECT_EQ(j["elr"], json::array());
  EXPECT_TRUE(j["hw"].is_null());  // none (no acting leader) is a value, not an unknown
  EXPECT_FALSE(j["replicas"]["0"].contains("leo"));
  EXPECT_EQ(j["replicas"]["0"]["log"], json::parse("[[0,1]]"));
}

TEST(TraceValidation, TheModelsOwnRunOfAScenarioIsExplained) {
  // a (3 brokers, 3 records) at a bound of 4 internal actions: enough for its waits, and
  // 16 times fewer states than at 8 (docs/validation.md, "Figures").
  for (const auto& [name, bound] : {std::pair{"e-unclean-off-offline", 8}, std::pair{"b-acks1-leader-loss", 8},
                                    std::pair{"a-rf3-kill-leader-acked-kept", 4}}) {
    const std::string text = record_on_model(io::files::read_json_file(kSuite + name + ".json"));
    if (!searched_in_this_build(name)) continue;
    const ValidationResult r = validate_text(text, bound);
    EXPECT_EQ(r.verdict, V::Explained) << name << ": " << r.to_json().dump(1);
    EXPECT_EQ(r.explained, r.events) << name;
    ASSERT_TRUE(r.trace.is_object()) << name;
    EXPECT_EQ(r.trace["engine"], "validate");
    EXPECT_GT(r.trace["steps"].size(), r.events / 2) << name;
  }
}

TEST(TraceValidation, AClientOutcomeTheModelCannotGiveIsUnexplainedAtThatEvent) {
  // b: acks=1, the leader acks alone. A recording in which that send failed with
  // NOT_ENOUGH_REPLICAS is not a behaviour of acks=1 (no min ISR check).
  std::string text = record_on_model(io::files::read_json_file(kSuite + "b-acks1-leader-loss.json"));
  const std::string from = R"("op":"produce","outcome":"acked")";
  const size_t at = text.find(R"("outcome":"acked")");
  ASSERT_NE(at, std::string::npos) << from;
  text.replace(at, std::string(R"("outcome":"acked")").size(), R"("outcome":"NOT_ENOUGH_REPLICAS")");
  const Recording rec = parse_recording(text);
  int produce_seq = 0;
  for (const auto& e : rec.events)
    if (e.op == "produce" && produce_seq == 0) produce_seq = e.seq;
  const ValidationResult r = validate_text(text);
  ASSERT_EQ(r.verdict, V::Unexplained) << r.to_json().dump(1);
  EXPECT_EQ(r.event_seq, produce_seq);
  ASSERT_FALSE(r.differences.empty());
  EXPECT_NE(r.differences.front().find("send of record 1: recorded NOT_ENOUGH_REPLICAS, model"), std::string::npos)
      << r.differences.front();
}

TEST(TraceValidation, AFaultTheModelsBudgetsDoNotAllowIsUnexplained) {
  // e's configuration allows one crash: a second one is no behaviour of that model.
  std::string text = record_on_model(io::files::read_json_file(kSuite + "e-unclean-off-offline.json"));
  const Recording rec = parse_recording(text);
  const int seq = static_cast<int>(rec.events.size()) + 1;
  text += json({{"seq", seq}, {"kind", "fault"}, {"op", "crash"}, {"node", 1}, {"crash_kind", "kill"}}).dump() + "\n";
  const ValidationResult r = validate_text(text);
  ASSERT_EQ(r.verdict, V::Unexplained);
  EXPECT_EQ(r.event_seq, seq);
  EXPECT_EQ(r.event, "fault crash node 1 kill");
  EXPECT_NE(r.why.find("can do it"), std::string::npos);
}

TEST(TraceValidation, TheInternalBoundLimitsWhatCanBeExplained) {
  const std::string text = record_on_model(io::files::read_json_file(kSuite + "e-unclean-off-offline.json"));
  EXPECT_EQ(validate_text(text, 8).verdict, V::Explained);
  EXPECT_EQ(validate_text(text, 0).verdict, V::Unexplained);
}

// The committed recordings of real Kafka 4.4.0 runs (docs/validation.md says how they were made).
TEST(TraceValidation, TheRealKafkaRecordingsAreExplained) {
  for (const auto& [name, bound, events] : {std::tuple{"e-unclean-off-offline", 8, 7u},
                                            std::tuple{"b-acks1-leader-loss", 8, 5u},
                                            std::tuple{"a-rf3-kill-leader-acked-kept", 4, 13u},
                                            std::tuple{"c-idempotent-rf2-min-isr2-timeout", 8, 6u},
                                            std::tuple{"f-elr-hw-frozen", 8, 9u},
                                            std::tuple{"g-duplicates-idempotence-on", 8, 6u},
                                            std::tuple{"j-acks1-pause-loss", 8, 7u},
                                            std::tuple{"h-corpus-acks-1-lost-response-duplicates", 8, 4u},
                                            std::tuple{"h-corpus-unclean-leader-election", 8, 8u},
                                            // Two followers restarted back into the ISR:
                                            // more than 8 internal actions before the last wait.
                                            std::tuple{"i-release-pair-kip-966", 12, 16u}}) {
    const std::string text = read(kRecordings + name + ".jsonl");
    // Recorded by conform on Kafka 4.4.0, and the whole run: nothing cut short.
    const Recording rec = parse_recording(text);
    EXPECT_EQ(rec.header["kafka_version"], "4.4.0");
    EXPECT_EQ(rec.header["complete"], true);
    const ValidationResult r = validate_text(text, bound);
    EXPECT_EQ(r.verdict, V::Explained) << name << ": " << r.to_json().dump(1);
    EXPECT_EQ(r.events, events) << name;
  }
}

TEST(TraceValidation, APendingSendBeforeTheProducersOwnRetryMatchesTheModelsTimeout) {
  // g on Kafka 4.4.0: the answer to record 1 dropped, the model times the send out
  // (REQUEST_TIMED_OUT) and retries it later; Kafka's idempotent producer retries by
  // itself and shows `pending` meanwhile (event 8). Explained only through that mapping:
  // with a producer that does not retry by itself, the same recording is not.
  const std::string text = read(kRecordings + "g-duplicates-idempotence-on.jsonl");
  EXPECT_EQ(validate_text(text).verdict, V::Explained);
  Recording rec = parse_recording(text);
  rec.header["producer"] = {{"enable.idempotence", false}, {"retries", 0}};
  const spec::Config config = spec::load_config(&rec.header["model_config"], {});
  const ValidationResult r = validate_recording(rec, config, ValidateOptions{});
  ASSERT_EQ(r.verdict, V::Unexplained);
  EXPECT_EQ(r.event_seq, 8);
}

TEST(TraceValidation, TheCorruptedRecordingIsUnexplainedAtThePlantedElection) {
  const ValidationResult r = validate_text(read(kRecordings + "e-unclean-off-offline-corrupted.jsonl"));
  ASSERT_EQ(r.verdict, V::Unexplained) << r.to_json().dump(1);
  const Recording rec = parse_recording(read(kRecordings + "e-unclean-off-offline-corrupted.jsonl"));
  EXPECT_EQ(rec.header.value("corrupted_event", 0), r.event_seq);
  bool leader_differs = false;
  for (const std::string& d : r.differences) leader_differs = leader_differs || d.rfind("leader: recorded 1", 0) == 0;
  EXPECT_TRUE(leader_differs) << r.to_json().dump(1);
  // The planted change is exactly an unclean election: with unclean election on, the model explains it.
  spec::Config unclean = spec::load_config(&rec.header["model_config"], {"unclean_leader_election=true"});
  EXPECT_EQ(validate_recording(rec, unclean, ValidateOptions{}).verdict, V::Explained);
}

// `isrcheck validate` end to end (ISRCHECK_BINARY): verdicts, exit codes, the trace it
// writes (rendered and replayed), bad input.
TEST(ValidateCli, ExitCodesTraceAndBadInput) {
  using trace_test::run_isrcheck;
  const std::string real = "'" + kRecordings + "e-unclean-off-offline.jsonl'";
  const std::string trace = trace_test::temp_path("validate-trace.json");
  trace_test::Run r = run_isrcheck("validate " + real + " --trace-out '" + trace + "'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("explained: 7 events of e-unclean-off-offline by a model trace of ", 0), 0u) << r.out;
  r = run_isrcheck("replay '" + trace + "'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("reproduced"), std::string::npos) << r.out;
  r = run_isrcheck("render '" + trace + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("Explanation: validation", 0), 0u) << r.out;
  std::remove(trace.c_str());

  r = run_isrcheck("validate '" + kRecordings + "e-unclean-off-offline-corrupted.jsonl'");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("unexplained at event 6 (5 of 7 events explained): observe ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("nearest model states reached: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    leader: recorded 1, model none\n"), std::string::npos) << r.out;

  r = run_isrcheck("validate " + real + " --json -");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(json::parse(r.out)["verdict"], "explained") << r.out;

  r = run_isrcheck("validate " + real + " --max-internal 65");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--max-internal: 65 is not allowed (an integer from 0 to 64)"), std::string::npos) << r.err;
  r = run_isrcheck("validate " + real + " --model kraft");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--model: \"kraft\" is not allowed (partition"), std::string::npos) << r.err;
  r = run_isrcheck("validate " + real + " --set acks=2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("acks"), std::string::npos) << r.err;
  r = run_isrcheck("validate " + real + " --max-states 2");
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_NE(r.out.find("incomplete at event "), std::string::npos) << r.out;

  const std::string bad = trace_test::temp_path("bad-recording.jsonl");
  std::ofstream(bad) << header_line(json::object()) << R"({"seq":1,"kind":"fault","op":"crash","node":0})" << "\n";
  r = run_isrcheck("validate '" + bad + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("line 2: crash_kind: missing is not allowed (kill, clean, power, disk)"), std::string::npos)
      << r.err;
  std::remove(bad.c_str());
  r = run_isrcheck("validate /nonexistent/run.jsonl");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/run.jsonl"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace isr::analysis
