// Issue 29 point 2: after a complete search, every switch or budget the configuration
// sets whose feature never acted is named, with what would let it act, in text and JSON.
// `check --set unclean_leader_election=true` held with the default's very state count and
// said nothing: with one crash no unclean election can happen.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/bfs/bfs.h"
#include "spec/partition/config.h"
#include "spec/partition/partition_model.h"
#include "spec/partition/usage.h"
#include "tests/trace_test_support.h"

namespace isr::spec {
namespace {

// Holds in 0.3M states (1.4 s): the default without the consumer and the power loss.
const std::string kSmall = "--set consumer=false --set faults.max_lossy_crashes=0";

const UnusedSwitch* find(const std::vector<UnusedSwitch>& all, const std::string& setting) {
  for (const UnusedSwitch& u : all) {
    if (u.setting == setting) return &u;
  }
  return nullptr;
}

TEST(UnusedSwitches, AnUncleanElectionThatCannotHappenIsNamedInTextAndJson) {
  const trace_test::Run r = trace_test::run_isrcheck("check " + kSmall + " --set unclean_leader_election=true --json -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);
  ASSERT_TRUE(report.contains("unused_switches")) << r.out.substr(0, 300);
  bool found = false;
  for (const auto& u : report["unused_switches"]) {
    if (u.at("setting") != "unclean_leader_election=true") continue;
    found = true;
    EXPECT_EQ(u.at("enable").get<std::string>().rfind("raise faults.max_crashes to 2", 0), 0u) << u.dump();
  }
  EXPECT_TRUE(found) << report["unused_switches"].dump();
  EXPECT_NE(r.err.find("unused: unclean_leader_election=true: no unclean election happened"), std::string::npos)
      << r.err;
}

// The hint is right: with the crash it names, the unclean election acts (and loses an
// acknowledged write). A search that stops at a violation names no unused switch: it
// has not seen every state.
TEST(UnusedSwitches, FollowingTheHintLetsTheSwitchAct) {
  const trace_test::Run r = trace_test::run_isrcheck(
      "check " + kSmall + " --set unclean_leader_election=true --set faults.max_crashes=2 --json -");
  ASSERT_EQ(r.exit_code, 1) << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);
  EXPECT_FALSE(report.contains("unused_switches"));
  bool unclean = false;
  for (const auto& step : report.at("trace").at("steps")) {
    unclean = unclean || step.at("state").at("controller").value("unclean_elected", false);
  }
  EXPECT_TRUE(unclean) << "the counterexample has no unclean election";
}

TEST(UnusedSwitches, SwitchesOffOrUsedAreNotNamed) {
  const trace_test::Run r = trace_test::run_isrcheck("check " + kSmall + " --json -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);
  ASSERT_TRUE(report.contains("unused_switches"));
  EXPECT_TRUE(report["unused_switches"].empty()) << report["unused_switches"].dump();
}

TEST(UnusedSwitches, BudgetsAreNamedWithTheChangeTheirDefinitionImplies) {
  Config c = load_config(nullptr, {"acks=1", "bounds.max_retries=1", "faults.max_crashes=0",
                                   "faults.max_lossy_crashes=0", "bounds.max_leader_moves=1",
                                   "unclean_leader_election=true"});
  const std::vector<UnusedSwitch> none_used = unused_switches(c, 0);
  const UnusedSwitch* retries = find(none_used, "bounds.max_retries=1");
  ASSERT_NE(retries, nullptr);
  EXPECT_EQ(retries->enable, "raise faults.max_lost_produce_responses to 1");
  const UnusedSwitch* moves = find(none_used, "bounds.max_leader_moves=1");
  ASSERT_NE(moves, nullptr);
  EXPECT_EQ(moves->enable, "raise faults.max_crashes to 1");
  ASSERT_NE(find(none_used, "unclean_leader_election=true"), nullptr);
  EXPECT_EQ(find(none_used, "faults.max_crashes=0"), nullptr) << "a budget of 0 switches nothing on";
  // Every feature used: nothing to name.
  EXPECT_TRUE(unused_switches(c, ~uint32_t{0}).empty());
}

// The engine ORs the bits over every distinct state: the same for any thread count.
TEST(UnusedSwitches, TheUsageBitsAreTheSameForOneThreadOrMany) {
  const PartitionModel model(load_config(nullptr, {"consumer=false", "faults.max_lossy_crashes=0",
                                                   "bounds.max_leader_epoch=2", "bounds.max_partition_epoch=2"}));
  checker::BfsOptions one;
  one.threads = 1;
  checker::BfsOptions two = one;
  two.threads = 2;
  const auto a = checker::bfs(model, one);
  const auto b = checker::bfs(model, two);
  ASSERT_TRUE(a.usage_recorded);
  EXPECT_EQ(a.usage_mask, b.usage_mask);
  // One crash happened somewhere, no unclean election anywhere.
  const std::vector<std::string_view> names = usage_names();
  const auto bit_of = [&](std::string_view name) {
    return uint32_t{1} << (std::find(names.begin(), names.end(), name) - names.begin());
  };
  EXPECT_NE(a.usage_mask & bit_of("crash"), 0u);
  EXPECT_EQ(a.usage_mask & bit_of("unclean-election"), 0u);
}

}  // namespace
}  // namespace isr::spec
