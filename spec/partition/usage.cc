// What a configuration switches on and a search may never use (usage.h).
#include "spec/partition/usage.h"

#include <algorithm>

namespace isr::spec {
namespace {

enum Bit : uint32_t {
  kUncleanElection,  // controller.unclean_elected: a leader from outside ISR and ELR
  kElr,              // a replica entered the ELR (KIP-966)
  kCrash,            // any node stop
  kLossyCrash,       // a power loss
  kDiskLoss,
  kCleanShutdown,
  kNetworkCut,
  kLostResponse,     // an acks=1 produce response lost
  kPause,
  kRetry,            // a producer retry
  kLeaderMove,       // a preferred-replica election
  kReassignment,     // an AlterPartitionReassignments (bounds.max_reassignments)
  kBitCount
};

constexpr std::string_view kNames[] = {"unclean-election", "elr",          "crash",         "lossy-crash",
                                       "disk-loss",        "clean-shutdown", "network-cut", "lost-produce-response",
                                       "pause",            "retry",        "leader-move",   "reassignment"};
static_assert(std::size(kNames) == kBitCount);

constexpr uint32_t bit(Bit b) { return uint32_t{1} << b; }

std::string raise(const char* key, int to) { return std::string("raise ") + key + " to " + std::to_string(to); }

}  // namespace

std::vector<std::string_view> usage_names() { return {std::begin(kNames), std::end(kNames)}; }

uint32_t usage_seen(const State& s) {
  uint32_t seen = 0;
  if (s.controller.unclean_elected != 0) seen |= bit(kUncleanElection);
  if (s.controller.elr != 0 || s.controller.last_known_elr != 0) seen |= bit(kElr);
  if (s.faults.crashes > 0) seen |= bit(kCrash);
  if (s.faults.lossy > 0) seen |= bit(kLossyCrash);
  if (s.faults.disk_losses > 0) seen |= bit(kDiskLoss);
  if (s.faults.clean_shutdowns > 0) seen |= bit(kCleanShutdown);
  if (s.faults.cuts > 0) seen |= bit(kNetworkCut);
  if (s.faults.lost_produce_responses > 0) seen |= bit(kLostResponse);
  if (s.faults.pauses > 0) seen |= bit(kPause);
  if (s.producer.retries > 0) seen |= bit(kRetry);
  if (s.faults.leader_moves > 0) seen |= bit(kLeaderMove);
  if (s.faults.reassignments > 0) seen |= bit(kReassignment);
  return seen;
}

std::vector<UnusedSwitch> unused_switches(const Config& c, uint32_t used) {
  std::vector<UnusedSwitch> out;
  auto unused = [&](Bit b) { return (used & bit(b)) == 0; };
  const int rf = c.replication_factor;
  const int crashes = c.faults.max_crashes;
  // A node stop of any kind comes out of faults.max_crashes: a sub-budget needs it too.
  const std::string more_crashes = raise("faults.max_crashes", std::max(crashes, 0) + 1);

  // unclean.leader.election.enable and Admin.electLeaders(ElectionType.UNCLEAN) elect a
  // replica outside ISR and ELR (PartitionChangeBuilder.electAnyLeader, ElectionResult.unclean;
  // controller.cc): every ISR and ELR member must be down while another replica lives, so
  // all replicas but one stopped. Measured: the default configuration with
  // unclean_leader_election=true and faults.max_crashes=2 reaches one (docs/checker.md).
  if ((c.unclean_leader_election || c.admin_unclean_election) && unused(kUncleanElection)) {
    const int needed = std::max(rf - 1, crashes + 1);
    out.push_back({c.unclean_leader_election ? "unclean_leader_election=true" : "admin_unclean_election=true",
                   "no unclean election happened: it needs every ISR (and ELR) member down while another replica "
                   "is alive",
                   raise("faults.max_crashes", needed) + (c.eligible_leader_replicas
                                                              ? " (or set eligible_leader_replicas=false: KIP-966 "
                                                                "keeps the last ISR members eligible)"
                                                              : "")});
  }
  // KIP-966: a replica enters the ELR when fencing takes the ISR below
  // min.insync.replicas (PartitionChangeBuilder.maybePopulateTargetElr): rf - min_isr + 1 stops.
  if (c.eligible_leader_replicas && unused(kElr)) {
    out.push_back({"eligible_leader_replicas=true",
                   "no replica entered the ELR, so no election chose from it: the ISR never shrank below "
                   "min_insync_replicas",
                   raise("faults.max_crashes", std::max(rf - c.min_insync_replicas + 1, crashes + 1))});
  }
  struct Budget {
    const char* key;
    int value;
    Bit b;
    const char* never;
    std::string enable;
  };
  // The hints below follow from the budgets' definitions (config.h: the stops of every
  // kind come out of max_crashes; only acks=1 responses are lost; a retry follows a
  // timeout; a preferred election needs the leadership moved by a failure first). Where
  // none follows, `enable` stays empty rather than guessed.
  const std::string stop_needed = crashes <= 0 ? more_crashes : std::string();
  const Budget budgets[] = {
      {"faults.max_lossy_crashes", c.faults.max_lossy_crashes, kLossyCrash, "no power loss happened", stop_needed},
      {"faults.max_disk_losses", c.faults.max_disk_losses, kDiskLoss, "no disk was lost", stop_needed},
      {"faults.max_clean_shutdowns", c.faults.max_clean_shutdowns, kCleanShutdown, "no controlled shutdown happened",
       stop_needed},
      {"faults.max_crashes", crashes, kCrash, "no node stopped", ""},
      {"faults.max_network_cuts", c.faults.max_network_cuts, kNetworkCut, "no network cut happened", ""},
      {"faults.max_lost_produce_responses", c.faults.max_lost_produce_responses, kLostResponse,
       "no produce response was lost", c.acks == Acks::One ? std::string() : std::string("set acks=1")},
      {"faults.max_pauses", c.faults.max_pauses, kPause, "no process was paused", ""},
      {"bounds.max_retries", c.bounds.max_retries, kRetry, "the producer never retried (a retry follows a timeout)",
       c.acks == Acks::One && c.faults.max_lost_produce_responses <= 0 ? raise("faults.max_lost_produce_responses", 1)
       : crashes <= 0                                                  ? raise("faults.max_crashes", 1)
                                                                       : std::string()},
      {"bounds.max_leader_moves", c.bounds.max_leader_moves, kLeaderMove, "no preferred-replica election happened",
       crashes <= 0 ? raise("faults.max_crashes", 1) : std::string()},
      // A reassignment needs only the controller quorum; an epoch bound may stop it
      // (the change it commits bumps the partition epoch), which no single hint covers.
      {"bounds.max_reassignments", c.bounds.max_reassignments, kReassignment, "no reassignment was submitted", ""},
  };
  for (const Budget& b : budgets) {
    if (b.value > 0 && unused(b.b)) {
      out.push_back({std::string(b.key) + "=" + std::to_string(b.value), b.never, b.enable});
    }
  }
  return out;
}

}  // namespace isr::spec
