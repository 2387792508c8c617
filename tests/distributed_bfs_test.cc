// The distributed BFS engine (checker/bfs/distributed_bfs.h) on 1 to 4 ranks of the
// in-process transport (checker/bfs/thread_transport.h) gives exactly the single-process
// result of checker/bfs/bfs.h: verdict, counts, depth, level sizes, bounds and the
// counterexample, on toy models and on the Kafka models, holding, violated and stopped
// by --max-states, with waves small enough that every level takes several; and random
// walks spread over ranks (checker/walk/distributed_walks.h) give one machine's result. The same
// engine under MPI is tested end to end by tests/distributed_mpi_test.cc.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "checker/bfs/bfs.h"
#include "checker/bfs/distributed_bfs.h"
#include "checker/bfs/thread_transport.h"
#include "checker/store/state_codec.h"
#include "checker/walk/distributed_walks.h"
#include "checker/walk/random_walk.h"
#include "spec/cluster/cluster_config.h"
#include "spec/cluster/cluster_model.h"
#include "spec/kraft/kraft_config.h"
#include "spec/kraft/kraft_model.h"
#include "spec/partition/config.h"
#include "spec/partition/partition_model.h"
#include "tests/same_bfs_result.h"
#include "tests/toy_models.h"
#include "tests/toy_walk_models.h"

namespace {

using isr::checker::BfsOptions;
using isr::checker::BfsResult;
using isr::checker::DistributedBfsResult;
using isr::checker::ThreadTransportHub;
using isr::checker::Transport;

using isr::test::expect_same_result;

// Runs the engine on `ranks` threads; every rank must get the same result.
template <class M>
BfsResult<M> distributed(const M& model, const BfsOptions& options, int ranks) {
  ThreadTransportHub hub(ranks);
  std::vector<DistributedBfsResult<M>> results(static_cast<size_t>(ranks));
  hub.run([&](Transport& t) { results[static_cast<size_t>(t.rank())] = isr::checker::distributed_bfs(model, options, t); });
  uint64_t owned = 0;
  for (const auto& s : results[0].per_rank) owned += s.distinct_states;
  // Every rank owns its share; together exactly the distinct states (the last level
  // of a --max-states stop keeps its first states only).
  EXPECT_EQ(owned, results[0].result.distinct_states);
  for (int r = 1; r < ranks; ++r) expect_same_result(results[static_cast<size_t>(r)].result, results[0].result);
  return results[0].result;
}

// Returns the single-process verdict, so that tests can say which case they cover.
template <class M>
isr::checker::Verdict expect_distributed_matches(const M& model, bool symmetry, uint64_t max_states = 0,
                                                 uint64_t wave = 0) {
  BfsOptions options;
  options.symmetry = symmetry;
  options.max_states = max_states;
  const BfsResult<M> one = isr::checker::bfs(model, options);
  options.wave_states = wave;
  for (int ranks : {1, 2, 3, 4}) {
    SCOPED_TRACE("ranks=" + std::to_string(ranks) + " symmetry=" + std::to_string(symmetry) +
                 " max_states=" + std::to_string(max_states) + " wave=" + std::to_string(wave));
    expect_same_result(distributed(model, options, ranks), one);
  }
  return one.verdict;
}

TEST(StateCodec, RoundTripsAndMeasuresItsEncoding) {
  using isr::toy::MutexModel;
  MutexModel::State reference;
  MutexModel::State s;
  s.pc[3] = 2;
  s.lock = 1;
  s.entries = 7;
  const isr::checker::StateCodec<MutexModel::State> codec(reference);
  std::vector<uint8_t> bytes;
  codec.encode(reference, bytes);
  codec.encode(s, bytes);
  const size_t first = isr::checker::StateCodec<MutexModel::State>::encoded_size(bytes.data());
  MutexModel::State a, b;
  EXPECT_EQ(codec.decode(bytes.data(), a), first);
  EXPECT_EQ(codec.decode(bytes.data() + first, b), bytes.size() - first);
  EXPECT_EQ(isr::checker::StateCodec<MutexModel::State>::encoded_size(bytes.data() + first), bytes.size() - first);
  EXPECT_TRUE(isr::checker::same_bytes(a, reference));
  EXPECT_TRUE(isr::checker::same_bytes(b, s));
}

TEST(DistributedBfs, ToyModelsMatchTheSingleProcessEngine) {
  for (bool symmetry : {false, true}) {
    expect_distributed_matches(isr::toy::CounterModel(5, 4), symmetry);
    expect_distributed_matches(isr::toy::CounterModel(5, 4, 11), symmetry);  // violated at depth 11
    expect_distributed_matches(isr::toy::MutexModel(5, false, 4), symmetry);  // violated
    expect_distributed_matches(isr::toy::MutexModel(5, true, 4), symmetry);   // holds
    expect_distributed_matches(isr::toy::GridModel(7, 5, {{0, 0}, {6, 4}, {0, 0}, {3, 2}}), symmetry);
  }
}

TEST(DistributedBfs, SmallWavesDoNotChangeTheResult) {
  for (uint64_t wave : {3, 7, 100}) {
    expect_distributed_matches(isr::toy::MutexModel(5, false, 4), true, 0, wave);
    expect_distributed_matches(isr::toy::CounterModel(5, 4), false, 0, wave);
  }
}

TEST(DistributedBfs, MaxStatesKeepsTheSameFirstStates) {
  // Limits inside level 0 (four initial states, one duplicate), at a level boundary and
  // inside a level.
  const isr::toy::GridModel grid(7, 5, {{0, 0}, {6, 4}, {0, 0}, {3, 2}});
  for (uint64_t limit : {1, 2, 3, 4, 7}) expect_distributed_matches(grid, false, limit);
  const isr::toy::CounterModel counter(5, 4);
  for (uint64_t limit : {1, 6, 16, 100, 1000}) expect_distributed_matches(counter, false, limit, 13);
}

TEST(DistributedBfs, KafkaModelsMatchTheSingleProcessEngine) {
  using isr::checker::Verdict;
  const std::vector<std::pair<std::vector<std::string>, Verdict>> partition_configs = {
      {{"faults.max_crashes=0", "faults.max_lossy_crashes=0"}, Verdict::Holds},
      {{"acks=1", "faults.max_lossy_crashes=0"}, Verdict::Violated},
      {{"acks=1"}, Verdict::Violated},
  };
  for (const auto& [overrides, verdict] : partition_configs) {
    const isr::spec::PartitionModel model(isr::spec::load_config(nullptr, overrides));
    EXPECT_EQ(expect_distributed_matches(model, true, 0, 500), verdict);
  }
  const isr::spec::PartitionModel partition(isr::spec::load_config(nullptr, {}));
  EXPECT_EQ(expect_distributed_matches(partition, false, 20000, 3000), Verdict::Incomplete);
  const isr::spec::kraft::KraftModel kraft(isr::spec::kraft::load_config(nullptr, {}));
  EXPECT_EQ(expect_distributed_matches(kraft, true, 30000, 2000), Verdict::Incomplete);
  const isr::spec::cluster::ClusterModel cluster(isr::spec::cluster::load_config(nullptr, {}));
  EXPECT_EQ(expect_distributed_matches(cluster, true, 20000, 2000), Verdict::Incomplete);
}

// POR's irrelevant actions and dead components (checker/por.h) are local to a state, so
// the distributed search with --por on equals the single process's, reduction included.
TEST(DistributedBfs, PartialOrderReductionMatchesTheSingleProcessEngine) {
  using isr::checker::Verdict;
  const std::vector<std::tuple<std::vector<std::string>, uint64_t, Verdict>> configs = {
      // No power loss: `flushed` is dead from the start (2,746 states without POR, 1,718 with).
      {{"faults.max_lossy_crashes=0", "brokers=2", "replication_factor=2", "min_insync_replicas=1"}, 0,
       Verdict::Holds},
      {{"acks=1"}, 0, Verdict::Violated},
      {{}, 30000, Verdict::Incomplete},
  };
  for (const auto& [overrides, max_states, verdict] : configs) {
    const isr::spec::PartitionModel model(isr::spec::load_config(nullptr, overrides));
    BfsOptions options;
    options.symmetry = true;
    options.max_states = max_states;
    options.por = true;
    const BfsResult<isr::spec::PartitionModel> one = isr::checker::bfs(model, options);
    EXPECT_EQ(one.verdict, verdict);
    ASSERT_TRUE(one.por);
    if (verdict == Verdict::Holds) {
      options.por = false;
      EXPECT_LT(one.distinct_states, isr::checker::bfs(model, options).distinct_states);
      options.por = true;
    }
    options.wave_states = 700;
    for (int ranks : {1, 2, 3}) {
      SCOPED_TRACE("ranks=" + std::to_string(ranks) + " max_states=" + std::to_string(max_states));
      const BfsResult<isr::spec::PartitionModel> d = distributed(model, options, ranks);
      expect_same_result(d, one);
      EXPECT_TRUE(d.por);
      EXPECT_EQ(d.por_reduced, one.por_reduced);
    }
  }
}

template <class M>
void expect_same_walks(const M& model, uint64_t walks, uint64_t depth, uint64_t seed) {
  isr::checker::WalkOptions options;
  options.walks = walks;
  options.depth = depth;
  options.seed = seed;
  options.threads = 2;
  options.distinct_state_capacity = 64;  // small: the merged sample must match the estimate too
  const isr::checker::WalkResult<M> one = isr::checker::simulate(model, options);
  for (int ranks : {1, 2, 3}) {
    SCOPED_TRACE("ranks=" + std::to_string(ranks));
    ThreadTransportHub hub(ranks);
    std::vector<isr::checker::WalkResult<M>> results(static_cast<size_t>(ranks));
    hub.run([&](Transport& t) {
      results[static_cast<size_t>(t.rank())] = isr::checker::distributed_simulate(model, options, t);
    });
    for (const auto& r : results) {
      EXPECT_EQ(r.outcome, one.outcome);
      const auto& s = r.stats;
      const auto& o = one.stats;
      EXPECT_EQ(s.walks_completed, o.walks_completed);
      EXPECT_EQ(s.steps, o.steps);
      EXPECT_EQ(s.states_checked, o.states_checked);
      EXPECT_EQ(s.deadlocks, o.deadlocks);
      EXPECT_EQ(s.depth_limit_hits, o.depth_limit_hits);
      EXPECT_EQ(s.lengths.counts, o.lengths.counts);
      EXPECT_EQ(s.lengths.min, o.lengths.min);
      EXPECT_EQ(s.lengths.max, o.lengths.max);
      EXPECT_EQ(s.distinct_states, o.distinct_states);
      EXPECT_EQ(s.distinct_states_sample_level, o.distinct_states_sample_level);
      EXPECT_EQ(s.warnings, o.warnings);
      ASSERT_EQ(s.coverage.size(), o.coverage.size());
      for (size_t k = 0; k < s.coverage.size(); ++k) {
        EXPECT_EQ(s.coverage[k].taken, o.coverage[k].taken);
        EXPECT_EQ(s.coverage[k].enabled, o.coverage[k].enabled);
      }
      ASSERT_EQ(r.violation.has_value(), one.violation.has_value());
      if (one.violation) {
        EXPECT_EQ(r.violation->walk_index, one.violation->walk_index);
        EXPECT_EQ(r.violation->property, one.violation->property);
        EXPECT_EQ(r.violation->found.actions.size(), one.violation->found.actions.size());
        ASSERT_EQ(r.violation->shrunk.actions.size(), one.violation->shrunk.actions.size());
        for (size_t i = 0; i < one.violation->shrunk.actions.size(); ++i) {
          EXPECT_TRUE(isr::checker::same_bytes(r.violation->shrunk.actions[i], one.violation->shrunk.actions[i]));
        }
      }
    }
  }
}

TEST(DistributedWalks, SameResultAsOneMachine) {
  expect_same_walks(isr::toy::CombinationLock(3), 500, 30, 11);  // a violation after a few walks
  expect_same_walks(isr::toy::CombinationLock(9), 300, 30, 11);  // no violation
  expect_same_walks(isr::toy::DeadEndLine(5), 100, 30, 3);       // every walk ends in a deadlock
  const isr::spec::PartitionModel acks1(isr::spec::load_config(nullptr, {"acks=1"}));
  expect_same_walks(acks1, 400, 60, 5);
}

}  // namespace
