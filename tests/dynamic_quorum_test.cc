// KIP-853's dynamic quorum in the partition model (controller.quorum, spec/partition/
// voters.cc): a combined voter that lost its disk comes back an observer, is counted for
// no quorum and cannot become the active controller until an operator's RemoveVoter of
// its old key and AddVoter of its new one; a static quorum keeps the model as it was.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "spec/cluster/cluster_config.h"
#include "spec/partition/config.h"
#include "spec/partition/queries.h"
#include "tests/model_test_util.h"

namespace isr::spec {
namespace {

using namespace modeltest;

std::vector<std::string> with(const std::string& quorum) {
  return {"controller.quorum=" + quorum, "faults.max_crashes=2", "faults.max_disk_losses=1"};
}

// N0 (combined voter, active controller, leader) loses its disk; N1 takes over the
// quorum and is elected leader by the fencing; N0 restarts and registers again.
::testing::AssertionResult wipe_and_restart(Scenario& s) {
  return s.run({crash(0, StopKind::Disk), controller_failover(1), fence_broker(0, 1), restart(0)});
}

TEST(DynamicQuorum, TheKeyDefaultsToStaticAndIsWrittenOnlyWhenDynamic) {
  const Config def = load_config(nullptr, {});
  EXPECT_EQ(def.controller.quorum, QuorumKind::Static);
  EXPECT_FALSE(to_json(def)["controller"].contains("quorum")) << "recorded configurations keep their text";
  EXPECT_EQ(describe_json(def)["controller"]["quorum"], "static") << "describe shows every key";
  const Config dyn = load_config(nullptr, {"controller.quorum=dynamic"});
  EXPECT_EQ(to_json(dyn)["controller"]["quorum"], "dynamic");
  // A trace's recorded configuration reads back to the same quorum kind.
  const nlohmann::json doc = to_json(dyn);
  EXPECT_EQ(load_config(&doc, {}).controller.quorum, QuorumKind::Dynamic);
}

TEST(DynamicQuorum, BadValuesNameTheFieldAndWhatIsAllowed) {
  try {
    load_config(nullptr, {"controller.quorum=elastic"});
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("controller.quorum"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("dynamic"), std::string::npos) << e.what();
  }
  try {
    load_config(nullptr, {"protocol=kip-903", "controller.mode=zookeeper", "controller.quorum=dynamic"});
    FAIL() << "accepted a dynamic quorum under ZooKeeper";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("controller.quorum"), std::string::npos) << e.what();
  }
  // The composed model's voters are the KRaft model's: it refuses the partition model's key.
  try {
    cluster::load_config(nullptr, {"controller.quorum=dynamic"});
    FAIL() << "--model cluster accepted a dynamic quorum";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("controller.quorum"), std::string::npos) << e.what();
  }
}

TEST(DynamicQuorum, AStaticQuorumCountsTheWipedVoterAgain) {
  Scenario s(with("static"));
  ASSERT_TRUE(wipe_and_restart(s));
  EXPECT_EQ(s.controller().stale_voters, 0);
  EXPECT_TRUE(rules::live_voter(s.config(), s.state(), 0)) << "the empty node is the old voter (id alone)";
  EXPECT_EQ(s.count(ActionKind::RemoveVoter) + s.count(ActionKind::AddVoter), 0);
  // N0 and N2 are a majority of three once N1 dies.
  ASSERT_TRUE(s.apply(crash(1, StopKind::Kill)));
  EXPECT_TRUE(s.can(controller_failover(0)));
}

TEST(DynamicQuorum, TheWipedVoterIsAnObserverCountedForNoQuorum) {
  Scenario s(with("dynamic"));
  ASSERT_TRUE(s.apply(crash(0, StopKind::Disk)));
  EXPECT_EQ(s.controller().stale_voters, nodes({0}));
  ASSERT_TRUE(s.run({controller_failover(1), fence_broker(0, 1), restart(0)}));
  EXPECT_FALSE(rules::live_voter(s.config(), s.state(), 0)) << "its new directory id is no voter's key";
  EXPECT_TRUE(rules::quorum_available(s.config(), s.state())) << "N1 and N2 are two of three";
  const nlohmann::json ctl = s.model().state_to_json(s.state())["controller"];
  EXPECT_EQ(ctl["voter_set"], nlohmann::json::array({0, 1, 2}));
  EXPECT_EQ(ctl["observers"], nlohmann::json::array({0}));
  // With N1 gone, N2 alone is no majority of the three keys: no commit, no failover,
  // and never to the observer.
  ASSERT_TRUE(s.apply(crash(1, StopKind::Kill)));
  EXPECT_FALSE(rules::quorum_available(s.config(), s.state()));
  EXPECT_FALSE(s.can(controller_failover(0)));
  EXPECT_FALSE(s.can(controller_failover(2)));
}

TEST(DynamicQuorum, TheObserverNeverBecomesTheActiveController) {
  // Five combined voters: with N0 an observer and N1 dead, N2..N4 are a majority of the
  // five keys and one of them takes over; N0, which runs, may not.
  std::vector<std::string> five = with("dynamic");
  five.insert(five.end(), {"brokers=5", "controller.voters=5"});
  Scenario s(five);
  ASSERT_TRUE(wipe_and_restart(s));
  ASSERT_TRUE(s.apply(crash(1, StopKind::Kill)));
  EXPECT_FALSE(s.can(controller_failover(0)));
  EXPECT_TRUE(s.can(controller_failover(2)));
  EXPECT_TRUE(s.can(controller_failover(4)));
}

TEST(DynamicQuorum, RemoveThenAddMakesItAVoterOnceCaughtUp) {
  Scenario s(with("dynamic"));
  ASSERT_TRUE(s.apply(crash(0, StopKind::Disk)));
  EXPECT_EQ(s.count(ActionKind::RemoveVoter), 0) << "no active controller reachable: nothing commits";
  ASSERT_TRUE(s.apply(controller_failover(1)));
  EXPECT_EQ(s.count(ActionKind::AddVoter), 0) << "the old key is still in the voter set";
  // The old key may go while the node is still down.
  ASSERT_TRUE(s.apply(remove_voter(0)));
  EXPECT_EQ(s.count(ActionKind::RemoveVoter), 0);
  EXPECT_EQ(rules::voter_set_size(s.config(), s.state()), 2);
  EXPECT_EQ(s.count(ActionKind::AddVoter), 0) << "N0 does not run";
  ASSERT_TRUE(s.apply(restart(0)));
  EXPECT_EQ(s.count(ActionKind::AddVoter), 0) << "N0 has not replayed the metadata log: not caught up";
  // Registration and the metadata replay catch it up.
  for (int guard = 0; guard < 4 && !s.replica(0).view_valid; ++guard) {
    if (s.can(register_broker(0, kAny))) {
      // Any of its variants (the leader it may elect, the directory assignment first).
      s.mutable_state() = s.model().next_state(s.state(), s.matching(register_broker(0, kAny)).front());
    } else if (s.can(fence_broker(0, 1))) {
      ASSERT_TRUE(s.apply(fence_broker(0, 1)));
    } else {
      ASSERT_TRUE(s.apply(metadata_update(0)));
    }
  }
  ASSERT_TRUE(s.replica(0).view_valid) << s.json();
  ASSERT_TRUE(s.apply(add_voter(0)));
  EXPECT_EQ(s.controller().stale_voters, 0);
  EXPECT_EQ(s.controller().removed_voters, 0);
  EXPECT_TRUE(rules::live_voter(s.config(), s.state(), 0));
  EXPECT_EQ(s.count(ActionKind::RemoveVoter) + s.count(ActionKind::AddVoter), 0) << "bounded: done once";
  // A voter again: N0 and N2 are a majority without N1, and N0 may lead the quorum.
  ASSERT_TRUE(s.apply(crash(1, StopKind::Kill)));
  EXPECT_TRUE(rules::quorum_available(s.config(), s.state()) || s.can(controller_failover(0)));
  EXPECT_TRUE(s.can(controller_failover(0)));
}

TEST(DynamicQuorum, AfterRemoveVoterAMajorityOfTheSmallerSetCommits) {
  Scenario s(with("dynamic"));
  ASSERT_TRUE(s.run({crash(0, StopKind::Disk), controller_failover(1), remove_voter(0)}));
  EXPECT_TRUE(rules::quorum_available(s.config(), s.state())) << "N1 and N2: both voters of two";
  ASSERT_TRUE(s.apply(crash(2, StopKind::Kill)));
  EXPECT_FALSE(rules::quorum_available(s.config(), s.state())) << "N1 alone is no majority of two";
}

TEST(DynamicQuorum, WithoutADiskLossDynamicAndStaticAreTheSameModel) {
  // No disk loss, no stale key: the same actions in every state of a walk.
  Scenario a(with("static")), b(with("dynamic"));
  for (const Step& step : {crash(1, StopKind::Kill), fence_broker(1, kAny), restart(1), crash(0, StopKind::Kill)}) {
    ASSERT_TRUE(a.apply(step));
    ASSERT_TRUE(b.apply(step));
    EXPECT_EQ(enabled_names(a.model(), a.state()), enabled_names(b.model(), b.state()));
    EXPECT_TRUE(same_bytes(a.state(), b.state()));
  }
}

}  // namespace
}  // namespace isr::spec
