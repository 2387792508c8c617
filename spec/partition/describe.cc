// How the model speaks to people and files: action names in protocol terms, actions and
// states as JSON (the trace format, docs/trace-format.md), and which exploration bounds
// a state has reached. Nothing here is on an engine's hot path.
#include <string>

#include "spec/partition/partition_model.h"
#include "spec/partition/rules.h"

namespace isr::spec {
namespace {

using nlohmann::json;

constexpr const char* kKindNames[] = {
    "Produce",        "ProduceTimeout",  "Fetch",           "FetchResponse",     "EpochQuery",
    "ShrinkIsr",      "AlterPartition",  "FenceBroker",     "RegisterBroker",    "UnfenceBroker",
    "UncleanElection", "PreferredElection", "MetadataUpdate", "ControllerFailover", "Crash",
    "Restart",        "Cut",             "Heal",            "Flush",             "CheckpointHw",
    "Consume",        "SessionExpiry",   "BrokerBounce",    "DeposedWrite",      "StaleLeaderAndIsr",
    "AssignReplicasToDirs", "Pause", "Resume", "Reassign", "RemoveVoter", "AddVoter"};
static_assert(std::size(kKindNames) == static_cast<size_t>(ActionKind::kCount));

const char* stop_name(int kind) {
  switch (static_cast<StopKind>(kind)) {
    case StopKind::None: return "none";
    case StopKind::Clean: return "clean";
    case StopKind::Kill: return "kill";
    case StopKind::Power: return "power";
    case StopKind::Disk: return "disk";
  }
  return "?";
}

const char* side_name(int side) {
  switch (side) {
    case kCutFromQuorum: return "quorum";
    case kCutFromBrokers: return "brokers";
    case kCutFromClients: return "clients";
  }
  return "?";
}

const char* outcome_name(int o) {
  switch (static_cast<SendOutcome>(o)) {
    case SendOutcome::Unsent: return "unsent";
    case SendOutcome::InFlight: return "in-flight";
    case SendOutcome::Acked: return "acked";
    case SendOutcome::NotEnoughReplicas: return "not-enough-replicas";
    case SendOutcome::NotEnoughReplicasAfterAppend: return "not-enough-replicas-after-append";
    case SendOutcome::TimedOut: return "timed-out";
    case SendOutcome::NotLeader: return "not-leader";
    case SendOutcome::Retrying: return "retrying";
  }
  return "?";
}

json node_or_null(int id) { return id == kNoNode ? json(nullptr) : json(id); }

json set_json(NodeSet s) {
  json out = json::array();
  for (int n = 0; n < kMaxNodes; ++n)
    if (contains(s, n)) out.push_back(n);
  return out;
}

json entry_json(const LogEntry& e) { return json::array({e.epoch, e.record}); }

std::string_view action_kind(const PartitionModel&, const Action& a) { return kKindNames[static_cast<int>(a.kind)]; }

std::vector<std::string_view> action_kinds(const PartitionModel&) {
  return std::vector<std::string_view>(std::begin(kKindNames), std::end(kKindNames));
}

// The JSON form of an action, in `Json` (nlohmann::json, or ordered_json to keep the
// parameters in the order written here, which is the order action names show them).
template <class Json>
Json action_json(std::string_view kind, const Action& a) {
  auto id_or_null = [](int id) { return id == kNoNode ? Json(nullptr) : Json(id); };
  Json j{{"kind", std::string(kind)}};
  using K = ActionKind;
  switch (a.kind) {
    case K::Produce:
      j["broker"] = a.node;
      j["record"] = a.arg;
      if (a.other == rules::kResponseLost) j["response_lost"] = true;
      break;
    case K::ProduceTimeout:
      j["record"] = a.arg;
      if (a.other == rules::kUnsent) j["unsent"] = true;  // absent otherwise: older traces stay as they were
      break;
    case K::Fetch:
    case K::EpochQuery: j["follower"] = a.node; j["leader"] = a.other; break;
    case K::FetchResponse: j["follower"] = a.node; break;
    case K::ShrinkIsr: {
      // One follower keeps the name it always had; a set is "followers=[1,2]".
      j["leader"] = a.node;
      const NodeSet removed = shrink_removed(a);
      if (size(removed) == 1) {
        j["follower"] = a.other;
        break;
      }
      Json followers = Json::array();
      for (int n = 0; n < kMaxReplicas; ++n)
        if (contains(removed, n)) followers.push_back(n);
      j["followers"] = followers;
      break;
    }
    case K::AlterPartition:
      j["leader"] = a.node;
      if (a.arg == rules::kAlterElects) j["leader_after"] = id_or_null(a.other);  // a reassignment completing
      break;
    case K::FenceBroker:
    case K::RegisterBroker:
    case K::UnfenceBroker:
      j["broker"] = a.node;
      j["leader_after"] = id_or_null(a.other);
      if (a.kind == K::RegisterBroker && a.arg == rules::kAssignedFirst) j["directory_assigned_first"] = true;
      break;
    case K::UncleanElection:
    case K::PreferredElection: j["leader"] = a.node; break;
    case K::MetadataUpdate: j["broker"] = a.node; break;
    case K::ControllerFailover:
      j["voter"] = a.node;
      if (a.arg == rules::kFailoverElects) j["leader_after"] = id_or_null(a.other);
      break;
    case K::Crash:
      j["node"] = a.node;
      j["mode"] = stop_name(a.arg);
      if (a.arg == static_cast<int>(StopKind::Clean)) {
        j["leader_after"] = a.other == rules::kWithoutController ? Json("no quorum") : id_or_null(a.other);
      }
      break;
    case K::Restart:
    case K::Flush:
    case K::CheckpointHw: j["node"] = a.node; break;
    case K::Cut:
    case K::Heal: j["node"] = a.node; j["side"] = side_name(a.arg); break;
    case K::Consume: j["broker"] = a.node; break;
    case K::SessionExpiry: j["node"] = a.node; break;
    case K::BrokerBounce: j["broker"] = a.node; j["leader_after"] = id_or_null(a.other); break;
    case K::DeposedWrite: j["controller"] = a.node; j["leader_after"] = id_or_null(a.other); break;
    case K::StaleLeaderAndIsr: j["broker"] = a.node; break;
    case K::AssignReplicasToDirs: j["broker"] = a.node; break;
    case K::Pause:
    case K::Resume:
    case K::RemoveVoter:
    case K::AddVoter: j["node"] = a.node; break;
    case K::Reassign: {
      Json target = Json::array();
      for (int n = 0; n < kMaxReplicas; ++n)
        if (contains(a.arg, n)) target.push_back(n);
      j["target"] = target;
      j["leader_after"] = id_or_null(a.other);
      break;
    }
    case K::kCount: break;
  }
  return j;
}

json action_to_json(const PartitionModel& m, const Action& a) { return action_json<json>(action_kind(m, a), a); }

std::string action_name(const PartitionModel& m, const Action& a) {
  // "Kind(key=value, ...)" from the JSON form, with bare values for mode and side. The
  // ordered form keeps the parameters in protocol order ("Crash(node=2, kill)"); the
  // sorted keys of nlohmann::json would give "Crash(kill, node=2)".
  const auto j = action_json<nlohmann::ordered_json>(action_kind(m, a), a);
  std::string out(action_kind(m, a));
  out += '(';
  bool first = true;
  for (const auto& [key, value] : j.items()) {
    if (key == "kind") continue;
    if (!first) out += ", ";
    first = false;
    const std::string v = value.is_string() ? value.template get<std::string>() : value.dump();
    if (key == "mode" || key == "side") {
      out += v;
    } else {
      out += key + "=" + v;
    }
  }
  return out + ')';
}

json state_to_json(const PartitionModel& m, const State& s) {
  const Config& c = m.config();
  json nodes = json::array();
  for (int n = 0; n < c.nodes(); ++n) {
    const NodeState& node = s.nodes[n];
    json cut = json::array();
    for (int side : {kCutFromQuorum, kCutFromBrokers, kCutFromClients})
      if (node.cut & side) cut.push_back(side_name(side));
    json jn{{"id", n},           {"broker", c.is_broker(n)},       {"voter", c.is_voter(n)},
            {"alive", node.alive != 0}, {"last_stop", stop_name(node.last_stop)},
            {"broker_epoch", node.broker_epoch}, {"cut", cut},        {"replica", nullptr}};
    if (node.clean_shutdown_epoch != 0) jn["clean_shutdown_epoch"] = node.clean_shutdown_epoch;
    if (node.paused != 0) jn["paused"] = true;
    if (rules::zk_mode(c) && c.is_broker(n)) {
      jn["zookeeper"] = {{"session", node.zk_registered != 0},
                         {"znode_epoch", node.zk_epoch},
                         {"controller_epoch_seen", node.controller_epoch_seen}};
    }
    if (rules::is_replica(c, n)) {
      const ReplicaState& r = s.replicas[n];
      json log = json::array();
      for (int i = 0; i < r.leo; ++i) log.push_back(entry_json(r.log[i]));
      const char* role = !node.alive || !r.view_valid ? "none"
                         : r.view_leader == n        ? "leader"
                         : r.view_leader == kNoNode  ? "none"
                                                     : "follower";
      json rep{{"role", role},
               {"log", log},
               {"leo", r.leo},
               {"hw", r.hw},
               {"hw_checkpoint", r.hw_checkpoint},
               {"flushed", r.flushed},
               {"view", r.view_valid ? json{{"leader", node_or_null(r.view_leader)},
                                            {"leader_epoch", r.view_leader_epoch},
                                            {"partition_epoch", r.view_partition_epoch},
                                            {"isr", set_json(r.view_isr)}}
                                     : json(nullptr)},
               {"needs_truncation", r.needs_truncation != 0},
               {"leader_state", nullptr},
               {"fetch_response", nullptr}};
      if (r.new_directory) rep["new_directory"] = true;  // only when set (KIP-858)
      // Only with reassignment, so that other states keep their JSON.
      if (c.reassignment() && r.view_valid) rep["view"]["replicas"] = set_json(r.view_replicas);
      if (std::string_view(role) == "leader") {
        json followers = json::array();
        for (int f = 0; f < c.replica_slots(); ++f) {
          if (f == n || (c.reassignment() && !contains(r.view_replicas, f))) continue;
          followers.push_back({{"node", f},
                               {"fetch_offset", r.fetch_offset[f]},
                               {"broker_epoch", r.fetch_broker_epoch[f]}});
        }
        rep["leader_state"] = {{"epoch_start_offset", r.epoch_start_offset},
                               {"alter_partition", r.alter_pending ? set_json(r.alter_isr) : json(nullptr)},
                               {"followers", followers}};
      }
      const FetchResponse& resp = r.response;
      if (resp.kind != static_cast<uint8_t>(FetchReply::None)) {
        const char* kind = resp.kind == static_cast<uint8_t>(FetchReply::Data)         ? "data"
                           : resp.kind == static_cast<uint8_t>(FetchReply::OutOfRange) ? "out-of-range"
                                                                                        : "fenced";
        rep["fetch_response"] = {{"kind", kind},
                                 {"leader", resp.leader},
                                 {"leader_epoch", resp.leader_epoch},
                                 {"offset", resp.offset},
                                 {"entry", resp.entry.record ? entry_json(resp.entry) : json(nullptr)},
                                 {"leader_hw", resp.leader_hw},
                                 {"leader_leo", resp.leader_leo}};
      }
      jn["replica"] = rep;
    }
    nodes.push_back(jn);
  }
  const ControllerState& ctl = s.controller;
  json replicas = json::array();
  json registered = json::array();
  for (int r = 0; r < c.replica_slots(); ++r)
    if (contains(rules::assignment(c, ctl), r)) replicas.push_back(r);
  for (int b = 0; b < c.brokers; ++b) registered.push_back(ctl.registered_epoch[b]);
  json controller{{"active", ctl.active},
                  {"epoch", ctl.controller_epoch},
                  {"quorum", rules::quorum_available(c, s)},
                  {"leader", node_or_null(ctl.leader)},
                  {"leader_epoch", ctl.leader_epoch},
                  {"partition_epoch", ctl.partition_epoch},
                  {"replicas", replicas},
                  {"isr", set_json(ctl.isr)},
                  {"elr", set_json(ctl.elr)},
                  {"last_known_elr", set_json(ctl.last_known_elr)},
                  {"fenced", set_json(ctl.fenced)},
                  {"registered_epochs", registered},
                  {"unclean_elected", ctl.unclean_elected != 0}};
  // Only when set, so that states without KIP-858's stale assignments read as before.
  if (ctl.directory_offline != 0) controller["directory_offline"] = set_json(ctl.directory_offline);
  // Only during a reassignment (KIP-455), so that other states read as before.
  if (ctl.adding != 0) controller["adding"] = set_json(ctl.adding);
  if (ctl.removing != 0) controller["removing"] = set_json(ctl.removing);
  // Only on a dynamic quorum (KIP-853), so that other states read as before.
  if (c.controller.quorum == QuorumKind::Dynamic) {
    json voters = json::array(), observers = json::array();
    for (int n = 0; n < c.nodes(); ++n) {
      if (!c.is_voter(n)) continue;
      if (!contains(ctl.removed_voters, n)) voters.push_back(n);
      if (contains(ctl.stale_voters, n) && s.nodes[n].alive) observers.push_back(n);
    }
    controller["voter_set"] = voters;              // ids whose key the voter set holds
    controller["stale_voters"] = set_json(ctl.stale_voters);  // keys naming a lost directory
    controller["observers"] = observers;           // running on a new directory id, not voting
  }
  if (rules::zk_mode(c)) {
    controller["mode"] = "zookeeper";
    controller["vacant"] = ctl.controller_vacant != 0;
    controller["state_controller_epoch"] = ctl.state_controller_epoch;
    controller["deposed"] = ctl.deposed == 0 ? json(nullptr) : json{{"node", ctl.deposed - 1}, {"epoch", ctl.deposed_epoch}};
    controller["deposed_wrote"] = ctl.deposed_wrote != 0;
    // Only when set, so that traces that never queue a demotion read as before.
    if (ctl.zk_queued_demotion != 0) controller["queued_demotion"] = set_json(ctl.zk_queued_demotion);
    if (ctl.zk_queued_reconcile != 0) controller["queued_reconcile"] = set_json(ctl.zk_queued_reconcile);
  }
  json outcomes = json::object();
  for (int k = 1; k <= c.bounds.max_records; ++k) outcomes[std::to_string(k)] = outcome_name(s.producer.outcome[k - 1]);
  json producer{{"current", s.producer.current}, {"retries", s.producer.retries}, {"outcomes", outcomes}};
  json read = json::array();
  for (int i = 0; i < s.consumer.position; ++i) read.push_back(s.consumer.read[i]);
  json out{{"nodes", nodes},
              {"controller", controller},
              {"producer", producer},
              {"consumer", {{"position", s.consumer.position}, {"read", read}}},
              {"faults",
               {{"crashes", s.faults.crashes},
                {"lossy", s.faults.lossy},
                {"disk_losses", s.faults.disk_losses},
                {"clean_shutdowns", s.faults.clean_shutdowns},
                {"cuts", s.faults.cuts},
                {"leader_moves", s.faults.leader_moves},
                {"lost_produce_responses", s.faults.lost_produce_responses}}},
              {"history", {{"hw_regressed", s.history.hw_regressed != 0}}}};
  // Only when used, so that the states of traces recorded before the pause existed keep
  // their JSON (and their digests in scenarios).
  if (s.faults.pauses != 0) out["faults"]["pauses"] = s.faults.pauses;
  if (s.faults.reassignments != 0) out["faults"]["reassignments"] = s.faults.reassignments;
  return out;
}

json config_json(const PartitionModel& m) { return to_json(m.config()); }

std::vector<std::string_view> bound_names(const PartitionModel&) {
  return {"bounds.max_records",      "bounds.max_leader_epoch",  "bounds.max_partition_epoch",
          "bounds.max_retries",      "faults.max_crashes",       "faults.max_lossy_crashes",
          "faults.max_disk_losses",  "faults.max_clean_shutdowns", "faults.max_network_cuts",
          "log capacity", "bounds.max_leader_moves", "faults.max_lost_produce_responses",
          "faults.max_pauses", "bounds.max_reassignments"};
}

uint32_t bounds_hit(const PartitionModel& m, const State& s) {
  const Config& c = m.config();
  uint32_t hit = 0;
  auto mark = [&](int i, bool cond) { hit |= cond ? (1u << i) : 0u; };
  mark(0, s.producer.current >= c.bounds.max_records);
  mark(1, s.controller.leader_epoch >= c.bounds.max_leader_epoch);
  mark(2, s.controller.partition_epoch >= c.bounds.max_partition_epoch);
  mark(3, c.bounds.max_retries > 0 && s.producer.retries >= c.bounds.max_retries);
  mark(4, c.faults.max_crashes > 0 && s.faults.crashes >= c.faults.max_crashes);
  mark(5, c.faults.max_lossy_crashes > 0 && s.faults.lossy >= c.faults.max_lossy_crashes);
  mark(6, c.faults.max_disk_losses > 0 && s.faults.disk_losses >= c.faults.max_disk_losses);
  mark(7, c.faults.max_clean_shutdowns > 0 && s.faults.clean_shutdowns >= c.faults.max_clean_shutdowns);
  mark(8, c.faults.max_network_cuts > 0 && s.faults.cuts >= c.faults.max_network_cuts);
  bool full = false;
  for (int r = 0; r < c.replica_slots(); ++r) full |= s.replicas[r].leo >= kMaxLog;
  mark(9, full);
  mark(10, c.bounds.max_leader_moves > 0 && s.faults.leader_moves >= c.bounds.max_leader_moves);
  mark(11, c.faults.max_lost_produce_responses > 0 &&
               s.faults.lost_produce_responses >= c.faults.max_lost_produce_responses);
  mark(12, c.faults.max_pauses > 0 && s.faults.pauses >= c.faults.max_pauses);
  mark(13, c.bounds.max_reassignments > 0 && s.faults.reassignments >= c.bounds.max_reassignments);
  return hit;
}

}  // namespace

const checker::ModelWords<PartitionModel, State, Action>& partition_words() {
  static constexpr checker::ModelWords<PartitionModel, State, Action> words = {
      action_name, action_kind, action_kinds, action_to_json, state_to_json, config_json, bound_names, bounds_hit};
  return words;
}

}  // namespace isr::spec
