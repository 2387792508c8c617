// The leader's high-watermark rule and the delayed produce requests it completes
// (Partition.maybeIncrementLeaderHW, DelayedProduce.tryComplete): called when a
// follower's fetch offset moves (replication.cc), when the ISR changes (isr.cc), when
// the leader appends (produce.cc) and when a broker becomes leader (controller.cc).
#include <algorithm>

#include "spec/partition/rules.h"

namespace isr::spec::rules {

void maybe_increment_hw(const Config& c, State& s, int leader) {
  ReplicaState& l = s.replicas[leader];
  if (!believes_leader(s, leader)) return;
  const NodeSet isr = maximal_isr(c, l);
  // KAFKA-15583 (3.7, KIP-966 part 1): Partition.maybeIncrementLeaderHW returns at once
  // while isUnderMinIsr (the committed ISR, not the maximal one, below min ISR), with or
  // without ELR, so that every replica that leaves the ISR below min ISR (into the ELR)
  // holds the whole HW prefix.
  if (c.fixes.hw_frozen_below_min_isr && size(l.view_isr) < c.min_insync_replicas) return;
  // Partition.maybeIncrementLeaderHW: the new HW is the smallest LEO among the (maximal)
  // ISR, as the leader knows them from the followers' fetch offsets.
  int hw = l.leo;
  for (int f = 0; f < c.replica_slots(); ++f) {
    if (f == leader || !contains(isr, f)) continue;
    // What the leader knows may predate its current epoch: Partition.makeLeader keeps
    // it when the broker was already leader (controller.cc, reset_follower_state).
    hw = std::min(hw, static_cast<int>(l.fetch_offset[f]));
  }
  if (hw > l.hw) {
    l.hw = static_cast<uint8_t>(hw);
    complete_delayed_produce(c, s, leader);
  }
}

void complete_delayed_produce(const Config& c, State& s, int leader) {
  ProducerState& p = s.producer;
  if (p.current == 0 || p.inflight_leader != leader) return;
  uint8_t& outcome = p.outcome[p.current - 1];
  if (outcome != static_cast<uint8_t>(SendOutcome::InFlight)) return;
  const ReplicaState& l = s.replicas[leader];
  if (l.hw < p.inflight_offset) return;
  // Partition.checkEnoughReplicasReachOffset: the HW passed the batch, but the answer is
  // NOT_ENOUGH_REPLICAS_AFTER_APPEND if the ISR shrank below min ISR meanwhile.
  if (size(maximal_isr(c, l)) < c.min_insync_replicas) {
    answer_retriable(c, s, SendOutcome::NotEnoughReplicasAfterAppend);
    return;
  }
  outcome = static_cast<uint8_t>(SendOutcome::Acked);
  p.inflight_leader = kNoNode;
  p.inflight_offset = 0;
}

}  // namespace isr::spec::rules
