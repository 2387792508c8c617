// The mechanism signature of `check --continue --classes` for the partition model: what
// happened, in Kafka's terms, on the shortest path to a violating state, with brokers
// renamed away (docs/research.md, "Mechanism signatures").
//
// Each step of a path contributes the events a Kafka engineer reads off a postmortem, at
// most three per step, in this order:
//   fault      a broker stopped (clean shutdown, kill -9, power failure losing the
//              unflushed suffix, disk loss), was cut off (from the quorum, the other
//              brokers, the clients), paused, or lost its ZooKeeper session;
//   election   the controller's leader changed (PartitionChangeBuilder.electLeader):
//              from the ISR, from the ELR (KIP-966), uncleanly (ElectionResult.unclean),
//              a preferred-replica move, or no leader at all (offline);
//   truncation a replica's log lost entries or had them replaced, other than by its own
//              fault (OffsetsForLeaderEpoch, KIP-101/279; HW truncation before 0.11);
//   ISR change a broker left or rejoined the ISR, entered or left the ELR (AlterPartition,
//              KIP-497; KIP-966).
// Fetches, produces, acks, metadata propagation, flushes and checkpoints are the
// ordinary traffic between these events and are not part of a signature. The class key
// renames brokers A, B, C... in order of first appearance, so two violations that differ
// only in which broker played which part are one class.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "checker/path_labeler.h"
#include "spec/partition/partition_model.h"

namespace isr::analysis {

class MechanismLabeler : public checker::PathLabeler<spec::PartitionModel> {
 public:
  explicit MechanismLabeler(const spec::PartitionModel& model) : model_(model) {}

  uint32_t step(const State& parent, const Action& action, const State& child) const override;
  // Acknowledged records the state has lost: not in the acting leader's log, or, with no
  // acting leader, on no replica.
  uint32_t measure(const State& state) const override;
  // "Power(A) > Elect-unclean(B) > Truncate(A)".
  std::string class_key(const std::vector<uint32_t>& signature) const override;

 private:
  const spec::PartitionModel& model_;
};

// The signature in one line of Kafka's words ("broker A lost power and its unflushed
// writes; then the controller elected B although it was in neither ISR nor ELR
// (unclean election); ...").
std::string mechanism_explanation(const std::vector<uint32_t>& signature);

}  // namespace isr::analysis
