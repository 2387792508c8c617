// What a KRaft quorum configuration switches on and a search may never use (kraft_usage.h).
#include "spec/kraft/kraft_usage.h"

#include <algorithm>
#include <string>

namespace isr::spec::kraft {
namespace {

enum Bit : uint32_t {
  kCrash,         // a voter stopped (faults.crashes)
  kDiskLoss,      // of which with its disk lost
  kNetworkCut,
  kLostResponse,  // a Fetch response lost after the leader handled the request
  kAppend,        // a leader appended a metadata record (bounds.max_appends)
  kNewDirectory,  // a voter is back on an empty disk with a new directory id (KIP-853)
  kVoterChange,   // a leader appended a VotersRecord (bounds.max_voter_changes)
  kBitCount
};

constexpr std::string_view kNames[] = {"crash",         "disk-loss", "network-cut", "lost-fetch-response",
                                       "metadata-append", "new-directory", "voter-change"};
static_assert(std::size(kNames) == kBitCount);

constexpr uint32_t bit(Bit b) { return uint32_t{1} << b; }

}  // namespace

std::vector<std::string_view> usage_names() { return {std::begin(kNames), std::end(kNames)}; }

uint32_t usage_seen(const KraftState& s) {
  uint32_t seen = 0;
  if (s.faults.crashes > 0) seen |= bit(kCrash);
  if (s.faults.disk_losses > 0) seen |= bit(kDiskLoss);
  if (s.faults.cuts > 0) seen |= bit(kNetworkCut);
  if (s.faults.lost_responses > 0) seen |= bit(kLostResponse);
  if (s.faults.appends > 0) seen |= bit(kAppend);
  if (s.faults.voter_changes > 0) seen |= bit(kVoterChange);
  for (const Voter& v : s.voters) {
    if (v.new_directory != 0) seen |= bit(kNewDirectory);
  }
  return seen;
}

std::vector<UnusedSwitch> unused_switches(const KraftConfig& c, uint32_t used) {
  std::vector<UnusedSwitch> out;
  auto unused = [&](Bit b) { return (used & bit(b)) == 0; };
  // A disk loss is a kind of stop: it spends faults.max_crashes too (kraft_faults.cc).
  const std::string stop_needed =
      c.faults.max_crashes <= 0 ? std::string("raise faults.max_crashes to 1") : std::string();
  struct Budget {
    const char* key;
    int value;
    Bit b;
    const char* never;
    std::string enable;
  };
  const Budget budgets[] = {
      {"faults.max_crashes", c.faults.max_crashes, kCrash, "no voter stopped", ""},
      {"faults.max_disk_losses", c.faults.max_disk_losses, kDiskLoss, "no voter lost its disk", stop_needed},
      {"faults.max_network_cuts", c.faults.max_network_cuts, kNetworkCut, "no voter was cut off", ""},
      // KafkaRaftClient.handleFetchResponse never runs for a lost response; a Fetch needs a
      // leader, elected within bounds.max_epoch.
      {"faults.max_lost_responses", c.faults.max_lost_responses, kLostResponse, "no Fetch response was lost", ""},
      {"bounds.max_appends", c.bounds.max_appends, kAppend, "no leader appended a metadata record", ""},
      // AddVoter / RemoveVoter need a leader whose HW is known (kraft_voters.cc) and,
      // for a static quorum (fixes.directory_ids off), are refused.
      {"bounds.max_voter_changes", c.bounds.max_voter_changes, kVoterChange, "no leader appended a VotersRecord",
       c.fixes.directory_ids ? std::string() : std::string("set fixes.directory_ids=true (kraft.version 1)")},
  };
  for (const Budget& b : budgets) {
    if (b.value > 0 && unused(b.b)) out.push_back({std::string(b.key) + "=" + std::to_string(b.value), b.never, b.enable});
  }
  // KIP-853: directory ids tell a voter back on an empty disk from the one that voted
  // (ReplicaKey's directory id); without a disk loss no voter gets a new one, so turning
  // the fix off changes nothing.
  if (!c.fixes.directory_ids && unused(kNewDirectory)) {
    out.push_back({"fixes.directory_ids=false",
                   "no voter came back on an empty disk, the only case where directory ids matter",
                   c.faults.max_disk_losses <= 0 ? std::string("raise faults.max_disk_losses to 1") +
                                                       (c.faults.max_crashes <= 0 ? " and faults.max_crashes to 1" : "")
                                                 : std::string()});
  }
  return out;
}

}  // namespace isr::spec::kraft
