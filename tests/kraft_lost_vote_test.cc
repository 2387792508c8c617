// A Vote response lost in the KRaft quorum (docs/fidelity.md, "Under-approximation
// audit: the KRaft quorum and the composed model"): the voter handled the request and
// persisted its vote (QuorumState.transitionToVoted), the candidate never counts it and
// may time out into the next epoch before a resent Vote comes back
// (CandidateState's election timer). Before this variant a vote that completed a
// majority always made the candidate leader at once, so an epoch whose majority voted
// but which never had a leader was missing from the model.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "spec/kraft/kraft_config.h"
#include "spec/kraft/kraft_model.h"

namespace {

using isr::spec::kraft::KraftAction;
using isr::spec::kraft::KraftActionKind;
using isr::spec::kraft::KraftModel;
using isr::spec::kraft::KraftState;
using isr::spec::kraft::Role;

bool enabled(const KraftModel& m, const KraftState& s, KraftActionKind kind, int node, int other, int arg,
             KraftState* next = nullptr) {
  std::array<KraftAction, 256> buffer;
  const int n = m.enabled_actions(s, buffer.data());
  for (int i = 0; i < n; ++i) {
    const KraftAction& a = buffer[i];
    if (a.kind == kind && a.node == node && a.other == other && a.arg == arg) {
      if (next != nullptr) *next = m.next_state(s, a);
      return true;
    }
  }
  return false;
}

KraftState step(const KraftModel& m, const KraftState& s, KraftActionKind kind, int node, int other = 0,
                int arg = 0) {
  KraftState next = s;
  if (!enabled(m, s, kind, node, other, arg, &next))
    ADD_FAILURE() << "not enabled: kind " << static_cast<int>(kind) << " node " << node << " other " << other
                  << " arg " << arg;
  return next;
}

KraftModel model(int lost_responses) {
  return KraftModel(isr::spec::kraft::load_config(
      nullptr, {"voters=3", "bounds.max_epoch=2", "faults.max_crashes=0",
                "faults.max_lost_responses=" + std::to_string(lost_responses)}));
}

// Voter 1 grants candidate 0's vote in epoch 1 and the answer is lost: 0 and 1 are a
// majority of three, yet 0 stays a candidate with only its own vote, and its election
// timer takes it to epoch 2 with no LeaderChange record of epoch 1 in its log.
TEST(KraftLostVote, TheVoterHasVotedAndTheCandidateDoesNotKnow) {
  const KraftModel m = model(1);
  KraftState s = m.initial_states().at(0);
  s = step(m, s, KraftActionKind::Timeout, 0);
  s = step(m, s, KraftActionKind::Vote, 0, 1, /*response lost*/ 1);
  EXPECT_EQ(s.voters[1].role, static_cast<uint8_t>(Role::Voted));
  EXPECT_EQ(s.voters[1].voted_for, 0);
  EXPECT_EQ(s.voters[1].epoch, 1);
  EXPECT_EQ(s.voters[0].role, static_cast<uint8_t>(Role::Candidate));
  EXPECT_EQ(s.voters[0].leo, 0);
  EXPECT_EQ(s.faults.lost_responses, 1);
  // VotedState grants the same candidate again: the resent request would make 0 leader...
  KraftState resent;
  ASSERT_TRUE(enabled(m, s, KraftActionKind::Vote, 0, 1, 0, &resent));
  EXPECT_EQ(resent.voters[0].role, static_cast<uint8_t>(Role::Leader));
  // ... unless 0's election timer fires first: epoch 2, still no record of epoch 1.
  s = step(m, s, KraftActionKind::Timeout, 0);
  EXPECT_EQ(s.voters[0].epoch, 2);
  EXPECT_EQ(s.voters[0].leo, 0);
  EXPECT_EQ(s.history.leaders[1], 0) << "epoch 1 had no leader";
}

TEST(KraftLostVote, OnlyWithinTheBudget) {
  const KraftModel m = model(0);
  KraftState s = m.initial_states().at(0);
  s = step(m, s, KraftActionKind::Timeout, 0);
  EXPECT_FALSE(enabled(m, s, KraftActionKind::Vote, 0, 1, 1));
  EXPECT_TRUE(enabled(m, s, KraftActionKind::Vote, 0, 1, 0));
}

}  // namespace
