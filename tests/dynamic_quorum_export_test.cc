// A dynamic-quorum trace (controller.quorum=dynamic, KIP-853) as a scenario: the cluster
// section names the quorum kind, the operator's RemoveVoter / AddVoter become the
// scenario ops remove_voter / add_voter, the observations carry the voter set and the
// observers, the generated test calls the adapter's remove_voter / add_voter, the model
// adapter replays it, and a recording of it validates against the model.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "counterexamples/export/export_gtest.h"
#include "counterexamples/export/export_scenario.h"
#include "counterexamples/export/model_cluster.h"
#include "counterexamples/scenario/cluster_under_test.h"
#include "counterexamples/scenario/recording.h"
#include "counterexamples/scenario/scenario_reader.h"
#include "counterexamples/trace/trace_writer.h"
#include "spec/partition/config.h"
#include "spec/partition/partition_model.h"
#include "tests/trace_test_support.h"

namespace isr {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// N0 (combined voter, leader, active controller) loses its disk and comes back on a new
// directory id: RemoveVoter of its old key, its restart, registration and metadata replay,
// AddVoter of its new key. Each step is the first enabled action of its kind and node.
json wiped_voter_trace() {
  const spec::Config config = spec::load_config(
      nullptr, {"controller.quorum=dynamic", "faults.max_crashes=1", "faults.max_disk_losses=1",
                "faults.max_lossy_crashes=0", "consumer=false"});
  const spec::PartitionModel model(config);
  spec::State s = model.initial_states().at(0);
  json steps = json::array({{{"index", 0}, {"action", nullptr}, {"action_name", "Init"}, {"state", model.state_to_json(s)}}});
  auto can = [&](spec::ActionKind kind, int node, int arg, spec::Action* out) {
    std::array<spec::Action, spec::kMaxEnabledActions> actions;
    const int n = model.enabled_actions(s, actions.data());
    for (int i = 0; i < n; ++i) {
      if (actions[i].kind == kind && actions[i].node == node && (arg < 0 || actions[i].arg == arg)) {
        if (out != nullptr) *out = actions[i];
        return true;
      }
    }
    return false;
  };
  auto take = [&](spec::ActionKind kind, int node, int arg = -1) {
    spec::Action a{};
    if (!can(kind, node, arg, &a)) {
      ADD_FAILURE() << "not enabled: kind " << static_cast<int>(kind) << " node " << node << " in "
                    << model.state_to_json(s).dump();
      return;
    }
    s = model.next_state(s, a);
    steps.push_back({{"index", steps.size()}, {"action", model.action_to_json(a)},
                     {"action_name", model.action_name(a)}, {"state", model.state_to_json(s)}});
  };
  using K = spec::ActionKind;
  take(K::Crash, 0, static_cast<int>(spec::StopKind::Disk));
  take(K::ControllerFailover, 1);
  take(K::FenceBroker, 0);
  take(K::RemoveVoter, 0);
  take(K::Restart, 0);
  for (int guard = 0; guard < 4 && !s.replicas[0].view_valid; ++guard) {
    if (can(K::RegisterBroker, 0, -1, nullptr)) take(K::RegisterBroker, 0);
    else take(K::MetadataUpdate, 0);
  }
  take(K::AddVoter, 0);
  return counterexamples::make_trace("partition", model.config_json(), "witness", "a wiped voter re-added",
                                     "witness", steps);
}

std::vector<std::string> ops_of(const ordered_json& scenario) {
  std::vector<std::string> ops;
  for (const auto& step : scenario.at("steps")) ops.push_back(step.at("op").get<std::string>());
  return ops;
}

TEST(DynamicQuorumExport, TheScenarioNamesTheQuorumAndTheOperatorsSteps) {
  const ordered_json scenario = counterexamples::trace_to_scenario(wiped_voter_trace(), "wiped-voter");
  EXPECT_EQ(scenario["cluster"]["controller"]["quorum"], "dynamic");
  const std::vector<std::string> ops = ops_of(scenario);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "remove_voter"), 1);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "add_voter"), 1);
  EXPECT_EQ(ops.back(), "add_voter") << scenario.dump();
  // The observations carry the voter set and the observers (Admin.describeMetadataQuorum).
  EXPECT_EQ(scenario["initial"]["until"]["voters"], ordered_json::array({0, 1, 2}));
  EXPECT_EQ(scenario["initial"]["until"]["observers"], ordered_json::array());
  bool saw_observer = false;
  for (const auto& step : scenario["steps"]) {
    if (step["op"] == "wait" && step["until"]["observers"] == ordered_json::array({0})) {
      saw_observer = true;
      EXPECT_EQ(step["until"]["voters"], ordered_json::array({1, 2})) << "the old key was removed first";
    }
  }
  EXPECT_TRUE(saw_observer) << scenario.dump();
  const ordered_json& final_until = scenario["expected"]["final"];
  EXPECT_EQ(final_until["voters"], ordered_json::array({0, 1, 2})) << final_until.dump();
  EXPECT_EQ(final_until["observers"], ordered_json::array());
  // A static trace keeps the cluster section's old form.
  const ordered_json plain = counterexamples::trace_to_scenario(
      counterexamples::make_trace("partition", spec::PartitionModel(spec::load_config(nullptr, {})).config_json(),
                                  "witness", "init", "witness",
                                  json::array({wiped_voter_trace()["steps"][0]})),
      "init");
  EXPECT_FALSE(plain["cluster"]["controller"].contains("quorum"));
}

TEST(DynamicQuorumExport, TheGeneratedTestAndTheModelAdapterTakeTheSteps) {
  const ordered_json scenario = counterexamples::trace_to_scenario(wiped_voter_trace(), "wiped-voter");
  const std::string text = counterexamples::scenario_to_gtest(scenario);
  EXPECT_NE(text.find("cluster->remove_voter(0);"), std::string::npos);
  EXPECT_NE(text.find("cluster->add_voter(0);"), std::string::npos);
  EXPECT_NE(text.find("c.observers = "), std::string::npos);
  // The model adapter replays every step and meets every observation, voters included.
  auto cluster = counterexamples::ModelCluster::from_scenario(json::parse(scenario.dump()));
  std::string why;
  for (const auto& step : scenario["steps"]) {
    const std::string op = step["op"];
    if (op == "crash") cluster->crash(step["node"], cut::CrashKind::DiskLoss, std::nullopt);
    else if (op == "restart") cluster->restart(step["node"]);
    else if (op == "remove_voter") cluster->remove_voter(step["node"]);
    else if (op == "add_voter") cluster->add_voter(step["node"]);
    else if (op == "wait") {
      const cut::Condition c = counterexamples::scenario_condition(json::parse(step["until"].dump()), "until");
      ASSERT_TRUE(c.voters && c.observers);
      cut::Condition hinted = c;
      hinted.model_state = step["model"]["state"];
      hinted.model_steps = step["model"]["steps"];
      ASSERT_TRUE(cluster->wait_until(hinted, &why)) << why;
      EXPECT_TRUE(cut::mismatches(c, cluster->describe_partition()).empty());
    } else {
      FAIL() << "unexpected op " << op;
    }
  }
  const cut::PartitionObservation end = cluster->describe_partition();
  EXPECT_EQ(end.voters, (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(end.observers.empty());
  // A voter set that differs is a mismatch the comparison names.
  cut::Condition wrong;
  wrong.voters = std::vector<int>{1, 2};
  ASSERT_EQ(cut::mismatches(wrong, end).size(), 1u);
  EXPECT_NE(cut::mismatches(wrong, end)[0].find("voters"), std::string::npos);
}

TEST(DynamicQuorumExport, RecordingsAcceptTheOperatorsStepsAndTheQuorumObservation) {
  const std::string text = counterexamples::recording_header(json::object(), "4.4.0").dump() + "\n" +
                           R"({"seq":1,"kind":"fault","op":"remove_voter","node":0}
{"seq":2,"kind":"observe","state":{"voters":[1,2],"observers":[0]}}
)";
  try {
    const counterexamples::Recording r = counterexamples::parse_recording(text);
    ASSERT_EQ(r.events.size(), 2u);
    EXPECT_EQ(r.events[0].op, "remove_voter");
    EXPECT_EQ(r.events[0].node, 0);
  } catch (const std::invalid_argument& e) {
    FAIL() << e.what();
  }
}

// The command line shows the key and the actions, and an exhaustive check on a dynamic
// quorum with a voter's disk loss (restart, RemoveVoter, AddVoter reachable) holds.
TEST(DynamicQuorumCli, DescribeListAndCheckShowTheDynamicQuorum) {
  const auto described = trace_test::run_isrcheck("describe");
  ASSERT_EQ(described.exit_code, 0) << described.err;
  EXPECT_EQ(json::parse(described.out)["controller"]["quorum"], "static");
  const auto listed = trace_test::run_isrcheck("list actions");
  EXPECT_NE(listed.out.find("RemoveVoter"), std::string::npos);
  EXPECT_NE(listed.out.find("AddVoter"), std::string::npos);
  const auto bad = trace_test::run_isrcheck("check --set controller.quorum=elastic");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("controller.quorum"), std::string::npos) << bad.err;
  const auto checked = trace_test::run_isrcheck(
      "check --set controller.quorum=dynamic --set faults.max_disk_losses=1 --set faults.max_lossy_crashes=0 "
      "--set consumer=false");
  EXPECT_EQ(checked.exit_code, 0) << checked.out << checked.err;
  EXPECT_NE(checked.out.find("dynamic quorum (KIP-853"), std::string::npos) << checked.out;
}

}  // namespace
}  // namespace isr
