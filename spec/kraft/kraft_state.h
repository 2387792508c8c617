// The compact state of the KRaft controller quorum (KIP-595): per voter its quorum
// state, its metadata log and, while it leads, its view of the followers; plus the
// history the properties need and the fault counters.
//
// A plain value of fixed size with no padding and no pointers (engines hash its bytes).
// Voter ids are 0..voters-1; sets of voters are bit masks. Fields a configuration does
// not use stay zero.
#pragma once

#include <cstdint>
#include <type_traits>

#include "spec/kraft/kraft_config.h"

namespace isr::spec::kraft {

using VoterSet = uint8_t;  // bit v set = voter v is a member
static_assert(kMaxVoters <= 8);

inline constexpr uint8_t kNone = 0xFF;  // no voter (Kafka's -1 / OptionalInt.empty())

inline constexpr bool has(VoterSet s, int v) { return (s >> v) & 1u; }
inline constexpr VoterSet member(int v) { return static_cast<VoterSet>(1u << v); }
inline constexpr int count(VoterSet s) { return __builtin_popcount(s); }

// The EpochState implementations of Kafka's raft module (QuorumState holds one).
// Voted is UnattachedState with a voted key (VotedState before KIP-996).
enum class Role : uint8_t { Unattached, Voted, Candidate, Leader, Follower, Resigned };

// One batch of the metadata log: the epoch it was appended in and the voter that
// appended it as leader. In a safe run the writer is a function of the epoch; it is kept
// so that two leaders of one epoch write distinguishable entries.
//
// A VotersRecord (KIP-853, a control record) has `members` != 0: the voter set it
// declares, as ids, and per member the directory id it names, as the generation of that
// voter's disk (bit v of `dirs`: 1 = the directory the voter got at its first disk loss,
// 0 = its original one). Two generations are enough for one re-add per voter; a voter
// whose disk is lost twice has a directory no record can name (docs/kraft.md).
struct Entry {
  uint8_t epoch = 0;
  uint8_t writer = 0;   // voter id + 1; 0 = empty slot
  uint8_t members = 0;  // VotersRecord: the voter ids (a VoterSet); 0 = another record
  uint8_t dirs = 0;     // VotersRecord: per member, its directory generation (0 or 1)
  bool operator==(const Entry&) const = default;
};

struct Voter {
  // Process and disk.
  uint8_t alive = 1;
  uint8_t new_directory = 0;  // disks lost so far: the generation of its directory id (KIP-853)
  uint8_t cut = 0;            // cut off from every other voter
  // quorum-state file (QuorumStateStore): epoch, vote, known leader. Survives a crash.
  uint8_t epoch = 0;
  uint8_t voted_for = kNone;
  uint8_t leader = kNone;
  // In memory only.
  uint8_t role = 0;           // Role; meaningless while !alive
  uint8_t granted = 0;        // Candidate: voters that granted their vote (self included)
  uint8_t hw = 0;             // high watermark as this voter knows it
  // The log (flushed before a voter fetches again or a leader counts itself: durable).
  uint8_t leo = 0;
  Entry log[kMaxLog];
  // Leader: LeaderState.epochStartOffset and each voter's fetch offset (its end offset
  // as of its last valid fetch in this epoch; 0 = none yet).
  uint8_t epoch_start_offset = 0;
  uint8_t end_offset[kMaxVoters] = {};
  // Leader, only with voter changes (bounds.max_voter_changes > 0): LeaderState keeps one
  // ReplicaState per replica key, so the fetch offset of voter v's key with its
  // first-loss directory is kept apart from the original key's (end_offset), and which
  // keys (each voter's current one) have been caught up to the leader's end offset
  // (ReplicaState.lastCaughtUpTimestamp > 0, read by LeaderState.isReplicaCaughtUp).
  uint8_t end_offset_new[kMaxVoters] = {};
  VoterSet caught_up = 0;
  uint8_t pad_[1] = {};
};

// History for the properties, maintained by next_state.
struct History {
  VoterSet leaders[kMaxEpoch + 1] = {};  // voters elected leader in each epoch
  // The longest prefix any leader's HW ever covered, and per offset the epoch of the
  // leader that first committed it.
  Entry committed[kMaxLog];
  uint8_t committed_in[kMaxLog] = {};
  uint8_t committed_len = 0;
  uint8_t commit_conflict = 0;  // a leader's HW covered an entry differing from a committed one
};

struct FaultCounters {
  uint8_t crashes = 0;
  uint8_t disk_losses = 0;
  uint8_t cuts = 0;
  uint8_t lost_responses = 0;
  uint8_t appends = 0;
  uint8_t voter_changes = 0;  // AddVoter / RemoveVoter (bounds.max_voter_changes)
  uint8_t pad_[2] = {};
};

struct KraftState {
  Voter voters[kMaxVoters];
  History history;
  FaultCounters faults;
};

static_assert(std::is_trivially_copyable_v<KraftState>);
static_assert(std::has_unique_object_representations_v<KraftState>,
              "KraftState must have no padding: engines hash its bytes");

}  // namespace isr::spec::kraft
