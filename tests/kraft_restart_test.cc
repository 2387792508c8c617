// A voter restarting from its quorum-state file (QuorumState.initialize, Kafka 4.4):
// ElectionState.isVotedCandidate is checked before hasLeader, so a candidate that voted
// for itself and then followed the leader another voter won in the same epoch (the vote
// stays in the file, QuorumState.transitionToFollower keeps it) restarts as a Candidate,
// not as a Follower. docs/fidelity.md, "KRaft quorum".
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

KraftState step(const KraftModel& m, const KraftState& s, KraftActionKind kind, int node, int other = 0) {
  std::array<KraftAction, 256> buffer;
  const int n = m.enabled_actions(s, buffer.data());
  for (int i = 0; i < n; ++i) {
    const KraftAction& a = buffer[i];
    if (a.kind == kind && a.node == node && a.other == other && a.arg == 0) return m.next_state(s, a);
  }
  ADD_FAILURE() << "not enabled: kind " << static_cast<int>(kind) << " node " << node << " other " << other;
  return s;
}

TEST(KraftRestart, ASelfVotedCandidateThatFollowedALeaderRestartsAsCandidate) {
  const KraftModel m(isr::spec::kraft::load_config(nullptr, {"bounds.max_epoch=2", "faults.max_crashes=1"}));
  KraftState s = m.initial_states().at(0);
  s = step(m, s, KraftActionKind::Timeout, 0);        // 0: candidate of epoch 1
  s = step(m, s, KraftActionKind::Timeout, 1);        // 1: candidate of epoch 1
  s = step(m, s, KraftActionKind::Vote, 0, 2);        // 2 votes for 0: 0 leads epoch 1
  s = step(m, s, KraftActionKind::BeginEpoch, 0, 1);  // 1 follows 0, its self-vote kept
  ASSERT_EQ(s.voters[1].role, static_cast<uint8_t>(Role::Follower));
  ASSERT_EQ(s.voters[1].voted_for, 1);
  s = step(m, s, KraftActionKind::Crash, 1);
  s = step(m, s, KraftActionKind::Restart, 1);
  EXPECT_EQ(s.voters[1].role, static_cast<uint8_t>(Role::Candidate));
  EXPECT_EQ(s.voters[1].epoch, 1);
  EXPECT_EQ(s.voters[1].voted_for, 1);
}

}  // namespace
