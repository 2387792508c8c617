// The model's skeleton: the initial cluster, the fixed order in which actions are
// enumerated, the dispatch of each action to its rule file, and the history the
// properties need, updated after every step.
#include "spec/partition/partition_model.h"

#include <cstring>
#include <utility>

#include "checker/property_table.h"
#include "spec/partition/properties/catalog.h"
#include "spec/partition/rules.h"

namespace isr::spec {

namespace {

// The catalog's properties, called through the checker's Property interface.
using Properties = checker::PropertyTable<PartitionModel, &properties::catalog,
                                          [](const auto& p, const PartitionModel& m, const State& s) {
                                            return p.holds(m.config(), s);
                                          }>;

void update_history(State& s) {
  HistoryState& h = s.history;
  const int l = rules::active_leader(s);
  if (l < 0) {
    h.last_leader = kNoNode;
    h.last_leader_epoch = 0;
    h.last_leader_hw = 0;
    return;
  }
  const ReplicaState& r = s.replicas[l];
  if (h.last_leader == l && h.last_leader_epoch == r.view_leader_epoch && r.hw < h.last_leader_hw)
    h.hw_regressed = 1;
  h.last_leader = static_cast<uint8_t>(l);
  h.last_leader_epoch = r.view_leader_epoch;
  h.last_leader_hw = r.hw;
}

}  // namespace

void rules::update_history(State& s) { spec::update_history(s); }

PartitionModel::PartitionModel(Config config)
    : ModelBase(std::move(config), partition_words()),
      symmetry_classes_(symmetry_classes_for(config_)),
      prefix_bytes_(used_state_bytes(config_.replica_slots())) {
  for (const std::string& name : config_.properties) Properties::add(name, properties_);
}

std::vector<State> PartitionModel::initial_states() const {
  // A freshly created partition: the preferred replica leads epoch 0 with every replica
  // in the ISR, all brokers registered (epoch 1) and every log empty.
  const Config& c = config_;
  State s;
  std::memset(static_cast<void*>(&s), 0, sizeof s);  // unused slots stay zero
  for (int n = 0; n < c.nodes(); ++n) {
    s.nodes[n].alive = 1;
    s.nodes[n].broker_epoch = c.is_broker(n) ? 1 : 0;
    if (c.is_broker(n)) s.controller.registered_epoch[n] = 1;
  }
  NodeSet all = 0;
  for (int r = 0; r < c.replication_factor; ++r) all |= bit(r);
  for (int r = 0; r < c.replication_factor; ++r) {
    ReplicaState& rep = s.replicas[r];
    rep.view_valid = 1;
    rep.view_leader = 0;
    rep.view_isr = all;
    if (c.reassignment()) rep.view_replicas = all;
  }
  // Brokers without a replica yet, which a reassignment may add (none otherwise).
  for (int r = c.replication_factor; r < c.replica_slots(); ++r) s.replicas[r].view_leader = kNoNode;
  if (c.reassignment()) s.controller.replicas = all;
  s.controller.leader = 0;
  s.controller.isr = all;
  s.controller.active = static_cast<uint8_t>(c.controller.placement == Placement::Combined ? 0 : c.brokers);
  s.controller.controller_epoch = 1;
  if (rules::zk_mode(c)) {
    // ZooKeeper mode: every broker holds its session and /brokers/ids/N (epoch 1) and
    // has heard from controller epoch 1. The controller is a broker (voters are the
    // ZooKeeper ensemble): whichever created /controller first; the first broker without
    // a replica of the partition when there is one, else broker 0.
    s.controller.active = static_cast<uint8_t>(c.brokers > c.replication_factor ? c.replication_factor : 0);
    s.controller.state_controller_epoch = 1;
    for (int n = 0; n < c.brokers; ++n) {
      s.nodes[n].zk_registered = 1;
      s.nodes[n].zk_epoch = 1;
      s.nodes[n].controller_epoch_seen = 1;
    }
  }
  s.producer.inflight_leader = kNoNode;
  update_history(s);
  return {s};
}

int PartitionModel::enabled_actions(const State& s, Action* out) const {
  // The order is part of the model's contract: engines record an action by its position.
  rules::ActionList list{out};
  rules::produce_actions(config_, s, list);
  rules::replication_actions(config_, s, list);
  rules::isr_actions(config_, s, list);
  rules::controller_actions(config_, s, list);
  rules::voter_actions(config_, s, list);
  rules::consumer_actions(config_, s, list);
  rules::fault_actions(config_, s, list);
  return list.count;
}

State PartitionModel::next_state(const State& from, const Action& a) const {
  State s = from;
  const Config& c = config_;
  using K = ActionKind;
  switch (a.kind) {
    case K::Produce: rules::apply_produce(c, s, a); break;
    case K::ProduceTimeout: rules::apply_produce_timeout(c, s, a); break;
    case K::Fetch: rules::apply_fetch(c, s, a); break;
    case K::FetchResponse: rules::apply_fetch_response(c, s, a); break;
    case K::EpochQuery: rules::apply_epoch_query(c, s, a); break;
    case K::ShrinkIsr: rules::apply_shrink_isr(c, s, a); break;
    case K::AlterPartition: rules::apply_alter_partition(c, s, a); break;
    case K::FenceBroker: rules::apply_fence_broker(c, s, a); break;
    case K::RegisterBroker: rules::apply_register_broker(c, s, a); break;
    case K::UnfenceBroker: rules::apply_unfence_broker(c, s, a); break;
    case K::AssignReplicasToDirs: rules::apply_assign_replicas_to_dirs(c, s, a); break;
    case K::UncleanElection: rules::apply_unclean_election(c, s, a); break;
    case K::PreferredElection: rules::apply_preferred_election(c, s, a); break;
    case K::MetadataUpdate: rules::apply_metadata_update(c, s, a); break;
    case K::ControllerFailover: rules::apply_controller_failover(c, s, a); break;
    case K::Crash: rules::apply_crash(c, s, a); break;
    case K::Restart: rules::apply_restart(c, s, a); break;
    case K::Cut: rules::apply_cut(c, s, a); break;
    case K::Heal: rules::apply_heal(c, s, a); break;
    case K::Flush: rules::apply_flush(c, s, a); break;
    case K::CheckpointHw: rules::apply_checkpoint_hw(c, s, a); break;
    case K::Consume: rules::apply_consume(c, s, a); break;
    case K::SessionExpiry: rules::apply_session_expiry(c, s, a); break;
    case K::BrokerBounce: rules::apply_broker_bounce(c, s, a); break;
    case K::DeposedWrite: rules::apply_deposed_write(c, s, a); break;
    case K::StaleLeaderAndIsr: rules::apply_stale_leader_and_isr(c, s, a); break;
    case K::Pause: rules::apply_pause(c, s, a); break;
    case K::Resume: rules::apply_resume(c, s, a); break;
    case K::Reassign: rules::apply_reassign(c, s, a); break;
    case K::RemoveVoter: rules::apply_remove_voter(c, s, a); break;
    case K::AddVoter: rules::apply_add_voter(c, s, a); break;
    case K::kCount: break;
  }
  update_history(s);
  return s;
}

}  // namespace isr::spec
