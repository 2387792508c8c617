// Tests of `check --continue` in the BFS engine (BfsOptions::continue_after_violation,
// checker/bfs/violation_log.h) and of its class grouping (checker/path_labeler.h), on the
// toy models of tests/toy_models.h against a naive reference search.
#include <algorithm>
#include <cstring>
#include <deque>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "checker/bfs/bfs.h"
#include "checker/path_labeler.h"
#include "checker/por.h"
#include "tests/toy_models.h"

namespace isr::checker {
namespace {

using toy::MutexModel;

BfsOptions continuing(int threads, bool symmetry = false) {
  BfsOptions o;
  o.threads = threads;
  o.symmetry = symmetry;
  o.continue_after_violation = true;
  return o;
}

// Per property, the reachable states violating it, then the reachable states, by a plain
// BFS over whole states.
std::vector<uint64_t> reference_violations(const MutexModel& m) {
  using State = MutexModel::State;
  std::set<std::string> seen;
  std::deque<State> queue;
  auto key = [](const State& s) { return std::string(reinterpret_cast<const char*>(&s), sizeof s); };
  for (const State& s : m.initial_states()) {
    if (seen.insert(key(s)).second) queue.push_back(s);
  }
  std::vector<uint64_t> counts(m.properties().size(), 0);
  while (!queue.empty()) {
    const State s = queue.front();
    queue.pop_front();
    for (size_t p = 0; p < counts.size(); ++p) counts[p] += !m.properties()[p].holds(m, s);
    m.for_each_action(s, [&](const MutexModel::Action& a) {
      const State n = m.next_state(s, a);
      if (seen.insert(key(n)).second) queue.push_back(n);
    });
  }
  counts.push_back(seen.size());
  return counts;
}

// Enter(p) steps, named by process; a class is the order in which processes entered,
// processes renamed by first appearance ("a b" for "1 0" and "0 1").
class EnterOrder : public PathLabeler<MutexModel> {
 public:
  uint32_t step(const State&, const Action& a, const State&) const override {
    return a.step == 1 ? 1u + a.process : 0u;
  }
  uint32_t measure(const State& s) const override { return static_cast<uint32_t>(model_.critical(s)); }
  std::string class_key(const std::vector<uint32_t>& signature) const override {
    std::vector<uint32_t> names;
    std::string key;
    for (const uint32_t token : signature) {
      auto at = std::find(names.begin(), names.end(), token);
      if (at == names.end()) at = names.insert(names.end(), token);
      key += (key.empty() ? "" : " ") + std::string(1, static_cast<char>('a' + (at - names.begin())));
    }
    return key;
  }
  explicit EnterOrder(const MutexModel& m) : model_(m) {}

 private:
  const MutexModel& model_;
};

TEST(BfsContinue, EveryPropertyGetsItsOwnVerdictAndShortestCounterexample) {
  const MutexModel model(3, false);
  const auto stopped = bfs(model, BfsOptions{});
  ASSERT_EQ(stopped.verdict, Verdict::Violated);
  EXPECT_EQ(stopped.depth, 4);  // without --continue: the first violation ends the search
  EXPECT_TRUE(stopped.outcomes.empty());

  const auto r = bfs(model, continuing(2));
  ASSERT_EQ(r.verdict, Verdict::Violated);
  ASSERT_TRUE(r.continued);
  ASSERT_EQ(r.outcomes.size(), 2u);
  EXPECT_EQ(r.outcomes[0].property, "mutual-exclusion");
  EXPECT_EQ(r.outcomes[1].property, "at-most-two");
  for (const auto& o : r.outcomes) EXPECT_EQ(o.verdict, Verdict::Violated) << o.property;
  EXPECT_EQ(r.outcomes[0].counterexample.actions.size(), 4u);  // check, check, enter, enter
  EXPECT_EQ(r.outcomes[1].counterexample.actions.size(), 6u);  // three checks, three enters
  EXPECT_EQ(model.critical(r.outcomes[1].counterexample.states.back()), 3);
  // The overall result is the one a search without --continue gives.
  EXPECT_EQ(r.property, stopped.property);
  EXPECT_EQ(r.counterexample.action_indices, stopped.counterexample.action_indices);
  // The search went to the end: every reachable state, each violation counted.
  const std::vector<uint64_t> expected = reference_violations(model);
  EXPECT_EQ(r.distinct_states, expected[2]);
  EXPECT_EQ(r.outcomes[0].violating_states, expected[0]);
  EXPECT_EQ(r.outcomes[1].violating_states, expected[1]);
  EXPECT_GT(expected[1], 0u);
}

TEST(BfsContinue, AHoldingPropertyHoldsAndALimitLeavesTheRestIncomplete) {
  const MutexModel model(2, false);  // two processes: at-most-two cannot fail
  const auto r = bfs(model, continuing(1));
  ASSERT_EQ(r.outcomes.size(), 2u);
  EXPECT_EQ(r.outcomes[0].verdict, Verdict::Violated);
  EXPECT_EQ(r.outcomes[1].verdict, Verdict::Holds);
  EXPECT_EQ(r.outcomes[1].violating_states, 0u);

  BfsOptions limited = continuing(2);
  const MutexModel three(3, false);
  limited.max_states = 40;  // past depth 4 (the first violation), before depth 6
  const auto cut = bfs(three, limited);
  EXPECT_EQ(cut.verdict, Verdict::Incomplete);
  EXPECT_EQ(cut.stop_reason, StopReason::MaxStates);
  EXPECT_EQ(cut.outcomes[0].verdict, Verdict::Violated);
  EXPECT_EQ(cut.outcomes[1].verdict, Verdict::Incomplete);
  EXPECT_EQ(cut.property, "mutual-exclusion");
}

void expect_same(const BfsResult<MutexModel>& a, const BfsResult<MutexModel>& b) {
  EXPECT_EQ(a.distinct_states, b.distinct_states);
  EXPECT_EQ(a.states_generated, b.states_generated);
  ASSERT_EQ(a.outcomes.size(), b.outcomes.size());
  for (size_t p = 0; p < a.outcomes.size(); ++p) {
    EXPECT_EQ(a.outcomes[p].verdict, b.outcomes[p].verdict);
    EXPECT_EQ(a.outcomes[p].violating_states, b.outcomes[p].violating_states);
    EXPECT_EQ(a.outcomes[p].counterexample.action_indices, b.outcomes[p].counterexample.action_indices);
    EXPECT_EQ(a.outcomes[p].classes, b.outcomes[p].classes);
  }
  ASSERT_EQ(a.classes.size(), b.classes.size());
  for (size_t c = 0; c < a.classes.size(); ++c) {
    EXPECT_EQ(a.classes[c].key, b.classes[c].key);
    EXPECT_EQ(a.classes[c].signature, b.classes[c].signature);
    EXPECT_EQ(a.classes[c].violating_states, b.classes[c].violating_states);
    EXPECT_EQ(a.classes[c].measure_max, b.classes[c].measure_max);
    EXPECT_EQ(a.classes[c].counterexample.action_indices, b.classes[c].counterexample.action_indices);
  }
}

TEST(BfsContinue, SameVerdictsCountsTracesAndClassesForOneToFourThreads) {
  const MutexModel model(5, false, 4);  // thousands of states: many chunks per thread
  const EnterOrder labeler(model);
  for (const bool symmetry : {false, true}) {
    const auto one = bfs(model, continuing(1, symmetry), &labeler);
    ASSERT_FALSE(one.classes.empty());
    for (int threads = 2; threads <= 4; ++threads) {
      SCOPED_TRACE(threads);
      expect_same(one, bfs(model, continuing(threads, symmetry), &labeler));
    }
  }
  // Symmetry changes the counts (states up to renaming), never a verdict.
  const auto plain = bfs(model, continuing(2, false), &labeler);
  const auto reduced = bfs(model, continuing(2, true), &labeler);
  for (size_t p = 0; p < plain.outcomes.size(); ++p) {
    EXPECT_EQ(plain.outcomes[p].verdict, reduced.outcomes[p].verdict);
    EXPECT_EQ(plain.outcomes[p].counterexample.actions.size(), reduced.outcomes[p].counterexample.actions.size());
  }
}

TEST(BfsContinue, ClassesPartitionTheViolatingStatesBySignature) {
  const MutexModel model(3, false);
  const EnterOrder labeler(model);
  const auto r = bfs(model, continuing(2), &labeler);
  std::vector<uint64_t> per_property(2, 0);
  std::set<std::pair<std::string, std::string>> keys;
  for (const auto& c : r.classes) {
    const size_t p = c.property == "mutual-exclusion" ? 0 : 1;
    per_property[p] += c.violating_states;
    EXPECT_TRUE(keys.insert({c.property, c.key}).second) << "two classes share " << c.key;
    EXPECT_EQ(labeler.class_key(c.signature), c.key);
    // The class's trace is a real execution to a violating state whose path has that signature.
    const auto& path = c.counterexample;
    ASSERT_FALSE(path.empty());
    EXPECT_FALSE(model.properties()[p].holds(model, path.states.back()));
    std::vector<uint32_t> signature;
    for (size_t i = 0; i < path.actions.size(); ++i) {
      const uint32_t token = labeler.step(path.states[i], path.actions[i], path.states[i + 1]);
      if (token != 0) signature.push_back(token);
    }
    EXPECT_EQ(signature, c.signature);
    EXPECT_EQ(c.measure_first, static_cast<uint32_t>(model.critical(path.states.back())));
    EXPECT_GE(c.measure_max, c.measure_first);
  }
  EXPECT_EQ(per_property[0], r.outcomes[0].violating_states);
  EXPECT_EQ(per_property[1], r.outcomes[1].violating_states);
  // Mutual exclusion breaks with two processes inside ("a b") or three ("a b c"):
  // renamed, any two orders of entry are one class.
  EXPECT_TRUE(keys.count({"mutual-exclusion", "a b"}));
  EXPECT_TRUE(keys.count({"mutual-exclusion", "a b c"}));
  EXPECT_TRUE(keys.count({"at-most-two", "a b c"}));

  BfsOptions capped = continuing(2);
  capped.max_classes = 1;
  const auto one = bfs(model, capped, &labeler);
  for (const auto& o : one.outcomes) {
    EXPECT_EQ(o.classes, r.outcomes[o.property == "mutual-exclusion" ? 0 : 1].classes);
    EXPECT_EQ(o.classes_left_out, o.classes - 1);
  }
  EXPECT_EQ(one.classes.size(), 2u);  // one per property
}

// N invisible counters (0..K, independent of everything) and two visible alarms, each
// counting up to its own maximum; "alarm-a-below" fails when alarm a reaches its limit.
// With stubborn sets a search that stops at the first violation only needs one visible
// action at a time; --continue must still decide both properties exactly as the full
// search does (docs/research.md, "Reductions").
class TwoAlarms {
 public:
  static constexpr int kCounters = 4;
  struct State {
    uint8_t counter[kCounters] = {};
    uint8_t alarm[2] = {};
  };
  struct Action {
    uint8_t group = 0;  // counters 0..kCounters-1, then the two alarms
  };
  using Property = checker::Property<State, TwoAlarms>;

  TwoAlarms(int max_count, int limit0, int max0, int limit1, int max1)
      : k_(max_count), limit_{limit0, limit1}, max_{max0, max1} {
    properties_.push_back(Property{"alarm-0-below", "alarm 0 stays below its limit",
                                   [](const TwoAlarms& m, const State& s) { return s.alarm[0] < m.limit_[0]; }});
    properties_.push_back(Property{"alarm-1-below", "alarm 1 stays below its limit",
                                   [](const TwoAlarms& m, const State& s) { return s.alarm[1] < m.limit_[1]; }});
    for (int g = 0; g < kCounters + 2; ++g) dependent_[g].set(g);
    visible_.set(kCounters);
    visible_.set(kCounters + 1);
  }
  std::vector<State> initial_states() const { return {State{}}; }
  template <class Sink>
  void for_each_action(const State& s, Sink&& sink) const {
    for (int i = 0; i < kCounters; ++i)
      if (s.counter[i] < k_) sink(Action{static_cast<uint8_t>(i)});
    for (int a = 0; a < 2; ++a)
      if (s.alarm[a] < max_[a]) sink(Action{static_cast<uint8_t>(kCounters + a)});
  }
  State next_state(const State& s, const Action& a) const {
    State t = s;
    if (a.group < kCounters) ++t.counter[a.group]; else ++t.alarm[a.group - kCounters];
    return t;
  }
  const std::vector<Property>& properties() const { return properties_; }
  void canonicalize(State&) const {}
  std::string action_name(const Action& a) const { return "Step(" + std::to_string(a.group) + ")"; }
  std::string_view action_kind(const Action&) const { return "Step"; }
  std::vector<std::string_view> action_kinds() const { return {"Step"}; }
  nlohmann::json action_to_json(const Action& a) const { return {{"group", a.group}}; }
  nlohmann::json state_to_json(const State& s) const { return {{"alarm0", s.alarm[0]}, {"alarm1", s.alarm[1]}}; }
  nlohmann::json config_json() const { return {{"k", k_}}; }
  // Stubborn-set hooks (checker/por.h): every group depends on itself only.
  int por_group_count() const { return kCounters + 2; }
  int por_group(const Action& a) const { return a.group; }
  const PorSet& por_dependent(int g) const { return dependent_[g]; }
  const PorSet& por_visible() const { return visible_; }
  PorSet por_enablers(const State&, int) const { return PorSet{}; }

 private:
  int k_;
  int limit_[2];
  int max_[2];
  std::vector<Property> properties_;
  PorSet dependent_[kCounters + 2];
  PorSet visible_;
};
static_assert(HasStubbornSets<TwoAlarms>);

TEST(BfsContinue, StubbornSetsKeepEveryPropertysVerdict) {
  // alarm 0 fails at 2, alarm 1 at 3; then alarm 1 unreachable (it stops at 2).
  for (const auto& [limit1, max1] : {std::pair{3, 3}, std::pair{3, 2}}) {
    const TwoAlarms model(3, 2, 3, limit1, max1);
    BfsOptions full = continuing(2);
    BfsOptions reduced = continuing(2);
    reduced.por = true;
    const auto a = bfs(model, full);
    const auto b = bfs(model, reduced);
    EXPECT_LT(b.distinct_states, a.distinct_states);  // the reduction is real
    EXPECT_GT(b.por_reduced, 0u);
    ASSERT_EQ(a.outcomes.size(), b.outcomes.size());
    for (size_t p = 0; p < a.outcomes.size(); ++p) {
      SCOPED_TRACE(a.outcomes[p].property + " max1=" + std::to_string(max1));
      EXPECT_EQ(a.outcomes[p].verdict, b.outcomes[p].verdict);
      if (b.outcomes[p].verdict != Verdict::Violated) continue;
      const auto& path = b.outcomes[p].counterexample;
      EXPECT_FALSE(model.properties()[p].holds(model, path.states.back()));
      EXPECT_GE(path.actions.size(), a.outcomes[p].counterexample.actions.size());
    }
    EXPECT_EQ(a.outcomes[1].verdict, max1 >= limit1 ? Verdict::Violated : Verdict::Holds);
  }
}

}  // namespace
}  // namespace isr::checker
