// The explicit state graph (checker/graph/state_graph.h) on toy models with known figures,
// write availability after node failures (analysis/availability.h) against the facts
// of MODEL.md section 5, and `isrcheck prove` / `isrcheck graph` end to end: every
// shipped claim holds, a wrong expectation exits 1, a malformed claim exits 2.
#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <boost/graph/adjacency_list.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/availability.h"
#include "analysis/claims.h"
#include "checker/graph/state_graph.h"
#include "counterexamples/trace/trace_writer.h"
#include "spec/partition/partition_model.h"
#include "spec/partition/queries.h"
#include "tests/toy_models.h"
#include "tests/trace_test_support.h"

namespace isr {
namespace {

using analysis::WriteAvailability;
using nlohmann::json;
using trace_test::run_isrcheck;
using trace_test::slurp;
using trace_test::write_temp;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// --- checker/graph/state_graph.h ----------------------------------------------------------

TEST(StateGraph, CountersHaveEveryStateAndEveryIncrement) {
  // 3 counters up to 2: 27 states; from each state, one edge per counter below 2, so
  // 3 x 9 x 2 = 54 edges (each counter is below 2 in two of its three values).
  const toy::CounterModel model(3, 2);
  const auto g = checker::explore_state_graph(model);
  EXPECT_TRUE(g.complete);
  EXPECT_EQ(g.vertex_count(), 27u);
  EXPECT_EQ(g.edge_count(), 54u);
  EXPECT_EQ(g.expanded, 27u);
  EXPECT_EQ(g.states_generated, 1u + 54u);
  EXPECT_EQ(g.depth.back(), 6u) << "the last vertex discovered is the farthest";

  const checker::StateGraphBoost b = g.to_boost();
  EXPECT_EQ(boost::num_vertices(b), 27u);
  EXPECT_EQ(boost::num_edges(b), 54u);
  const auto top = g.find(model, toy::CounterModel::State{{2, 2, 2}});
  ASSERT_TRUE(top.has_value());
  EXPECT_EQ(boost::in_degree(*top, b), 3u);
  EXPECT_EQ(boost::out_degree(*top, b), 0u);
  EXPECT_EQ(boost::out_degree(0, b), 3u);
  EXPECT_FALSE(g.find(model, toy::CounterModel::State{{3, 0, 0}}).has_value());
}

TEST(StateGraph, SymmetryKeepsOneVertexPerOrbit) {
  // Orbits of 3 counters up to 2 under permutations: multisets, C(5, 3) = 10. Edges:
  // per multiset, the counters below 2 (3+3+2+3+2+1+3+2+1+0 = 20).
  const toy::CounterModel model(3, 2);
  checker::StateGraphOptions options;
  options.symmetry = true;
  const auto g = checker::explore_state_graph(model, options);
  EXPECT_EQ(g.vertex_count(), 10u);
  EXPECT_EQ(g.edge_count(), 20u);
  // A vertex is found from any member of its orbit.
  EXPECT_EQ(g.find(model, toy::CounterModel::State{{0, 1, 2}}), g.find(model, toy::CounterModel::State{{2, 0, 1}}));
}

TEST(StateGraph, GridEdgesAreMovesAndParentsGiveShortestPaths) {
  // 3 x 2 grid from duplicated starts: 6 cells; 7 undirected adjacencies, 14 moves.
  const toy::GridModel model(3, 2, {{0, 0}, {0, 0}});
  const auto g = checker::explore_state_graph(model);
  EXPECT_EQ(g.vertex_count(), 6u);
  EXPECT_EQ(g.edge_count(), 14u);
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (const auto& e : g.edges) {
    EXPECT_EQ(e.kind, 0u);
    EXPECT_TRUE(seen.insert({e.source, e.action_index}).second) << "one edge per (source, action)";
  }
  const auto corner = g.find(model, toy::GridModel::State{2, 1});
  ASSERT_TRUE(corner.has_value());
  EXPECT_EQ(g.depth[*corner], 3u);
  const auto path = g.path_to(model, *corner, "reach-corner");
  EXPECT_EQ(path.actions.size(), 3u);
  EXPECT_EQ(path.states.back().x, 2);
  EXPECT_EQ(path.states.back().y, 1);
  const json trace = counterexamples::trace_to_json(model, path, "graph", "grid");
  EXPECT_EQ(trace.at("steps").size(), 4u);
  EXPECT_EQ(trace.at("property"), "reach-corner");
  EXPECT_EQ(trace.at("steps")[3].at("state"), (json{{"x", 2}, {"y", 1}}));
}

TEST(StateGraph, FirstEdgePerKindGivesAShortestPathThroughEachKind) {
  // Mutual exclusion with a check-then-act lock: Check first from the initial state,
  // Enter after one step, Leave after two.
  const toy::MutexModel model(2, false, 1);
  const auto g = checker::explore_state_graph(model);
  ASSERT_EQ(g.kinds, (std::vector<std::string>{"Check", "Enter", "Leave"}));
  const std::vector<uint32_t> first = g.first_edge_per_kind();
  ASSERT_EQ(first.size(), 3u);
  for (size_t kind = 0; kind < 3; ++kind) {
    ASSERT_NE(first[kind], checker::StateGraph<toy::MutexModel>::kNoParent) << kind;
    const auto& e = g.edges[first[kind]];
    EXPECT_EQ(e.kind, kind);
    const auto path = g.path_through(model, e, "cover");
    EXPECT_EQ(path.actions.size(), kind + 1) << kind;
    EXPECT_EQ(model.action_kind(path.actions.back()), g.kinds[kind]);
  }
}

TEST(StateGraph, MaxStatesStopsIncompleteWithOnlyExpandedSourcesHavingEdges) {
  const toy::CounterModel model(3, 2);
  checker::StateGraphOptions options;
  options.max_states = 5;
  const auto g = checker::explore_state_graph(model, options);
  EXPECT_FALSE(g.complete);
  EXPECT_EQ(g.vertex_count(), 5u);
  EXPECT_LT(g.expanded, 5u);
  for (const auto& e : g.edges) EXPECT_LT(e.source, g.expanded);
  // A limit the model fits in exactly is not a stop.
  options.max_states = 27;
  EXPECT_TRUE(checker::explore_state_graph(model, options).complete);
}

// --- analysis/availability.h ---------------------------------------------------------

spec::Config config(const std::vector<std::string>& overrides) {
  std::vector<std::string> all = {"consumer=false"};
  all.insert(all.end(), overrides.begin(), overrides.end());
  return spec::load_config(nullptr, all);
}

analysis::AvailabilityReport availability(const std::vector<std::string>& overrides, int failures,
                                          const std::string& failing = "any") {
  analysis::AvailabilityOptions options;
  options.failures = failures;
  options.failing_nodes = failing;
  const auto report = analysis::analyze_availability(config(overrides), options);
  EXPECT_TRUE(report.complete);
  EXPECT_EQ(report.unexplained_states, 0u);
  EXPECT_GT(report.settled_states, 0u);
  uint64_t total = 0;
  for (const auto& [name, count] : report.states_by_class) total += count;
  EXPECT_EQ(total, report.settled_states);
  return report;
}

// The witness re-executes on the unrestricted partition model: each recorded action is
// enabled where it is taken and leads to the recorded state.
void expect_witness_replays(const analysis::AvailabilityReport& report) {
  ASSERT_TRUE(report.witness_trace.is_object());
  const json& steps = report.witness_trace.at("steps");
  EXPECT_EQ(static_cast<int>(steps.size()), report.witness_steps + 1);
  const spec::PartitionModel model(spec::load_config(&report.witness_trace.at("config"), {}));
  spec::State s = model.initial_states().at(0);
  ASSERT_EQ(model.state_to_json(s), steps[0].at("state"));
  for (size_t i = 1; i < steps.size(); ++i) {
    bool found = false;
    model.for_each_action(s, [&](const spec::Action& a) {
      if (!found && model.action_to_json(a) == steps[i].at("action")) {
        s = model.next_state(s, a);
        found = true;
      }
    });
    ASSERT_TRUE(found) << "step " << i;
    ASSERT_EQ(model.state_to_json(s), steps[i].at("state")) << "step " << i;
  }
}

TEST(Availability, OneLossOfThreeCombinedNodesLeavesWritesAvailable) {
  for (const char* records : {"bounds.max_records=1", "bounds.max_records=2"}) {
    SCOPED_TRACE(records);
    const auto r = availability({records}, 1);
    EXPECT_EQ(r.verdict, WriteAvailability::Available);
    EXPECT_EQ(r.states_by_class.at("available"), r.settled_states);
    EXPECT_TRUE(r.witness_trace.is_null());
  }
}

TEST(Availability, TwoLossesOfThreeCombinedNodesLoseTheControllerQuorumNotJustReplicas) {
  const auto r = availability({}, 2);
  EXPECT_EQ(r.verdict, WriteAvailability::NoControllerQuorum);
  EXPECT_EQ(r.states_by_class.at("not-enough-replicas"), 0u) << "the ISR can never be shrunk";
  EXPECT_EQ(r.states_by_class.at("available"), 0u);
  expect_witness_replays(r);
  const json& last = r.witness_trace.at("steps").back().at("state");
  EXPECT_FALSE(last.at("controller").at("quorum").get<bool>());
  EXPECT_EQ(last.at("controller").at("isr"), (json{0, 1, 2}));
}

TEST(Availability, TwoBrokerLossesWithDedicatedControllersGiveNotEnoughReplicas) {
  for (const char* failing : {"any", "brokers"}) {
    SCOPED_TRACE(failing);
    const auto r = availability({"controller.placement=dedicated"}, 2, failing);
    EXPECT_EQ(r.verdict, WriteAvailability::NotEnoughReplicas);
    EXPECT_GT(r.states_by_class.at("not-enough-replicas"), 0u);
    EXPECT_EQ(r.states_by_class.at("no-controller-quorum"), 0u);
    expect_witness_replays(r);
    const json& last = r.witness_trace.at("steps").back().at("state");
    EXPECT_TRUE(last.at("controller").at("quorum").get<bool>());
    EXPECT_EQ(last.at("controller").at("isr").size(), 1u);
    // Two voters lost with every broker up: the ISR needs no change, writes continue.
    if (std::string(failing) == "any") EXPECT_GT(r.states_by_class.at("available"), 0u);
    else EXPECT_EQ(r.states_by_class.at("available"), 0u) << "two of the three replicas are always gone";
  }
}

TEST(Availability, ReplicationFactorTwoWithMinIsrTwoAndOneReplicaDownGivesNotEnoughReplicas) {
  const auto r = availability({"replication_factor=2"}, 1);
  EXPECT_EQ(r.verdict, WriteAvailability::NotEnoughReplicas);
  EXPECT_GT(r.states_by_class.at("available"), 0u) << "losing the broker outside the assignment changes nothing";
  expect_witness_replays(r);
}

TEST(Availability, LosingTheOnlyReplicaLeavesNoEligibleLeader) {
  const auto r = availability({"replication_factor=1", "min_insync_replicas=1"}, 1);
  EXPECT_EQ(r.verdict, WriteAvailability::NoEligibleLeader);
  expect_witness_replays(r);
  // The witness stops as soon as the class is settled: the leader is dead, whether or not
  // the controller has fenced it yet (fencing leaves the partition leaderless: same class).
  const json& last = r.witness_trace.at("steps").back().at("state");
  const json& leader = last.at("controller").at("leader");
  EXPECT_TRUE(leader.is_null() || !last.at("nodes").at(leader.get<size_t>()).at("alive").get<bool>()) << last;
}

TEST(Availability, LossyFailuresAndZeroFailures) {
  analysis::AvailabilityOptions options;
  options.failures = 1;
  options.lossy = true;
  EXPECT_EQ(analysis::analyze_availability(config({}), options).verdict, WriteAvailability::Available);
  options.failures = 0;
  options.lossy = false;
  EXPECT_EQ(analysis::analyze_availability(config({}), options).verdict, WriteAvailability::Available);
}

TEST(Availability, AnIncompleteGraphSaysSoAndClassifiesOnlyWhatItKnows) {
  analysis::AvailabilityOptions options;
  options.failures = 2;
  options.max_states = 1000;
  const auto r = analysis::analyze_availability(config({}), options);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.graph_states, 1000u);
  EXPECT_GT(r.unknown_states, 0u);
  EXPECT_EQ(r.unexplained_states, 0u) << "unexpanded states have no successors, yet nothing is misread";

  const std::string claim = write_temp(R"({"config": {"consumer": false}, "max_states": 1000,
    "availability": [{"failures": 2, "expect": "no-controller-quorum"}]})");
  const auto run = run_isrcheck("prove '" + claim + "'");
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  // An incomplete check is not a refutation: it says so, without "(REFUTED)".
  EXPECT_TRUE(contains(run.out, "incomplete")) << run.out;
  EXPECT_FALSE(contains(run.out, "(REFUTED)")) << run.out;
  EXPECT_TRUE(contains(run.out, "some expectations are NOT met")) << run.out;
}

TEST(Availability, RejectsImpossibleOptions) {
  analysis::AvailabilityOptions options;
  options.failures = 4;
  EXPECT_THROW(analysis::analyze_availability(config({}), options), spec::ConfigError);
  options.failures = 1;
  options.failing_nodes = "voters";
  EXPECT_THROW(analysis::analyze_availability(config({}), options), spec::ConfigError);
}

TEST(Availability, NamesRoundTrip) {
  for (const char* name : {"available", "not-enough-replicas", "no-eligible-leader", "no-controller-quorum"}) {
    WriteAvailability a{};
    ASSERT_TRUE(analysis::parse_availability(name, a)) << name;
    EXPECT_EQ(analysis::availability_name(a), name);
  }
  WriteAvailability a{};
  EXPECT_FALSE(analysis::parse_availability("timed-out", a));
}

// --- claims ------------------------------------------------------------------------

std::vector<std::string> shipped_claims() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ISRCHECK_SOURCE_DIR) + "/claims")) {
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(Claims, ParseErrorsNameTheFieldAndTheAllowedValues) {
  struct Case {
    std::string document, field, allowed;
  };
  const std::vector<Case> cases = {
      {R"({"availability": [{"failures": 2, "expect": "timeout"}]})", "availability[0].expect", "no-controller-quorum"},
      {R"({"availability": [{"expect": "available"}]})", "availability[0].failures", "missing"},
      {R"({"availability": [{"failures": 9, "expect": "available"}]})", "availability[0].failures", "0..3"},
      {R"({"expect": {"no-lost-data": "holds"}})", "expect.no-lost-data", "no-acked-loss"},
      {R"({"expect": {"no-acked-loss": "yes"}})", "expect.no-acked-loss", "\"holds\" or \"violated\""},
      {R"({"expect": {"no-acked-loss": "holds"}, "config": {"acks": "2"}})", "config.acks", "all"},
      {R"({"expect": {"no-acked-loss": "holds"}, "faults": {"max_crashes": -1}})", "config.faults.max_crashes", ""},
      {R"({"expect": {"no-acked-loss": "holds"}, "expected": 1})", "expected", "availability"},
      {R"({"config": {}})", "expect", "at least one expectation"},
      {R"({"expect": {"no-acked-loss": "holds"}, "faults_begin": "later"})", "faults_begin", "\"after-ack\""},
      {R"({"availability": [{"failures": 1, "expect": "available"}], "faults_begin": "after-ack"})", "faults_begin",
       "own failure scenario"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.document);
    try {
      analysis::parse_claim(json::parse(c.document), "bad");
      ADD_FAILURE() << "accepted";
    } catch (const analysis::ClaimError& e) {
      EXPECT_EQ(e.field, c.field) << e.what();
      EXPECT_TRUE(contains(e.what(), c.allowed)) << e.what();
    }
  }
}

// The shipped claims whose searches take seconds or more (200 000 states and up);
// tests/claims_slow_test.cc proves every claim, these included.
// (The dedicated-controller fact is Availability.TwoBrokerLosses... below, via the API.)
const std::set<std::string> kSlowClaims = {"clean-election-keeps-acked-writes",
                                           "fsync-every-append-survives-lossy-failures",
                                           "min-isr-two-one-loss-keeps-acked-writes",
                                           "two-brokers-lost-dedicated-controllers-not-enough-replicas"};

// The claims proved through the API by Claims.CopiesLostAfterTheAck below (which also
// looks at their traces), so that the fast pass does not search them twice.
const std::set<std::string> kClaimsProvedByApi = {"elr-two-copies-lost-keep-acked-writes",
                                                  "three-copies-lost-loses-acked-write",
                                                  "no-elr-one-power-loss-loses-acked-write"};

TEST(Claims, ShippedClaimsHoldViaProve) {
  const std::vector<std::string> files = shipped_claims();
  ASSERT_GE(files.size(), 10u);
  std::string args = "prove --threads 2";
  size_t fast = 0;
  for (const auto& f : files) {
    const std::string stem = std::filesystem::path(f).stem().string();
    if (kSlowClaims.count(stem) || kClaimsProvedByApi.count(stem)) continue;
    args += " '" + f + "'";
    ++fast;
  }
  ASSERT_EQ(fast + kSlowClaims.size() + kClaimsProvedByApi.size(), files.size()) << "a listed claim was renamed";
  const std::string json_file = trace_test::temp_path(".json");
  const auto r = run_isrcheck(args + " --json '" + json_file + "'");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "all " + std::to_string(fast) + " claims hold as expected")) << r.out;
  EXPECT_FALSE(contains(r.out, "REFUTED")) << r.out;
  const json report = json::parse(slurp(json_file));
  EXPECT_TRUE(report.at("all_met").get<bool>());
  ASSERT_EQ(report.at("claims").size(), fast);
  std::set<std::string> found;
  for (const auto& claim : report.at("claims")) {
    EXPECT_FALSE(claim.at("description").get<std::string>().empty()) << claim.at("claim");
    for (const auto& check : claim.at("checks")) found.insert(check.at("found").get<std::string>());
  }
  // Between them, the facts exercise every verdict but "available" (a slow claim's).
  for (const char* verdict :
       {"holds", "violated", "not-enough-replicas", "no-eligible-leader", "no-controller-quorum"}) {
    EXPECT_TRUE(found.count(verdict)) << verdict;
  }
}

// The action names of a trace, from step 1.
std::vector<std::string> action_names(const json& trace) {
  std::vector<std::string> names;
  const json& steps = trace.at("steps");
  for (size_t i = 1; i < steps.size(); ++i) names.push_back(steps[i].at("action_name").get<std::string>());
  return names;
}

// The step at which record 1 is first acknowledged (0: never).
size_t first_ack_step(const json& trace) {
  const json& steps = trace.at("steps");
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].at("state").at("producer").at("outcomes").value("1", "") == "acked") return i;
  }
  return 0;
}

size_t count_prefix(const std::vector<std::string>& names, const std::string& prefix) {
  return static_cast<size_t>(
      std::count_if(names.begin(), names.end(), [&](const std::string& n) { return n.starts_with(prefix); }));
}

analysis::ClaimOutcome prove_shipped(const std::string& name) {
  const analysis::Claim claim = analysis::read_claim_file(std::string(ISRCHECK_SOURCE_DIR) + "/claims/" + name + ".json");
  EXPECT_EQ(claim.faults_begin, analysis::FaultsBegin::AfterAck) << name;
  analysis::ProveOptions options;
  options.threads = 2;
  return analysis::prove_claim(claim, options);
}

// MODEL.md section 5: "with acks=all, ISR [1,2,3] / min ISR 2 needs all three copies
// lost". The premise is a write acknowledged by the full ISR, so faults begin after the
// acknowledgement (faults_begin = after-ack, docs/claims.md). With KIP-966 ELR, two lost
// copies lose nothing and three do; without ELR one power loss suffices.
TEST(Claims, CopiesLostAfterTheAck) {
  {
    const auto outcome = prove_shipped("three-copies-lost-loses-acked-write");
    ASSERT_TRUE(outcome.met()) << outcome.checks.at(0).found;
    const json& trace = outcome.checks.at(0).trace;
    const std::vector<std::string> names = action_names(trace);
    // Shortest: produce, two fetches (one each), the ack, then three stops losing data.
    EXPECT_EQ(names.size(), 8u);
    EXPECT_EQ(count_prefix(names, "Crash("), 3u);
    EXPECT_EQ(count_prefix(names, "Crash(") - (count_prefix(names, "Crash(node=0, kill)") +
                                               count_prefix(names, "Crash(node=1, kill)") +
                                               count_prefix(names, "Crash(node=2, kill)")),
              3u)
        << "every stop loses the copy";
    const json& last = trace.at("steps").back().at("state");
    for (const auto& node : last.at("nodes")) EXPECT_EQ(node.at("replica").at("leo"), 0) << node;
  }
  {
    const auto outcome = prove_shipped("no-elr-one-power-loss-loses-acked-write");
    ASSERT_TRUE(outcome.met()) << outcome.checks.at(0).found;
    const json& trace = outcome.checks.at(0).trace;
    const std::vector<std::string> names = action_names(trace);
    // 13 steps: in kip-903 (KRaft 3.5) an ISR shrink bumps the leader epoch (KAFKA-15021
    // came in 3.6), so the leader learns its new epoch from the metadata. 16 before a
    // ShrinkIsr could remove both followers in one AlterPartition (docs/model.md).
    EXPECT_EQ(names.size(), 13u);
    EXPECT_EQ(count_prefix(names, "Crash("), 1u);
    EXPECT_EQ(count_prefix(names, "ShrinkIsr(leader=0, followers=[1,2])"), 1u)
        << "both followers leave the ISR without a fault, in one AlterPartition";
    // The write was acknowledged by the full ISR, before any shrink or fault.
    const size_t ack = first_ack_step(trace);
    ASSERT_GT(ack, 0u);
    EXPECT_EQ(trace.at("steps")[ack].at("state").at("controller").at("isr"), (json{0, 1, 2}));
    for (size_t i = 1; i <= ack; ++i) {
      EXPECT_FALSE(names[i - 1].starts_with("Crash(") || names[i - 1].starts_with("ShrinkIsr(")) << names[i - 1];
    }
    EXPECT_TRUE(std::find_if(names.begin(), names.end(), [](const std::string& n) {
                  return n.starts_with("Crash(") && n.ends_with(", power)");
                }) != names.end());
  }
  {
    const auto outcome = prove_shipped("elr-two-copies-lost-keep-acked-writes");
    EXPECT_TRUE(outcome.met());
    ASSERT_EQ(outcome.checks.size(), 2u);
    for (const auto& check : outcome.checks) {
      EXPECT_EQ(check.found, "holds") << check.check;
      EXPECT_GT(check.states, 500'000u) << "the premise restricts the start, not the faults";
    }
  }
}

TEST(Claims, AWrongExpectationExitsOneWithTheWitnessTrace) {
  const std::string claim = write_temp(R"({
    "name": "rf2-wrongly-available",
    "config": {"replication_factor": 2, "consumer": false},
    "faults": {"max_crashes": 0},
    "expect": {"no-acked-loss": "violated"},
    "availability": [{"failures": 1, "expect": "available"}]
  })");
  const std::string dir = trace_test::temp_path("-traces");
  const auto r = run_isrcheck("prove '" + claim + "' --trace-dir '" + dir + "'");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "not-enough-replicas (REFUTED)")) << r.out;
  EXPECT_TRUE(contains(r.out, "holds (REFUTED)")) << r.out;
  const std::string trace_file = dir + "/rf2-wrongly-available.availability-1.trace.json";
  ASSERT_TRUE(std::filesystem::exists(trace_file)) << r.out;
  const json trace = json::parse(slurp(trace_file));
  EXPECT_EQ(trace.at("property"), "availability:not-enough-replicas");
  // The trace renders like any other.
  const auto rendered = run_isrcheck("render '" + trace_file + "'");
  EXPECT_EQ(rendered.exit_code, 0) << rendered.err;
  std::filesystem::remove_all(dir);
}

TEST(Claims, AMalformedClaimExitsTwoNamingFileAndField) {
  const std::string good = std::string(ISRCHECK_SOURCE_DIR) + "/claims/rf2-min-isr2-one-replica-lost-not-enough-replicas.json";
  const std::string bad = write_temp(R"({"availability": [{"failures": 1, "expect": "down"}]})");
  const auto r = run_isrcheck("prove '" + good + "' '" + bad + "'");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, bad + ": availability[0].expect")) << r.err;
  EXPECT_TRUE(contains(r.err, "not-enough-replicas")) << r.err;
  EXPECT_TRUE(r.out.empty()) << "nothing runs before every file parses: " << r.out;
  const auto missing = run_isrcheck("prove /nonexistent/claim.json");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(contains(missing.err, "/nonexistent/claim.json")) << missing.err;
  const auto not_json = run_isrcheck("prove '" + write_temp("{not json") + "'");
  EXPECT_EQ(not_json.exit_code, 2);
  EXPECT_TRUE(contains(not_json.err, "not valid JSON")) << not_json.err;
}

// --- isrcheck graph ------------------------------------------------------------------

TEST(GraphCli, WritesDotAndGraphMlOfTheWholeGraph) {
  const std::string small = "--set consumer=false --set faults.max_crashes=0 --set replication_factor=2";
  const spec::PartitionModel model(config({"faults.max_crashes=0", "replication_factor=2"}));
  checker::StateGraphOptions options;
  options.symmetry = true;
  const auto g = checker::explore_state_graph(model, options);

  const auto dot = run_isrcheck("graph " + small);
  ASSERT_EQ(dot.exit_code, 0) << dot.err;
  EXPECT_TRUE(dot.out.starts_with("digraph G {")) << dot.out.substr(0, 100);
  size_t arrows = 0;
  for (size_t at = dot.out.find("->"); at != std::string::npos; at = dot.out.find("->", at + 2)) ++arrows;
  EXPECT_EQ(arrows, g.edge_count());
  EXPECT_TRUE(contains(dot.out, "label=\"Produce(")) << "edges are labelled with action names";

  const std::string file = trace_test::temp_path(".graphml");
  const auto graphml = run_isrcheck("graph " + small + " --format graphml --out '" + file + "'");
  ASSERT_EQ(graphml.exit_code, 0) << graphml.err;
  const std::string text = slurp(file);
  size_t nodes = 0;
  for (size_t at = text.find("<node "); at != std::string::npos; at = text.find("<node ", at + 1)) ++nodes;
  EXPECT_EQ(nodes, g.vertex_count());
  EXPECT_TRUE(contains(text, "attr.name=\"state\""));
}

TEST(GraphCli, RefusesAModelLargerThanTheLimit) {
  const std::string file = trace_test::temp_path(".dot");
  const auto r = run_isrcheck("graph --max-states 100 --out '" + file + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--max-states")) << r.err;
  EXPECT_TRUE(contains(r.err, "more than 100 states")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(file)) << "no partial graph written";
}

}  // namespace
}  // namespace isr
