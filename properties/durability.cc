// Durability: acknowledged records survive, and every replica that could become leader
// holds everything the leader has committed (below its high watermark).
#include "properties/predicates.h"
#include "spec/queries.h"

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
  for (int m = 0; m < c.replication_factor; ++m) {
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
    for (int r = 0; r < c.replication_factor && !somewhere; ++r) somewhere = log_has(s.replicas[r], k);
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
  const NodeSet candidates = s.controller.isr | (c.eligible_leader_replicas ? s.controller.elr : 0);
  return members_hold_committed(c, s, l, candidates);
}

}  // namespace isr::properties
