// KIP-853 dynamic voters in the KRaft quorum model (spec/kraft/kraft_voters.cc) and the
// composed model: the configuration keys, each precondition of AddVoter / RemoveVoter
// (the leader's HW known, one change at a time, DUPLICATE_VOTER, a caught-up observer,
// kraft.version 1), the majority following the latest appended voter set, a voter back
// on an empty disk re-added under its new directory id, a removed leader's resignation,
// and the hazard of two changes in flight (fixes.one_voter_change off).
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/bfs/bfs.h"
#include "counterexamples/trace/replay.h"
#include "counterexamples/trace/trace_writer.h"
#include "spec/cluster/cluster_config.h"
#include "spec/cluster/cluster_model.h"
#include "spec/kraft/kraft_config.h"
#include "spec/kraft/kraft_model.h"
#include "spec/kraft/kraft_rules.h"
#include "tests/trace_test_support.h"

namespace {

using isr::checker::BfsOptions;
using isr::checker::Verdict;
using isr::spec::ConfigError;
using isr::spec::kraft::KraftAction;
using isr::spec::kraft::KraftConfig;
using isr::spec::kraft::KraftModel;
using isr::spec::kraft::KraftState;
using isr::spec::kraft::Role;
using K = isr::spec::kraft::KraftActionKind;
namespace rules = isr::spec::kraft::rules;

KraftConfig config(const std::vector<std::string>& overrides) {
  return isr::spec::kraft::load_config(nullptr, overrides);
}

std::string field_of(const std::vector<std::string>& overrides) {
  try {
    config(overrides);
  } catch (const ConfigError& e) {
    return e.field;
  }
  return "(accepted)";
}

// Drives a model through named actions, each of which must be enabled.
class Driver {
 public:
  explicit Driver(KraftConfig c) : model_(std::move(c)), state_(model_.initial_states().front()) {}

  bool enabled(K kind, int node, int other = 0, int arg = 0) const {
    std::array<KraftAction, isr::spec::kraft::kMaxKraftActions> buffer;
    const int n = model_.enabled_actions(state_, buffer.data());
    for (int i = 0; i < n; ++i)
      if (buffer[i] == KraftAction{kind, static_cast<uint8_t>(node), static_cast<uint8_t>(other),
                                   static_cast<uint8_t>(arg)})
        return true;
    return false;
  }
  bool any_voter_change() const {
    std::array<KraftAction, isr::spec::kraft::kMaxKraftActions> buffer;
    const int n = model_.enabled_actions(state_, buffer.data());
    for (int i = 0; i < n; ++i)
      if (buffer[i].kind == K::AddVoter || buffer[i].kind == K::RemoveVoter) return true;
    return false;
  }
  void step(K kind, int node, int other = 0, int arg = 0) {
    ASSERT_TRUE(enabled(kind, node, other, arg))
        << model_.action_name(KraftAction{kind, static_cast<uint8_t>(node), static_cast<uint8_t>(other),
                                          static_cast<uint8_t>(arg)});
    state_ = model_.next_state(state_, KraftAction{kind, static_cast<uint8_t>(node), static_cast<uint8_t>(other),
                                                   static_cast<uint8_t>(arg)});
  }
  // Voter 0 leads epoch 1; voters 1 and 2 follow it, and voter 1 has fetched its
  // LeaderChange record, which is committed (the leader's HW is known).
  void elect_zero() {
    step(K::Timeout, 0);
    step(K::Vote, 0, 1);
    step(K::BeginEpoch, 0, 1);
    step(K::BeginEpoch, 0, 2);
    step(K::Fetch, 1, 0);
    step(K::Fetch, 1, 0);
  }
  const KraftState& state() const { return state_; }
  const KraftModel& model() const { return model_; }
  rules::Voters voters_of(int v) const { return rules::latest_voters(model_.config(), state_.voters[v]); }

 private:
  KraftModel model_;
  KraftState state_;
};

const std::vector<std::string> kChanges = {"bounds.max_voter_changes=2", "faults.max_crashes=1",
                                           "faults.max_disk_losses=1"};

// --- configuration ----------------------------------------------------------------------

TEST(KraftVotersConfig, DefaultsToAStaticVoterSet) {
  const KraftConfig c = isr::spec::kraft::default_config();
  EXPECT_EQ(c.bounds.max_voter_changes, 0);
  EXPECT_TRUE(c.fixes.one_voter_change);
  EXPECT_EQ(isr::spec::kraft::to_json(c)["bounds"]["max_voter_changes"], 0);
  EXPECT_EQ(isr::spec::kraft::to_json(c)["fixes"]["one_voter_change"], true);
  EXPECT_EQ(field_of({"bounds.max_voter_changes=-1"}), "bounds.max_voter_changes");
  // Each change is a VotersRecord in the same 8-entry logs as the epochs' LeaderChange.
  EXPECT_EQ(field_of({"bounds.max_epoch=3", "bounds.max_voter_changes=6"}), "bounds.max_voter_changes");
  EXPECT_EQ(field_of({"bounds.max_epoch=3", "bounds.max_voter_changes=5"}), "(accepted)");
  EXPECT_EQ(field_of({"fixes.one_voter_change=perhaps"}), "fixes.one_voter_change");
}

TEST(KraftVotersConfig, ClusterPassesTheKeysToItsQuorum) {
  const auto c = isr::spec::cluster::load_config(nullptr, {"kraft.max_voter_changes=2", "fixes.one_voter_change=false"});
  EXPECT_EQ(c.quorum.bounds.max_voter_changes, 2);
  EXPECT_FALSE(c.quorum.fixes.one_voter_change);
  EXPECT_EQ(isr::spec::cluster::to_json(c)["kraft"]["max_voter_changes"], 2);
  try {
    isr::spec::cluster::load_config(nullptr, {"kraft.max_voter_changes=7"});
    ADD_FAILURE() << "accepted more voter changes than the log holds";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field, "kraft.max_voter_changes");
  }
}

// --- the handlers' preconditions --------------------------------------------------------------

TEST(KraftVoters, NoChangeWithoutTheBudgetOrOnAStaticQuorum) {
  for (const auto& overrides : {std::vector<std::string>{}, std::vector<std::string>{"bounds.max_voter_changes=2",
                                                                                       "fixes.directory_ids=false"}}) {
    Driver d(config(overrides));
    d.elect_zero();
    EXPECT_FALSE(d.any_voter_change()) << overrides.size();
  }
}

TEST(KraftVoters, TheLeaderFirstCommitsAnEntryOfItsEpoch) {
  Driver d(config(kChanges));
  d.step(K::Timeout, 0);
  d.step(K::Vote, 0, 1);
  // Leader, HW unknown: REQUEST_TIMED_OUT ("waiting for leader to establish HWM").
  EXPECT_FALSE(d.any_voter_change());
  d.step(K::BeginEpoch, 0, 1);
  d.step(K::Fetch, 1, 0);
  d.step(K::Fetch, 1, 0);
  ASSERT_GT(d.state().voters[0].hw, 0);
  EXPECT_TRUE(d.enabled(K::RemoveVoter, 0, 2));
  EXPECT_TRUE(d.enabled(K::RemoveVoter, 0, 0));  // a leader may remove itself
  // Followers handle no voter change (NOT_LEADER_OR_FOLLOWER).
  EXPECT_FALSE(d.enabled(K::RemoveVoter, 1, 2));
}

TEST(KraftVoters, OneChangeAtATimeUnlessTheToggleIsOff) {
  for (const bool one_at_a_time : {true, false}) {
    std::vector<std::string> overrides = kChanges;
    overrides.push_back(std::string("fixes.one_voter_change=") + (one_at_a_time ? "true" : "false"));
    Driver d(config(overrides));
    d.elect_zero();
    d.step(K::RemoveVoter, 0, 2);
    // The new VotersRecord is at offset 1, the HW at 1: not committed.
    EXPECT_EQ(d.voters_of(0).offset, 1);
    EXPECT_EQ(d.enabled(K::RemoveVoter, 0, 1), !one_at_a_time);
    if (!one_at_a_time) continue;
    d.step(K::Fetch, 1, 0);
    d.step(K::Fetch, 1, 0);  // commits the VotersRecord: HW 2
    EXPECT_EQ(d.state().voters[0].hw, 2);
    EXPECT_TRUE(d.enabled(K::RemoveVoter, 0, 1));
  }
}

TEST(KraftVoters, TheMajorityIsOverTheLatestAppendedSet) {
  Driver d(config(kChanges));
  d.elect_zero();
  d.step(K::Fetch, 2, 0);
  d.step(K::RemoveVoter, 0, 1);  // {0, 2}, uncommitted
  const auto set = d.voters_of(0);
  EXPECT_EQ(set.members, 0b101);
  // Voter 1 is no longer counted: its fetch of the VotersRecord leaves the HW at 1 ...
  d.step(K::Fetch, 1, 0);
  d.step(K::Fetch, 1, 0);
  EXPECT_EQ(d.state().voters[0].hw, 1);
  // ... and voter 2's commits it (2 of the set {0, 2}), not before: counted over the
  // bootstrap set, voter 1's offset would have made offset 1 a majority already.
  d.step(K::Fetch, 2, 0);
  EXPECT_EQ(d.state().voters[0].hw, 1);
  d.step(K::Fetch, 2, 0);
  EXPECT_EQ(d.state().voters[0].hw, 2);
  // Voter 1, removed by its own log, is an observer: no election timer.
  EXPECT_FALSE(rules::is_voter(d.model().config(), d.state(), 1));
  EXPECT_FALSE(d.enabled(K::Timeout, 1));
  EXPECT_TRUE(d.enabled(K::Timeout, 2));
}

TEST(KraftVoters, AWipedVoterRejoinsUnderItsNewDirectoryId) {
  Driver d(config(kChanges));
  d.elect_zero();
  d.step(K::Crash, 2, 0, 1);  // disk lost
  d.step(K::Restart, 2);
  d.step(K::BeginEpoch, 0, 2);
  EXPECT_FALSE(rules::is_voter(d.model().config(), d.state(), 2));
  d.step(K::Fetch, 2, 0);
  d.step(K::Fetch, 2, 0);  // caught up, as an observer
  // DUPLICATE_VOTER: its id is in the set, under its old directory id.
  EXPECT_FALSE(d.enabled(K::AddVoter, 0, 2));
  d.step(K::RemoveVoter, 0, 2);
  EXPECT_FALSE(d.enabled(K::AddVoter, 0, 2));  // the removal is not committed yet
  d.step(K::Fetch, 1, 0);
  d.step(K::Fetch, 1, 0);
  d.step(K::Fetch, 2, 0);  // the observer fetches the VotersRecord (it stays caught up)
  ASSERT_TRUE(d.enabled(K::AddVoter, 0, 2));
  d.step(K::AddVoter, 0, 2);
  const auto set = d.voters_of(0);
  EXPECT_EQ(set.members, 0b111);
  EXPECT_EQ(set.dirs, 0b100);  // voter 2 named with its new directory
  d.step(K::Fetch, 2, 0);
  d.step(K::Fetch, 2, 0);
  EXPECT_TRUE(rules::is_voter(d.model().config(), d.state(), 2));
  EXPECT_TRUE(d.enabled(K::Timeout, 2));
  // Its fetches now count for the HW: the AddVoter record (offset 2) is committed by {0, 2}.
  EXPECT_EQ(d.state().voters[0].hw, 3);
}

TEST(KraftVoters, OnlyACaughtUpObserverIsAdded) {
  Driver d(config({"bounds.max_voter_changes=2"}));
  d.elect_zero();
  d.step(K::RemoveVoter, 0, 2);
  d.step(K::Fetch, 1, 0);
  d.step(K::Fetch, 1, 0);
  // Voter 2 never fetched in this epoch: LeaderState.isReplicaCaughtUp is false.
  EXPECT_FALSE(d.enabled(K::AddVoter, 0, 2));
  d.step(K::Fetch, 2, 0);  // fetch offset 0 < leader end offset 2
  EXPECT_FALSE(d.enabled(K::AddVoter, 0, 2));
  d.step(K::Fetch, 2, 0);
  EXPECT_FALSE(d.enabled(K::AddVoter, 0, 2));
  d.step(K::Fetch, 2, 0);  // fetch offset 2 = the leader's end offset
  EXPECT_TRUE(d.enabled(K::AddVoter, 0, 2));
}

TEST(KraftVoters, ARemovedLeaderResignsIntoTheNextEpochWithoutACandidacy) {
  Driver d(config({"bounds.max_voter_changes=1"}));
  d.elect_zero();
  d.step(K::RemoveVoter, 0, 0);
  // The leader no longer counts itself: both of {1, 2} must fetch the VotersRecord.
  d.step(K::Fetch, 1, 0);
  d.step(K::Fetch, 1, 0);
  EXPECT_EQ(d.state().voters[0].hw, 1);
  d.step(K::Fetch, 2, 0);
  d.step(K::Fetch, 2, 0);
  d.step(K::Fetch, 2, 0);  // {1, 2} committed the removal: HW 2
  EXPECT_EQ(d.state().voters[0].hw, 2);
  d.step(K::Resign, 0);
  d.step(K::Timeout, 0);  // KafkaRaftClient.pollResigned: a non-voter goes Unattached
  EXPECT_EQ(d.state().voters[0].role, static_cast<uint8_t>(Role::Unattached));
  EXPECT_EQ(d.state().voters[0].epoch, 2);
  EXPECT_EQ(d.state().voters[0].voted_for, isr::spec::kraft::kNone);
}

// --- the hazard of two changes in flight ------------------------------------------------------

isr::checker::BfsResult<KraftModel> check(const KraftModel& model) {
  BfsOptions options;
  options.threads = 2;
  return isr::checker::bfs(model, options);
}

TEST(KraftVoters, TwoChangesInFlightLoseACommittedEntry) {
  std::vector<std::string> overrides = {"bounds.max_voter_changes=2", "bounds.max_epoch=2", "faults.max_crashes=0",
                                        "properties=committed-metadata-durable"};
  EXPECT_EQ(check(KraftModel(config(overrides))).verdict, Verdict::Holds);
  overrides.push_back("fixes.one_voter_change=false");
  const KraftModel model(config(overrides));
  const auto r = check(model);
  ASSERT_EQ(r.verdict, Verdict::Violated);
  // A deposed leader removes both other voters while the first removal is uncommitted,
  // then commits alone over the new leader's committed entry.
  EXPECT_EQ(r.counterexample.actions.size(), 13u);
  const nlohmann::json trace = isr::counterexamples::trace_to_json(model, r.counterexample, "bfs", "kraft");
  EXPECT_TRUE(isr::counterexamples::replay_trace(model, trace).reproduced);
}

// Larger bounds (a wiped voter removed and re-added, a third change) in kraft_slow_test.cc.
TEST(KraftVoters, EveryPropertyHoldsWithAVoterChangeAndADiskLoss) {
  const auto r = check(KraftModel(config({"bounds.max_voter_changes=1", "bounds.max_epoch=2",
                                          "faults.max_disk_losses=1"})));
  EXPECT_EQ(r.verdict, Verdict::Holds) << r.property;
  EXPECT_GT(r.distinct_states, 10000u);
}

// --- what the command line and the usage report say ---------------------------------------------

TEST(KraftVotersCli, DescribeListAndBadInput) {
  using isr::trace_test::run_isrcheck;
  const auto d = run_isrcheck("describe --model kraft");
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_NE(d.out.find("\"max_voter_changes\": 0"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("\"one_voter_change\": true"), std::string::npos) << d.out;
  const auto actions = run_isrcheck("list actions --model kraft");
  EXPECT_NE(actions.out.find("AddVoterHandler"), std::string::npos) << actions.out;
  EXPECT_NE(actions.out.find("RemoveVoterHandler"), std::string::npos) << actions.out;
  const auto cluster = run_isrcheck("list actions --model cluster");
  EXPECT_NE(cluster.out.find("KraftAddVoter"), std::string::npos) << cluster.out;
  EXPECT_NE(cluster.out.find("KraftRemoveVoter"), std::string::npos) << cluster.out;
  // check says what it checked in Kafka's terms, the voter changes included.
  const auto checked = run_isrcheck("check --model kraft --set bounds.max_epoch=1 --set bounds.max_voter_changes=2");
  EXPECT_EQ(checked.exit_code, 0) << checked.err;
  EXPECT_NE(checked.out.find("2 voter changes (AddVoter/RemoveVoter)"), std::string::npos) << checked.out;
  const auto bad = run_isrcheck("check --model kraft --set bounds.max_voter_changes=9");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("bounds.max_voter_changes"), std::string::npos) << bad.err;
}

TEST(KraftVoters, AnUnusedBudgetSaysWhatWouldLetItAct) {
  const KraftModel static_quorum(config({"bounds.max_voter_changes=1", "fixes.directory_ids=false"}));
  bool named = false;
  for (const auto& u : static_quorum.unused_switches(0)) {
    if (u.setting != "bounds.max_voter_changes=1") continue;
    named = true;
    EXPECT_NE(u.enable.find("fixes.directory_ids=true"), std::string::npos) << u.enable;
  }
  EXPECT_TRUE(named);
  // Used once a VotersRecord is appended.
  Driver d(config({"bounds.max_voter_changes=1"}));
  d.elect_zero();
  d.step(K::RemoveVoter, 0, 2);
  for (const auto& u : d.model().unused_switches(d.model().usage_seen(d.state())))
    EXPECT_NE(u.setting, "bounds.max_voter_changes=1");
}

// --- the composed model -----------------------------------------------------------------------

TEST(ClusterVoters, TheControllerQuorumFollowsTheVoterSet) {
  using isr::spec::cluster::ClusterAction;
  using isr::spec::cluster::ClusterModel;
  using isr::spec::cluster::Layer;
  const ClusterModel none(isr::spec::cluster::load_config(nullptr, {}));
  const ClusterModel model(isr::spec::cluster::load_config(nullptr, {"kraft.max_voter_changes=1"}));
  auto voter_changes = [](const ClusterModel& m, const isr::spec::cluster::ClusterState& s,
                          std::vector<ClusterAction>& found) {
    std::vector<ClusterAction> buffer(isr::spec::cluster::kMaxClusterActions);
    const int n = m.enabled_actions(s, buffer.data());
    found.clear();
    for (int i = 0; i < n; ++i)
      if (buffer[i].layer == static_cast<uint8_t>(Layer::Quorum) && buffer[i].quorum.kind == K::RemoveVoter)
        found.push_back(buffer[i]);
  };
  std::vector<ClusterAction> found;
  voter_changes(none, none.initial_states().front(), found);
  EXPECT_TRUE(found.empty());
  const auto start = model.initial_states().front();
  voter_changes(model, start, found);
  // The initial leader (the last voter) has committed its LeaderChange record.
  ASSERT_EQ(found.size(), 3u);
  const int leader = found.front().quorum.node;
  ClusterAction remove = found.front();
  for (const ClusterAction& a : found)
    if (a.quorum.other != leader) remove = a;
  const auto after = model.next_state(start, remove);
  const auto& l = after.quorum.voters[leader];
  // The VotersRecord is a control record (no partition metadata) and the HW waits for
  // a majority of the two remaining voters.
  EXPECT_EQ(after.payload[leader][l.leo - 1], 0);
  EXPECT_EQ(rules::latest_voters(model.config().quorum, l).members,
            static_cast<uint8_t>(0b111 & ~(1u << remove.quorum.other)));
  EXPECT_LT(l.hw, l.leo);
  EXPECT_NE(model.action_name(remove).find("KraftRemoveVoter"), std::string::npos);
}

}  // namespace
