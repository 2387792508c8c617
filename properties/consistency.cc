// Consistency: what consumers read stays, replicas agree below their high watermarks,
// one leader per epoch, no duplicate records with idempotence, and a leader's HW never
// moves backwards within its epoch.
#include <algorithm>

#include "properties/predicates.h"
#include "spec/queries.h"

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
  for (int a = 0; a < c.replication_factor; ++a) {
    if (!hw_is_claim(s, a)) continue;
    for (int b = a + 1; b < c.replication_factor; ++b) {
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
  for (int a = 0; a < c.replication_factor; ++a) {
    if (!rules::believes_leader(s, a)) continue;
    for (int b = a + 1; b < c.replication_factor; ++b) {
      if (rules::believes_leader(s, b) &&
          s.replicas[a].view_leader_epoch == s.replicas[b].view_leader_epoch) {
        return false;
      }
    }
  }
  return true;
}

bool no_duplicates(const Config& c, const State& s) {
  for (int r = 0; r < c.replication_factor; ++r) {
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

}  // namespace isr::properties
