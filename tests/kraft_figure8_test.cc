// Raft's figure 8 in KRaft needs no lost fetch response (docs/kraft.md): with five
// epochs, a follower more than one batch behind acknowledges an older-epoch entry before
// it has the leader's LeaderChange record, and without `hw_own_epoch` that entry is
// committed and then lost by the next election. With the rule the same bounds hold
// (4.9 million states: checked in docs/kraft.md, too slow for this fast test).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "checker/bfs/bfs.h"
#include "spec/kraft/kraft_config.h"
#include "spec/kraft/kraft_model.h"

namespace {

using isr::checker::Verdict;
using isr::spec::kraft::KraftModel;

isr::checker::BfsResult<KraftModel> check(const std::vector<std::string>& overrides) {
  isr::checker::BfsOptions options;
  options.threads = 2;
  options.symmetry = true;
  return isr::checker::bfs(KraftModel(isr::spec::kraft::load_config(nullptr, overrides)), options);
}

TEST(KraftFigure8, NeedsNoLostResponseWithFiveEpochs) {
  const auto r = check({"fixes.hw_own_epoch=false", "bounds.max_epoch=5", "faults.max_crashes=0",
                        "faults.max_lost_responses=0"});
  ASSERT_EQ(r.verdict, Verdict::Violated);
  EXPECT_EQ(r.property, "metadata-leader-completeness");
  EXPECT_EQ(r.counterexample.actions.size(), 16u);
  EXPECT_EQ(r.distinct_states, 305761u);
}

TEST(KraftFigure8, FourEpochsAreTooFewWithoutALostResponse) {
  const auto r = check({"fixes.hw_own_epoch=false", "bounds.max_epoch=4", "faults.max_crashes=0",
                        "faults.max_lost_responses=0"});
  EXPECT_EQ(r.verdict, Verdict::Holds) << r.property;
  EXPECT_EQ(r.distinct_states, 398564u);
}

}  // namespace
