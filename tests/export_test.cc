// Tests of the exports (docs/scenarios.md): scenario contents for known counterexamples
// (operations, expected errors, waits), the model adapter driving a scenario, the ITF
// structure, the `export` and `tests` commands, and covering test generation. That a
// generated GoogleTest file compiles and passes against the model adapter is checked by
// the build itself (CMakeLists.txt, "generated scenario tests").
#include <algorithm>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/covering_tests.h"
#include "analysis/verify.h"
#include "counterexamples/export/export_gtest.h"
#include "counterexamples/export/export_itf.h"
#include "counterexamples/export/export_scenario.h"
#include "counterexamples/export/model_cluster.h"
#include "counterexamples/scenario/cluster_under_test.h"
#include "counterexamples/scenario/scenario_writer.h"
#include "counterexamples/trace/replay.h"
#include "counterexamples/trace/trace_reader.h"
#include "counterexamples/trace/trace_writer.h"
#include "spec/partition/config.h"
#include "spec/partition/partition_model.h"
#include "trace_test_support.h"

namespace isr {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;
using trace_test::run_isrcheck;
using trace_test::write_temp;

// The shortest counterexample of a small unsafe configuration, from the model itself.
json counterexample(const std::vector<std::string>& overrides) {
  const spec::Config config = spec::load_config(nullptr, overrides);
  const analysis::VerifyOutcome outcome = analysis::verify(config);
  EXPECT_EQ(outcome.verdict, checker::Verdict::Violated);
  return outcome.trace;
}

// acks=1: the leader acks record 1 alone and dies (kill -9); N1 takes over without it.
const json& acks1_trace() {
  static const json trace = counterexample({"acks=1", "faults.max_lossy_crashes=0"});
  return trace;
}

// RF 2, min ISR 1, unclean election: record 1 is acked by the leader alone after the
// ISR shrank, the leader crashes, and the other replica is elected uncleanly.
const json& unclean_trace() {
  static const json trace =
      counterexample({"brokers=2", "replication_factor=2", "min_insync_replicas=1",
                      "unclean_leader_election=true", "faults.max_lossy_crashes=0"});
  return trace;
}

std::vector<std::string> ops_of(const ordered_json& scenario) {
  std::vector<std::string> ops;
  for (const auto& step : scenario.at("steps")) ops.push_back(step.at("op").get<std::string>());
  return ops;
}

// Runs a scenario's steps against the model adapter, as a generated test would.
void run_on_model(const ordered_json& scenario) {
  auto cluster = counterexamples::ModelCluster::from_scenario(json::parse(scenario.dump()));
  auto condition = [](const ordered_json& until, const ordered_json& model) {
    cut::Condition c;
    c.leader = until.at("leader").is_null() ? cut::kNone : until["leader"].get<int>();
    c.leader_epoch = until.at("leader_epoch").get<int>();
    c.isr = until.at("isr").get<std::vector<int>>();
    c.hw = until.at("hw").is_null() ? cut::kNone : until["hw"].get<int>();
    for (const auto& [id, r] : until.at("replicas").items()) c.replicas[std::stoi(id)].leo = r.at("leo").get<int>();
    c.model_state = model.at("state").get<std::string>();
    c.model_steps = model.at("steps").get<int>();
    return c;
  };
  std::string why;
  for (const auto& step : scenario.at("steps")) {
    const std::string op = step.at("op");
    if (op == "produce") {
      const bool lost = step.value("response_lost", false);
      EXPECT_STREQ(cut::send_result_name(lost ? cluster->produce_response_lost(step["record"], step["broker"])
                                              : cluster->produce(step["record"], step["broker"])),
                   step["expect"].get<std::string>().c_str());
    } else if (op == "expire_send") {
      EXPECT_EQ(cluster->expire_send(step["record"]), cut::SendResult::RequestTimedOut);
    } else if (op == "pause") {
      cluster->pause(step["node"]);
    } else if (op == "resume") {
      cluster->resume(step["node"]);
    } else if (op == "crash") {
      ASSERT_EQ(step["kind"], "kill");
      cluster->crash(step["node"], cut::CrashKind::Kill, std::nullopt);
    } else if (op == "restart") {
      cluster->restart(step["node"]);
    } else if (op == "wait") {
      ASSERT_TRUE(cluster->wait_until(condition(step["until"], step["model"]), &why)) << why;
      EXPECT_TRUE(cut::mismatches(condition(step["until"], step["model"]), cluster->describe_partition()).empty());
    } else {
      FAIL() << "unexpected op " << op;
    }
  }
}

// A kip-966 trace with ELR off (the matrix's noelr columns) runs with the feature off:
// Kafka 4.4 formats a new cluster with ELR on, and its controller then elected N1 from
// the ELR where the model's cluster has none (issue 28, the matrix sample).
TEST(ExportScenario, ElrOffTurnsTheFeatureOff) {
  json trace = acks1_trace();
  ASSERT_EQ(trace["config"]["protocol"], "kip-966");
  trace["config"]["eligible_leader_replicas"] = false;
  const ordered_json s = counterexamples::trace_to_scenario(trace, "acks1-noelr");
  EXPECT_EQ(s["cluster"]["features"]["eligible.leader.replicas.version"], 0);
}

TEST(ExportScenario, Acks1LeaderLossBecomesProduceCrashAndOneWait) {
  const ordered_json s = counterexamples::trace_to_scenario(acks1_trace(), "acks1");
  EXPECT_EQ(s["format"], "isrcheck-scenario");
  EXPECT_EQ(s["clients"]["producer"]["acks"], "1");
  EXPECT_EQ(s["topic"]["replication_factor"], 3);
  EXPECT_EQ(s["cluster"]["broker_config"]["min.insync.replicas"], "2");
  EXPECT_EQ(s["cluster"]["features"]["eligible.leader.replicas.version"], 1);
  ASSERT_EQ(ops_of(s), (std::vector<std::string>{"produce", "crash", "wait"}));
  const ordered_json& produce = s["steps"][0];
  EXPECT_EQ(produce["record"], 1);
  EXPECT_EQ(produce["broker"], 0);
  EXPECT_EQ(produce["expect"], "acked");  // acks=1: the leader alone acknowledges
  const ordered_json& crash = s["steps"][1];
  EXPECT_EQ(crash["node"], 0);
  EXPECT_EQ(crash["kind"], "kill");
  // The controller's reaction collapses into one wait on the new leader.
  const ordered_json& wait = s["steps"][2];
  EXPECT_EQ(wait["until"]["leader"], 1);
  EXPECT_GT(wait["until"]["leader_epoch"].get<int>(), 0);
  EXPECT_EQ(wait["until"]["replicas"]["1"]["log"], ordered_json::array());
  EXPECT_EQ(wait["until"]["replicas"]["0"]["alive"], false);
  EXPECT_EQ(wait["until"]["sends"]["1"], "acked");
  bool fenced = false;
  for (const auto& name : wait["internal"]) fenced = fenced || name.get<std::string>().rfind("FenceBroker", 0) == 0;
  EXPECT_TRUE(fenced) << wait["internal"].dump();
  EXPECT_EQ(wait["trace_steps"].size(), wait["internal"].size());
  EXPECT_EQ(wait["model"]["steps"], wait["internal"].size());
  // The expected observations: the acked record is missing on the new leader.
  const ordered_json& expected = s["expected"];
  EXPECT_EQ(expected["sends"]["1"], "acked");
  EXPECT_EQ(expected["records"]["acked_missing_on_leader"], ordered_json::array({1}));
  EXPECT_EQ(expected["records"]["must_be_present"], ordered_json::array({1}));
  EXPECT_EQ(expected["violation"]["property"], "no-acked-loss");
  EXPECT_NE(expected["violation"]["observed_as"].get<std::string>().find("record(s) 1"), std::string::npos);
  EXPECT_NE(expected["violation"]["explanation"].get<std::string>().find("record 1"), std::string::npos);
}

TEST(ExportScenario, PendingAcksAllSendIsAckedInsideAWait) {
  const ordered_json s = counterexamples::trace_to_scenario(unclean_trace(), "unclean");
  EXPECT_EQ(s["clients"]["producer"]["acks"], "all");
  EXPECT_EQ(s["cluster"]["broker_config"]["unclean.leader.election.enable"], "true");
  const std::vector<std::string> ops = ops_of(s);
  ASSERT_GE(ops.size(), 4u);
  EXPECT_EQ(ops.front(), "produce");
  EXPECT_EQ(s["steps"][0]["expect"], "pending");  // acks=all waits for the ISR
  EXPECT_EQ(ops.back(), "wait");
  // Some wait sees the ISR shrink to the leader and the send acknowledged.
  bool acked_in_wait = false;
  for (const auto& step : s["steps"]) {
    if (step["op"] == "wait" && step["until"]["sends"]["1"] == "acked" && step["until"]["isr"] == ordered_json::array({0})) {
      acked_in_wait = true;
    }
  }
  EXPECT_TRUE(acked_in_wait) << s["steps"].dump(1);
  // Waits and operations alternate: two waits never follow each other.
  for (size_t i = 1; i < ops.size(); ++i) EXPECT_FALSE(ops[i] == "wait" && ops[i - 1] == "wait");
  EXPECT_EQ(s["expected"]["final"]["leader"], 1);
  EXPECT_EQ(s["expected"]["records"]["acked_missing_on_leader"], ordered_json::array({1}));
}

// A trace driven by hand: each action is the first enabled one with the given fields.
json hand_trace(const std::vector<std::string>& overrides, const std::vector<json>& wanted) {
  const spec::PartitionModel model(spec::load_config(nullptr, overrides));
  checker::Counterexample<spec::PartitionModel> path;
  path.property = "no-acked-loss";
  path.states.push_back(model.initial_states().front());
  for (const json& w : wanted) {
    std::optional<spec::Action> chosen;
    model.for_each_action(path.states.back(), [&](const spec::Action& a) {
      const json j = model.action_to_json(a);
      bool match = !chosen;
      for (const auto& [key, value] : w.items()) match = match && j.contains(key) && j[key] == value;
      if (match) chosen = a;
    });
    if (!chosen) {
      ADD_FAILURE() << "not enabled: " << w.dump();
      break;
    }
    path.actions.push_back(*chosen);
    path.states.push_back(model.next_state(path.states.back(), *chosen));
  }
  return counterexamples::trace_to_json(model, path, "bfs");
}

TEST(ExportScenario, RejectedSendCarriesTheKafkaError) {
  // RF 2, min ISR 2: the follower dies, the controller shrinks the ISR to the leader,
  // and the next acks=all send is refused before the append. Idempotence off and retries
  // 0, so that the application sees the broker's answer (an idempotent producer retries it).
  const json trace = hand_trace({"replication_factor=2", "min_insync_replicas=2", "faults.max_lossy_crashes=0",
                                 "idempotence=false", "bounds.max_retries=0"},
                                {{{"kind", "Crash"}, {"node", 1}, {"mode", "kill"}},
                                 {{"kind", "FenceBroker"}, {"broker", 1}},
                                 {{"kind", "MetadataUpdate"}, {"broker", 0}},
                                 {{"kind", "Produce"}, {"broker", 0}, {"record", 1}}});
  const ordered_json s = counterexamples::trace_to_scenario(trace, "ner");
  ASSERT_EQ(ops_of(s), (std::vector<std::string>{"crash", "wait", "produce"}));
  EXPECT_EQ(s["steps"][1]["until"]["isr"], ordered_json::array({0}));
  EXPECT_EQ(s["steps"][1]["until"]["fenced"], ordered_json::array({1}));
  EXPECT_EQ(s["steps"][1]["until"]["replicas"]["0"]["view"]["isr"], ordered_json::array({0}));
  EXPECT_EQ(s["steps"][2]["expect"], "NOT_ENOUGH_REPLICAS");
  EXPECT_EQ(s["expected"]["sends"]["1"], "NOT_ENOUGH_REPLICAS");
  EXPECT_EQ(s["expected"]["records"]["may_be_absent"], ordered_json::array({1}));
  EXPECT_EQ(s["expected"]["records"]["must_be_present"], ordered_json::array());
  const std::string text = counterexamples::scenario_to_gtest(s);
  EXPECT_NE(text.find("EXPECT_EQ(cluster->produce(1, 0), SendResult::NotEnoughReplicas)"), std::string::npos);
  EXPECT_NE(text.find("c.isr = std::vector<int>{0};"), std::string::npos);
  run_on_model(s);

  EXPECT_EQ(counterexamples::kafka_send_result("not-enough-replicas-after-append"), "NOT_ENOUGH_REPLICAS_AFTER_APPEND");
  EXPECT_EQ(counterexamples::kafka_send_result("timed-out"), "REQUEST_TIMED_OUT");
  EXPECT_EQ(counterexamples::kafka_send_result("not-leader"), "NOT_LEADER_OR_FOLLOWER");
  EXPECT_EQ(counterexamples::kafka_send_result("in-flight"), "pending");
  EXPECT_EQ(counterexamples::kafka_send_result("retrying"), "pending") << "the client retries inside send()";
}

TEST(ExportScenario, ModelAdapterReproducesTheScenario) {
  run_on_model(counterexamples::trace_to_scenario(acks1_trace(), "acks1"));
  run_on_model(counterexamples::trace_to_scenario(unclean_trace(), "unclean"));
}

TEST(ExportScenario, ModelAdapterReportsAnUnreachableCondition) {
  counterexamples::ModelCluster cluster(spec::load_config(nullptr, {}));
  cut::Condition c;
  c.leader = 2;
  c.leader_epoch = 9;  // beyond the epoch bound: never reachable
  std::string why;
  EXPECT_FALSE(cluster.wait_until(c, &why));
  EXPECT_NE(why.find("leader_epoch: expected 9"), std::string::npos) << why;
  // A digest hint never overrides the condition: the current state's digest with a
  // leader it does not have is still unmet.
  cut::Condition hinted;
  hinted.leader = 1;
  hinted.model_state = counterexamples::state_digest(cluster.model().state_to_json(cluster.state()));
  hinted.model_steps = 2;
  EXPECT_FALSE(cluster.wait_until(hinted, &why));
  EXPECT_NE(why.find("leader: expected 1, observed 0"), std::string::npos) << why;
  // Reachable without any fault: the initial state itself.
  cut::Condition now;
  now.leader = 0;
  now.isr = std::vector<int>{0, 1, 2};
  EXPECT_TRUE(cluster.wait_until(now, &why)) << why;
}

TEST(ExportScenario, ModelAdapterRefusesAnActionTheModelCannotTake) {
  counterexamples::ModelCluster cluster(spec::load_config(nullptr, {}));
  // Broker 1 is a follower: the client never sends to it with acks=all.
  EXPECT_THROW(cluster.produce(1, 1), std::runtime_error);
  EXPECT_EQ(cluster.produce(1, 0), cut::SendResult::Pending);
}

TEST(ExportScenario, RefusesTracesOfOtherModels) {
  const json generic = trace_test::load_fixture("trace_generic_model.json");
  try {
    counterexamples::trace_to_scenario(generic, "x");
    FAIL() << "expected TraceFormatError";
  } catch (const counterexamples::TraceFormatError& e) {
    EXPECT_EQ(e.field, "model");
    EXPECT_NE(std::string(e.what()).find("allowed: partition"), std::string::npos);
  }
  json unknown = acks1_trace();
  unknown["steps"][1]["action"]["kind"] = "Teleport";
  try {
    counterexamples::trace_to_scenario(unknown, "x");
    FAIL() << "expected TraceFormatError";
  } catch (const counterexamples::TraceFormatError& e) {
    EXPECT_EQ(e.field, "steps[1].action.kind");
  }
}

ordered_json suite_file(const std::string& name) {
  std::ifstream in(std::string(ISRCHECK_SOURCE_DIR) + "/conformance/suite/" + name + ".json");
  return ordered_json::parse(in);
}

// Issue 16 points 2 and 5: the model's Pause/Resume and its lost produce response are
// scenario ops of their own, and the model adapter replays them.
TEST(ExportScenario, PauseAndLostResponseBecomeOpsTheModelAdapterReplays) {
  const spec::Config config = spec::load_config(
      nullptr, {"acks=1", "brokers=3", "replication_factor=2", "min_insync_replicas=1", "faults.max_pauses=1",
                "faults.max_lossy_crashes=0", "consumer=false"});
  const spec::PartitionModel model(config);
  spec::State s = model.initial_states().at(0);
  json steps = json::array({{{"index", 0}, {"action", nullptr}, {"action_name", "Init"}, {"state", model.state_to_json(s)}}});
  auto take = [&](spec::ActionKind kind, int node, int other, int arg) {
    const spec::Action a{kind, static_cast<uint8_t>(node), static_cast<uint8_t>(other), static_cast<uint8_t>(arg)};
    s = model.next_state(s, a);
    steps.push_back({{"index", steps.size()}, {"action", model.action_to_json(a)}, {"action_name", model.action_name(a)},
                     {"state", model.state_to_json(s)}});
  };
  take(spec::ActionKind::Pause, 1, 0, 0);
  take(spec::ActionKind::Produce, 0, 0, 1);
  take(spec::ActionKind::Resume, 1, 0, 0);
  const json trace = counterexamples::make_trace("partition", model.config_json(), "witness", "pause", "witness", steps);
  const ordered_json scenario = counterexamples::trace_to_scenario(trace, "pause");
  EXPECT_EQ(ops_of(scenario), (std::vector<std::string>{"pause", "produce", "resume"}));
  EXPECT_EQ(scenario["steps"][0]["node"], 1);
  const std::string text = counterexamples::scenario_to_gtest(scenario);
  EXPECT_NE(text.find("cluster->pause(1);"), std::string::npos);
  EXPECT_NE(text.find("cluster->resume(1);"), std::string::npos);
  run_on_model(scenario);
  // The suite's generated scenarios replay on the model adapter too.
  run_on_model(suite_file("j-acks1-pause-loss"));
  const ordered_json lost = suite_file("g-acks1-lost-response-duplicates");
  EXPECT_TRUE(lost["steps"][0].value("response_lost", false));
  EXPECT_TRUE(lost["steps"][2].value("retry", false));
  EXPECT_NE(counterexamples::scenario_to_gtest(lost).find("cluster->produce_response_lost(1, 0)"), std::string::npos);
  run_on_model(lost);
  run_on_model(suite_file("g-duplicates-idempotence-on"));
}

TEST(ExportGtest, GeneratesOneTestWithExpectedCalls) {
  const std::string text = counterexamples::scenario_to_gtest(counterexamples::trace_to_scenario(acks1_trace(), "acks1 leader-loss"));
  EXPECT_NE(text.find("TEST(Scenario, acks1_leader_loss)"), std::string::npos);
  EXPECT_NE(text.find("EXPECT_EQ(cluster->produce(1, 0), SendResult::Acked)"), std::string::npos);
  EXPECT_NE(text.find("cluster->crash(0, CrashKind::Kill, std::nullopt);"), std::string::npos);
  EXPECT_NE(text.find("c.leader = 1;"), std::string::npos);
  EXPECT_NE(text.find("EXPECT_FALSE(holds_record(end.replicas.at(1), 1))"), std::string::npos);
  EXPECT_NE(text.find("#include \"counterexamples/scenario/cluster_under_test.h\""), std::string::npos);
  EXPECT_EQ(counterexamples::cpp_identifier("9 lives--x"), "s_9_lives_x");
}

// The assertion a generated test ends with comes from the property's ClientEvidence in
// the catalog: a consistent-read violation checks the read offset on the leader, an
// acked-loss violation does not.
TEST(ExportGtest, ConsistentReadViolationAssertsTheReadRecordChanged) {
  const json trace = counterexample({"brokers=3", "min_insync_replicas=1", "unclean_leader_election=true",
                                     "properties=consistent-read"});
  ASSERT_EQ(trace.value("property", std::string()), "consistent-read");
  const std::string read_check = "a record read earlier is not at its offset on the leader any more";
  const std::string text =
      counterexamples::scenario_to_gtest(counterexamples::trace_to_scenario(trace, "unclean read changed"));
  EXPECT_NE(text.find(read_check), std::string::npos) << text;
  EXPECT_NE(text.find("EXPECT_TRUE(changed);"), std::string::npos);
  const std::string acked = counterexamples::scenario_to_gtest(
      counterexamples::trace_to_scenario(acks1_trace(), "acks1 leader-loss"));
  EXPECT_EQ(acked.find(read_check), std::string::npos);
}

// A guard drives the same operations without asserting their answers or reaching every
// wait, and ends asserting the property the trace violates, not the violation.
TEST(ExportGtest, AGuardAssertsThePropertyNotTheViolation) {
  const ordered_json scenario = counterexamples::trace_to_scenario(acks1_trace(), "acks1 leader-loss");
  const std::string text = counterexamples::scenario_to_gtest(scenario, counterexamples::GtestKind::Guard);
  EXPECT_NE(text.find("TEST(Guard, acks1_leader_loss)"), std::string::npos);
  EXPECT_NE(text.find("  cluster->produce(1, 0);"), std::string::npos);
  EXPECT_EQ(text.find("EXPECT_EQ(cluster->produce("), std::string::npos);
  EXPECT_NE(text.find("off_path.push_back("), std::string::npos);
  EXPECT_NE(text.find("EXPECT_TRUE(holds_record(end.replicas.at(end.leader), 1))"), std::string::npos);
  EXPECT_EQ(text.find("EXPECT_FALSE(holds_record"), std::string::npos);
  EXPECT_EQ(text.find("final state differs"), std::string::npos);
  const json trace = counterexample({"brokers=3", "min_insync_replicas=1", "unclean_leader_election=true",
                                     "properties=consistent-read"});
  const std::string read =
      counterexamples::scenario_to_gtest(counterexamples::trace_to_scenario(trace, "unclean read changed"),
                                         counterexamples::GtestKind::Guard);
  EXPECT_NE(read.find("served["), std::string::npos);
  EXPECT_NE(read.find("changed or is gone"), std::string::npos);
}

TEST(ExportCommand, GuardIsForTheGtestFormatOnly) {
  const std::string trace_file = write_temp(acks1_trace().dump());
  const auto r = run_isrcheck("export " + trace_file + " --format scenario --guard");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--guard"), std::string::npos) << r.err;
  EXPECT_EQ(run_isrcheck("export " + trace_file + " --format gtest --guard").exit_code, 0);
}

TEST(ExportItf, FollowsTheInformalTraceFormat) {
  const json& trace = acks1_trace();
  const ordered_json itf = counterexamples::trace_to_itf(trace);
  EXPECT_EQ(itf["#meta"]["format"], "ITF");
  EXPECT_EQ(itf["#meta"]["format-description"], "https://apalache-mc.org/docs/adr/015adr-trace.html");
  const std::vector<std::string> vars = itf["vars"].get<std::vector<std::string>>();
  for (const char* v : {"nodes", "controller", "producer", "consumer", "faults", "history", "mbt::actionTaken",
                        "mbt::nondetPicks"}) {
    EXPECT_NE(std::find(vars.begin(), vars.end(), v), vars.end()) << v;
  }
  ASSERT_EQ(itf["states"].size(), trace["steps"].size());
  for (size_t i = 0; i < itf["states"].size(); ++i) {
    const ordered_json& state = itf["states"][i];
    EXPECT_EQ(state["#meta"]["index"], i);
    for (const std::string& v : vars) EXPECT_TRUE(state.contains(v)) << "state " << i << " lacks " << v;
  }
  const ordered_json& first = itf["states"][0];
  EXPECT_EQ(first["mbt::actionTaken"], "init");
  EXPECT_EQ(first["controller"]["leader_epoch"], (ordered_json{{"#bigint", "0"}}));
  EXPECT_EQ(first["controller"]["isr"],
            (ordered_json{{"#set", {{{"#bigint", "0"}}, {{"#bigint", "1"}}, {{"#bigint", "2"}}}}}));
  EXPECT_EQ(first["controller"]["leader"], (ordered_json{{"tag", "Some"}, {"value", {{"#bigint", "0"}}}}));
  EXPECT_EQ(first["producer"]["outcomes"], (ordered_json{{"#map", {{{{"#bigint", "1"}}, "unsent"}}}}));
  EXPECT_EQ(first["nodes"][0]["replica"]["tag"], "Some");
  const ordered_json& second = itf["states"][1];
  EXPECT_EQ(second["mbt::actionTaken"], "Produce");
  EXPECT_EQ(second["mbt::nondetPicks"]["broker"], (ordered_json{{"tag", "Some"}, {"value", {{"#bigint", "0"}}}}));
  EXPECT_EQ(second["mbt::nondetPicks"]["node"]["tag"], "None");
  EXPECT_EQ(second["nodes"][0]["replica"]["value"]["log"][0], (ordered_json{{"#tup", {{{"#bigint", "0"}}, {{"#bigint", "1"}}}}}));
  // No bare JSON number in any variable (only #meta.index is one): integers are #bigint.
  std::function<void(const ordered_json&)> no_numbers = [&](const ordered_json& v) {
    EXPECT_FALSE(v.is_number()) << v.dump();
    if (v.is_object()) {
      for (const auto& [key, child] : v.items())
        if (key != "#meta") no_numbers(child);
    } else if (v.is_array()) {
      for (const auto& child : v) no_numbers(child);
    }
  };
  no_numbers(itf["states"]);
}

TEST(ExportCli, WritesEachFormatAndRefusesBadInput) {
  const std::string trace = write_temp(acks1_trace().dump());
  const std::string out = trace_test::temp_path(".json");
  auto r = run_isrcheck("export '" + trace + "' --format scenario --out '" + out + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(trace_test::slurp(out))["steps"].size(), 3u);
  r = run_isrcheck("export '" + trace + "' --format itf");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["#meta"]["format"], "ITF");
  r = run_isrcheck("export '" + trace + "' --format gtest --name demo");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("TEST(Scenario, demo)"), std::string::npos);

  r = run_isrcheck("export '" + trace + "' --format tla");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--format"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("scenario"), std::string::npos) << r.err;
  json broken = acks1_trace();
  broken.erase("steps");
  r = run_isrcheck("export '" + write_temp(broken.dump()) + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("steps: missing"), std::string::npos) << r.err;
  r = run_isrcheck("export '" + trace_test::fixture_path("trace_generic_model.json") + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("allowed: partition"), std::string::npos) << r.err;
}

TEST(ExportScenario, RecordsPerSendMakesEachModelRecordOneBatch) {
  ordered_json scenario = counterexamples::trace_to_scenario(acks1_trace(), "acks1");
  const ordered_json before = scenario;
  counterexamples::set_records_per_send(scenario, 1);
  EXPECT_EQ(scenario, before);  // 1 is the plain scenario
  counterexamples::set_records_per_send(scenario, 10);
  EXPECT_EQ(scenario["clients"]["producer"]["records_per_send"], 10);
  EXPECT_EQ(scenario["clients"]["producer"]["record_value"], "record-<k>.<i>, i = 1..10, one batch per send");
  // Only the client's mapping changes: the model's steps and observations stay the trace's.
  ordered_json without = scenario;
  without["clients"] = before["clients"];
  EXPECT_EQ(without, before);
  // The model adapter runs it unchanged: a model record is the batch.
  run_on_model(scenario);
  EXPECT_THROW(counterexamples::set_records_per_send(scenario, 0), std::invalid_argument);
  EXPECT_THROW(counterexamples::set_records_per_send(scenario, 1001), std::invalid_argument);
}

TEST(ExportScenario, RequestTimeoutIsTheHarnesssProducerSetting) {
  ordered_json scenario = counterexamples::trace_to_scenario(acks1_trace(), "acks1");
  EXPECT_FALSE(scenario["clients"]["producer"].contains("request.timeout.ms"));
  counterexamples::set_producer_request_timeout(scenario, 500);
  EXPECT_EQ(scenario["clients"]["producer"]["request.timeout.ms"], 500);
  run_on_model(scenario);  // the model's timeouts have no duration: the same run
  EXPECT_THROW(counterexamples::set_producer_request_timeout(scenario, 99), std::invalid_argument);
  EXPECT_THROW(counterexamples::set_producer_request_timeout(scenario, 60001), std::invalid_argument);
}

TEST(ExportScenario, BrokerConfigIsWrittenAndMalformedOnesAreRefused) {
  ordered_json scenario = counterexamples::trace_to_scenario(acks1_trace(), "acks1");
  counterexamples::set_broker_config(scenario, "replica.lag.time.max.ms=30000");
  EXPECT_EQ(scenario["cluster"]["broker_config"]["replica.lag.time.max.ms"], "30000");
  EXPECT_EQ(scenario["cluster"]["broker_config"]["min.insync.replicas"], "2");  // the model's own stay
  run_on_model(scenario);  // a timer the model does not have: the same run
  for (const char* bad : {"replica.lag.time.max.ms", "=1", "k="}) {
    EXPECT_THROW(counterexamples::set_broker_config(scenario, bad), std::invalid_argument) << bad;
  }
}

TEST(ExportCli, RecordsPerSendIsWrittenAndBadValuesAreRefused) {
  const std::string trace = write_temp(acks1_trace().dump());
  auto r = run_isrcheck("export '" + trace + "' --format scenario --records-per-send 10");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["clients"]["producer"]["records_per_send"], 10);
  r = run_isrcheck("export '" + trace + "' --format scenario");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(json::parse(r.out)["clients"]["producer"].contains("records_per_send"));
  for (const char* bad : {"0", "1001", "-3"}) {
    r = run_isrcheck("export '" + trace + "' --records-per-send " + bad);
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("--records-per-send"), std::string::npos) << r.err;
  }
  r = run_isrcheck("export '" + trace + "' --format itf --records-per-send 10");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not itf"), std::string::npos) << r.err;
  r = run_isrcheck("export '" + trace + "' --format scenario --request-timeout-ms 500");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["clients"]["producer"]["request.timeout.ms"], 500);
  for (const char* bad : {"50", "60001"}) {
    r = run_isrcheck("export '" + trace + "' --request-timeout-ms " + bad);
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("--request-timeout-ms"), std::string::npos) << r.err;
  }
  r = run_isrcheck("export '" + trace + "' --format scenario --broker-config replica.lag.time.max.ms=30000");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["cluster"]["broker_config"]["replica.lag.time.max.ms"], "30000");
  r = run_isrcheck("export '" + trace + "' --format scenario --broker-config replica.lag.time.max.ms");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--broker-config"), std::string::npos) << r.err;
}

// Small bounds: no faults beyond one kill, one record, low epochs.
const std::vector<std::string> kSmallBounds = {"faults.max_lossy_crashes=0", "bounds.max_leader_epoch=2",
                                               "bounds.max_partition_epoch=2"};

std::set<std::string> union_of_covers(const analysis::CoveringResult& r) {
  std::set<std::string> out;
  for (const auto& t : r.tests) out.insert(t.covers.begin(), t.covers.end());
  return out;
}

TEST(CoveringTests, CoverEveryReachableActionKindOfTheDefaultModel) {
  const spec::Config config = spec::load_config(nullptr, kSmallBounds);
  const analysis::CoveringResult r = analysis::covering_tests(config, {});
  ASSERT_TRUE(r.complete);
  EXPECT_TRUE(r.uncovered.empty());
  // Every action kind is either reachable and covered, or never enabled.
  const spec::PartitionModel model(config);
  const std::set<std::string> covered = union_of_covers(r);
  EXPECT_EQ(covered, std::set<std::string>(r.reachable_classes.begin(), r.reachable_classes.end()));
  for (std::string_view kind : model.action_kinds()) {
    const bool reachable = covered.count(std::string(kind)) > 0;
    const bool unreachable = std::find(r.unreachable_kinds.begin(), r.unreachable_kinds.end(), kind) !=
                             r.unreachable_kinds.end();
    EXPECT_NE(reachable, unreachable) << kind;
  }
  for (const char* kind : {"Produce", "Fetch", "Crash", "Restart", "FenceBroker", "MetadataUpdate", "Consume"}) {
    EXPECT_TRUE(covered.count(kind)) << kind;
  }
  EXPECT_LT(r.tests.size(), r.reachable_classes.size());  // paths share classes
  // Each test is a real execution of the model that ends with its target.
  for (const auto& t : r.tests) {
    const json& steps = t.trace.at("steps");
    EXPECT_EQ(steps.back().at("action").at("kind"), t.target);
    EXPECT_EQ(std::find(t.covers.begin(), t.covers.end(), t.target) == t.covers.end(), false);
    counterexamples::check_trace(t.trace);
  }
}

TEST(CoveringTests, TransitionsAreFinerAndMaxIsRespected) {
  const spec::Config config = spec::load_config(nullptr, kSmallBounds);
  analysis::CoveringOptions options;
  options.criterion = analysis::CoverCriterion::Transitions;
  const analysis::CoveringResult all = analysis::covering_tests(config, options);
  EXPECT_TRUE(all.uncovered.empty());
  const analysis::CoveringResult kinds = analysis::covering_tests(config, {});
  EXPECT_GT(all.reachable_classes.size(), kinds.reachable_classes.size());
  EXPECT_NE(std::find(all.reachable_classes.begin(), all.reachable_classes.end(), "Produce:{nodes,producer}"),
            all.reachable_classes.end());

  options.max_tests = 2;
  const analysis::CoveringResult two = analysis::covering_tests(config, options);
  EXPECT_EQ(two.tests.size(), 2u);
  EXPECT_FALSE(two.uncovered.empty());
  EXPECT_EQ(union_of_covers(two).size() + two.uncovered.size(), two.reachable_classes.size());
}

TEST(CoveringTests, CommandWritesScenariosAndIndex) {
  const std::string dir = trace_test::temp_path("_cover");
  std::string sets;
  for (const std::string& s : kSmallBounds) sets += " --set " + s;
  auto r = run_isrcheck("tests" + sets + " --cover actions --max 3 --out '" + dir + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json index = json::parse(trace_test::slurp(dir + "/index.json"));
  EXPECT_EQ(index["format"], "isrcheck-covering-tests");
  ASSERT_EQ(index["scenarios"].size(), 3u);
  for (const auto& entry : index["scenarios"]) {
    const json scenario = json::parse(trace_test::slurp(dir + "/" + entry["file"].get<std::string>()));
    EXPECT_EQ(scenario["format"], "isrcheck-scenario");
    EXPECT_TRUE(scenario["expected"]["violation"]["property"].is_null());
  }
  r = run_isrcheck("tests --cover paths --out '" + dir + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--cover"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("transitions"), std::string::npos) << r.err;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace isr
