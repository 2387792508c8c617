// The configuration of the KRaft controller quorum model (spec/kraft/): the voters, the
// fixes under test, the fault budgets and the exploration bounds.
//
// Its JSON keys are its own (`isrcheck describe --model kraft` prints them all); they
// are parsed strictly like the partition model's, and invalid input raises
// spec::ConfigError naming the dotted field and what is allowed (exit code 2).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/config_error.h"

namespace isr::spec {
// The models' one bad-input error (io/config_error.h), as spec::ConfigError.
using io::ConfigError;
}  // namespace isr::spec

namespace isr::spec::kraft {

// Hard capacity of the compact state (kraft_state.h).
inline constexpr int kMaxVoters = 5;
inline constexpr int kMaxLog = 8;    // metadata log entries per voter
inline constexpr int kMaxEpoch = 7;  // quorum epochs 0..kMaxEpoch

// One toggle per protocol rule whose absence is a known hazard.
struct Fixes {
  // QuorumState.transitionToVoted / transitionToCandidate write the vote to the
  // quorum-state file before the Vote response is sent; off: a restarted voter forgets
  // whom it voted for in its epoch and may vote twice (two leaders in one epoch).
  bool persist_vote = true;
  // LeaderState.maybeUpdateHighWatermark only advances the HW past the leader's
  // epochStartOffset (an entry of its own epoch is committed first); off: the leader may
  // commit an older epoch's entry by counting replicas (Raft's figure 8).
  bool hw_own_epoch = true;
  // KIP-853: voters are (id, directory id); a voter restarting with an empty disk has a
  // new directory id and is an observer, neither voting nor counted for the HW; off:
  // pre-KIP-853, it is counted as the old voter although it lost its log and its vote.
  bool directory_ids = true;
  // KIP-853: AddVoterHandler / RemoveVoterHandler answer REQUEST_TIMED_OUT while the
  // last VotersRecord is not committed (at most one voter change in flight); off: a
  // leader appends a second VotersRecord while the first is uncommitted.
  bool one_voter_change = true;
};

struct FaultBudget {
  int max_crashes = 1;        // process stops (the disk survives: log and quorum-state file)
  int max_disk_losses = 0;    // of which: the disk is lost (empty log, new directory id)
  int max_network_cuts = 0;   // a voter cut off from every other voter (heals are free)
  int max_lost_responses = 0; // Fetch responses lost after the leader handled the request
};

struct Bounds {
  int max_epoch = 3;    // no candidate beyond this quorum epoch
  int max_appends = 0;  // metadata records appended by leaders over the run (besides the
                        // LeaderChange control record each new leader appends)
  int max_voter_changes = 0;  // AddVoter / RemoveVoter requests an operator (or a
                              // KIP-853 auto-join) makes over the run; each appends a
                              // VotersRecord. 0: the voter set is the bootstrap set.
};

struct KraftConfig {
  int voters = 3;
  Fixes fixes{};
  FaultBudget faults{};
  Bounds bounds{};
  std::vector<std::string> properties;  // resolved: never empty

  int majority() const { return voters / 2 + 1; }
};

// One fix: its key under "fixes", a description, and its toggle.
struct KraftFixInfo {
  std::string_view name;
  std::string_view description;
  bool Fixes::*toggle;
};
const std::vector<KraftFixInfo>& all_fixes();

// Defaults, then the JSON document (may be null), then each dotted `key=value`.
// Validates and resolves the property list. Throws spec::ConfigError.
KraftConfig load_config(const nlohmann::json* document, const std::vector<std::string>& overrides);

KraftConfig default_config();

// Every key, as `describe --model kraft` prints it (and traces record it).
nlohmann::json to_json(const KraftConfig& c);

}  // namespace isr::spec::kraft
