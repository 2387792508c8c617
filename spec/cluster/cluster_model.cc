// The composed model's skeleton: the initial cluster, the fixed order of actions over
// the three layers, the dispatch of each action, and the properties of the three
// catalogs wired to the part of the state each one reads.
#include "spec/cluster/cluster_model.h"

#include <cstring>
#include <stdexcept>
#include <utility>

#include "checker/property_table.h"
#include "spec/cluster/cluster_properties.h"
#include "spec/cluster/cluster_rules.h"
#include "spec/kraft/kraft_properties.h"
#include "spec/partition/properties/catalog.h"
#include "spec/partition/rules.h"

namespace isr::spec::cluster {
namespace {

using K = ActionKind;
using QK = kraft::KraftActionKind;

// Properties of the three catalogs, called through the checker's Property interface
// on the part of the state they judge.
using PartitionProperties =
    checker::PropertyTable<ClusterModel, &properties::catalog,
                           [](const auto& p, const ClusterModel& m, const ClusterState& s) {
                             return p.holds(m.config().partition, s.partition);
                           }>;
using QuorumProperties =
    checker::PropertyTable<ClusterModel, &properties::kraft_catalog,
                           [](const auto& p, const ClusterModel& m, const ClusterState& s) {
                             return p.holds(m.config().quorum, s.quorum);
                           }>;
using ClusterProperties = checker::PropertyTable<ClusterModel, &properties::cluster_catalog,
                                                 [](const auto& p, const ClusterModel& m, const ClusterState& s) {
                                                   return p.holds(m.config(), s);
                                                 }>;

// Broker-layer actions the composed model replaces: decisions come from the KRaft
// leader's controller, metadata updates from the committed log, and the quorum's
// failover from the KRaft model.
bool replaced_in_cluster(K kind) {
  return rules::is_controller_decision(kind) || kind == K::MetadataUpdate || kind == K::ControllerFailover;
}

// The KRaft model's own faults are the nodes' faults here; its generic Append is
// replaced by the controller's decisions.
bool quorum_action_kept(QK kind) {
  return kind != QK::Append && kind != QK::Crash && kind != QK::Restart && kind != QK::Cut && kind != QK::Heal;
}

}  // namespace

ClusterModel::ClusterModel(ClusterConfig config)
    : ModelBase(std::move(config), cluster_words()),
      partition_(config_.partition),
      quorum_(config_.quorum),
      symmetry_classes_(symmetry_classes_for(config_.partition)) {
  for (const std::string& name : config_.properties) {
    PartitionProperties::add(name, properties_);
    QuorumProperties::add(name, properties_);
    ClusterProperties::add(name, properties_);
  }
  bootstrap_ = partition_.initial_states().front().controller;
}

std::vector<ClusterState> ClusterModel::initial_states() const {
  // A running cluster: the partition as the partition model starts it (its image is
  // the bootstrap metadata), and a quorum whose last voter leads epoch 1 with its
  // LeaderChange record fetched and committed by every voter, reached by the KRaft
  // model's own actions. The last voter, so that with combined placement the active
  // controller and the partition leader (node 0) are different processes, as they
  // usually are: a controller failover then does not take the partition leader along.
  ClusterState s;
  std::memset(static_cast<void*>(&s), 0, sizeof s);
  s.partition = partition_.initial_states().front();
  s.quorum = quorum_.initial_states().front();
  auto step = [&](QK kind, int node, int other) {
    s.quorum = quorum_.next_state(s.quorum, kraft::KraftAction{kind, static_cast<uint8_t>(node),
                                                               static_cast<uint8_t>(other), 0});
  };
  const int voters = config_.quorum.voters;
  const int leader = voters - 1;
  step(QK::Timeout, leader, 0);
  for (int v = 0; v < voters && s.quorum.voters[leader].role != static_cast<uint8_t>(kraft::Role::Leader); ++v)
    if (v != leader) step(QK::Vote, leader, v);
  for (int v = 0; v < voters; ++v)
    if (v != leader) step(QK::BeginEpoch, leader, v);
  for (int round = 0; round < 2; ++round)
    for (int v = 0; v < voters; ++v)
      if (v != leader) step(QK::Fetch, v, leader);
  s.bootstrap = bootstrap_;
  s.committed = bootstrap_;
  for (int e = 0; e <= kMaxEpoch; ++e) s.history.committed_leader[e] = kNoNode;
  s.history.committed_leader[0] = bootstrap_.leader;
  s.history.committed_leader_epoch[0] = static_cast<uint8_t>(bootstrap_.leader_epoch + 1);
  s.history.committed_offset = s.quorum.voters[leader].hw;
  rules::settle(*this, s);
  return {s};
}

ControllerState ClusterModel::image_of(const ClusterState& s, int voter) const {
  for (int o = s.quorum.voters[voter].leo - 1; o >= 0; --o) {
    const int id = s.payload[voter][o];
    if (id != 0) return s.records[id - 1].image;
  }
  return s.bootstrap;
}

bool ClusterModel::active_controller(const ClusterState& s, int voter) const {
  const kraft::Voter& x = s.quorum.voters[voter];
  // KafkaRaftClient fires handleLeaderChange to the leader's own listener (the
  // controller, which then claims leadership) only once the listener has read past the
  // epoch start offset (ListenerContext.maybeFireLeaderChange: nextOffset() >
  // epochStartOffset, Kafka 4.4.0), and listeners read committed batches only: the
  // leader's LeaderChange record at the epoch start must have committed, so the new
  // controller's image holds every committed record. That is this condition exactly.
  return x.alive && x.role == static_cast<uint8_t>(kraft::Role::Leader) && x.hw > x.epoch_start_offset;
}

bool ClusterModel::has_uncommitted_records(const ClusterState& s, int voter) const {
  const kraft::Voter& x = s.quorum.voters[voter];
  for (int o = x.hw; o < x.leo; ++o)
    if (s.payload[voter][o] != 0) return true;
  return false;
}

int ClusterModel::enabled_actions(const ClusterState& s, ClusterAction* out) const {
  // The order is part of the model's contract: engines record an action by its position.
  int count = 0;
  const Config& pc = config_.partition;
  {
    std::array<spec::Action, kMaxEnabledActions> buffer;
    const int n = partition_.enabled_actions(s.partition, buffer.data());
    int last_clean_stop = -1;
    for (int i = 0; i < n; ++i) {
      spec::Action a = buffer[i];
      if (replaced_in_cluster(a.kind)) continue;
      if (a.kind == K::Crash && a.arg == static_cast<uint8_t>(StopKind::Clean)) {
        // A clean stop here goes without the controller's help (docs/cluster.md): the
        // controller fences the broker when its session expires.
        if (a.node == last_clean_stop) continue;
        last_clean_stop = a.node;
        a.other = spec::rules::kWithoutController;
      }
      out[count++] = ClusterAction{static_cast<uint8_t>(Layer::Broker), 0, a, {}};
    }
    // Brokers replay the committed metadata log (MetadataLoader) once registered: a
    // restarted broker first needs its registration answered.
    const ControllerState& image = s.partition.controller;
    for (int b = 0; b < pc.replication_factor; ++b) {
      const NodeState& node = s.partition.nodes[b];
      const ReplicaState& r = s.partition.replicas[b];
      if (!node.alive || (node.cut & kCutFromQuorum) || node.broker_epoch == 0) continue;
      if (!r.view_valid || r.view_leader != image.leader || r.view_leader_epoch != image.leader_epoch ||
          r.view_partition_epoch != image.partition_epoch)
        out[count++] = ClusterAction{static_cast<uint8_t>(Layer::Broker), 0,
                                     spec::Action{K::MetadataUpdate, static_cast<uint8_t>(b), 0, 0}, {}};
    }
  }
  {
    std::array<kraft::KraftAction, kraft::kMaxKraftActions> buffer;
    const int n = quorum_.enabled_actions(s.quorum, buffer.data());
    for (int i = 0; i < n; ++i)
      if (quorum_action_kept(buffer[i].kind))
        out[count++] = ClusterAction{static_cast<uint8_t>(Layer::Quorum), 0, {}, buffer[i]};
  }
  rules::decision_actions(*this, s, out, count);
  if (count > kMaxClusterActions) __builtin_trap();
  return count;
}

ClusterState ClusterModel::next_state(const ClusterState& from, const ClusterAction& a) const {
  ClusterState s = from;
  switch (static_cast<Layer>(a.layer)) {
    case Layer::Broker: {
      s.partition = partition_.next_state(s.partition, a.partition);
      // A node's fault hits its KRaft voter too (combined: broker and voter at once).
      const int v = config_.node_voter(a.partition.node);
      if (v < 0) break;
      const auto voter = static_cast<uint8_t>(v);
      switch (a.partition.kind) {
        case K::Crash: {
          const bool disk = a.partition.arg == static_cast<uint8_t>(StopKind::Disk);
          s.quorum = quorum_.next_state(s.quorum, kraft::KraftAction{QK::Crash, voter, 0, disk ? uint8_t{1} : uint8_t{0}});
          break;
        }
        case K::Restart: s.quorum = quorum_.next_state(s.quorum, kraft::KraftAction{QK::Restart, voter, 0, 0}); break;
        case K::Cut:
          if (a.partition.arg == kCutFromQuorum)
            s.quorum = quorum_.next_state(s.quorum, kraft::KraftAction{QK::Cut, voter, 0, 0});
          break;
        case K::Heal:
          if (a.partition.arg == kCutFromQuorum)
            s.quorum = quorum_.next_state(s.quorum, kraft::KraftAction{QK::Heal, voter, 0, 0});
          break;
        default: break;
      }
      break;
    }
    case Layer::Quorum: {
      const int f = a.quorum.node;
      const int before = s.quorum.voters[f].leo;
      s.quorum = quorum_.next_state(s.quorum, a.quorum);
      // A fetched batch carries its record (one batch per response).
      if (a.quorum.kind == QK::Fetch && s.quorum.voters[f].leo == before + 1)
        s.payload[f][before] = s.payload[a.quorum.other][before];
      break;
    }
    case Layer::Decision: rules::apply_decision(*this, s, a); break;
  }
  rules::settle(*this, s);
  return s;
}

}  // namespace isr::spec::cluster
