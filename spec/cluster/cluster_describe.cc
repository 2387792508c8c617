// How the composed model speaks to people and files: action names, actions and states
// as JSON (trace format v1: the partition model's state JSON, with the controller
// fields taken from the quorum, plus "quorum" and "metadata" sections) and the bounds
// a state has reached. Nothing here is on an engine's hot path.
#include <iterator>
#include <string>

#include "spec/cluster/cluster_model.h"
#include "spec/kraft/kraft_rules.h"

namespace isr::spec::cluster {
namespace {

using nlohmann::json;

// Quorum actions get a "Kraft" prefix so that every kind name is unique.
constexpr const char* kQuorumKindNames[] = {"KraftTimeout", "KraftVote",  "KraftBeginEpoch", "KraftFetch",
                                            "KraftAppend",  "KraftResign", "KraftCrash",     "KraftRestart",
                                            "KraftCut",     "KraftHeal",  "KraftAddVoter", "KraftRemoveVoter"};
static_assert(std::size(kQuorumKindNames) == static_cast<size_t>(kraft::KraftActionKind::kCount));

json node_set(NodeSet s) {
  json out = json::array();
  for (int n = 0; n < kMaxNodes; ++n)
    if (contains(s, n)) out.push_back(n);
  return out;
}

json image_json(int nodes, const ControllerState& image) {
  json registered = json::array();
  for (int n = 0; n < nodes; ++n) registered.push_back(image.registered_epoch[n]);
  json out = {{"leader", image.leader == kNoNode ? json(nullptr) : json(image.leader)},
          {"leader_epoch", image.leader_epoch},
          {"partition_epoch", image.partition_epoch},
          {"isr", node_set(image.isr)},
          {"elr", node_set(image.elr)},
          {"last_known_elr", node_set(image.last_known_elr)},
          {"fenced", node_set(image.fenced)},
          {"registered_epochs", registered},
          {"unclean_elected", image.unclean_elected == 1}};
  if (image.directory_offline != 0) out["directory_offline"] = node_set(image.directory_offline);
  return out;
}

const char* answer_name(int answer) {
  switch (static_cast<Answer>(answer)) {
    case Answer::Registration: return "registration";
    case Answer::AlterPartition: return "alter-partition";
    case Answer::None: break;
  }
  return "none";
}


std::string_view action_kind(const ClusterModel& m, const ClusterAction& a) {
  if (a.layer == static_cast<uint8_t>(Layer::Quorum)) return kQuorumKindNames[static_cast<int>(a.quorum.kind)];
  return m.partition_model().action_kind(a.partition);
}

std::vector<std::string_view> action_kinds(const ClusterModel& m) {
  std::vector<std::string_view> kinds;
  for (const auto kind : m.partition_model().action_kinds())
    if (kind != "ControllerFailover") kinds.push_back(kind);
  for (const char* kind : kQuorumKindNames) {
    const std::string_view k(kind);
    if (k != "KraftAppend" && k != "KraftCrash" && k != "KraftRestart" && k != "KraftCut" && k != "KraftHeal")
      kinds.push_back(k);
  }
  return kinds;
}

std::string action_name(const ClusterModel& m, const ClusterAction& a) {
  switch (static_cast<Layer>(a.layer)) {
    case Layer::Broker: return m.partition_model().action_name(a.partition);
    case Layer::Quorum: return "Kraft" + m.quorum_model().action_name(a.quorum);
    case Layer::Decision:
      return m.partition_model().action_name(a.partition) + " by controller " +
             std::to_string(m.config().voter_node(a.controller));
  }
  return "?";
}

json action_to_json(const ClusterModel& m, const ClusterAction& a) {
  switch (static_cast<Layer>(a.layer)) {
    case Layer::Broker: {
      json j = m.partition_model().action_to_json(a.partition);
      j["layer"] = "broker";
      return j;
    }
    case Layer::Quorum: {
      json j = m.quorum_model().action_to_json(a.quorum);
      j["kind"] = std::string(action_kind(m, a));
      j["layer"] = "quorum";
      return j;
    }
    case Layer::Decision: {
      json j = m.partition_model().action_to_json(a.partition);
      j["layer"] = "decision";
      j["controller"] = m.config().voter_node(a.controller);  // the node hosting the KRaft leader
      return j;
    }
  }
  return json::object();
}

json state_to_json(const ClusterModel& m, const ClusterState& s) {
  const int nodes = m.config().partition.nodes();
  json j = m.partition_model().state_to_json(s.partition);
  // The controller is the KRaft leader whose controller is active (the highest epoch
  // if a deposed one has not noticed yet); "quorum": one exists.
  int active = -1;
  for (int v = 0; v < m.config().quorum.voters; ++v)
    if (m.active_controller(s, v) && (active < 0 || s.quorum.voters[v].epoch > s.quorum.voters[active].epoch))
      active = v;
  json& ctl = j["controller"];
  ctl["active"] = active < 0 ? json(nullptr) : json(m.config().voter_node(active));
  ctl["epoch"] = active < 0 ? 0 : s.quorum.voters[active].epoch;
  ctl["quorum"] = active >= 0;
  json quorum = m.quorum_model().state_to_json(s.quorum);
  for (int v = 0; v < m.config().quorum.voters; ++v) {
    json payload = json::array();
    for (int o = 0; o < s.quorum.voters[v].leo; ++o)
      payload.push_back(s.payload[v][o] == 0 ? json(nullptr) : json(s.payload[v][o]));
    quorum["nodes"][v]["node"] = m.config().voter_node(v);
    quorum["nodes"][v]["records"] = payload;  // record id per log entry (null: LeaderChange)
  }
  j["quorum"] = quorum;
  json records = json::array();
  for (int i = 0; i < kMaxMetadataRecords; ++i) {
    const MetadataRecord& r = s.records[i];
    if (r.decision == 0) continue;
    json record = {{"id", i + 1},
                   {"decision", std::string(m.partition_model().action_kinds()[r.decision - 1])},
                   {"image", image_json(nodes, r.image)}};
    if (r.answer != 0) record["awaiting_commit"] = {{"answer", answer_name(r.answer)}, {"node", r.answer_node}};
    records.push_back(std::move(record));
  }
  json committed_epochs = json::object();
  for (int e = 0; e <= kMaxEpoch; ++e) {
    if (s.history.committed_leader_epoch[e] == 0) continue;
    const int leader = s.history.committed_leader[e];
    committed_epochs[std::to_string(e)] = {{"leader", leader == kNoNode ? json(nullptr) : json(leader)},
                                           {"leader_epoch", s.history.committed_leader_epoch[e] - 1}};
  }
  j["metadata"] = {{"records", records},
                   {"committed_offset", s.history.committed_offset},
                   {"committed", image_json(nodes, s.committed)},
                   {"committed_partition_epochs", committed_epochs}};
  return j;
}

json config_json(const ClusterModel& m) { return to_json(m.config()); }

std::vector<std::string_view> bound_names(const ClusterModel& m) {
  std::vector<std::string_view> names = m.partition_model().bound_names();
  names.push_back("kraft.max_epoch");
  names.push_back("kraft.max_records");
  names.push_back("kraft.max_lost_responses");
  names.push_back("kraft.max_voter_changes");
  return names;
}

uint32_t bounds_hit(const ClusterModel& m, const ClusterState& s) {
  uint32_t hit = m.partition_model().bounds_hit(s.partition);
  const int base = static_cast<int>(m.partition_model().bound_names().size());
  bool epoch = false;
  const ClusterConfig& c = m.config();
  for (int v = 0; v < c.quorum.voters; ++v) epoch |= s.quorum.voters[v].epoch >= c.quorum.bounds.max_epoch;
  if (epoch) hit |= 1u << base;
  if (m.config().max_records > 0 && s.quorum.faults.appends >= m.config().max_records) hit |= 1u << (base + 1);
  if (m.config().quorum.faults.max_lost_responses > 0 &&
      s.quorum.faults.lost_responses >= m.config().quorum.faults.max_lost_responses)
    hit |= 1u << (base + 2);
  if (c.quorum.bounds.max_voter_changes > 0 && s.quorum.faults.voter_changes >= c.quorum.bounds.max_voter_changes)
    hit |= 1u << (base + 3);
  return hit;
}

}  // namespace

const checker::ModelWords<ClusterModel, ClusterState, ClusterAction>& cluster_words() {
  static constexpr checker::ModelWords<ClusterModel, ClusterState, ClusterAction> words = {
      action_name, action_kind, action_kinds, action_to_json, state_to_json, config_json, bound_names, bounds_hit};
  return words;
}

}  // namespace isr::spec::cluster
