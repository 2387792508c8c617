// The KRaft quorum model's action kinds in Kafka's terms (kraft_action_meanings.h). The
// methods named are those the rule files cite (kraft_election.cc, kraft_replication.cc,
// kraft_faults.cc).
#include "spec/kraft/kraft_action_meanings.h"

namespace isr::spec::kraft {

const std::vector<NameRow>& kraft_action_meanings() {
  static const std::vector<NameRow> rows = {
      {"Timeout", "a voter's election (or fetch) timer expires and it becomes a candidate in a new epoch, voting "
                  "for itself first (QuorumState.transitionToCandidate)", {}},
      {"Vote", "a Vote request and its response: the voter grants it when the candidate's log is at least as up "
               "to date and it has not voted in the epoch (KafkaRaftClient.handleVoteRequest, "
               "QuorumState.transitionToVoted, CandidateState.recordGrantedVote)", {}},
      {"BeginEpoch", "the new leader's BeginQuorumEpoch makes a voter follow it "
                     "(KafkaRaftClient.handleBeginQuorumEpochRequest)", {}},
      {"Fetch", "a follower's Fetch of the metadata log and the leader's answer: the next batch and the HW, or a "
                "diverging epoch to truncate to (KafkaRaftClient.handleFetchRequest, handleFetchResponse, "
                "KafkaMetadataLog.truncateToEndOffset)", {}},
      {"Append", "the leader appends a batch to the metadata log (KafkaRaftClient.scheduleAppend)", {}},
      {"Resign", "the leader resigns: its check-quorum timer expired or it shuts down "
                 "(QuorumState.transitionToResigned, LeaderState.timeUntilCheckQuorumExpires)", {}},
      {"Crash", "a voter process stops; with its disk lost it comes back with a new directory id (KIP-853)", {}},
      {"Restart", "a stopped voter starts again from its quorum-state file and log (QuorumState.initialize)", {}},
      {"Cut", "a network partition cuts a voter off from the others", {}},
      {"Heal", "a voter's network cut heals", {}},
      {"AddVoter", "KIP-853: the leader adds a caught-up observer's key to the voter set by appending a "
                   "VotersRecord, once the last one is committed (AddVoterHandler, LeaderState.appendVotersRecord; "
                   "an operator's add-controller or an observer's auto-join)", {}},
      {"RemoveVoter", "KIP-853: the leader removes a voter's key from the voter set by appending a VotersRecord, "
                      "once the last one is committed (RemoveVoterHandler; remove-controller or auto-join)", {}},
  };
  return rows;
}

}  // namespace isr::spec::kraft
