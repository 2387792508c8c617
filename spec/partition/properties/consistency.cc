// Consistency: what consumers read stays, replicas agree below their high watermarks,
// one leader per epoch, no duplicate records with idempotence, and a leader's HW never
// moves backwards within its epoch.
#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "spec/common/state_words.h"
#include "spec/partition/properties/predicates.h"
#include "spec/partition/queries.h"

namespace isr::properties {

using namespace spec;

bool consistent_read(const Config&, const State& s) {
  const int l = rules::active_leader(s);
  if (l < 0) return true;
  const ReplicaState& r = s.replicas[l];
  for (int o = 0; o < s.consumer.position; ++o)
    if (o >= r.leo || r.log[o].record != s.consumer.read[o]) return false;
  return true;
}

namespace {

// Whether replica `r`'s high watermark is a claim about the partition's stable prefix.
// The public TLA+ specifications state log matching over running brokers' HWs
// (Vanlightly/kafka-tlaplus, kafka_data_replication/kraft/v3.5/v3_5_properties.tla,
// LogMatchingProperty: for every pair of brokers, the records below both HWMs agree;
// an unclean shutdown resets a broker's log and HWM, and a follower's HWM is only ever
// set from a fetch response), and judge a replica's view only while it is not stale
// (IsNonStaleLeader in the same file: its leader epoch is the controller's;
// hachikuji/kafka-specification KafkaReplication.tla judges WeakIsr/StrongIsr only at
// replicas presuming leadership). In Kafka a stopped broker has no HW (the checkpoint
// is a file read at startup), and a restarted or stale one holds an old HW only until it
// has replayed the current leader epoch and reconciled its log with the leader
// (Partition.makeFollower, then the fetcher's OffsetsForLeaderEpoch truncation, KIP-101).
// So a replica is judged once it is alive, registered in this incarnation, follows the
// controller's leader epoch and has no truncation pending. A divergence that matters
// outlives that wait: before KIP-101 a new follower truncates to its own HW at once,
// keeping a divergent prefix below it, and is judged from then on.
bool hw_is_claim(const State& s, int r) {
  const ReplicaState& rep = s.replicas[r];
  return s.nodes[r].alive && s.nodes[r].broker_epoch != 0 && rep.view_valid &&
         rep.view_leader_epoch == s.controller.leader_epoch && !rep.needs_truncation;
}

}  // namespace

bool log_matching(const Config& c, const State& s) {
  for (int a = 0; a < c.replica_slots(); ++a) {
    if (!hw_is_claim(s, a)) continue;
    for (int b = a + 1; b < c.replica_slots(); ++b) {
      if (!hw_is_claim(s, b)) continue;
      const ReplicaState& x = s.replicas[a];
      const ReplicaState& y = s.replicas[b];
      const int below = std::min(x.hw, y.hw);
      for (int o = 0; o < below; ++o)
        if (!(x.log[o] == y.log[o])) return false;
    }
  }
  return true;
}

bool single_leader_per_epoch(const Config& c, const State& s) {
  for (int a = 0; a < c.replica_slots(); ++a) {
    if (!rules::believes_leader(s, a)) continue;
    for (int b = a + 1; b < c.replica_slots(); ++b) {
      if (rules::believes_leader(s, b) &&
          s.replicas[a].view_leader_epoch == s.replicas[b].view_leader_epoch) {
        return false;
      }
    }
  }
  return true;
}

bool no_duplicates(const Config& c, const State& s) {
  for (int r = 0; r < c.replica_slots(); ++r) {
    const ReplicaState& rep = s.replicas[r];
    uint32_t seen = 0;
    for (int i = 0; i < rep.leo; ++i) {
      const uint32_t mask = 1u << rep.log[i].record;
      if (seen & mask) return false;
      seen |= mask;
    }
  }
  return true;
}

bool hw_monotonic(const Config&, const State& s) { return s.history.hw_regressed == 0; }

// --- explanations, for counterexamples: the trace's last state (state_to_json) -------

using nlohmann::json;

std::string explain_consistent_read(const json& state) {
  const json& leader = field(field(state, "controller"), "leader");
  const json* node = leader.is_null() ? nullptr : node_by_id(state, leader);
  if (node == nullptr) return {};
  const std::vector<json> records = records_of(field(*node, "replica"));
  const json& read = field(field(state, "consumer"), "read");
  for (size_t offset = 0; read.is_array() && offset < read.size(); ++offset) {
    if (offset >= records.size()) {
      return "the consumer read record " + compact(read[offset]) + " at offset " +
             std::to_string(offset) + ", but the leader " + node_name(leader) +
             "'s log no longer reaches that offset";
    }
    if (records[offset] != read[offset]) {
      return "the consumer read record " + compact(read[offset]) + " at offset " +
             std::to_string(offset) + ", but the leader " + node_name(leader) + " now has record " +
             compact(records[offset]) + " there";
    }
  }
  return {};
}

std::string explain_single_leader_per_epoch(const json& state) {
  std::vector<std::pair<json, json>> leaders;  // (node, epoch)
  for (const json& node : set_members(field(state, "nodes"))) {
    const json& replica = field(node, "replica");
    if (field(replica, "role") == "leader" && field(node, "alive") != false) {
      leaders.emplace_back(field(node, "id"), field(field(replica, "view"), "leader_epoch"));
    }
  }
  for (size_t i = 0; i < leaders.size(); ++i) {
    for (size_t j = i + 1; j < leaders.size(); ++j) {
      if (leaders[i].second == leaders[j].second) {
        return node_name(leaders[i].first) + " and " + node_name(leaders[j].first) +
               " both act as leader in leader epoch " + compact(leaders[i].second);
      }
    }
  }
  return {};
}

std::string explain_log_matching(const json& state) {
  const json& epoch = field(field(state, "controller"), "leader_epoch");
  std::vector<const json*> current;  // running replicas in the current leader epoch
  for (const json& node : field(state, "nodes")) {
    const json& r = field(node, "replica");
    if (field(node, "alive") != false && !r.is_null() && field(field(r, "view"), "leader_epoch") == epoch)
      current.push_back(&node);
  }
  for (size_t i = 0; i < current.size(); ++i) {
    for (size_t j = i + 1; j < current.size(); ++j) {
      const json& a = field(*current[i], "replica");
      const json& b = field(*current[j], "replica");
      const json& la = field(a, "log");
      const json& lb = field(b, "log");
      const json& ha = field(a, "hw");
      const json& hb = field(b, "hw");
      if (!la.is_array() || !lb.is_array() || !ha.is_number_integer() || !hb.is_number_integer()) continue;
      const size_t limit = std::min({ha.get<size_t>(), hb.get<size_t>(), la.size(), lb.size()});
      for (size_t o = 0; o < limit; ++o) {
        if (la[o] == lb[o]) continue;
        return node_name(field(*current[i], "id")) + " and " + node_name(field(*current[j], "id")) +
               " both follow leader epoch " + compact(epoch) + " yet hold different entries at offset " +
               std::to_string(o) + ", below both high watermarks: " + entry_text(la[o]) + " vs " +
               entry_text(lb[o]) + " (one kept an entry that log truncation after the leader change should have "
               "removed)";
      }
    }
  }
  return {};
}

std::string explain_no_duplicates(const json& state) {
  for (const json& node : set_members(field(state, "nodes"))) {
    const std::vector<json> records = records_of(field(node, "replica"));
    for (size_t i = 0; i < records.size(); ++i)
      for (size_t j = i + 1; j < records.size(); ++j)
        if (records[i] == records[j])
          return "record " + compact(records[i]) + " is twice in " + node_name(field(node, "id")) +
                 "'s log (offsets " + std::to_string(i) + " and " + std::to_string(j) +
                 "): the producer retried a send whose first attempt had been appended, and the broker "
                 "appended the retry too";
  }
  return {};
}

std::string explain_hw_monotonic(const json& state) {
  if (field(field(state, "history"), "hw_regressed") != true) return {};
  const json& controller = field(state, "controller");
  return "the leader " + node_name(field(controller, "leader")) +
         "'s high watermark went backwards within leader epoch " + compact(field(controller, "leader_epoch")) +
         ": a consumer may already have read records below the old high watermark";
}

std::string observed_consistent_read(const ClientFacts&) {
  return "a record the consumer read earlier is no longer at its offset: consuming the same offset "
         "again from the current leader returns another record or nothing";
}

}  // namespace isr::properties
