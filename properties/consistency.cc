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

bool log_matching(const Config& c, const State& s) {
  for (int a = 0; a < c.replication_factor; ++a) {
    for (int b = a + 1; b < c.replication_factor; ++b) {
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
