// The compact state of the composed model (`--model cluster`): the partition model's
// state, the KRaft quorum's state, and the metadata records the quorum's log entries
// carry (the partition-controller decisions).
//
// A plain value of fixed size with no padding and no pointers (engines hash its bytes).
// `partition.controller` is the metadata image brokers see: the image at the end of the
// committed metadata log (with fixes.apply_after_commit off: the image a leader last
// appended). Each voter's log entry carries a record id in `payload`; the records
// themselves (the image after each decision, like a PartitionChangeRecord applied to
// the previous image) live in a small table, numbered in order of first appearance so
// that equal logs give equal bytes.
#pragma once

#include <cstdint>
#include <type_traits>

#include "spec/kraft/kraft_state.h"
#include "spec/partition/state.h"

namespace isr::spec::cluster {

// The metadata records alive at once are bounded by the log capacity (a record lives
// only while some voter's log holds it, and at most kraft.max_records are appended).
inline constexpr int kMaxMetadataRecords = kraft::kMaxLog;

// What the broker waiting for a record's commit receives then (the controller answers
// write requests once their records commit: QuorumController's deferred event queue).
enum class Answer : uint8_t {
  None,
  Registration,    // BrokerRegistrationResponse: the broker epoch (RegisterBrokerRecord)
  AlterPartition,  // AlterPartitionResponse: the committed ISR and partition epoch
};

struct MetadataRecord {
  ControllerState image;  // the controller's image after this record (active/epoch unused)
  uint8_t decision = 0;   // ActionKind + 1 of the decision that wrote it; 0 = free slot
  uint8_t answer = 0;     // Answer owed once the record commits
  uint8_t answer_node = 0;
  uint8_t pad_ = 0;
};

struct ClusterHistory {
  // Per partition epoch, the (leader, leader epoch) of the committed image that carried
  // it; kNoNode / 0 when no committed record produced that partition epoch.
  uint8_t committed_leader[kMaxEpoch + 1];
  uint8_t committed_leader_epoch[kMaxEpoch + 1];
  uint8_t committed_offset = 0;  // length of the committed metadata log prefix absorbed
  uint8_t pad_ = 0;
};

struct ClusterState {
  State partition;
  kraft::KraftState quorum;
  // Per voter and log offset: record id + 1, or 0 for a control record (LeaderChange).
  uint8_t payload[kraft::kMaxVoters][kraft::kMaxLog];
  uint8_t pad_ = 0;
  MetadataRecord records[kMaxMetadataRecords];
  ControllerState bootstrap;  // the image before any record (bootstrap metadata)
  ControllerState committed;  // the image at the end of the committed prefix
  ClusterHistory history;
};

static_assert(std::is_trivially_copyable_v<ClusterState>);
static_assert(std::has_unique_object_representations_v<ClusterState>,
              "ClusterState must have no padding: engines hash its bytes");

}  // namespace isr::spec::cluster
