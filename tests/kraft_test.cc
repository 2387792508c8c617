// The KRaft controller quorum model (spec/kraft/): its configuration, the symmetry
// reduction, every property holding with all fixes on, each hazard found (shortest
// counterexample, by BFS) when the rule protecting from it is toggled off, and the
// command line (`check`, `replay`, `render`, `simulate`, `describe` with --model kraft).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/bfs/bfs.h"
#include "counterexamples/trace/replay.h"
#include "counterexamples/trace/trace_writer.h"
#include "spec/kraft/kraft_config.h"
#include "spec/kraft/kraft_model.h"
#include "spec/kraft/kraft_properties.h"
#include "tests/trace_test_support.h"

namespace {

using isr::checker::BfsOptions;
using isr::checker::Verdict;
using isr::spec::ConfigError;
using isr::spec::kraft::KraftConfig;
using isr::spec::kraft::KraftModel;
using isr::spec::kraft::KraftState;
using CliRun = isr::trace_test::Run;
using isr::trace_test::run_isrcheck;
using isr::trace_test::slurp;
using isr::trace_test::temp_path;

KraftConfig config(const std::vector<std::string>& overrides) {
  return isr::spec::kraft::load_config(nullptr, overrides);
}

isr::checker::BfsResult<KraftModel> check(const KraftModel& model, bool symmetry = true) {
  BfsOptions options;
  options.threads = 2;
  options.symmetry = symmetry;
  return isr::checker::bfs(model, options);
}

std::string field_of(const std::vector<std::string>& overrides) {
  try {
    config(overrides);
  } catch (const ConfigError& e) {
    return e.field;
  }
  return "(accepted)";
}

// --- configuration ----------------------------------------------------------------------

TEST(KraftConfig, DefaultsAndRoundTrip) {
  const KraftConfig c = isr::spec::kraft::default_config();
  EXPECT_EQ(c.voters, 3);
  EXPECT_TRUE(c.fixes.persist_vote && c.fixes.hw_own_epoch && c.fixes.directory_ids);
  EXPECT_EQ(c.properties.size(), isr::properties::kraft_catalog().size());
  const nlohmann::json printed = isr::spec::kraft::to_json(c);
  EXPECT_EQ(isr::spec::kraft::to_json(isr::spec::kraft::load_config(&printed, {})), printed);
  EXPECT_FALSE(config({"fixes.persist_vote=false"}).fixes.persist_vote);
  EXPECT_EQ(config({"faults.max_disk_losses=2"}).faults.max_crashes, 2);  // implied crash budget
}

TEST(KraftConfig, BadInputNamesTheField) {
  EXPECT_EQ(field_of({"voters=4"}), "voters");
  EXPECT_EQ(field_of({"bounds.max_epoch=0"}), "bounds.max_epoch");
  EXPECT_EQ(field_of({"bounds.max_epoch=6", "bounds.max_appends=3"}), "bounds.max_appends");
  EXPECT_EQ(field_of({"faults.max_crashes=1", "faults.max_disk_losses=2"}), "faults.max_disk_losses");
  EXPECT_EQ(field_of({"fixes.vote_persisted=true"}), "fixes.vote_persisted");
  EXPECT_EQ(field_of({"fixes.persist_vote=maybe"}), "fixes.persist_vote");
  EXPECT_EQ(field_of({"replication_factor=3"}), "replication_factor");
  EXPECT_EQ(field_of({"properties=no-acked-loss"}), "properties");
  EXPECT_EQ(field_of({"voters=5"}), "(accepted)");
}

// --- symmetry -----------------------------------------------------------------------------

// Random walks: the canonical form is idempotent, equal for a state and any relabelling
// of it, and every property gives the same answer on both.
TEST(KraftSymmetry, CanonicalFormIsAnOrbitInvariant) {
  const KraftModel model(config({"voters=5", "faults.max_disk_losses=1", "faults.max_network_cuts=1",
                                 "bounds.max_appends=1", "bounds.max_epoch=4", "fixes.persist_vote=false"}));
  std::mt19937 rng(7);
  int checked = 0;
  for (int walk = 0; walk < 200; ++walk) {
    KraftState s = model.initial_states()[0];
    for (int step = 0; step < 40; ++step) {
      std::vector<isr::spec::kraft::KraftAction> enabled;
      model.for_each_action(s, [&](const auto& a) { enabled.push_back(a); });
      if (enabled.empty()) break;
      s = model.next_state(s, enabled[rng() % enabled.size()]);
      KraftState canonical = s;
      model.canonicalize(canonical);
      KraftState twice = canonical;
      model.canonicalize(twice);
      ASSERT_EQ(model.state_to_json(twice), model.state_to_json(canonical));
      for (const auto& p : model.properties()) ASSERT_EQ(p.holds(model, s), p.holds(model, canonical)) << p.name;
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000);
}

TEST(KraftSymmetry, ReductionKeepsTheVerdictAndShrinksTheSpace) {
  const KraftModel model(config({"bounds.max_epoch=2", "faults.max_crashes=1"}));
  const auto with = check(model, true);
  const auto without = check(model, false);
  EXPECT_EQ(with.verdict, Verdict::Holds);
  EXPECT_EQ(without.verdict, Verdict::Holds);
  EXPECT_EQ(with.depth, without.depth);
  EXPECT_LT(with.distinct_states * 3, without.distinct_states * 2) << with.distinct_states << " vs "
                                                                   << without.distinct_states;
}

// --- every property holds with every fix on -------------------------------------------------

TEST(KraftCheck, AllPropertiesHoldWithEveryFix) {
  // Every kind of fault is covered in kraft_slow_test.cc; crashes and disk losses here.
  const KraftModel model(config({"bounds.max_epoch=3", "faults.max_crashes=1", "faults.max_disk_losses=1"}));
  const auto r = check(model);
  EXPECT_EQ(r.verdict, Verdict::Holds) << r.property;
  EXPECT_GT(r.distinct_states, 10000u);
}

// --- each hazard, caught by BFS once its rule is off ----------------------------------------

struct Hazard {
  std::vector<std::string> overrides;
  std::string toggle;
  std::string property;
  size_t shortest;
  bool check_fix_on;  // false where the safe space is too large for a fast test (kraft_slow_test.cc)
};

class KraftHazard : public ::testing::TestWithParam<Hazard> {};

TEST_P(KraftHazard, FoundWhenItsFixIsOffAndAbsentWhenOn) {
  const Hazard& h = GetParam();
  std::vector<std::string> overrides = h.overrides;
  overrides.push_back("properties=" + h.property);
  if (h.check_fix_on) {
    const auto safe = check(KraftModel(config(overrides)));
    EXPECT_EQ(safe.verdict, Verdict::Holds) << h.toggle << ": " << safe.property;
  }
  overrides.push_back("fixes." + h.toggle + "=false");
  const KraftModel model(config(overrides));
  const auto r = check(model);
  ASSERT_EQ(r.verdict, Verdict::Violated) << h.toggle;
  EXPECT_EQ(r.property, h.property);
  EXPECT_EQ(r.counterexample.actions.size(), h.shortest) << h.toggle;
  // The trace stands on its own.
  const nlohmann::json trace = isr::counterexamples::trace_to_json(model, r.counterexample, "bfs", "kraft");
  const auto replayed = isr::counterexamples::replay_trace(model, trace);
  EXPECT_TRUE(replayed.reproduced) << replayed.summary();
}

const std::vector<std::string> kCrash = {"bounds.max_epoch=2", "faults.max_crashes=1"};
const std::vector<std::string> kDiskLoss = {"bounds.max_epoch=2", "faults.max_disk_losses=1"};
const std::vector<std::string> kLostResponse = {"bounds.max_epoch=4", "faults.max_crashes=0",
                                                "faults.max_lost_responses=1"};

INSTANTIATE_TEST_SUITE_P(
    Toggles, KraftHazard,
    ::testing::Values(
        // A voter grants its vote, crashes before the vote reached its disk, and votes
        // again in the same epoch: two leaders of one epoch...
        Hazard{kCrash, "persist_vote", "single-controller-per-epoch", 6, true},
        // ... which write different LeaderChange records at the same offset ...
        Hazard{kCrash, "persist_vote", "metadata-log-matching", 6, true},
        Hazard{kCrash, "persist_vote", "metadata-leader-completeness", 9, true},
        // ... and end up replacing a committed entry.
        Hazard{kCrash, "persist_vote", "committed-metadata-durable", 15, true},
        // Raft's figure 8: a leader commits an older epoch's entry by counting a follower
        // whose fetch response (carrying the leader's own LeaderChange record) was lost;
        // a voter with a later epoch but without that entry is elected next.
        Hazard{kLostResponse, "hw_own_epoch", "metadata-leader-completeness", 13, false},
        Hazard{kLostResponse, "hw_own_epoch", "committed-metadata-durable", 17, false},
        // A voter back on an empty disk counts as the old voter: it lost its vote (a
        // second vote in the same epoch) and what it had acknowledged.
        Hazard{kDiskLoss, "directory_ids", "single-controller-per-epoch", 6, true},
        Hazard{kDiskLoss, "directory_ids", "metadata-leader-completeness", 9, true},
        Hazard{kDiskLoss, "directory_ids", "committed-metadata-durable", 12, true}),
    [](const ::testing::TestParamInfo<Hazard>& info) {
      std::string name = info.param.toggle + "_" + info.param.property;
      for (char& ch : name)
        if (ch == '-') ch = '_';
      return name;
    });

// --- the command line -------------------------------------------------------------------------

TEST(KraftCli, CheckHoldsWithEveryFix) {
  const CliRun r = run_isrcheck("check --model kraft --set bounds.max_epoch=2 --threads 2 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("verdict: HOLDS"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("properties checked: single-controller-per-epoch, metadata-log-matching"), std::string::npos)
      << r.out;
}

TEST(KraftCli, ViolationTraceReplaysAndRenders) {
  const std::string trace_file = temp_path(".kraft.json");
  const CliRun r = run_isrcheck("check --model kraft --set fixes.persist_vote=false --set bounds.max_epoch=2 "
                             "--threads 2 --quiet --trace-out '" + trace_file + "'");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("VIOLATED: single-controller-per-epoch"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("shortest counterexample: 6 steps"), std::string::npos) << r.out;
  const nlohmann::json trace = nlohmann::json::parse(slurp(trace_file));
  EXPECT_EQ(trace.at("model"), "kraft");
  EXPECT_EQ(trace.at("config").at("fixes").at("persist_vote"), false);

  const CliRun replayed = run_isrcheck("replay '" + trace_file + "'");
  EXPECT_EQ(replayed.exit_code, 0) << replayed.out << replayed.err;
  EXPECT_NE(replayed.out.find("reproduced: 6 steps"), std::string::npos) << replayed.out;
  const CliRun wrong_model = run_isrcheck("replay --model partition '" + trace_file + "'");
  EXPECT_EQ(wrong_model.exit_code, 2) << wrong_model.out << wrong_model.err;

  const CliRun rendered = run_isrcheck("render --model kraft '" + trace_file + "'");
  EXPECT_EQ(rendered.exit_code, 0) << rendered.err;
  EXPECT_NE(rendered.out.find("Vote(candidate="), std::string::npos) << rendered.out;
  EXPECT_NE(rendered.out.find("Crash(voter="), std::string::npos) << rendered.out;

  // A trace edited so that it no longer violates its property does not replay.
  nlohmann::json edited = trace;
  edited["steps"].erase(edited["steps"].size() - 1);
  const std::string edited_file = isr::trace_test::write_temp(edited.dump());
  EXPECT_EQ(run_isrcheck("replay '" + edited_file + "'").exit_code, 1);
  std::remove(trace_file.c_str());
  std::remove(edited_file.c_str());
}

TEST(KraftCli, SimulateFindsTheDoubleVote) {
  const std::string trace_file = temp_path(".kraft-sim.json");
  const CliRun r = run_isrcheck("simulate --model kraft --set fixes.persist_vote=false --set bounds.max_epoch=2 "
                             "--set properties=single-controller-per-epoch --walks 3000 --depth 40 --seed 5 "
                             "--threads 2 --quiet --trace-out '" + trace_file + "'");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("VIOLATION: single-controller-per-epoch"), std::string::npos) << r.out;
  const nlohmann::json trace = nlohmann::json::parse(slurp(trace_file));
  EXPECT_EQ(trace.at("model"), "kraft");
  EXPECT_EQ(trace.at("engine"), "simulate");
  EXPECT_EQ(trace.at("simulate").at("seed"), 5);
  const CliRun replayed = run_isrcheck("replay '" + trace_file + "'");
  EXPECT_EQ(replayed.exit_code, 0) << replayed.out << replayed.err;
  std::remove(trace_file.c_str());
}

TEST(KraftCli, DescribeAndBadInput) {
  const CliRun d = run_isrcheck("describe --model kraft --set voters=5");
  ASSERT_EQ(d.exit_code, 0) << d.err;
  const nlohmann::json described = nlohmann::json::parse(d.out);
  EXPECT_EQ(described.at("voters"), 5);
  EXPECT_TRUE(described.at("fixes").contains("directory_ids"));

  const CliRun bad = run_isrcheck("check --model kraft --set voters=4");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("voters"), std::string::npos) << bad.err;
  const CliRun unknown = run_isrcheck("check --model raft");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("--model"), std::string::npos) << unknown.err;
  // The partition model stays the default.
  const CliRun partition = run_isrcheck("describe");
  ASSERT_EQ(partition.exit_code, 0);
  EXPECT_TRUE(nlohmann::json::parse(partition.out).contains("replication_factor"));
}

}  // namespace
