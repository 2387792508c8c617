// Issue 29 point 2 for the KRaft quorum model (`--model kraft`, spec/kraft/kraft_usage.h)
// and the composed model (`--model cluster`, spec/cluster/cluster_usage.h): after a
// complete search every budget above 0, and every fix turned off, whose feature never
// acted is named with what would let it act, in text and JSON, as the partition model's
// switches are (tests/unused_switches_test.cc).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/bfs/bfs.h"
#include "spec/cluster/cluster_config.h"
#include "spec/cluster/cluster_model.h"
#include "spec/cluster/cluster_usage.h"
#include "spec/kraft/kraft_config.h"
#include "spec/kraft/kraft_model.h"
#include "spec/kraft/kraft_usage.h"
#include "spec/partition/usage.h"
#include "tests/trace_test_support.h"

namespace isr::spec {
namespace {

const UnusedSwitch* find(const std::vector<UnusedSwitch>& all, const std::string& setting) {
  for (const UnusedSwitch& u : all) {
    if (u.setting == setting) return &u;
  }
  return nullptr;
}

uint32_t bit_of(const std::vector<std::string_view>& names, std::string_view name) {
  const auto at = std::find(names.begin(), names.end(), name);
  EXPECT_NE(at, names.end()) << name;
  return uint32_t{1} << (at - names.begin());
}

TEST(UnusedSwitchesKraft, BudgetsAndFixesAreNamedWithWhatLetsThemAct) {
  const kraft::KraftConfig c = kraft::load_config(
      nullptr, {"fixes.directory_ids=false", "faults.max_crashes=0", "faults.max_network_cuts=1",
                "faults.max_lost_responses=1", "bounds.max_appends=1"});
  const std::vector<UnusedSwitch> none = kraft::unused_switches(c, 0);
  const UnusedSwitch* ids = find(none, "fixes.directory_ids=false");
  ASSERT_NE(ids, nullptr);
  EXPECT_EQ(ids->enable, "raise faults.max_disk_losses to 1 and faults.max_crashes to 1");
  EXPECT_NE(find(none, "faults.max_network_cuts=1"), nullptr);
  EXPECT_NE(find(none, "faults.max_lost_responses=1"), nullptr);
  EXPECT_NE(find(none, "bounds.max_appends=1"), nullptr);
  EXPECT_EQ(find(none, "faults.max_crashes=0"), nullptr) << "a budget of 0 switches nothing on";
  EXPECT_EQ(find(none, "fixes.persist_vote=true"), nullptr) << "a fix left on is not a switch set";
  EXPECT_TRUE(kraft::unused_switches(c, ~uint32_t{0}).empty());
  EXPECT_LE(kraft::usage_names().size(), 32u);
}

// The engine records the bits for the KRaft model, and the hint is right: the fix turned
// off acts only with a disk loss, and with one budgeted some voter comes back on a new
// directory.
TEST(UnusedSwitchesKraft, TheSearchRecordsTheBitsAndTheHintHolds) {
  checker::BfsOptions o;
  o.threads = 2;
  o.symmetry = true;
  const kraft::KraftModel off(kraft::load_config(nullptr, {"fixes.directory_ids=false"}));
  const auto r = checker::bfs(off, o);
  ASSERT_TRUE(r.usage_recorded);
  ASSERT_EQ(r.verdict, checker::Verdict::Holds);
  const auto names = kraft::usage_names();
  EXPECT_NE(r.usage_mask & bit_of(names, "crash"), 0u);
  const std::vector<UnusedSwitch> unused = off.unused_switches(r.usage_mask);
  const UnusedSwitch* ids = find(unused, "fixes.directory_ids=false");
  ASSERT_NE(ids, nullptr);
  EXPECT_EQ(ids->enable, "raise faults.max_disk_losses to 1");

  const kraft::KraftModel hinted(kraft::load_config(nullptr, {"faults.max_disk_losses=1"}));
  const auto h = checker::bfs(hinted, o);
  EXPECT_NE(h.usage_mask & bit_of(names, "new-directory"), 0u);
  EXPECT_NE(h.usage_mask & bit_of(names, "disk-loss"), 0u);
}

TEST(UnusedSwitchesKraft, CheckNamesThemInTextAndJson) {
  const trace_test::Run r = trace_test::run_isrcheck("check --model kraft --set fixes.directory_ids=false --json -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);
  ASSERT_TRUE(report.contains("unused_switches")) << r.out.substr(0, 300);
  bool found = false;
  for (const auto& u : report["unused_switches"]) {
    if (u.at("setting") != "fixes.directory_ids=false") continue;
    found = true;
    EXPECT_EQ(u.at("enable"), "raise faults.max_disk_losses to 1") << u.dump();
  }
  EXPECT_TRUE(found) << report["unused_switches"].dump();
  EXPECT_NE(r.err.find("unused: fixes.directory_ids=false: no voter came back on an empty disk"), std::string::npos)
      << r.err;
}

TEST(UnusedSwitchesCluster, ThePartitionsSwitchesAndTheQuorumsBudgetsAreNamed) {
  const cluster::ClusterConfig c =
      cluster::load_config(nullptr, {"unclean_leader_election=true", "kraft.max_lost_responses=1"});
  const std::vector<UnusedSwitch> none = cluster::unused_switches(c, 0);
  const UnusedSwitch* unclean = find(none, "unclean_leader_election=true");
  ASSERT_NE(unclean, nullptr);
  EXPECT_EQ(unclean->enable.rfind("raise faults.max_crashes to", 0), 0u) << unclean->enable;
  EXPECT_NE(find(none, "kraft.max_lost_responses=1"), nullptr);
  EXPECT_NE(find(none, "kraft.max_records=1"), nullptr);
  EXPECT_TRUE(cluster::unused_switches(c, ~uint32_t{0}).empty());
  // The partition's bits keep their places: its words apply to the composed state.
  const auto names = cluster::usage_names();
  const auto partition = spec::usage_names();
  ASSERT_GT(names.size(), partition.size());
  EXPECT_TRUE(std::equal(partition.begin(), partition.end(), names.begin()));
  EXPECT_LE(names.size(), 32u);
  // A used quorum budget is not named.
  const uint32_t lost = bit_of(names, "kraft-lost-fetch-response");
  EXPECT_EQ(find(cluster::unused_switches(c, lost), "kraft.max_lost_responses=1"), nullptr);
}

TEST(UnusedSwitchesCluster, TheSearchRecordsTheBits) {
  const cluster::ClusterModel model(cluster::load_config(
      nullptr, {"faults.max_crashes=0", "kraft.max_lost_responses=1"}));  // 0.2M states
  checker::BfsOptions o;
  o.threads = 2;
  o.symmetry = true;
  const auto r = checker::bfs(model, o);
  ASSERT_TRUE(r.usage_recorded);
  ASSERT_EQ(r.verdict, checker::Verdict::Holds);
  const auto names = cluster::usage_names();
  EXPECT_EQ(r.usage_mask & bit_of(names, "crash"), 0u);
  EXPECT_NE(r.usage_mask & bit_of(names, "kraft-lost-fetch-response"), 0u);
  EXPECT_EQ(find(model.unused_switches(r.usage_mask), "kraft.max_lost_responses=1"), nullptr);
}

}  // namespace
}  // namespace isr::spec
