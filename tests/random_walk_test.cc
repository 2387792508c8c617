// Tests of the random-walk engine (checker/walk/random_walk.h), the shrinker
// (checker/walk/shrink.h) and the distinct-state sketch, on the toy models of
// tests/toy_walk_models.h.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "checker/walk/random_walk.h"
#include "checker/walk/rng.h"
#include "checker/walk/shrink.h"
#include "checker/walk/walk_state_sketch.h"
#include "tests/toy_walk_models.h"

#include "tests/counting_allocator.h"  // replaces operator new: this binary only

namespace isr::checker {
namespace {

using toy::CombinationLock;
using toy::DeadEndLine;
using toy::DoublingCounter;

// Shortest number of steps from 0 to the counter's target, by an independent BFS.
int shortest_to_target(const DoublingCounter& m) {
  std::vector<int> distance(m.limit() + 1, -1);
  std::deque<int> queue{0};
  distance[0] = 0;
  while (!queue.empty()) {
    const int v = queue.front();
    queue.pop_front();
    if (v == m.target()) return distance[v];
    for (int next : {v + 1, v - 1, 2 * v}) {
      if (next >= 0 && next <= m.limit() && (next != 2 * v || v > 0) && distance[next] < 0) {
        distance[next] = distance[v] + 1;
        queue.push_back(next);
      }
    }
  }
  return -1;
}

template <class M>
void expect_same_trace(const ActionTrace<M>& a, const ActionTrace<M>& b) {
  EXPECT_EQ(a.initial, b.initial);
  EXPECT_EQ(a.actions, b.actions);
}

void expect_same_stats(const WalkStats& a, const WalkStats& b) {
  EXPECT_EQ(a.walks_completed, b.walks_completed);
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.deadlocks, b.deadlocks);
  EXPECT_EQ(a.weight_dead_ends, b.weight_dead_ends);
  EXPECT_EQ(a.depth_limit_hits, b.depth_limit_hits);
  ASSERT_EQ(a.coverage.size(), b.coverage.size());
  for (std::size_t k = 0; k < a.coverage.size(); ++k) {
    EXPECT_EQ(a.coverage[k].taken, b.coverage[k].taken) << a.coverage[k].kind;
    EXPECT_EQ(a.coverage[k].enabled, b.coverage[k].enabled) << a.coverage[k].kind;
  }
  EXPECT_EQ(a.lengths.counts, b.lengths.counts);
  EXPECT_EQ(a.lengths.min, b.lengths.min);
  EXPECT_EQ(a.lengths.max, b.lengths.max);
  EXPECT_EQ(a.distinct_states, b.distinct_states);
  EXPECT_EQ(a.distinct_states_sample_level, b.distinct_states_sample_level);
  EXPECT_EQ(a.warnings, b.warnings);
}

WalkOptions options(uint64_t walks, uint64_t depth, uint64_t seed, unsigned threads = 1) {
  WalkOptions o;
  o.walks = walks;
  o.depth = depth;
  o.seed = seed;
  o.threads = threads;
  return o;
}

// ---------------------------------------------------------------- the RNG

TEST(Rng, WalkStreamsDependOnlyOnSeedAndIndex) {
  SplitMix64 a = SplitMix64::for_walk(42, 7);
  SplitMix64 b = SplitMix64::for_walk(42, 7);
  SplitMix64 c = SplitMix64::for_walk(42, 8);
  SplitMix64 d = SplitMix64::for_walk(43, 7);
  const uint64_t first = a.next();
  EXPECT_EQ(first, b.next());
  EXPECT_NE(first, c.next());
  EXPECT_NE(first, d.next());
}

TEST(Rng, BelowIsInRangeAndRoughlyUniform) {
  SplitMix64 rng(1);
  std::vector<int> counts(6, 0);
  for (int i = 0; i < 60000; ++i) {
    const uint32_t x = rng.below(6);
    ASSERT_LT(x, 6u);
    ++counts[x];
  }
  for (int c : counts) EXPECT_NEAR(c, 10000, 500);
  for (int i = 0; i < 1000; ++i) {
    const double u = rng.unit();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
}

// ---------------------------------------------------------------- the sketch

TEST(DistinctStateSketch, ExactUnderCapacity) {
  DistinctStateSketch sketch(1000);
  for (int round = 0; round < 3; ++round) {
    for (uint64_t i = 0; i < 800; ++i) sketch.insert(mix64(i));
  }
  EXPECT_TRUE(sketch.exact());
  EXPECT_EQ(sketch.estimate(), 800u);
}

TEST(DistinctStateSketch, EstimatesAboveCapacityIndependentlyOfOrder) {
  std::vector<uint64_t> fingerprints(200000);
  for (uint64_t i = 0; i < fingerprints.size(); ++i) fingerprints[i] = mix64(i + 1);
  DistinctStateSketch in_order(4096);
  for (uint64_t f : fingerprints) in_order.insert(f);
  std::mt19937_64 shuffle_rng(3);
  std::shuffle(fingerprints.begin(), fingerprints.end(), shuffle_rng);
  DistinctStateSketch shuffled(4096);
  for (uint64_t f : fingerprints) shuffled.insert(f);

  EXPECT_FALSE(in_order.exact());
  EXPECT_LE(in_order.kept(), 4096u);
  EXPECT_EQ(in_order.level(), shuffled.level());
  EXPECT_EQ(in_order.estimate(), shuffled.estimate());
  EXPECT_NEAR(static_cast<double>(in_order.estimate()), 200000.0, 200000.0 * 0.1);
}

TEST(DistinctStateSketch, MergeEqualsUnion) {
  DistinctStateSketch a(512), b(512), both(512);
  for (uint64_t i = 0; i < 3000; ++i) {
    (i % 2 ? a : b).insert(mix64(i));
    both.insert(mix64(i));
  }
  a.merge(b);
  EXPECT_EQ(a.level(), both.level());
  EXPECT_EQ(a.estimate(), both.estimate());
}

// ---------------------------------------------------------------- shrinking

TEST(Shrink, ReplayRejectsDisabledActionsAndFindsTheFirstViolation) {
  CombinationLock lock(2);
  using A = CombinationLock::Action;
  const A press0{CombinationLock::Kind::Press, CombinationLock::code_digit(0)};
  const A press1{CombinationLock::Kind::Press, CombinationLock::code_digit(1)};
  const A reset{CombinationLock::Kind::Reset, 0};
  const A wiggle{CombinationLock::Kind::Wiggle, 0};
  // Reset is not enabled at progress 0.
  EXPECT_EQ(first_violation(lock, ActionTrace<CombinationLock>{{}, {reset, press0, press1}}, 0),
            std::nullopt);
  // No violation at all.
  EXPECT_EQ(first_violation(lock, ActionTrace<CombinationLock>{{}, {press0, wiggle}}, 0),
            std::nullopt);
  // Opens after step 2: nothing after it can even be enabled.
  EXPECT_EQ(first_violation(lock, ActionTrace<CombinationLock>{{}, {press0, press1}}, 0), 2u);
  EXPECT_EQ(first_violation(lock, ActionTrace<CombinationLock>{{}, {wiggle, press0, press1}}, 0),
            3u);
}

TEST(Shrink, RemovesNoiseDownToTheCode) {
  CombinationLock lock(3);
  using A = CombinationLock::Action;
  using K = CombinationLock::Kind;
  std::vector<A> actions;
  for (int round = 0; round < 5; ++round) {
    actions.push_back(A{K::Wiggle, 0});
    actions.push_back(A{K::Press, CombinationLock::code_digit(0)});
    actions.push_back(A{K::Reset, 0});
  }
  for (int i = 0; i < 3; ++i) {
    actions.push_back(A{K::Wiggle, 0});
    actions.push_back(A{K::Press, CombinationLock::code_digit(i)});
  }
  ASSERT_EQ(first_violation(lock, ActionTrace<CombinationLock>{{}, actions}, 0), actions.size());

  ShrinkOptions no_bfs;
  no_bfs.bfs = false;
  const auto result = shrink_trace(lock, ActionTrace<CombinationLock>{{}, actions}, 0, no_bfs);
  ASSERT_EQ(result.trace.actions.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(result.trace.actions[i], (A{K::Press, CombinationLock::code_digit(i)}));
  }
  EXPECT_EQ(result.stats.length_before, actions.size());
  EXPECT_EQ(result.stats.length_after, 3u);
  EXPECT_GT(result.stats.candidates_tried, 0u);
  EXPECT_EQ(first_violation(lock, result.trace, 0), 3u);
}

TEST(Shrink, BfsFindsShortcutsThatRemovalCannot) {
  DoublingCounter counter(44, 64);
  using A = DoublingCounter::Action;
  // 0 -> 44 by Inc alone: no single Inc can be removed.
  ActionTrace<DoublingCounter> trace{{}, std::vector<A>(44, A{DoublingCounter::Kind::Inc})};
  ShrinkOptions no_bfs;
  no_bfs.bfs = false;
  EXPECT_EQ(shrink_trace(counter, trace, 0, no_bfs).trace.actions.size(), 44u);

  const auto result = shrink_trace(counter, trace, 0);
  EXPECT_EQ(static_cast<int>(result.trace.actions.size()), shortest_to_target(counter));
  EXPECT_TRUE(result.stats.bfs_improved);
  EXPECT_TRUE(result.stats.proven_shortest);
  EXPECT_EQ(first_violation(counter, result.trace, 0), result.trace.actions.size());
}

TEST(Shrink, RemovesStepsThatOnlyMatterTogether) {
  DoublingCounter counter(6, 64);
  using A = DoublingCounter::Action;
  using K = DoublingCounter::Kind;
  // 1 2 3 4 3 6: no single step can go (and the chunk sizes 3 and 1 miss the Inc/Dec
  // pair), but removing the 4th Inc together with the Dec leaves 1 2 3 6.
  ActionTrace<DoublingCounter> trace{
      {}, {A{K::Inc}, A{K::Inc}, A{K::Inc}, A{K::Inc}, A{K::Dec}, A{K::Double}}};
  ASSERT_EQ(first_violation(counter, trace, 0), 6u);
  ShrinkOptions no_bfs;
  no_bfs.bfs = false;
  const auto result = shrink_trace(counter, trace, 0, no_bfs);
  EXPECT_EQ(result.trace.actions,
            (std::vector<A>{A{K::Inc}, A{K::Inc}, A{K::Inc}, A{K::Double}}));
  EXPECT_EQ(static_cast<int>(result.trace.actions.size()), shortest_to_target(counter));
}

TEST(Shrink, BudgetStopsTheBfsWithoutBreakingTheTrace) {
  DoublingCounter counter(44, 64);
  ActionTrace<DoublingCounter> trace{
      {}, std::vector<DoublingCounter::Action>(44, {DoublingCounter::Kind::Inc})};
  ShrinkOptions tiny;
  tiny.bfs_max_states = 3;
  const auto result = shrink_trace(counter, trace, 0, tiny);
  EXPECT_FALSE(result.stats.proven_shortest);
  EXPECT_EQ(first_violation(counter, result.trace, 0), result.trace.actions.size());
}

// ---------------------------------------------------------------- the engine

TEST(RandomWalk, FindsTheLockAndShrinksToTheCode) {
  CombinationLock lock(4);
  const auto result = simulate(lock, options(2000, 60, 12345));
  ASSERT_EQ(result.outcome, WalkOutcome::kViolation);
  const auto& v = *result.violation;
  EXPECT_EQ(v.property, "lock-stays-closed");
  EXPECT_TRUE(v.smallest_walk_index);
  EXPECT_GT(v.found.actions.size(), 4u) << "the walk should have found a noisy trace";
  EXPECT_EQ(first_violation(lock, v.found, v.property_index), v.found.actions.size());
  EXPECT_EQ(v.shrunk.actions.size(), 4u);  // the shortest counterexample
  EXPECT_EQ(first_violation(lock, v.shrunk, v.property_index), 4u);
  EXPECT_EQ(v.shrink.length_before, v.found.actions.size());
  EXPECT_EQ(v.shrink.length_after, 4u);
  EXPECT_TRUE(v.shrink.proven_shortest);
  // Counting stops at the violating walk.
  EXPECT_EQ(result.stats.walks_completed, v.walk_index + 1);
}

TEST(RandomWalk, ReportsTheSmallestViolatingWalk) {
  CombinationLock lock(4);
  const auto result = simulate(lock, options(2000, 60, 777));
  ASSERT_EQ(result.outcome, WalkOutcome::kViolation);
  const uint64_t first = result.violation->walk_index;
  ASSERT_GT(first, 0u) << "pick a seed whose first walk does not fail";
  // The walks before it, run on their own, find nothing.
  EXPECT_EQ(simulate(lock, options(first, 60, 777)).outcome, WalkOutcome::kNoViolation);
}

TEST(RandomWalk, DoublingCounterShrinksToTheKnownShortest) {
  DoublingCounter counter(44, 64);
  const auto result = simulate(counter, options(2000, 400, 99));
  ASSERT_EQ(result.outcome, WalkOutcome::kViolation);
  const int shortest = shortest_to_target(counter);
  EXPECT_GE(static_cast<int>(result.violation->shrunk.actions.size()), shortest);
  EXPECT_LE(static_cast<int>(result.violation->shrunk.actions.size()), shortest + 2);
  EXPECT_GT(result.violation->found.actions.size(),
            result.violation->shrunk.actions.size());
}

TEST(RandomWalk, SameSeedSameResultForOneAndThreeThreads) {
  // Code length 2 fails in the first walks, 6 and 7 after hundreds (so threads overlap
  // and finish walks out of order), 30 never.
  for (int code_length : {2, 6, 7, 30}) {
    CombinationLock lock(code_length);
    for (uint64_t seed : {1ull, 2ull, 0xDEADBEEFull}) {
      WalkOptions one = options(5000, 60, seed, 1);
      one.distinct_state_capacity = 16;  // force sampling
      const auto a = simulate(lock, one);
      for (int repeat = 0; repeat < 2; ++repeat) {
        WalkOptions three = one;
        three.threads = 3;
        const auto b = simulate(lock, three);
        SCOPED_TRACE("code length " + std::to_string(code_length) + ", seed " +
                     std::to_string(seed));
        ASSERT_EQ(a.outcome, b.outcome);
        ASSERT_EQ(a.violation.has_value(), b.violation.has_value());
        if (a.violation) {
          EXPECT_EQ(a.violation->walk_index, b.violation->walk_index);
          expect_same_trace(a.violation->found, b.violation->found);
          expect_same_trace(a.violation->shrunk, b.violation->shrunk);
        }
        expect_same_stats(a.stats, b.stats);
      }
    }
  }
}

TEST(RandomWalk, DifferentSeedsWalkDifferently) {
  CombinationLock lock(30);
  const auto a = simulate(lock, options(200, 40, 1));
  const auto b = simulate(lock, options(200, 40, 2));
  EXPECT_NE(a.stats.coverage[0].taken, b.stats.coverage[0].taken);
}

TEST(RandomWalk, CoverageAddsUp) {
  CombinationLock lock(30);
  const auto result = simulate(lock, options(500, 50, 5, 2));
  ASSERT_EQ(result.outcome, WalkOutcome::kNoViolation);
  const auto& s = result.stats;
  uint64_t taken = 0;
  for (const KindCoverage& k : s.coverage) {
    taken += k.taken;
    EXPECT_GE(k.enabled, k.taken) << k.kind;
  }
  EXPECT_EQ(taken, s.steps);
  EXPECT_EQ(s.steps, 500u * 50u);  // never deadlocks, never fails: every walk is full
  EXPECT_EQ(s.depth_limit_hits, 500u);
  EXPECT_EQ(s.walks_completed, 500u);
  EXPECT_EQ(std::accumulate(s.lengths.counts.begin(), s.lengths.counts.end(), uint64_t{0}),
            500u);
  // Press (4 digits) and Wiggle are enabled at every step.
  EXPECT_EQ(s.coverage[0].kind, "Press");
  EXPECT_EQ(s.coverage[0].enabled, 4 * s.steps);
  EXPECT_EQ(s.coverage[1].enabled, s.steps);
  // Jam never is.
  EXPECT_EQ(s.coverage[3].enabled, 0u);
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_NE(s.warnings[0].find("Jam"), std::string::npos);
  // progress 0..29 x noise 0..4, far below the sketch's capacity: exact.
  EXPECT_TRUE(s.distinct_states_exact);
  EXPECT_GT(s.distinct_states, 10u);
  EXPECT_LE(s.distinct_states, 150u);
  EXPECT_GT(s.steps_per_second, 0);
}

template <class F>
uint64_t allocations_during(F&& f) {
  g_allocations = 0;
  g_count_allocations = true;
  f();
  g_count_allocations = false;
  return g_allocations.load();
}

TEST(RandomWalk, WalkingDoesNotAllocate) {
  CombinationLock lock(30);  // never opens within these depths: every walk is full
  for (unsigned threads : {1u, 2u}) {
    auto allocations = [&](uint64_t walks, uint64_t depth) {
      WalkOptions o = options(walks, depth, 1, threads);
      o.distinct_state_capacity = 16;  // the sketch's table never grows
      return allocations_during([&] { EXPECT_EQ(simulate(lock, o).stats.steps, walks * depth); });
    };
    const uint64_t base = allocations(50, 20);
    SCOPED_TRACE(std::to_string(threads) + " threads, " + std::to_string(base) +
                 " allocations for 1000 steps");
    // 100x the steps in longer walks, then in more walks: (almost) no more allocations.
    EXPECT_LE(allocations(50, 2000), base + 2);
    EXPECT_LE(allocations(5000, 20), base + 2);
  }
}

TEST(RandomWalk, DeadlocksAreCountedNotViolations) {
  DeadEndLine line(5);
  const auto result = simulate(line, options(100, 10, 8));
  ASSERT_EQ(result.outcome, WalkOutcome::kNoViolation);
  EXPECT_EQ(result.stats.deadlocks, 100u);
  EXPECT_EQ(result.stats.depth_limit_hits, 0u);
  // Walks start at 0 or 1 (a random initial state): lengths 5 or 4.
  EXPECT_EQ(result.stats.lengths.min, 4u);
  EXPECT_EQ(result.stats.lengths.max, 5u);
  EXPECT_EQ(result.stats.coverage[0].taken, result.stats.steps);
  EXPECT_EQ(result.stats.distinct_states, 6u);
  const uint64_t from_zero = result.stats.steps - 4 * 100;
  EXPECT_GT(from_zero, 20u);
  EXPECT_LT(from_zero, 80u);
}

TEST(RandomWalk, WeightZeroDisablesAKind) {
  CombinationLock lock(3);
  WalkOptions o = options(500, 50, 21);
  o.weights["Press"] = 0;
  const auto result = simulate(lock, o);
  EXPECT_EQ(result.outcome, WalkOutcome::kNoViolation);  // the lock needs Press
  EXPECT_EQ(result.stats.coverage[0].taken, 0u);
  EXPECT_GT(result.stats.coverage[0].enabled, 0u);
  EXPECT_EQ(result.stats.coverage[0].weight, 0.0);
  EXPECT_EQ(result.stats.coverage[1].taken, result.stats.steps);  // only Wiggle is left

  // Disabling everything ends each walk at once, as a weight dead end.
  o.weights["Wiggle"] = 0;
  const auto stuck = simulate(lock, o);
  EXPECT_EQ(stuck.stats.steps, 0u);
  EXPECT_EQ(stuck.stats.weight_dead_ends, 500u);
}

TEST(RandomWalk, WeightsBiasTheChoice) {
  CombinationLock lock(30);
  WalkOptions o = options(200, 50, 4);
  o.weights["Wiggle"] = 8;  // vs 4 Press actions of weight 1 (and Reset)
  const auto result = simulate(lock, o);
  const auto& c = result.stats.coverage;
  EXPECT_GT(c[1].taken, c[0].taken);  // unweighted, Press would be taken 4x as often
}

TEST(RandomWalk, UnknownOrInvalidWeightsAreUsageErrors) {
  CombinationLock lock(3);
  WalkOptions o = options(10, 10, 1);
  o.weights["Crash"] = 1;
  const auto error = validate_weights(lock, o.weights);
  ASSERT_TRUE(error.has_value());
  EXPECT_NE(error->find("Crash"), std::string::npos);
  EXPECT_NE(error->find("Press, Wiggle, Reset, Jam"), std::string::npos);
  EXPECT_THROW(simulate(lock, o), std::invalid_argument);
  o.weights.clear();
  o.weights["Press"] = -1;
  EXPECT_TRUE(validate_weights(lock, o.weights).has_value());
  o.weights["Press"] = 0.5;
  EXPECT_FALSE(validate_weights(lock, o.weights).has_value());
}

TEST(RandomWalk, InterruptGivesAnIncompleteResult) {
  CombinationLock lock(30);
  std::atomic<bool> interrupt{true};
  WalkOptions o = options(1000, 50, 1, 2);
  o.interrupt = &interrupt;
  const auto result = simulate(lock, o);
  EXPECT_EQ(result.outcome, WalkOutcome::kIncomplete);
  EXPECT_EQ(result.stop_reason, "interrupted");
  EXPECT_LT(result.stats.walks_completed, 1000u);
  if (result.stats.walks_completed == 0) {
    EXPECT_TRUE(result.stats.warnings.empty()) << "no walk ran: nothing to warn about";
  }
}

TEST(RandomWalk, TimeLimitGivesAnIncompleteResult) {
  CombinationLock lock(30);
  WalkOptions o = options(UINT64_MAX / 2, 1000, 1, 2);
  o.time_limit = std::chrono::milliseconds(100);
  const auto start = std::chrono::steady_clock::now();
  const auto result = simulate(lock, o);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(result.outcome, WalkOutcome::kIncomplete);
  EXPECT_EQ(result.stop_reason, "time limit");
  EXPECT_GT(result.stats.walks_completed, 0u);
  EXPECT_EQ(result.stats.steps, result.stats.walks_completed * 1000);
}

TEST(RandomWalk, TimeLimitAlsoStopsWalksThatEndAtOnce) {
  DeadEndLine line(0);  // no action anywhere: every walk is a 0-step deadlock
  WalkOptions o = options(UINT64_MAX / 2, 10, 1, 1);
  o.time_limit = std::chrono::milliseconds(100);
  const auto result = simulate(line, o);
  EXPECT_EQ(result.outcome, WalkOutcome::kIncomplete);
  EXPECT_EQ(result.stats.steps, 0u);
  EXPECT_EQ(result.stats.deadlocks, result.stats.walks_completed);
}

TEST(RandomWalk, InitialStateViolationIsAZeroStepTrace) {
  DoublingCounter counter(0, 10);  // the initial state 0 is the target
  const auto result = simulate(counter, options(10, 10, 1));
  ASSERT_EQ(result.outcome, WalkOutcome::kViolation);
  EXPECT_EQ(result.violation->walk_index, 0u);
  EXPECT_TRUE(result.violation->found.actions.empty());
  EXPECT_TRUE(result.violation->shrunk.actions.empty());
}

// Whatever the seed, a reported counterexample replays, and shrinking never lengthens it.
RC_GTEST_PROP(RandomWalkProperty, ShrunkTracesReplayAndAreNoLonger, ()) {
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  const int code_length = *rc::gen::inRange(1, 4);
  CombinationLock lock(code_length);
  const auto result = simulate(lock, options(500, 40, seed));
  RC_PRE(result.outcome == WalkOutcome::kViolation);
  const auto& v = *result.violation;
  RC_ASSERT(first_violation(lock, v.shrunk, v.property_index) == v.shrunk.actions.size());
  RC_ASSERT(v.shrunk.actions.size() <= v.found.actions.size());
  RC_ASSERT(v.shrunk.actions.size() == static_cast<std::size_t>(code_length));
}

}  // namespace
}  // namespace isr::checker
