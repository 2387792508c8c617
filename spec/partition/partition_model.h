// The executable model of one Kafka partition: initial state, actions, next state.
//
// It satisfies checker::Model, so every engine in checker/ explores it without knowing
// Kafka. The rules themselves live in one file per concern (see docs/model.md):
//   spec/partition/produce.cc       producer requests, appends, acks (ReplicaManager.appendRecords)
//   spec/partition/replication.cc   fetch, fetch responses, truncation (Partition, ReplicaFetcher)
//   spec/partition/high_watermark.cc the leader's HW and delayed produce (maybeIncrementLeaderHW)
//   spec/partition/isr.cc           ISR shrink / expand and AlterPartition (KIP-497, KIP-903, KIP-966)
//   spec/partition/controller.cc    fencing, registration, elections (PartitionChangeBuilder)
//   spec/partition/voters.cc        KIP-853: a wiped voter as an observer, RemoveVoter / AddVoter
//   spec/partition/zookeeper.cc     the ZooKeeper-mode controller (sessions, BrokerChange, zkVersion)
//   spec/partition/queries.cc       shared facts (quorum, reachability, acting leader, maximal ISR)
//   spec/partition/log.cc           log operations: append (and flush policy), truncate
//   spec/partition/faults.cc        crashes, restarts, network cuts, flush and HW checkpoints
//   spec/partition/consumer.cc      consumer reads
//   spec/partition/symmetry.cc      canonical form under permutations of interchangeable nodes
//   spec/partition/describe.cc      action names and JSON of actions and states
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/model.h"
#include "checker/model_base.h"
#include "checker/symmetry.h"
#include "spec/common/node_action.h"
#include "spec/partition/config.h"
#include "spec/partition/state.h"
#include "spec/partition/usage.h"

namespace isr::spec {

enum class ActionKind : uint8_t {
  Produce,            // a producer request reaches broker `node` with record `arg`
  ProduceTimeout,     // the in-flight request of record `arg` times out at the client
  Fetch,              // follower `node` fetches from `other` (request handled by leader)
  FetchResponse,      // follower `node` handles its fetch response
  EpochQuery,         // follower `node` reconciles its log with leader `other` (KIP-101/279)
  ShrinkIsr,          // leader `node` proposes removing lagging followers shrink_removed(a)
  AlterPartition,     // the controller handles leader `node`'s AlterPartition
  FenceBroker,        // the controller fences `node` (session expired)
  RegisterBroker,     // restarted broker `node` registers (new broker epoch), unfenced
  UnfenceBroker,      // broker `node`, reachable again, resumes heartbeats and is unfenced
  UncleanElection,    // the controller elects `node` although it is not in ISR/ELR
  PreferredElection,  // the controller moves leadership back to preferred `node`
  MetadataUpdate,     // broker `node` catches up with the metadata log
  ControllerFailover, // voter `node` becomes the active controller
  Crash,              // node `node` stops; `arg` is a StopKind
  Restart,            // node `node` starts again
  Cut,                // node `node` is cut off; `arg` is a NetworkSide
  Heal,               // the cut `arg` of node `node` heals
  Flush,              // node `node` fsyncs its log
  CheckpointHw,       // node `node` writes its HW checkpoint
  Consume,            // the consumer reads its next offset from broker `node`
  // ZooKeeper mode (controller.mode=zookeeper) only:
  SessionExpiry,      // ZooKeeper expires node `node`'s session: its ephemeral znodes go
  BrokerBounce,       // the controller handles `node`'s re-registration as a bounce (KIP-380)
  DeposedWrite,       // deposed controller `node` performs a queued write (elects `other`)
  StaleLeaderAndIsr,  // broker `node` handles the deposed controller's LeaderAndIsr
  // KRaft, fixes.directory_assignment (KIP-858):
  AssignReplicasToDirs,  // the controller moves broker `node`'s replica to its new log directory
  // Process pauses (faults.max_pauses):
  Pause,              // node `node`'s process is frozen (SIGSTOP, GC pause, VM freeze)
  Resume,             // node `node`'s process continues (SIGCONT)
  // Reassignment (bounds.max_reassignments):
  Reassign,           // an operator moves the partition to brokers `arg` (a set); `other` leads after
  // KIP-853, controller.quorum=dynamic (voters.cc):
  RemoveVoter,        // an operator removes voter `node`'s stale key (its disk was lost) from the voter set
  AddVoter,           // an operator adds observer `node`'s new key to the voter set
  kCount
};

using Action = NodeAction<ActionKind>;

// The followers a ShrinkIsr removes. One follower: `other`, `arg` 0 (so a one-follower
// shrink reads as it always did). Several: `arg` is the set and `other` its lowest
// member. Kafka's leader removes every follower it finds out of sync in one
// AlterPartition (Partition.maybeShrinkIsr -> getOutOfSyncReplicas), so a set is one
// action, not several.
inline NodeSet shrink_removed(const Action& a) { return a.arg != 0 ? static_cast<NodeSet>(a.arg) : bit(a.other); }
// The ShrinkIsr of leader `leader` removing `removed` (non-empty), in that encoding.
inline Action shrink_action(int leader, NodeSet removed) {
  const int lowest = __builtin_ctz(removed);
  const int arg = size(removed) > 1 ? removed : 0;
  return Action{ActionKind::ShrinkIsr, static_cast<uint8_t>(leader), static_cast<uint8_t>(lowest), static_cast<uint8_t>(arg)};
}

// Upper bound on the actions enabled in one state (checked when enumerating).
inline constexpr int kMaxEnabledActions = 256;

class PartitionModel;
// The model's descriptions (checker/model_base.h), defined in describe.cc.
const checker::ModelWords<PartitionModel, State, Action>& partition_words();

class PartitionModel : public checker::ModelBase<PartitionModel, Config, State, Action, kMaxEnabledActions> {
 public:
  explicit PartitionModel(Config config);

  std::vector<State> initial_states() const;

  // Fills `out` with the enabled actions, in the model's fixed order; returns the count.
  int enabled_actions(const State& s, Action* out) const;

  State next_state(const State& s, const Action& a) const;

  void canonicalize(State& s) const;
  // The representative without writing it over s (checker/symmetry.h, HasCanonicalForm):
  // the engines' hot path, which hashes it where it was built.
  const State& canonical_form(const State& s, checker::CanonicalScratch<State>& scratch) const;
  // Every byte past the configuration's last replica slot is zero (checker/hooks.h,
  // HasStatePrefix): fingerprints and canonical comparisons cover only the bytes before.
  std::size_t state_prefix_bytes() const { return prefix_bytes_; }


  // Groups of nodes that are interchangeable under this configuration (see symmetry.cc).
  const std::vector<std::vector<uint8_t>>& symmetry_classes() const { return symmetry_classes_; }


  // Optional usage hook (checker/hooks.h, HasUsage; spec/partition/usage.h): the
  // configured features that have acted on the path to a state.
  std::vector<std::string_view> usage_names() const { return spec::usage_names(); }
  uint32_t usage_seen(const State& s) const { return spec::usage_seen(s); }
  // After a complete search whose states' usage bits ORed to `used`: what was switched
  // on but never acted, and what would let it (cli: check's summary and --json).
  std::vector<UnusedSwitch> unused_switches(uint32_t used) const { return spec::unused_switches(config(), used); }

  // Optional partial-order reduction hook (checker/por.h, spec/partition/por.cc): `a` only writes
  // state that no guard, effect or property reads again on any path from `s`.
  bool por_irrelevant(const State& s, const Action& a) const;
  // The same dead state cleared (ReplicaState::flushed once no power loss can happen).
  void por_clear_dead(State& s) const;

 private:
  std::vector<std::vector<uint8_t>> symmetry_classes_;
  std::size_t prefix_bytes_;
};

static_assert(checker::Model<PartitionModel>);

// The groups of interchangeable nodes of a configuration (symmetry.cc).
std::vector<std::vector<uint8_t>> symmetry_classes_for(const Config& c);

}  // namespace isr::spec
