// One assertion for "these two searches found the same thing": verdict, stop reason,
// counts, level sizes, bounds and the counterexample byte for byte. The determinism
// tests (thread counts, bfs_test) and the distributed engine's tests (rank counts,
// distributed_bfs_test) compare results this way.
#pragma once

#include <cstddef>

#include <gtest/gtest.h>

#include "checker/bfs/bfs_types.h"
#include "checker/counterexample.h"

namespace isr::test {

template <class M>
void expect_same_result(const checker::BfsResult<M>& r, const checker::BfsResult<M>& one) {
  EXPECT_EQ(r.verdict, one.verdict);
  EXPECT_EQ(r.stop_reason, one.stop_reason);
  EXPECT_EQ(r.distinct_states, one.distinct_states);
  EXPECT_EQ(r.states_generated, one.states_generated);
  EXPECT_EQ(r.depth, one.depth);
  EXPECT_EQ(r.level_sizes, one.level_sizes);
  EXPECT_EQ(r.property, one.property);
  EXPECT_EQ(r.bounds_mask, one.bounds_mask);
  // The distributed engine does not record usage bits (checker/hooks.h, HasUsage).
  if (r.usage_recorded && one.usage_recorded) {
    EXPECT_EQ(r.usage_mask, one.usage_mask);
  }
  EXPECT_EQ(r.counterexample.initial_index, one.counterexample.initial_index);
  EXPECT_EQ(r.counterexample.action_indices, one.counterexample.action_indices);
  ASSERT_EQ(r.counterexample.states.size(), one.counterexample.states.size());
  for (size_t i = 0; i < r.counterexample.states.size(); ++i) {
    EXPECT_TRUE(checker::same_bytes(r.counterexample.states[i], one.counterexample.states[i]));
  }
}

}  // namespace isr::test
