// What a composed-model configuration switches on and a search may never use
// (cluster_usage.h).
#include "spec/cluster/cluster_usage.h"

#include <string>

#include "spec/partition/usage.h"

namespace isr::spec::cluster {
namespace {

// The quorum's bits come after the partition model's.
uint32_t quorum_bit(int i) { return uint32_t{1} << (spec::usage_names().size() + static_cast<size_t>(i)); }
constexpr int kLostResponse = 0;  // a KRaft Fetch response lost (s.quorum.faults.lost_responses)
constexpr int kRecord = 1;        // a decision appended as a metadata record (s.quorum.faults.appends)
constexpr int kVoterChange = 2;   // a VotersRecord appended (s.quorum.faults.voter_changes, KIP-853)

}  // namespace

std::vector<std::string_view> usage_names() {
  std::vector<std::string_view> names = spec::usage_names();
  names.push_back("kraft-lost-fetch-response");
  names.push_back("metadata-record");
  names.push_back("kraft-voter-change");
  return names;
}

uint32_t usage_seen(const ClusterState& s) {
  uint32_t seen = spec::usage_seen(s.partition);
  if (s.quorum.faults.lost_responses > 0) seen |= quorum_bit(kLostResponse);
  if (s.quorum.faults.appends > 0) seen |= quorum_bit(kRecord);
  if (s.quorum.faults.voter_changes > 0) seen |= quorum_bit(kVoterChange);
  return seen;
}

std::vector<UnusedSwitch> unused_switches(const ClusterConfig& c, uint32_t used) {
  const uint32_t partition_bits = quorum_bit(0) - 1;
  std::vector<UnusedSwitch> out = spec::unused_switches(c.partition, used & partition_bits);
  // KafkaRaftClient.handleFetchResponse never runs for a lost response; the budget acts
  // only once a KRaft leader is fetched from.
  const int lost = c.quorum.faults.max_lost_responses;
  if (lost > 0 && (used & quorum_bit(kLostResponse)) == 0) {
    out.push_back({"kraft.max_lost_responses=" + std::to_string(lost), "no KRaft Fetch response was lost", ""});
  }
  // QuorumController writes a decision (a PartitionChangeRecord, a RegisterBrokerRecord)
  // to the metadata log only when a broker event calls for one; which event first does
  // depends on the whole configuration, so no single change is named.
  if (c.max_records > 0 && (used & quorum_bit(kRecord)) == 0) {
    out.push_back({"kraft.max_records=" + std::to_string(c.max_records),
                   "no controller decision was appended to the metadata log", ""});
  }
  // AddVoter / RemoveVoter wait for a KRaft leader whose HW is known (kraft_voters.cc).
  const int changes = c.quorum.bounds.max_voter_changes;
  if (changes > 0 && (used & quorum_bit(kVoterChange)) == 0) {
    out.push_back({"kraft.max_voter_changes=" + std::to_string(changes), "no KRaft leader appended a VotersRecord",
                   c.quorum.fixes.directory_ids ? std::string() : std::string("set fixes.directory_ids=true")});
  }
  return out;
}

}  // namespace isr::spec::cluster
