// Internal to spec/kraft/: the helpers the rule files share and the per-concern entry
// points kraft_model.cc dispatches to. Not part of the public model API.
//
// Each `*_actions` function appends its concern's enabled actions in a fixed order; each
// `apply_*` performs one action in place.
#pragma once

#include <array>
#include <cstdint>

#include "spec/kraft/kraft_config.h"
#include "spec/kraft/kraft_model.h"
#include "spec/kraft/kraft_state.h"

namespace isr::spec::kraft::rules {

// Collects enabled actions into the caller's fixed buffer (no allocation).
using ActionList = spec::ActionList<KraftAction, kMaxKraftActions>;

// --- shared facts -----------------------------------------------------------------------

// A voter set (KIP-853 VoterSet) and the log offset of the VotersRecord that declared it.
struct Voters {
  VoterSet members;  // voter ids
  VoterSet dirs;     // per member, the directory generation its key names (Entry::dirs)
  int offset;        // -1: the bootstrap set (committed before the log's first offset)
};
// KRaftControlRecordStateMachine.lastVoterSet: the last VotersRecord in the replica's
// log, committed or not (KIP-853: a replica uses the latest set it has appended), else
// the bootstrap set, every configured voter with its original directory.
Voters latest_voters(const KraftConfig& c, const Voter& v);
// VoterSet.isVoter(ReplicaKey): replica `id` with directory generation `generation` is a
// member; without directory ids (fixes.directory_ids off, pre-KIP-853) ids alone count.
bool in_voter_set(const KraftConfig& c, const Voters& set, int id, int generation);
// The size of a majority of the set (LeaderState, CandidateState: size / 2 + 1).
inline int majority(const Voters& set) { return count(set.members) / 2 + 1; }
// Whether leaders keep what only AddVoter reads (observers' fetch offsets, caught-up
// keys): only when a voter change can happen, so that other configurations keep their
// state counts. Static quorums (fixes.directory_ids off) refuse every change.
inline bool tracks_observers(const KraftConfig& c) { return c.bounds.max_voter_changes > 0 && c.fixes.directory_ids; }
// Whether replica `id` is a voter in its own latest voter set (QuorumState.isVoter);
// otherwise an observer: a voter back on an empty disk (new directory id) or one removed.
bool is_voter(const KraftConfig& c, const KraftState& s, int id);
// Whether a and b can exchange requests: both alive, neither cut off.
bool connected(const KraftState& s, int a, int b);
// The epoch of the last entry, 0 when the log is empty (ReplicatedLog.lastFetchedEpoch).
int last_epoch(const Voter& v);
// ReplicatedLog.endOffsetForEpoch: the end offset of the largest epoch <= `epoch` in the
// log, with that epoch; (0, 0) when there is none.
struct OffsetAndEpoch {
  int offset;
  int epoch;
};
OffsetAndEpoch end_offset_for_epoch(const Voter& v, int epoch);
// Moves a voter to a higher epoch with no vote and no leader (QuorumState.transitionToUnattached).
void become_unattached(Voter& v, int epoch);
// QuorumState.transitionToFollower: follows `leader` in `epoch`.
void become_follower(Voter& v, int epoch, int leader);
// The leader appends one entry of its epoch and updates its own end offset; with
// `members` != 0 the entry is a VotersRecord (Entry::members, Entry::dirs).
void leader_append(const KraftConfig& c, KraftState& s, int leader, uint8_t members = 0, uint8_t dirs = 0);

// Relabels every voter reference of `s` by `perm` (old id -> new id) into `t`
// (kraft_symmetry.cc; the composed model's symmetry reuses it).
void relabel_voters(int voters, const std::array<uint8_t, kMaxVoters>& perm, const KraftState& s, KraftState& t);
// A hash of the label-free facts about voter v (kraft_symmetry.cc): equal for a voter and
// its image under any relabelling.
uint64_t voter_signature(int voters, const KraftState& s, int v);

// --- per concern ------------------------------------------------------------------------

void election_actions(const KraftConfig& c, const KraftState& s, ActionList& list);
void replication_actions(const KraftConfig& c, const KraftState& s, ActionList& list);
void fault_actions(const KraftConfig& c, const KraftState& s, ActionList& list);
void voter_change_actions(const KraftConfig& c, const KraftState& s, ActionList& list);

void apply_timeout(const KraftConfig& c, KraftState& s, const KraftAction& a);
void apply_vote(const KraftConfig& c, KraftState& s, const KraftAction& a);
void apply_begin_epoch(const KraftConfig& c, KraftState& s, const KraftAction& a);
void apply_resign(const KraftConfig& c, KraftState& s, const KraftAction& a);
void apply_fetch(const KraftConfig& c, KraftState& s, const KraftAction& a);
void apply_append(const KraftConfig& c, KraftState& s, const KraftAction& a);
void apply_crash(const KraftConfig& c, KraftState& s, const KraftAction& a);
void apply_restart(const KraftConfig& c, KraftState& s, const KraftAction& a);
void apply_cut(const KraftConfig& c, KraftState& s, const KraftAction& a);
void apply_heal(const KraftConfig& c, KraftState& s, const KraftAction& a);
void apply_add_voter(const KraftConfig& c, KraftState& s, const KraftAction& a);
void apply_remove_voter(const KraftConfig& c, KraftState& s, const KraftAction& a);

// LeaderState.maybeUpdateHighWatermark, then records what became committed (history).
void maybe_update_hw(const KraftConfig& c, KraftState& s, int leader);

}  // namespace isr::spec::kraft::rules
