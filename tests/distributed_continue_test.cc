// `check --continue --distributed` (checker/bfs/distributed_bfs.h with
// BfsOptions::continue_after_violation) on 1 to 4 ranks of the in-process transport gives
// the single-process result of checker/bfs/bfs.h: every property's verdict, violating-state
// count and counterexample, on a toy and on the partition model, searched to the end, with
// small waves, and stopped by --max-states. tests/check_continue_mpi_test.cc runs it under
// mpirun.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "checker/bfs/bfs.h"
#include "checker/bfs/distributed_bfs.h"
#include "checker/bfs/thread_transport.h"
#include "spec/partition/config.h"
#include "spec/partition/partition_model.h"
#include "tests/toy_models.h"

namespace {

using isr::checker::BfsOptions;
using isr::checker::BfsResult;
using isr::checker::DistributedBfsResult;
using isr::checker::ThreadTransportHub;
using isr::checker::Transport;
using isr::checker::Verdict;

template <class M>
BfsResult<M> distributed(const M& model, const BfsOptions& options, int ranks) {
  ThreadTransportHub hub(ranks);
  std::vector<DistributedBfsResult<M>> results(static_cast<size_t>(ranks));
  hub.run([&](Transport& t) { results[static_cast<size_t>(t.rank())] = isr::checker::distributed_bfs(model, options, t); });
  for (int r = 1; r < ranks; ++r) {
    EXPECT_EQ(results[static_cast<size_t>(r)].result.outcomes.size(), results[0].result.outcomes.size());
  }
  return results[0].result;
}

template <class M>
void expect_same_outcomes(const BfsResult<M>& d, const BfsResult<M>& one) {
  EXPECT_EQ(d.verdict, one.verdict);
  EXPECT_EQ(d.distinct_states, one.distinct_states);
  EXPECT_EQ(d.depth, one.depth);
  EXPECT_EQ(d.property, one.property);
  EXPECT_EQ(d.counterexample.action_indices, one.counterexample.action_indices);
  ASSERT_TRUE(d.continued);
  ASSERT_EQ(d.outcomes.size(), one.outcomes.size());
  for (size_t p = 0; p < one.outcomes.size(); ++p) {
    SCOPED_TRACE(one.outcomes[p].property);
    EXPECT_EQ(d.outcomes[p].property, one.outcomes[p].property);
    EXPECT_EQ(d.outcomes[p].verdict, one.outcomes[p].verdict);
    EXPECT_EQ(d.outcomes[p].violating_states, one.outcomes[p].violating_states);
    EXPECT_EQ(d.outcomes[p].counterexample.initial_index, one.outcomes[p].counterexample.initial_index);
    EXPECT_EQ(d.outcomes[p].counterexample.action_indices, one.outcomes[p].counterexample.action_indices);
  }
}

template <class M>
void expect_distributed_matches(const M& model, bool symmetry, uint64_t max_states = 0, uint64_t wave = 0) {
  BfsOptions options;
  options.symmetry = symmetry;
  options.max_states = max_states;
  options.continue_after_violation = true;
  options.fingerprint_bits = 64;
  const BfsResult<M> one = isr::checker::bfs(model, options);
  options.wave_states = wave;
  for (int ranks : {1, 2, 3, 4}) {
    SCOPED_TRACE("ranks=" + std::to_string(ranks) + " symmetry=" + std::to_string(symmetry) +
                 " max_states=" + std::to_string(max_states) + " wave=" + std::to_string(wave));
    expect_same_outcomes(distributed(model, options, ranks), one);
  }
}

TEST(DistributedContinue, ToyPropertiesEachGetTheSingleProcessVerdict) {
  // Mutual exclusion fails at depth 4, at-most-two at 6: both decided, counts equal.
  const isr::toy::MutexModel model(4, false, 3);
  expect_distributed_matches(model, false);
  expect_distributed_matches(model, true);
  expect_distributed_matches(model, false, 0, 7);  // many waves per level
  expect_distributed_matches(model, false, 120);   // a --max-states stop: some properties undecided
}

TEST(DistributedContinue, PartitionModelGivesTheSameVerdictsAndTraces) {
  const isr::spec::PartitionModel model(isr::spec::load_config(
      nullptr, {"acks=1", "brokers=2", "replication_factor=2", "min_insync_replicas=1"}));
  BfsOptions options;
  options.continue_after_violation = true;
  const auto one = isr::checker::bfs(model, options);
  size_t violated = 0;
  for (const auto& o : one.outcomes) violated += o.verdict == Verdict::Violated;
  EXPECT_EQ(violated, 3u);
  expect_distributed_matches(model, true);
  expect_distributed_matches(model, true, 0, 64);
}

}  // namespace
