// The KRaft quorum model's larger exhaustive checks (skipped in the sanitizer pass):
// every property with every fix on over every kind of fault, the figure-8 bounds with
// the HW rule on, five voters, and KIP-853 voter changes.
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

TEST(KraftSlow, EveryFaultKindWithEveryFix) {
  const auto r = check({"bounds.max_epoch=2", "bounds.max_appends=1", "faults.max_crashes=1",
                        "faults.max_disk_losses=1", "faults.max_lost_responses=1", "faults.max_network_cuts=1"});
  EXPECT_EQ(r.verdict, Verdict::Holds) << r.property;
  EXPECT_EQ(r.distinct_states, 1198217u);  // 1030098 before lost Vote responses (docs/kraft.md)
}

// The bounds under which hw_own_epoch=false loses a committed entry (kraft_test.cc).
TEST(KraftSlow, FigureEightBoundsHoldWithTheHwRule) {
  const auto r = check({"bounds.max_epoch=4", "faults.max_crashes=0", "faults.max_lost_responses=1"});
  EXPECT_EQ(r.verdict, Verdict::Holds) << r.property;
  EXPECT_EQ(r.distinct_states, 1243682u);  // 1094923 before lost Vote responses
}

TEST(KraftSlow, FiveVotersHoldAndDoubleVoteWithoutPersistedVotes) {
  const auto safe = check({"voters=5", "bounds.max_epoch=1", "faults.max_crashes=2"});
  EXPECT_EQ(safe.verdict, Verdict::Holds) << safe.property;
  // Five voters: the second majority of three is the forgetful voter, the second
  // candidate and the one voter left that had not voted.
  const auto r = check({"voters=5", "bounds.max_epoch=1", "faults.max_crashes=2", "fixes.persist_vote=false"});
  ASSERT_EQ(r.verdict, Verdict::Violated);
  EXPECT_EQ(r.property, "single-controller-per-epoch");
  EXPECT_EQ(r.counterexample.actions.size(), 8u);
}

// KIP-853: three voter changes and a disk loss, enough for a wiped voter to be removed
// under its old key and re-added under its new one, then a third change.
TEST(KraftSlow, VoterChangesWithADiskLossHold) {
  const auto r = check({"bounds.max_epoch=2", "bounds.max_voter_changes=3", "faults.max_disk_losses=1"});
  EXPECT_EQ(r.verdict, Verdict::Holds) << r.property;
  EXPECT_EQ(r.distinct_states, 1230091u);
}

}  // namespace
