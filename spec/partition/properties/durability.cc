// Durability: acknowledged records survive, and every replica that could become leader
// holds everything the leader has committed (below its high watermark).
#include "spec/partition/properties/predicates.h"

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "spec/common/state_words.h"
#include "spec/partition/queries.h"

namespace isr::properties {
namespace {

using namespace spec;

bool log_has(const ReplicaState& r, int record) {
  for (int i = 0; i < r.leo; ++i)
    if (r.log[i].record == record) return true;
  return false;
}

bool acked(const State& s, int record) {
  return s.producer.outcome[record - 1] == static_cast<uint8_t>(SendOutcome::Acked);
}

// Every member of `members` that could be handed leadership now holds the leader's log
// below the leader's HW. A crashed member is judged once it has restarted and registered
// again: only then can the controller elect it, and only then does KIP-966 get to drop
// it from the ELR for an unclean shutdown (in ZooKeeper mode with KIP-380: once the
// controller has handled the re-registration as a bounce).
bool members_hold_committed(const Config& c, const State& s, int leader, NodeSet members) {
  const ReplicaState& l = s.replicas[leader];
  for (int m = 0; m < c.replica_slots(); ++m) {
    if (m == leader || !contains(members, m)) continue;
    if (!s.nodes[m].alive || s.nodes[m].broker_epoch == 0) continue;
    // ZooKeeper mode: likewise until the controller has handled its bounce (KIP-380),
    // which takes it out of the ISR before any election can pick it.
    if (rules::bounce_pending(c, s, m)) continue;
    const ReplicaState& r = s.replicas[m];
    if (r.leo < l.hw) return false;
    for (int o = 0; o < l.hw; ++o)
      if (!(r.log[o] == l.log[o])) return false;
  }
  return true;
}

}  // namespace

bool no_acked_loss(const Config& c, const State& s) {
  // Judged on the acting leader: the log every consumer and every later follower gets.
  const int l = rules::active_leader(s);
  if (l < 0) return true;
  for (int k = 1; k <= c.bounds.max_records; ++k)
    if (acked(s, k) && !log_has(s.replicas[l], k)) return false;
  return true;
}

bool no_committed_loss_globally(const Config& c, const State& s) {
  for (int k = 1; k <= c.bounds.max_records; ++k) {
    if (!acked(s, k)) continue;
    bool somewhere = false;
    for (int r = 0; r < c.replica_slots() && !somewhere; ++r) somewhere = log_has(s.replicas[r], k);
    if (!somewhere) return false;
  }
  return true;
}

bool strong_isr(const Config& c, const State& s) {
  const int l = rules::active_leader(s);
  return l < 0 || members_hold_committed(c, s, l, s.controller.isr);
}

bool leader_completeness(const Config& c, const State& s) {
  const int l = rules::active_leader(s);
  if (l < 0) return true;
  NodeSet candidates = s.controller.isr | (c.eligible_leader_replicas ? s.controller.elr : 0);
  // Elections take candidates from the replicas only (PartitionChangeBuilder.electAnyLeader
  // streams targetReplicas): a replica a reassignment removed while the ISR was below min
  // ISR stays in the ELR (maybePopulateTargetElr starts from the old ISR) but cannot lead.
  candidates &= rules::assignment(c, s.controller);
  return members_hold_committed(c, s, l, candidates);
}

using nlohmann::json;

// --- explanations, for counterexamples: the trace's last state (state_to_json) -------

namespace {

// The controller's leader's node, or nullptr.
const json* leader_node(const json& state) {
  const json& leader = field(field(state, "controller"), "leader");
  return leader.is_null() ? nullptr : node_by_id(state, leader);
}

// The first offset of the leader's committed prefix (below its HW) at which `replica`
// lacks the leader's record; -1 when it holds them all.
long first_missing_committed(const json& leader_replica, const json& replica) {
  const std::vector<json> committed = records_of(leader_replica);
  const std::vector<json> held = records_of(replica);
  const json& hw = field(leader_replica, "hw");
  const long limit =
      hw.is_number_integer() ? std::min<long>(hw.get<long>(), static_cast<long>(committed.size())) : 0;
  for (long o = 0; o < limit; ++o)
    if (o >= static_cast<long>(held.size()) || held[o] != committed[o]) return o;
  return -1;
}

// The first member of the controller's `sets` (by name) that lacks a committed record.
std::string missing_committed(const json& state, const std::vector<const char*>& sets, const std::string& what) {
  const json* leader = leader_node(state);
  if (leader == nullptr) return {};
  const json& lr = field(*leader, "replica");
  const json& controller = field(state, "controller");
  for (const char* set : sets) {
    for (const json& id : set_members(field(controller, set))) {
      if (id == field(*leader, "id")) continue;
      const json* node = node_by_id(state, id);
      if (node == nullptr) continue;
      const long o = first_missing_committed(lr, field(*node, "replica"));
      if (o < 0) continue;
      return node_name(id) + " is in the " + (std::string(set) == "isr" ? "ISR " : "ELR ") +
             node_set_text(field(controller, set)) + what + " but lacks record " + compact(records_of(lr)[o]) +
             " at offset " + std::to_string(o) + ", below the leader " + node_name(field(*leader, "id")) +
             "'s high watermark " + compact(field(lr, "hw")) + " (its log " + log_text(field(*node, "replica")) + ")";
    }
  }
  return {};
}

}  // namespace

std::string explain_no_acked_loss(const json& state) {
  const json& controller = field(state, "controller");
  const json& leader = field(controller, "leader");
  if (leader.is_null()) return {};
  const json* node = node_by_id(state, leader);
  if (node == nullptr) return {};
  for (const std::string& record : acked_records(state)) {
    if (!holds_record(field(*node, "replica"), record)) {
      return "record " + record + " was acknowledged to the producer but is not in the log of " +
             "the leader " + node_name(leader) + " (leader epoch " +
             compact(field(controller, "leader_epoch")) + ", log " +
             log_text(field(*node, "replica")) + ")";
    }
  }
  return {};
}

std::string explain_no_committed_loss_globally(const json& state) {
  for (const std::string& record : acked_records(state)) {
    bool anywhere = false;
    for (const json& node : set_members(field(state, "nodes"))) {
      anywhere = anywhere || holds_record(field(node, "replica"), record);
    }
    if (!anywhere) {
      return "record " + record + " was acknowledged to the producer but is on no replica any more";
    }
  }
  return {};
}

std::string explain_strong_isr(const json& state) { return missing_committed(state, {"isr"}, ""); }

std::string explain_leader_completeness(const json& state) {
  return missing_committed(state, {"isr", "elr"}, ", so it may be elected leader,");
}

namespace {

std::string join_ints(const std::vector<int>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out;
}

}  // namespace

std::string observed_no_acked_loss(const ClientFacts& facts) {
  if (facts.acked_missing_on_leader.empty()) return {};
  return "the send of record(s) " + join_ints(facts.acked_missing_on_leader) +
         " completed successfully, yet the partition leader N" + std::to_string(facts.leader) +
         " does not hold them: a consumer reading the partition from offset 0 up to the high "
         "watermark never returns them, and kafka-dump-log.sh on the leader's active segment shows "
         "no batch with them";
}

std::string observed_no_committed_loss_globally(const ClientFacts& facts) {
  if (facts.acked_missing_everywhere.empty()) return {};
  return "the send of record(s) " + join_ints(facts.acked_missing_everywhere) +
         " completed successfully, yet no replica holds them any more (kafka-dump-log.sh on every "
         "broker's segment of the partition)";
}

}  // namespace isr::properties
