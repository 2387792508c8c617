// The parallel state-graph builder (checker/graph/state_graph.h) against a plain sequential
// breadth-first exploration written here (the builder's specification: vertices in
// discovery order, each vertex's edges in action order, the BFS tree of first
// discoveries): the same graph byte for byte for 1, 2 and 3 threads, with and without
// symmetry and partial-order reduction, cut by max_states anywhere, and consistent when
// interrupted. Then the analyses built on it: write availability (analysis/availability.h)
// and logs-converge (analysis/convergence.h) give the same report, witness trace
// included, for every thread count.
#include <atomic>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/availability.h"
#include "analysis/convergence.h"
#include "checker/action_kind_index.h"
#include "checker/graph/state_graph.h"
#include "checker/por.h"
#include "checker/store/fingerprint.h"
#include "spec/partition/config.h"
#include "spec/partition/partition_model.h"
#include "tests/toy_models.h"

namespace isr {
namespace {

using checker::StateGraph;
using checker::StateGraphEdge;
using checker::StateGraphOptions;

// What explore_state_graph must produce, the simplest way: one queue, one map.
template <class M>
struct Reference {
  std::vector<typename M::State> states;
  std::vector<StateGraphEdge> edges;
  std::vector<uint32_t> parent, parent_action, depth;
  bool complete = true;
  uint64_t expanded = 0;
  uint64_t generated = 0;
};

template <class M>
Reference<M> reference_graph(const M& model, const StateGraphOptions& o) {
  using State = typename M::State;
  using Action = typename M::Action;
  Reference<M> r;
  std::unordered_map<checker::Fingerprint, uint32_t> index;
  checker::ActionKindIndex<M> kinds(model);
  auto key = [&](State s) {
    if constexpr (checker::HasDeadComponents<M>) {
      if (o.por) model.por_clear_dead(s);
    }
    if (o.symmetry) model.canonicalize(s);
    return checker::fingerprint(s);
  };
  auto full = [&] { return o.max_states != 0 && r.states.size() >= o.max_states; };
  const std::vector<State> initial = model.initial_states();
  r.generated = initial.size();
  for (size_t i = 0; i < initial.size(); ++i) {
    const auto fp = key(initial[i]);
    if (index.count(fp)) continue;
    if (full()) {
      r.complete = false;
      break;
    }
    index.emplace(fp, static_cast<uint32_t>(r.states.size()));
    r.states.push_back(initial[i]);
    r.parent.push_back(StateGraph<M>::kNoParent);
    r.parent_action.push_back(static_cast<uint32_t>(i));
    r.depth.push_back(0);
  }
  for (size_t u = 0; u < r.states.size() && r.complete; ++u) {
    std::vector<Action> actions;
    model.for_each_action(r.states[u], [&](const Action& a) { actions.push_back(a); });
    const State from = r.states[u];
    std::vector<StateGraphEdge> out;
    for (size_t i = 0; i < actions.size() && r.complete; ++i) {
      if constexpr (checker::HasIrrelevantActions<M>) {
        if (o.por && model.por_irrelevant(from, actions[i])) continue;
      }
      const State next = model.next_state(from, actions[i]);
      ++r.generated;
      const auto fp = key(next);
      auto it = index.find(fp);
      if (it == index.end()) {
        if (full()) {
          r.complete = false;
          break;
        }
        it = index.emplace(fp, static_cast<uint32_t>(r.states.size())).first;
        r.states.push_back(next);
        r.parent.push_back(static_cast<uint32_t>(u));
        r.parent_action.push_back(static_cast<uint32_t>(i));
        r.depth.push_back(r.depth[u] + 1);
      }
      out.push_back(StateGraphEdge{static_cast<uint32_t>(u), it->second, static_cast<uint32_t>(i),
                                   static_cast<uint32_t>(kinds.of(actions[i]))});
    }
    if (!r.complete) break;
    r.edges.insert(r.edges.end(), out.begin(), out.end());
    r.expanded = u + 1;
  }
  return r;
}

template <class M>
void expect_same_graph(const M& model, const Reference<M>& want, const StateGraph<M>& got) {
  ASSERT_EQ(got.vertex_count(), want.states.size());
  for (size_t v = 0; v < want.states.size(); ++v) {
    ASSERT_EQ(std::memcmp(&got.states[v], &want.states[v], sizeof(want.states[v])), 0) << "state of vertex " << v;
    ASSERT_EQ(got.find(model, want.states[v]), std::optional<uint32_t>(static_cast<uint32_t>(v))) << "index of " << v;
  }
  EXPECT_EQ(got.parent, want.parent);
  EXPECT_EQ(got.parent_action, want.parent_action);
  EXPECT_EQ(got.depth, want.depth);
  ASSERT_EQ(got.edge_count(), want.edges.size());
  for (size_t i = 0; i < want.edges.size(); ++i) ASSERT_EQ(got.edges[i], want.edges[i]) << "edge " << i;
  EXPECT_EQ(got.complete, want.complete);
  EXPECT_EQ(got.expanded, want.expanded);
  EXPECT_EQ(got.states_generated, want.generated);
}

template <class M>
void expect_matches_reference(const M& model, StateGraphOptions o) {
  const Reference<M> want = reference_graph(model, o);
  for (int threads : {1, 2, 3}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    o.threads = threads;
    expect_same_graph(model, want, checker::explore_state_graph(model, o));
  }
}

TEST(ParallelStateGraph, ToyModelsMatchTheSequentialExplorationForEveryThreadCount) {
  for (bool symmetry : {false, true}) {
    SCOPED_TRACE(symmetry ? "symmetry" : "no symmetry");
    StateGraphOptions o;
    o.symmetry = symmetry;
    // Levels of several hundred vertices: several chunks per thread, and targets in the
    // same level, the next one and earlier ones.
    expect_matches_reference(toy::CounterModel(4, 6), o);
    expect_matches_reference(toy::GridModel(40, 30, {{5, 5}, {0, 0}, {5, 5}, {39, 29}}), o);
  }
}

spec::Config kafka(const std::vector<std::string>& overrides) {
  std::vector<std::string> all = {"consumer=false", "replication_factor=2"};
  all.insert(all.end(), overrides.begin(), overrides.end());
  return spec::load_config(nullptr, all);
}

TEST(ParallelStateGraph, PartitionModelMatchesTheSequentialExplorationWithAndWithoutPor) {
  // 38 777 states up to symmetry, 9 708 with POR (a power loss is possible, so flushes
  // matter until it has happened).
  const spec::PartitionModel model(kafka({}));
  for (bool por : {false, true}) {
    SCOPED_TRACE(por ? "por" : "no por");
    StateGraphOptions o;
    o.symmetry = true;
    o.por = por;
    expect_matches_reference(model, o);
    o.threads = 2;
    EXPECT_EQ(checker::explore_state_graph(model, o).por, por);
  }
}

TEST(ParallelStateGraph, PorQuotientsTheGraph) {
  const spec::PartitionModel model(kafka({}));
  StateGraphOptions o;
  o.symmetry = true;
  const auto full = checker::explore_state_graph(model, o);
  o.por = true;
  o.threads = 2;
  const auto reduced = checker::explore_state_graph(model, o);
  EXPECT_LT(reduced.vertex_count(), full.vertex_count() / 2);
  // No edge of an irrelevant action is left, and a vertex is found from any state that
  // differs from it only in dead components.
  for (const StateGraphEdge& e : reduced.edges) {
    const auto action = checker::action_at(model, reduced.states[e.source], e.action_index);
    ASSERT_TRUE(action.has_value());
    ASSERT_FALSE(model.por_irrelevant(reduced.states[e.source], *action));
  }
  size_t merged = 0;
  for (const auto& s : full.states) {
    spec::State cleared = s;
    model.por_clear_dead(cleared);
    ASSERT_EQ(reduced.find(model, s), reduced.find(model, cleared));
    ASSERT_TRUE(reduced.find(model, s).has_value()) << "every reachable state has its class in the quotient";
    merged += std::memcmp(&cleared, &s, sizeof(s)) != 0;
  }
  EXPECT_GT(merged, 0u);
}

TEST(ParallelStateGraph, MaxStatesStopsAtTheSameVertexForEveryThreadCount) {
  const toy::CounterModel counters(4, 6);  // 2 401 states, levels up to 580 wide
  for (uint64_t limit : {1u, 2u, 5u, 37u, 300u, 1000u, 2400u, 2401u, 2402u}) {
    SCOPED_TRACE("max_states " + std::to_string(limit));
    StateGraphOptions o;
    o.max_states = limit;
    const Reference<toy::CounterModel> want = reference_graph(counters, o);
    EXPECT_EQ(want.complete, limit >= 2401u);
    for (int threads : {1, 2, 3}) {
      o.threads = threads;
      expect_same_graph(counters, want, checker::explore_state_graph(counters, o));
    }
  }
  const spec::PartitionModel model(kafka({}));
  for (uint64_t limit : {700u, 5000u}) {
    SCOPED_TRACE("partition model, max_states " + std::to_string(limit));
    StateGraphOptions o;
    o.symmetry = true;
    o.por = true;
    o.max_states = limit;
    expect_matches_reference(model, o);
  }
}

TEST(ParallelStateGraph, AnInterruptedGraphIsConsistent) {
  const Reference<toy::GridModel> whole = reference_graph(toy::GridModel(60, 60), StateGraphOptions{});
  for (int threads : {1, 2, 3}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    std::atomic<bool> stop{false};
    toy::GridModel model(60, 60);
    model.interrupt_after(&stop, 3000);
    StateGraphOptions o;
    o.threads = threads;
    o.interrupt = &stop;
    const auto g = checker::explore_state_graph(model, o);
    EXPECT_TRUE(g.interrupted);
    EXPECT_FALSE(g.complete);
    ASSERT_LT(g.expanded, whole.expanded);
    ASSERT_GT(g.expanded, 0u);
    // The vertices [0, expanded) have exactly their edges, which come first in the whole
    // graph; the others have none.
    size_t edges = 0;
    while (edges < whole.edges.size() && whole.edges[edges].source < g.expanded) ++edges;
    ASSERT_EQ(g.edge_count(), edges);
    for (size_t i = 0; i < edges; ++i) ASSERT_EQ(g.edges[i], whole.edges[i]);
    ASSERT_LE(g.vertex_count(), whole.states.size());
    for (size_t v = 0; v < g.vertex_count(); ++v)
      ASSERT_EQ(std::memcmp(&g.states[v], &whole.states[v], sizeof(g.states[v])), 0) << v;
  }
}

// A model declaring stubborn sets: the graph must not use them (they keep invariants,
// not reachability from every state), so POR changes nothing.
class Independent {
 public:
  struct State {
    uint8_t a = 0, b = 0;
  };
  struct Action {
    uint8_t which = 0;
  };
  using Property = checker::Property<State, Independent>;
  std::vector<State> initial_states() const { return {State{}}; }
  template <class Sink>
  void for_each_action(const State& s, Sink&& sink) const {
    if (s.a < 3) sink(Action{0});
    if (s.b < 3) sink(Action{1});
  }
  State next_state(const State& s, const Action& x) const {
    State t = s;
    ++(x.which == 0 ? t.a : t.b);
    return t;
  }
  const std::vector<Property>& properties() const { return properties_; }
  void canonicalize(State&) const {}
  std::string action_name(const Action& x) const { return x.which == 0 ? "A" : "B"; }
  std::string_view action_kind(const Action&) const { return "Step"; }
  std::vector<std::string_view> action_kinds() const { return {"Step"}; }
  nlohmann::json action_to_json(const Action& x) const { return {{"which", x.which}}; }
  nlohmann::json state_to_json(const State& s) const { return {{"a", s.a}, {"b", s.b}}; }
  nlohmann::json config_json() const { return nlohmann::json::object(); }
  int por_group_count() const { return 2; }
  int por_group(const Action& x) const { return x.which; }
  const checker::PorSet& por_dependent(int g) const { return dependent_[g]; }
  const checker::PorSet& por_visible() const { return visible_; }
  checker::PorSet por_enablers(const State&, int) const { return {}; }

 private:
  std::vector<Property> properties_;
  checker::PorSet dependent_[2] = {one(0), one(1)};
  checker::PorSet visible_;
  static checker::PorSet one(int g) {
    checker::PorSet s;
    s.set(g);
    return s;
  }
};
static_assert(checker::HasStubbornSets<Independent>);

TEST(ParallelStateGraph, StubbornSetsAreNotApplied) {
  StateGraphOptions o;
  o.por = true;
  o.threads = 2;
  const auto g = checker::explore_state_graph(Independent{}, o);
  EXPECT_EQ(g.vertex_count(), 16u);
  EXPECT_EQ(g.edge_count(), 24u);
  EXPECT_FALSE(g.por) << "no reduction this graph applies";
}

// --- the analyses --------------------------------------------------------------------

void expect_same_report(const analysis::AvailabilityReport& a, const analysis::AvailabilityReport& b) {
  EXPECT_EQ(a.verdict, b.verdict);
  EXPECT_EQ(a.states_by_class, b.states_by_class);
  EXPECT_EQ(a.witness_trace, b.witness_trace);
  EXPECT_EQ(a.witness_steps, b.witness_steps);
  EXPECT_EQ(a.graph_states, b.graph_states);
  EXPECT_EQ(a.graph_edges, b.graph_edges);
  EXPECT_EQ(a.complete, b.complete);
  EXPECT_EQ(a.settled_states, b.settled_states);
  EXPECT_EQ(a.bound_limited_states, b.bound_limited_states);
  EXPECT_EQ(a.unexplained_states, b.unexplained_states);
  EXPECT_EQ(a.unknown_states, b.unknown_states);
}

struct AvailabilityCase {
  std::vector<std::string> overrides;
  int failures;
  bool lossy;
  uint64_t max_states;
  const char* verdict;  // when complete
};

TEST(ParallelStateGraph, AvailabilityReportsAreTheSameForEveryThreadCount) {
  const std::vector<AvailabilityCase> cases = {
      {{"replication_factor=3"}, 2, false, 2'000'000, "no-controller-quorum"},
      {{"replication_factor=3", "controller.placement=dedicated"}, 1, true, 2'000'000, "available"},
      {{}, 1, false, 2'000'000, "not-enough-replicas"},
      {{"replication_factor=1", "min_insync_replicas=1"}, 1, true, 2'000'000, "no-eligible-leader"},
      {{"replication_factor=3", "bounds.max_records=2"}, 2, false, 20'000, nullptr},  // incomplete
  };
  for (const AvailabilityCase& c : cases) {
    for (bool por : {false, true}) {
      SCOPED_TRACE(testing::PrintToString(c.overrides) + " f=" + std::to_string(c.failures) + (por ? " por" : ""));
      analysis::AvailabilityOptions o;
      o.failures = c.failures;
      o.lossy = c.lossy;
      o.max_states = c.max_states;
      o.por = por;
      const auto one = analysis::analyze_availability(kafka(c.overrides), o);
      EXPECT_EQ(one.por, por);
      EXPECT_EQ(one.complete, c.verdict != nullptr);
      if (c.verdict != nullptr) {
        EXPECT_EQ(analysis::availability_name(one.verdict), c.verdict);
      }
      if (one.verdict != analysis::WriteAvailability::Available) {
        EXPECT_GT(one.witness_steps, 0);
      }
      for (int threads : {2, 3, 0}) {  // 0: one thread, as verify() takes it
        o.threads = threads;
        expect_same_report(one, analysis::analyze_availability(kafka(c.overrides), o));
      }
    }
  }
}

TEST(ParallelStateGraph, ConvergenceReportsAreTheSameForEveryThreadCount) {
  // Stuck: truncation to the HW before KIP-101 (convergence_test); and converging.
  const std::vector<std::vector<std::string>> configs = {
      {"protocol=hw-truncation", "replication_factor=2", "brokers=2", "min_insync_replicas=1", "faults.max_crashes=2",
       "faults.max_lossy_crashes=0", "bounds.max_records=2", "fixes.controller_epoch_zk_version=true",
       "fixes.bounced_broker_epochs=true"},
      {"faults.max_lossy_crashes=1"},
  };
  for (const auto& overrides : configs) {
    for (bool por : {false, true}) {
      SCOPED_TRACE(testing::PrintToString(overrides) + (por ? " por" : ""));
      analysis::ConvergenceOptions o;
      o.por = por;
      const auto one = analysis::analyze_convergence(kafka(overrides), o);
      EXPECT_EQ(one.verdict, &overrides == &configs[0] ? analysis::ConvergenceVerdict::Stuck
                                                       : analysis::ConvergenceVerdict::Converges);
      for (int threads : {2, 3}) {
        o.threads = threads;
        const auto many = analysis::analyze_convergence(kafka(overrides), o);
        EXPECT_EQ(one.verdict, many.verdict);
        EXPECT_EQ(one.graph_states, many.graph_states);
        EXPECT_EQ(one.graph_edges, many.graph_edges);
        EXPECT_EQ(one.converged_states, many.converged_states);
        EXPECT_EQ(one.stuck_states, many.stuck_states);
        EXPECT_EQ(one.bound_limited_states, many.bound_limited_states);
        EXPECT_EQ(one.witness_trace, many.witness_trace);
        EXPECT_EQ(one.witness_steps, many.witness_steps);
      }
    }
  }
}

}  // namespace
}  // namespace isr
