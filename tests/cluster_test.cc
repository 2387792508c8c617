// The composed model (`--model cluster`, spec/cluster/): the partition's controller
// decisions committed through the KRaft metadata log. Its configuration, the symmetry
// reduction, every property holding on the default configuration, each hazard found
// with a short trace when its rule is off, failover in the middle of an ISR change
// being actually reached, and the command line.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/bfs/bfs.h"
#include "counterexamples/trace/replay.h"
#include "counterexamples/trace/trace_writer.h"
#include "spec/cluster/cluster_config.h"
#include "spec/cluster/cluster_model.h"
#include "spec/cluster/cluster_properties.h"
#include "tests/trace_test_support.h"

#include "tests/counting_allocator.h"  // replaces operator new: this binary only

namespace {

using isr::checker::BfsOptions;
using isr::checker::Verdict;
using isr::spec::ConfigError;
using isr::spec::cluster::ClusterAction;
using isr::spec::cluster::ClusterConfig;
using isr::spec::cluster::ClusterModel;
using isr::spec::cluster::ClusterState;
using CliRun = isr::trace_test::Run;
using isr::trace_test::run_isrcheck;
using isr::trace_test::slurp;
using isr::trace_test::temp_path;

ClusterConfig config(const std::vector<std::string>& overrides) {
  return isr::spec::cluster::load_config(nullptr, overrides);
}

template <class M>
isr::checker::BfsResult<M> check(const M& model, bool symmetry = true) {
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

// A random walk of `steps` steps (or until no action is enabled).
std::vector<ClusterState> walk(const ClusterModel& m, unsigned seed, int steps) {
  std::mt19937 rng(seed);
  std::vector<ClusterState> states = {m.initial_states().front()};
  for (int i = 0; i < steps; ++i) {
    std::vector<ClusterAction> enabled;
    m.for_each_action(states.back(), [&](const ClusterAction& a) { enabled.push_back(a); });
    if (enabled.empty()) break;
    states.push_back(m.next_state(states.back(), enabled[rng() % enabled.size()]));
  }
  return states;
}

// --- configuration ----------------------------------------------------------------------

TEST(ClusterConfig, DefaultsAndRoundTrip) {
  const ClusterConfig c = isr::spec::cluster::default_config();
  EXPECT_EQ(c.quorum.voters, c.partition.controller.voters);
  EXPECT_TRUE(c.apply_after_commit);
  EXPECT_TRUE(c.quorum.fixes.persist_vote);
  EXPECT_NE(std::find(c.properties.begin(), c.properties.end(), "committed-metadata-only"), c.properties.end());
  EXPECT_NE(std::find(c.properties.begin(), c.properties.end(), "no-acked-loss"), c.properties.end());
  EXPECT_NE(std::find(c.properties.begin(), c.properties.end(), "single-controller-per-epoch"), c.properties.end());
  // The resolved configuration (what traces record) loads back to itself.
  const nlohmann::json j = isr::spec::cluster::to_json(c);
  EXPECT_EQ(isr::spec::cluster::to_json(isr::spec::cluster::load_config(&j, {})), j);
  const ClusterConfig toggled = config({"fixes.apply_after_commit=false", "fixes.persist_vote=false",
                                        "kraft.max_epoch=3", "properties=committed-metadata-only,no-acked-loss"});
  EXPECT_FALSE(toggled.apply_after_commit);
  EXPECT_FALSE(toggled.quorum.fixes.persist_vote);
  EXPECT_EQ(toggled.quorum.bounds.max_epoch, 3);
  EXPECT_EQ(toggled.properties, (std::vector<std::string>{"no-acked-loss", "committed-metadata-only"}));
  EXPECT_EQ(toggled.quorum.properties.size(), 0u);
}

TEST(ClusterConfig, BadInputNamesTheField) {
  EXPECT_EQ(field_of({"kraft.max_epoch=0"}), "kraft.max_epoch");
  EXPECT_EQ(field_of({"kraft.max_epoch=3", "kraft.max_records=6"}), "kraft.max_records");
  EXPECT_EQ(field_of({"kraft.max_crashes=1"}), "kraft.max_crashes");
  EXPECT_EQ(field_of({"kraft=3"}), "kraft");
  EXPECT_EQ(field_of({"fixes.apply_after_commit=maybe"}), "fixes.apply_after_commit");
  EXPECT_EQ(field_of({"fixes.persist_vote=1"}), "fixes.persist_vote");
  EXPECT_EQ(field_of({"fixes.no_such_fix=true"}), "fixes.no_such_fix");  // the partition loader's message
  EXPECT_EQ(field_of({"controller.voters=1"}), "controller.voters");
  EXPECT_EQ(field_of({"properties=no-such-property"}), "properties");
  EXPECT_EQ(field_of({"brokers=zero"}), "brokers");
}

// --- the model ----------------------------------------------------------------------------

TEST(ClusterModel, StartsWithAnEstablishedQuorum) {
  const ClusterModel m(isr::spec::cluster::default_config());
  const ClusterState s = m.initial_states().front();
  const int voters = m.config().quorum.voters;
  EXPECT_TRUE(m.active_controller(s, voters - 1));
  for (int v = 0; v + 1 < voters; ++v) EXPECT_FALSE(m.active_controller(s, v));
  EXPECT_EQ(s.history.committed_offset, 1);
  const nlohmann::json j = m.state_to_json(s);
  EXPECT_EQ(j.at("controller").at("active"), 2);
  EXPECT_EQ(j.at("controller").at("quorum"), true);
  EXPECT_EQ(j.at("quorum").at("nodes").size(), 3u);
  for (const auto& p : m.properties()) EXPECT_TRUE(p.holds(m, s)) << p.name;
}

TEST(ClusterSymmetry, CanonicalFormIsIdempotentAndKeepsEveryProperty) {
  for (const auto& overrides : {std::vector<std::string>{"replication_factor=3", "min_insync_replicas=2"},
                                std::vector<std::string>{"controller.placement=dedicated", "brokers=2"}}) {
  const ClusterModel m(config(overrides));
  for (unsigned seed = 1; seed <= 20; ++seed) {
    for (const ClusterState& s : walk(m, seed, 40)) {
      ClusterState c = s;
      m.canonicalize(c);
      ClusterState twice = c;
      m.canonicalize(twice);
      ASSERT_EQ(std::memcmp(&c, &twice, sizeof c), 0) << "seed " << seed;
      for (const auto& p : m.properties()) ASSERT_EQ(p.holds(m, s), p.holds(m, c)) << p.name;
    }
  }
  }
}

TEST(ClusterSymmetry, ReductionKeepsTheVerdictAndShrinksTheSpace) {
  // Dedicated voters: the two followers of the initial KRaft leader are interchangeable
  // (with combined placement they are tied to distinct replicas, and the small default
  // configurations reach few symmetric states).
  const ClusterModel m(config({"controller.placement=dedicated", "brokers=2", "faults.max_crashes=0"}));
  const auto with = check(m, true);
  const auto without = check(m, false);
  EXPECT_EQ(with.verdict, Verdict::Holds);
  EXPECT_EQ(without.verdict, Verdict::Holds);
  EXPECT_LT(with.distinct_states, without.distinct_states);
}

TEST(ClusterCheck, HoldsWithoutCrashes) {
  // The default configuration (one crash) is checked in cluster_slow_test.cc.
  const ClusterModel m(config({"faults.max_crashes=0"}));
  const auto r = check(m);
  EXPECT_EQ(r.verdict, Verdict::Holds) << r.property;
  EXPECT_GT(r.distinct_states, 10000u);
}

TEST(ClusterModel, SuccessorGenerationDoesNotAllocate) {
  // RF 3 (6 permutations) and a fault-rich walk, so that decisions, records, commits and
  // truncations all occur; the walk itself is collected beforehand.
  const ClusterModel m(config({"replication_factor=3", "min_insync_replicas=2", "kraft.max_records=3"}));
  std::vector<ClusterState> states;
  for (unsigned seed = 1; seed <= 10; ++seed)
    for (const ClusterState& s : walk(m, seed, 40)) states.push_back(s);
  uint64_t actions = 0;
  g_allocations = 0;
  g_count_allocations = true;
  for (const ClusterState& s : states) {
    m.for_each_action(s, [&](const ClusterAction& a) {
      ClusterState t = m.next_state(s, a);
      m.canonicalize(t);
      for (const auto& p : m.properties()) actions += p.holds(m, t) ? 1 : 0;
    });
  }
  g_count_allocations = false;
  EXPECT_GT(actions, 1000u);
  EXPECT_EQ(g_allocations.load(), 0u);
}

// --- controller failover in the middle of an ISR change ------------------------------------

// The KRaft leader that appended an AlterPartition record crashed before the record
// committed (the entry it wrote itself is not in the committed log, its answer still
// owed to a live partition leader), and another controller is active in a later epoch.
bool failover_mid_isr_change(const ClusterModel& m, const ClusterState& s) {
  const int voters = m.config().quorum.voters;
  int crashed_epoch = -1;
  for (int v = 0; v < voters; ++v) {
    const auto& x = s.quorum.voters[v];
    if (x.alive) continue;
    for (int o = 0; o < x.leo; ++o) {
      const auto& h = s.quorum.history;
      const bool committed = o < h.committed_len && h.committed[o] == x.log[o];
      const int id = s.payload[v][o];
      if (id != 0 && !committed && x.log[o].writer == v + 1 &&
          s.records[id - 1].answer == static_cast<uint8_t>(isr::spec::cluster::Answer::AlterPartition))
        crashed_epoch = x.log[o].epoch;
    }
  }
  if (crashed_epoch < 0) return false;
  for (int v = 0; v < voters; ++v)
    if (m.active_controller(s, v) && s.quorum.voters[v].epoch > crashed_epoch) return true;
  return false;
}

// The cluster model with one property: "the failover state is not reached". BFS then
// finds the shortest path into it.
struct FailoverProbe : ClusterModel {
  using Property = isr::checker::Property<ClusterState, FailoverProbe>;
  explicit FailoverProbe(ClusterConfig c) : ClusterModel(std::move(c)) {
    probe_.push_back(Property{"not-failover-mid-isr-change", "",
                              [](const FailoverProbe& m, const ClusterState& s) { return !failover_mid_isr_change(m, s); }});
  }
  const std::vector<Property>& properties() const { return probe_; }
  std::vector<Property> probe_;
};

TEST(ClusterFailover, KraftLeaderCrashWhileAnAlterPartitionIsPendingIsReached) {
  // The default configuration: its check (above) holds in every state, these included.
  const FailoverProbe probe(isr::spec::cluster::default_config());
  const auto r = check(probe);
  ASSERT_EQ(r.verdict, Verdict::Violated) << "the failover-mid-ISR-change states are never reached";
  std::vector<std::string> names;
  for (const auto& a : r.counterexample.actions) names.push_back(probe.action_name(a));
  std::string joined;
  for (const auto& n : names) joined += n + "; ";
  // The AlterPartition record is appended, its controller's node crashes, a new one
  // takes over: the path goes through each.
  EXPECT_NE(joined.find("AlterPartition"), std::string::npos) << joined;
  EXPECT_NE(joined.find("Crash"), std::string::npos) << joined;
  EXPECT_NE(joined.find("KraftVote"), std::string::npos) << joined;
  EXPECT_NE(joined.find("by controller 2; Crash(node=2"), std::string::npos) << joined;
  EXPECT_EQ(names.size(), 9u) << joined;
}

// A voter that moved to the new epoch (BeginEpoch) but has not fetched yet still holds
// the deposed controller's AlterPartition record; the new controller must still handle
// the leader's retry (AlterPartitionManager resends it to the new controller). The
// rule once looked at the holder's epoch rather than the entry's, and held the retry
// back until that voter truncated its log, or for good if it crashed first.
bool stale_record_held_in_new_epoch(const ClusterModel& m, const ClusterState& s, int* controller, int* leader) {
  const int voters = m.config().quorum.voters;
  for (int v = 0; v < voters; ++v) {
    if (!m.active_controller(s, v)) continue;
    const int epoch = s.quorum.voters[v].epoch;
    for (int u = 0; u < voters; ++u) {
      const auto& x = s.quorum.voters[u];
      if (u == v || x.epoch < epoch) continue;
      for (int o = 0; o < x.leo; ++o) {
        const int id = s.payload[u][o];
        if (id == 0 || x.log[o].epoch >= epoch) continue;
        const auto& r = s.records[id - 1];
        if (r.answer != static_cast<uint8_t>(isr::spec::cluster::Answer::AlterPartition)) continue;
        if (!s.partition.nodes[r.answer_node].alive || !s.partition.replicas[r.answer_node].alter_pending) continue;
        *controller = v;
        *leader = r.answer_node;
        return true;
      }
    }
  }
  return false;
}

struct StaleRecordProbe : ClusterModel {
  using Property = isr::checker::Property<ClusterState, StaleRecordProbe>;
  explicit StaleRecordProbe(ClusterConfig c) : ClusterModel(std::move(c)) {
    probe_.push_back(Property{"not-stale-record-in-new-epoch", "", [](const StaleRecordProbe& m, const ClusterState& s) {
                                int v = 0, l = 0;
                                return !stale_record_held_in_new_epoch(m, s, &v, &l);
                              }});
  }
  const std::vector<Property>& properties() const { return probe_; }
  std::vector<Property> probe_;
};

TEST(ClusterFailover, NewControllerHandlesTheRetryWhileAFollowerStillHoldsTheStaleRecord) {
  // Two records: the deposed controller's and the new one's.
  const StaleRecordProbe probe(config({"faults.max_crashes=0", "kraft.max_records=2"}));
  const auto r = check(probe);
  ASSERT_EQ(r.verdict, Verdict::Violated) << "a stale AlterPartition record held in the new epoch is never reached";
  const ClusterState& s = r.counterexample.states.back();
  int controller = -1, leader = -1;
  ASSERT_TRUE(stale_record_held_in_new_epoch(probe, s, &controller, &leader));
  bool retried = false;
  probe.for_each_action(s, [&](const ClusterAction& a) {
    retried |= a.layer == static_cast<uint8_t>(isr::spec::cluster::Layer::Decision) && a.controller == controller &&
               a.partition.kind == isr::spec::ActionKind::AlterPartition && a.partition.node == leader;
  });
  EXPECT_TRUE(retried) << "controller " << controller << " cannot handle leader " << leader << "'s retry";
}

// --- each hazard, found when its rule is off --------------------------------------------------

struct Hazard {
  std::vector<std::string> overrides;
  std::string property;
  size_t shortest;
};

class ClusterHazard : public ::testing::TestWithParam<Hazard> {};

TEST_P(ClusterHazard, FoundWithAShortTraceThatReplays) {
  const Hazard& h = GetParam();
  std::vector<std::string> overrides = h.overrides;
  overrides.push_back("properties=" + h.property);
  const ClusterModel model(config(overrides));
  const auto r = check(model);
  ASSERT_EQ(r.verdict, Verdict::Violated);
  EXPECT_EQ(r.property, h.property);
  EXPECT_EQ(r.counterexample.actions.size(), h.shortest);
  const nlohmann::json trace = isr::counterexamples::trace_to_json(model, r.counterexample, "bfs", "cluster");
  const auto replayed = isr::counterexamples::replay_trace(model, trace);
  EXPECT_TRUE(replayed.reproduced) << replayed.summary();
}

INSTANTIATE_TEST_SUITE_P(
    Toggles, ClusterHazard,
    ::testing::Values(
        // A controller that answers before the quorum commits: a broker acts on a record
        // the quorum has not committed (and, deposed, never will).
        Hazard{{"fixes.apply_after_commit=false"}, "committed-metadata-only", 3},
        // ... and a stale controller's ISR shrink lets the leader acknowledge a write its
        // successor's ISR does not hold.
        Hazard{{"fixes.apply_after_commit=false", "kraft.max_records=2"}, "no-acked-loss", 11},
        // KRaft's own hazard in the composed model: a double vote elects two controllers.
        Hazard{{"fixes.persist_vote=false"}, "single-controller-per-epoch", 6}),
    [](const ::testing::TestParamInfo<Hazard>& info) {
      std::string name = info.param.overrides.front() + "_" + info.param.property;
      for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return name;
    });

// --- the command line -------------------------------------------------------------------------

TEST(ClusterCli, CheckListDescribe) {
  const CliRun ok = run_isrcheck("check --model cluster --set faults.max_crashes=0 --threads 2 --quiet");
  ASSERT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("verdict: HOLDS"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("committed-metadata-only"), std::string::npos) << ok.out;

  const CliRun list = run_isrcheck("list properties --model cluster");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  for (const char* name : {"no-acked-loss", "single-controller-per-epoch", "committed-metadata-only"})
    EXPECT_NE(list.out.find(name), std::string::npos) << name;
  const CliRun fixes = run_isrcheck("list fixes --model cluster");
  EXPECT_NE(fixes.out.find("apply_after_commit"), std::string::npos) << fixes.out;
  EXPECT_NE(fixes.out.find("persist_vote"), std::string::npos) << fixes.out;

  const CliRun d = run_isrcheck("describe --model cluster --set kraft.max_epoch=3");
  ASSERT_EQ(d.exit_code, 0) << d.err;
  const nlohmann::json described = nlohmann::json::parse(d.out);
  EXPECT_EQ(described.at("kraft").at("max_epoch"), 3);
  EXPECT_EQ(described.at("fixes").at("apply_after_commit"), true);
}

TEST(ClusterCli, BadInputExitsTwo) {
  for (const char* args : {"--set kraft.max_epoch=99", "--set kraft.bogus=1", "--set controller.voters=2",
                           "--set fixes.apply_after_commit=sometimes"}) {
    const CliRun bad = run_isrcheck(std::string("check --model cluster --quiet ") + args);
    EXPECT_EQ(bad.exit_code, 2) << args << "\n" << bad.out << bad.err;
  }
  const CliRun named = run_isrcheck("check --model cluster --set kraft.max_epoch=99");
  EXPECT_NE(named.err.find("kraft.max_epoch"), std::string::npos) << named.err;
}

TEST(ClusterCli, ViolationTraceReplaysRendersAndSimulates) {
  const std::string trace_file = temp_path(".cluster.json");
  const CliRun r = run_isrcheck("check --model cluster --set fixes.apply_after_commit=false --threads 2 --quiet "
                                "--trace-out '" + trace_file + "'");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("VIOLATED: committed-metadata-only"), std::string::npos) << r.out;
  const nlohmann::json trace = nlohmann::json::parse(slurp(trace_file));
  EXPECT_EQ(trace.at("model"), "cluster");
  EXPECT_EQ(trace.at("config").at("fixes").at("apply_after_commit"), false);

  const CliRun replayed = run_isrcheck("replay '" + trace_file + "'");
  EXPECT_EQ(replayed.exit_code, 0) << replayed.out << replayed.err;
  EXPECT_EQ(run_isrcheck("replay --model kraft '" + trace_file + "'").exit_code, 2);
  const CliRun rendered = run_isrcheck("render --model cluster '" + trace_file + "'");
  EXPECT_EQ(rendered.exit_code, 0) << rendered.err;
  EXPECT_NE(rendered.out.find("by controller"), std::string::npos) << rendered.out;

  nlohmann::json edited = trace;
  edited["steps"].erase(edited["steps"].size() - 1);
  const std::string edited_file = isr::trace_test::write_temp(edited.dump());
  EXPECT_EQ(run_isrcheck("replay '" + edited_file + "'").exit_code, 1);

  const std::string sim_file = temp_path(".cluster-sim.json");
  const CliRun sim = run_isrcheck("simulate --model cluster --set fixes.apply_after_commit=false --walks 200 "
                                  "--depth 30 --seed 3 --threads 2 --quiet --trace-out '" + sim_file + "'");
  ASSERT_EQ(sim.exit_code, 1) << sim.out << sim.err;
  EXPECT_EQ(run_isrcheck("replay '" + sim_file + "'").exit_code, 0);
  std::remove(trace_file.c_str());
  std::remove(edited_file.c_str());
  std::remove(sim_file.c_str());
}

}  // namespace
