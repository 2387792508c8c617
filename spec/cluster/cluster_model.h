// The composed model (`--model cluster`): the partition model's brokers and clients,
// with every partition-controller decision made by the current KRaft leader and
// taking effect through the KRaft metadata log (KIP-595 quorum, KIP-631 controller).
//
// It satisfies checker::Model. Three layers of actions:
//   - broker: the partition model's own actions (produce, fetch, ISR proposals,
//     metadata updates, consumer, node faults), run by spec::PartitionModel on the
//     partition part; a node fault hits the node's KRaft voter too;
//   - quorum: the KRaft model's elections and metadata-log replication, run by
//     kraft::KraftModel on the quorum part (its own faults are the nodes');
//   - decision: a controller decision (fence, register, unfence, elections,
//     AlterPartition) made by a KRaft leader against its in-memory image, appended to
//     its log as a metadata record, effective once committed.
// The rules live in spec/cluster/cluster_controller.cc (decisions, records, commits),
// cluster_symmetry.cc and cluster_describe.cc; docs/cluster.md explains the design.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/model.h"
#include "checker/model_base.h"
#include "checker/symmetry.h"
#include "spec/cluster/cluster_config.h"
#include "spec/cluster/cluster_state.h"
#include "spec/cluster/cluster_usage.h"
#include "spec/kraft/kraft_model.h"
#include "spec/partition/partition_model.h"

namespace isr::spec::cluster {

enum class Layer : uint8_t { Broker, Quorum, Decision };

struct ClusterAction {
  uint8_t layer = 0;       // Layer
  uint8_t controller = 0;  // Decision: the voter (KRaft leader) deciding
  Action partition{};      // Broker and Decision layers
  kraft::KraftAction quorum{};  // Quorum layer
  bool operator==(const ClusterAction&) const = default;
};

inline constexpr int kMaxClusterActions = kMaxEnabledActions + kraft::kMaxKraftActions;

class ClusterModel;
// The model's descriptions (checker/model_base.h), defined in cluster_describe.cc.
const checker::ModelWords<ClusterModel, ClusterState, ClusterAction>& cluster_words();

class ClusterModel
    : public checker::ModelBase<ClusterModel, ClusterConfig, ClusterState, ClusterAction, kMaxClusterActions> {
 public:
  explicit ClusterModel(ClusterConfig config);

  const PartitionModel& partition_model() const { return partition_; }
  const kraft::KraftModel& quorum_model() const { return quorum_; }

  std::vector<State> initial_states() const;

  int enabled_actions(const State& s, Action* out) const;

  State next_state(const State& s, const Action& a) const;

  void canonicalize(State& s) const;
  // The representative without writing it over s (checker/symmetry.h, HasCanonicalForm).
  const State& canonical_form(const State& s, checker::CanonicalScratch<State>& scratch) const;

  // Optional usage hook (checker/hooks.h, HasUsage; spec/cluster/cluster_usage.h): the
  // partition's and the quorum's configured features that have acted on the path to a
  // state, and after a complete search those that never did.
  std::vector<std::string_view> usage_names() const { return cluster::usage_names(); }
  uint32_t usage_seen(const State& s) const { return cluster::usage_seen(s); }
  std::vector<UnusedSwitch> unused_switches(uint32_t used) const { return cluster::unused_switches(config(), used); }

  // Partial-order reduction hook (checker/por.h): a broker-layer action the partition
  // model declares irrelevant (spec/partition/por.cc; the cluster's node faults use the partition's
  // fault counters, and no quorum rule or cluster property reads a replica's `flushed`).
  bool por_irrelevant(const State& s, const Action& a) const {
    return a.layer == static_cast<uint8_t>(Layer::Broker) && partition_.por_irrelevant(s.partition, a.partition);
  }
  void por_clear_dead(State& s) const { partition_.por_clear_dead(s.partition); }

  // Facts the rules, properties and tests share.
  // The voter's metadata image: its log's last record, or the bootstrap image.
  ControllerState image_of(const State& s, int voter) const;
  // A KRaft leader whose controller is active: alive, leading, and its LeaderChange
  // record committed, so that it has replayed the whole committed log (KafkaRaftClient
  // fires handleLeaderChange to the controller only once it has read up to the epoch
  // start). Room in the log is the decisions' own condition.
  bool active_controller(const State& s, int voter) const;
  // The leader's log holds a decision record not yet committed.
  bool has_uncommitted_records(const State& s, int voter) const;

 private:
  PartitionModel partition_;
  kraft::KraftModel quorum_;
  ControllerState bootstrap_{};
  std::vector<std::vector<uint8_t>> symmetry_classes_;
};

static_assert(checker::Model<ClusterModel>);

inline constexpr const char* kClusterModelName = "cluster";

}  // namespace isr::spec::cluster
