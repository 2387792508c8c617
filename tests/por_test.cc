// Partial-order reduction (checker/por.h, BfsOptions::por): on toy models with stubborn
// sets, the reduction is real, keeps verdicts, needs its cycle proviso, and a wrong
// independence claim is caught by comparing verdicts; on the partition model, the
// irrelevance declaration (spec/partition/por.cc) is validated on every reachable state of a small
// configuration, and the reduction keeps verdicts, shortest counterexamples and
// thread-count determinism while it removes states.
#include <algorithm>
#include <cstring>
#include <deque>
#include <string>
#include <unordered_set>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "checker/bfs/bfs.h"
#include "checker/model.h"
#include "checker/por.h"
#include "checker/store/fingerprint.h"
#include "spec/cluster/cluster_config.h"
#include "spec/cluster/cluster_model.h"
#include "spec/partition/config.h"
#include "spec/partition/partition_model.h"
#include "tests/trace_test_support.h"

namespace isr {
namespace {

using checker::BfsOptions;
using checker::PorSet;
using checker::Verdict;

// N counters, each its own process (0..K), plus an alarm that counts up to A; the
// property "alarm-below" fails when the alarm reaches A. With `toggle`, counter 0 instead
// flips between 0 and 1 forever (a cycle of invisible steps). Groups: one per counter,
// one for the alarm. Counters are independent of each other and of the alarm and are
// invisible; the alarm is visible. `wrong` makes a step of counter 1 lock the alarm (it
// is then never enabled again) while counter 1 is still declared independent of it: a
// wrong claim (a step that disables another action does not commute with it).
class ToyPor {
 public:
  static constexpr int kMax = 6;
  struct State {
    uint8_t counter[kMax] = {};
    uint8_t alarm = 0;
    uint8_t pad_ = 0;
  };
  struct Action {
    uint8_t process = 0;  // kMax = the alarm
  };
  using Property = checker::Property<State, ToyPor>;

  ToyPor(int counters, int max_count, int alarm_limit, bool toggle = false, bool wrong = false)
      : n_(counters), k_(max_count), a_(alarm_limit), toggle_(toggle), wrong_(wrong) {
    properties_.push_back(Property{"alarm-below", "the alarm stays below its limit",
                                   [](const ToyPor& m, const State& s) { return s.alarm < m.a_; }});
    for (int g = 0; g < n_; ++g) dependent_[g].set(g);
    dependent_[n_].set(n_);
    visible_.set(n_);
  }

  std::vector<State> initial_states() const { return {State{}}; }
  template <class Sink>
  void for_each_action(const State& s, Sink&& sink) const {
    for (int i = 0; i < n_; ++i)
      if ((toggle_ && i == 0) || s.counter[i] < k_) sink(Action{static_cast<uint8_t>(i)});
    if (s.alarm < a_ && !(wrong_ && s.counter[1] > 0)) sink(Action{static_cast<uint8_t>(kMax)});
  }
  State next_state(const State& s, const Action& a) const {
    State t = s;
    if (a.process == kMax) {
      ++t.alarm;
    } else if (toggle_ && a.process == 0) {
      t.counter[0] ^= 1;
    } else {
      ++t.counter[a.process];
    }
    return t;
  }
  const std::vector<Property>& properties() const { return properties_; }
  void canonicalize(State&) const {}
  std::string action_name(const Action& a) const { return "Step(" + std::to_string(a.process) + ")"; }
  std::string_view action_kind(const Action&) const { return "Step"; }
  std::vector<std::string_view> action_kinds() const { return {"Step"}; }
  nlohmann::json action_to_json(const Action& a) const { return {{"process", a.process}}; }
  nlohmann::json state_to_json(const State& s) const { return {{"alarm", s.alarm}}; }
  nlohmann::json config_json() const { return {{"n", n_}}; }

  // Stubborn-set hooks.
  int por_group_count() const { return n_ + 1; }
  int por_group(const Action& a) const { return a.process == kMax ? n_ : a.process; }
  const PorSet& por_dependent(int g) const { return dependent_[g]; }
  const PorSet& por_visible() const { return visible_; }
  // A counter at K never moves again; the alarm at A neither: nothing enables them.
  PorSet por_enablers(const State&, int) const { return PorSet{}; }

 private:
  int n_, k_, a_;
  bool toggle_, wrong_;
  std::vector<Property> properties_;
  PorSet dependent_[kMax + 1];
  PorSet visible_;
};
static_assert(checker::Model<ToyPor>);
static_assert(checker::HasStubbornSets<ToyPor>);

template <class M>
checker::BfsResult<M> run(const M& model, bool por, int threads = 1, bool symmetry = false) {
  BfsOptions o;
  o.threads = threads;
  o.por = por;
  o.symmetry = symmetry;
  return checker::bfs(model, o);
}

// The verdict-equality check the Kafka tests below apply: same verdict, same property,
// and a POR counterexample that is a real path ending in a violation.
template <class M>
::testing::AssertionResult same_verdict(const M& model, bool symmetry = false) {
  const auto full = run(model, false, 1, symmetry);
  const auto reduced = run(model, true, 1, symmetry);
  if (full.verdict != reduced.verdict || full.property != reduced.property)
    return ::testing::AssertionFailure() << "verdict " << checker::verdict_name(full.verdict) << " " << full.property
                                         << " without POR, " << checker::verdict_name(reduced.verdict) << " "
                                         << reduced.property << " with it";
  if (reduced.verdict == Verdict::Violated) {
    const auto path = checker::execute_path(model, reduced.counterexample.initial_index,
                                            reduced.counterexample.action_indices);
    bool violates = false;
    for (const auto& p : model.properties())
      if (p.name == reduced.property) violates = !p.holds(model, path.states.back());
    if (!violates) return ::testing::AssertionFailure() << "the POR counterexample does not end in a violation";
    if (reduced.counterexample.actions.size() < full.counterexample.actions.size())
      return ::testing::AssertionFailure() << "a POR counterexample shorter than the shortest one";
  }
  return ::testing::AssertionSuccess();
}

TEST(PorToy, StubbornSetsReduceAndKeepTheVerdict) {
  // 3 counters to 2, alarm to 2: 27 x 3 = 81 states without POR. With POR the counters
  // go first one after the other (6 steps), then the alarm: 1 + 6 + 2 = 9 states.
  const ToyPor model(3, 2, 2);
  const auto full = run(model, false);
  const auto reduced = run(model, true);
  EXPECT_EQ(full.verdict, Verdict::Violated);
  EXPECT_EQ(full.counterexample.actions.size(), 2u);
  EXPECT_EQ(reduced.verdict, Verdict::Violated);
  EXPECT_TRUE(reduced.por);
  EXPECT_LT(reduced.distinct_states, full.distinct_states);
  EXPECT_EQ(reduced.distinct_states, 9u);
  // The BFS trace of the reduced graph is a counterexample, but no longer the shortest:
  // the alarm is deferred behind every invisible counter step.
  EXPECT_EQ(reduced.counterexample.actions.size(), 8u);
  EXPECT_TRUE(same_verdict(model));
  // Holding: the alarm limit is out of reach.
  const ToyPor holds(3, 2, 9);
  EXPECT_TRUE(same_verdict(holds));
}

TEST(PorToy, DeterministicForEveryThreadCount) {
  const ToyPor model(5, 3, 4);
  const auto one = run(model, true, 1);
  for (int threads = 2; threads <= 4; ++threads) {
    const auto r = run(model, true, threads);
    EXPECT_EQ(r.distinct_states, one.distinct_states) << threads;
    EXPECT_EQ(r.states_generated, one.states_generated) << threads;
    EXPECT_EQ(r.level_sizes, one.level_sizes) << threads;
    EXPECT_EQ(r.counterexample.action_indices, one.counterexample.action_indices) << threads;
  }
}

TEST(PorToy, CycleProvisoExpandsTheIgnoredAction) {
  // Counter 0 toggles forever and is always an ample set on its own: without the
  // proviso the alarm would be ignored on the cycle 0 -> 1 -> 0 and the violation never
  // found. The proviso sees the toggle lead back to a visited state and expands fully.
  const ToyPor model(1, 1, 2, /*toggle=*/true);
  const auto r = run(model, true);
  EXPECT_EQ(r.verdict, Verdict::Violated);
  EXPECT_GT(r.por_proviso, 0u);
  EXPECT_TRUE(same_verdict(model));
}

TEST(PorToy, AWrongIndependenceClaimIsCaught) {
  // Counter 1's step locks the alarm, but counter 1 is declared independent of it: the
  // reduced search runs the counters first, the alarm is locked before it ever moves,
  // and the violation the full search finds at depth 2 is hidden. The verdict
  // comparison the Kafka tests use must notice.
  const ToyPor wrong(3, 2, 2, false, /*wrong=*/true);
  EXPECT_EQ(run(wrong, false).verdict, Verdict::Violated);
  EXPECT_EQ(run(wrong, true).verdict, Verdict::Holds) << "the wrong claim should hide the violation";
  EXPECT_FALSE(same_verdict(wrong));
}

// --- the partition model ------------------------------------------------------------------

spec::PartitionModel partition(const std::vector<std::string>& overrides) {
  return spec::PartitionModel(spec::load_config(nullptr, overrides));
}

// Every state reachable in `model` (no reduction, no symmetry), visited once: checks
// `irrelevant` (the model's declaration, or a deliberately wrong one) against what
// irrelevance means: the action changes only `flushed` fields; no power loss is enabled
// in such a state; irrelevance persists in every successor; and `flushed` is dead there
// (changing it changes no enabled action, no successor elsewhere, no property).
// Returns the problems.
template <class Irrelevant>
std::vector<std::string> validate_irrelevance(const spec::PartitionModel& model, Irrelevant&& irrelevant,
                                              uint64_t& states, uint64_t& irrelevant_edges) {
  std::vector<std::string> problems;
  std::unordered_set<uint64_t> seen;
  std::deque<spec::State> queue;
  for (const auto& s : model.initial_states()) {
    if (seen.insert(checker::fingerprint(s)).second) queue.push_back(s);
  }
  states = 0;
  irrelevant_edges = 0;
  const auto only_flushed_differs = [](const spec::State& a, const spec::State& b) {
    spec::State x = a;
    spec::State y = b;
    for (auto& r : x.replicas) r.flushed = 0;
    for (auto& r : y.replicas) r.flushed = 0;
    return std::memcmp(&x, &y, sizeof x) == 0;
  };
  while (!queue.empty() && problems.size() < 5) {
    const spec::State s = queue.front();
    queue.pop_front();
    ++states;
    std::vector<spec::Action> actions;
    model.for_each_action(s, [&](const spec::Action& a) { actions.push_back(a); });
    bool any_irrelevant = false;
    for (const auto& a : actions) {
      if (!irrelevant(model, s, a)) continue;
      any_irrelevant = true;
      ++irrelevant_edges;
      if (!only_flushed_differs(s, model.next_state(s, a)))
        problems.push_back(model.action_name(a) + " changes more than `flushed`");
    }
    // Where `flushed` is declared dead: a state that differs from s only there (every
    // replica fully flushed) has the same enabled actions, successors that differ only
    // there, and the same property values; and por_clear_dead touches nothing else.
    const spec::Action flush0{spec::ActionKind::Flush, 0, 0, 0};
    if (irrelevant(model, s, flush0)) {
      spec::State variant = s;
      for (auto& r : variant.replicas) r.flushed = r.leo;
      std::vector<spec::Action> variant_actions;
      model.for_each_action(variant, [&](const spec::Action& a) { variant_actions.push_back(a); });
      std::vector<spec::Action> live;
      std::vector<spec::Action> variant_live;
      for (const auto& a : actions)
        if (a.kind != spec::ActionKind::Flush) live.push_back(a);
      for (const auto& a : variant_actions)
        if (a.kind != spec::ActionKind::Flush) variant_live.push_back(a);
      if (live != variant_live) problems.push_back("a dead `flushed` changes which actions are enabled");
      for (size_t i = 0; i < live.size() && i < variant_live.size(); ++i) {
        if (!only_flushed_differs(model.next_state(s, live[i]), model.next_state(variant, live[i])))
          problems.push_back(model.action_name(live[i]) + " reads a dead `flushed`");
      }
      for (const auto& p : model.properties())
        if (p.holds(model, s) != p.holds(model, variant)) problems.push_back(std::string(p.name) + " reads `flushed`");
      spec::State cleared = s;
      model.por_clear_dead(cleared);
      spec::State x = s;
      for (int n = 0; n < spec::kMaxReplicas; ++n) {
        x.replicas[n].flushed = cleared.replicas[n].flushed;
        if (s.nodes[n].alive) x.replicas[n].hw_checkpoint = cleared.replicas[n].hw_checkpoint;
      }
      if (std::memcmp(&x, &cleared, sizeof x) != 0)
        problems.push_back("por_clear_dead changes more than `flushed` and running nodes' HW checkpoints");
    } else {
      spec::State cleared = s;
      model.por_clear_dead(cleared);
      if (std::memcmp(&cleared, &s, sizeof s) != 0)
        problems.push_back("por_clear_dead clears `flushed` while a power loss can still read it");
    }
    // Once no stop can happen, the HW checkpoint of a running node is dead: a state with
    // it changed has the same enabled actions, successors equal once cleared, and the
    // same property values.
    if (s.faults.crashes >= model.config().faults.max_crashes) {
      spec::State variant = s;
      for (int n = 0; n < spec::kMaxReplicas; ++n)
        if (s.nodes[n].alive) variant.replicas[n].hw_checkpoint = variant.replicas[n].leo;
      std::vector<spec::Action> variant_actions;
      model.for_each_action(variant, [&](const spec::Action& a) { variant_actions.push_back(a); });
      if (actions != variant_actions) problems.push_back("a dead HW checkpoint changes which actions are enabled");
      for (size_t i = 0; i < actions.size() && i < variant_actions.size(); ++i) {
        spec::State t = model.next_state(s, actions[i]);
        spec::State u = model.next_state(variant, actions[i]);
        model.por_clear_dead(t);
        model.por_clear_dead(u);
        if (std::memcmp(&t, &u, sizeof t) != 0)
          problems.push_back(model.action_name(actions[i]) + " reads a dead HW checkpoint");
      }
      for (const auto& p : model.properties())
        if (p.holds(model, s) != p.holds(model, variant))
          problems.push_back(std::string(p.name) + " reads a HW checkpoint");
    }
    for (const auto& a : actions) {
      const spec::State t = model.next_state(s, a);
      if (any_irrelevant) {
        if (a.kind == spec::ActionKind::Crash && a.arg == static_cast<uint8_t>(spec::StopKind::Power))
          problems.push_back("a power loss (" + model.action_name(a) + ") is enabled where Flush is irrelevant");
        for (int n = 0; n < model.config().replication_factor; ++n) {
          const spec::Action flush{spec::ActionKind::Flush, static_cast<uint8_t>(n), 0, 0};
          if (!irrelevant(model, t, flush))
            problems.push_back("Flush stops being irrelevant after " + model.action_name(a));
        }
      }
      if (seen.insert(checker::fingerprint(t)).second) queue.push_back(t);
    }
  }
  return problems;
}

TEST(PorPartition, IrrelevanceHoldsOnEveryReachableState) {
  // RF 2 / min ISR 2 as shipped; then with a second stop after the power loss (kill -9,
  // clean shutdown or disk loss: the rules that write `flushed` after it is dead), with
  // asynchronous fetch responses and pauses, and under the ZooKeeper-mode controller.
  const std::vector<std::vector<std::string>> configs = {
      {"brokers=2", "replication_factor=2", "min_insync_replicas=2"},
      {"brokers=2", "replication_factor=2", "min_insync_replicas=1", "faults.max_crashes=2",
       "faults.max_clean_shutdowns=1", "faults.max_disk_losses=1", "bounds.max_partition_epoch=3"},
      {"brokers=2", "replication_factor=2", "min_insync_replicas=1", "async_fetch_responses=true",
       "faults.max_pauses=1", "bounds.max_partition_epoch=3"},
      {"brokers=2", "replication_factor=2", "min_insync_replicas=1", "protocol=kip-497",
       "bounds.max_partition_epoch=3"},
  };
  const auto declared = [](const spec::PartitionModel& m, const spec::State& s, const spec::Action& a) {
    return m.por_irrelevant(s, a);
  };
  for (const auto& overrides : configs) {
    const auto model = partition(overrides);
    uint64_t states = 0;
    uint64_t edges = 0;
    const auto problems = validate_irrelevance(model, declared, states, edges);
    EXPECT_TRUE(problems.empty()) << overrides.back() << ": " << problems.front();
    EXPECT_GT(states, 5000u) << overrides.back();
    EXPECT_GT(edges, 100u) << overrides.back() << ": the configuration never exercises the declaration";
  }
}

TEST(PorPartition, TheValidatorCatchesAWrongDeclaration) {
  // "Flush is always irrelevant" is wrong while a power loss can still truncate to it.
  const auto model = partition({"brokers=2", "replication_factor=2", "min_insync_replicas=2"});
  uint64_t states = 0;
  uint64_t edges = 0;
  const auto always = [](const spec::PartitionModel&, const spec::State&, const spec::Action& a) {
    return a.kind == spec::ActionKind::Flush;
  };
  EXPECT_FALSE(validate_irrelevance(model, always, states, edges).empty());
}

TEST(PorPartition, ReducesStatesKeepsVerdictsAndIsDeterministic) {
  // RF 2, min ISR 2: holds; the reduction drops the flushes after the power loss.
  const auto model = partition({"brokers=2", "replication_factor=2", "min_insync_replicas=2"});
  const auto full = run(model, false, 1, true);
  const auto one = run(model, true, 1, true);
  EXPECT_EQ(full.verdict, Verdict::Holds);
  EXPECT_EQ(one.verdict, Verdict::Holds);
  EXPECT_LT(one.distinct_states, full.distinct_states);
  EXPECT_GT(one.por_reduced, 0u);
  for (int threads = 2; threads <= 3; ++threads) {
    const auto r = run(model, true, threads, true);
    EXPECT_EQ(r.distinct_states, one.distinct_states) << threads;
    EXPECT_EQ(r.states_generated, one.states_generated) << threads;
    EXPECT_EQ(r.level_sizes, one.level_sizes) << threads;
  }
}

TEST(PorPartition, ViolationsKeepTheirShortestCounterexample) {
  // Irrelevant edges only: a shortest counterexample of the full graph maps to one of the
  // same length in the reduced graph (docs/checker.md), so the lengths are equal.
  for (const auto& overrides : std::vector<std::vector<std::string>>{
           {"min_insync_replicas=1"},
           {"acks=1"},
           {"brokers=2", "replication_factor=2", "min_insync_replicas=1"},
           {"eligible_leader_replicas=false", "faults.max_crashes=2", "faults.max_lossy_crashes=2",
            "properties=[\"no-acked-loss\"]"}}) {
    const auto model = partition(overrides);
    const auto full = run(model, false, 2, true);
    const auto reduced = run(model, true, 2, true);
    ASSERT_EQ(full.verdict, Verdict::Violated) << overrides.front();
    EXPECT_TRUE(same_verdict(model, true)) << overrides.front();
    EXPECT_EQ(reduced.counterexample.actions.size(), full.counterexample.actions.size()) << overrides.front();
  }
}

TEST(PorCluster, ReducesStatesLevelByLevelAndIsDeterministic) {
  // The composed model (spec/cluster) with power losses: the broker layer's flushes after
  // the power loss are irrelevant there too. The full search takes minutes, so both stop
  // at 150 000 states; the reduced graph has a subset of the full graph's states, each at
  // the same or a larger depth, so up to every level both completed, the reduced search
  // has at most as many states, and fewer from the level where flushes stop mattering.
  const spec::cluster::ClusterModel model(spec::cluster::load_config(
      nullptr, {"faults.max_lossy_crashes=1", "properties=[\"single-leader-per-epoch\",\"hw-monotonic\"]"}));
  BfsOptions o;
  o.threads = 2;
  o.symmetry = true;
  o.max_states = 150'000;
  const auto full = checker::bfs(model, o);
  o.por = true;
  const auto reduced = checker::bfs(model, o);
  o.threads = 1;
  const auto reduced_one = checker::bfs(model, o);
  EXPECT_EQ(reduced_one.level_sizes, reduced.level_sizes);
  EXPECT_EQ(reduced_one.states_generated, reduced.states_generated);
  ASSERT_EQ(full.verdict, Verdict::Incomplete);
  ASSERT_EQ(reduced.verdict, Verdict::Incomplete);
  const int depth = std::min(full.depth, reduced.depth);
  ASSERT_GE(depth, 8);
  uint64_t full_sum = 0;
  uint64_t reduced_sum = 0;
  for (int level = 0; level <= depth; ++level) {
    full_sum += full.level_sizes[static_cast<size_t>(level)];
    reduced_sum += reduced.level_sizes[static_cast<size_t>(level)];
    EXPECT_LE(reduced_sum, full_sum) << level;
  }
  EXPECT_LT(reduced_sum, full_sum);
  EXPECT_GT(reduced.por_reduced, 0u);
}

TEST(PorCli, CheckTakesPorOnOrOff) {
  const std::string config = "--set brokers=2 --set replication_factor=2 --set min_insync_replicas=2";
  // On by default wherever the model declares reductions (issue 29 point 6).
  const auto off = trace_test::run_isrcheck("check --quiet --threads 1 --por off " + config);
  const auto on = trace_test::run_isrcheck("check --quiet --threads 1 " + config);
  ASSERT_EQ(off.exit_code, 0) << off.out << off.err;
  ASSERT_EQ(on.exit_code, 0) << on.out << on.err;
  EXPECT_EQ(off.out.find("partial-order reduction"), std::string::npos) << off.out;
  EXPECT_NE(on.out.find("(partial-order reduction on)"), std::string::npos) << on.out;
  EXPECT_NE(on.out.find("states expanded with fewer actions than enabled"), std::string::npos) << on.out;
  const auto bad = trace_test::run_isrcheck("check --quiet --por maybe " + config);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE((bad.out + bad.err).find("--por"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace isr
