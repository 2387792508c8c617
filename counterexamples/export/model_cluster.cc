// The model as a cluster under test (see model_cluster.h).
#include "counterexamples/export/model_cluster.h"

#include <cstdlib>

#include <xxhash.h>

#include <array>
#include <deque>
#include <stdexcept>
#include <unordered_set>
#include <utility>

#include "counterexamples/export/export_scenario.h"
#include "io/files.h"

namespace isr::counterexamples {

using nlohmann::json;

namespace {

int int_or_none(const json& value) { return value.is_number_integer() ? value.get<int>() : cut::kNone; }

std::vector<int> ints(const json& value) {
  std::vector<int> out;
  if (value.is_array())
    for (const json& v : value) out.push_back(v.get<int>());
  return out;
}

cut::SendResult result_of(const std::string& kafka_name) {
  using R = cut::SendResult;
  if (kafka_name == "acked") return R::Acked;
  if (kafka_name == "pending") return R::Pending;
  if (kafka_name == "NOT_ENOUGH_REPLICAS") return R::NotEnoughReplicas;
  if (kafka_name == "NOT_ENOUGH_REPLICAS_AFTER_APPEND") return R::NotEnoughReplicasAfterAppend;
  if (kafka_name == "REQUEST_TIMED_OUT") return R::RequestTimedOut;
  if (kafka_name == "NOT_LEADER_OR_FOLLOWER") return R::NotLeaderOrFollower;
  return R::Unsent;
}

bool has_fields(const json& action, const json& wanted) {
  for (const auto& [key, value] : wanted.items()) {
    if (!action.contains(key) || action[key] != value) return false;
  }
  return true;
}

uint64_t state_key(const spec::State& s) { return XXH3_64bits(&s, sizeof s); }

}  // namespace

cut::PartitionObservation observe(const spec::PartitionModel& model, const spec::State& s) {
  const json o = json(observable_state(model.state_to_json(s), model.config_json()));
  cut::PartitionObservation out;
  out.leader = int_or_none(o.at("leader"));
  out.leader_epoch = o.at("leader_epoch").get<int>();
  out.isr = ints(o.at("isr"));
  if (o.contains("elr")) out.elr = ints(o["elr"]);
  if (o.contains("last_known_elr")) out.last_known_elr = ints(o["last_known_elr"]);
  out.fenced = ints(o.at("fenced"));
  out.hw = int_or_none(o.at("hw"));
  if (o.contains("voters")) out.voters = ints(o["voters"]);
  if (o.contains("observers")) out.observers = ints(o["observers"]);
  for (const auto& [id, r] : o.at("replicas").items()) {
    cut::ReplicaObservation rep;
    rep.alive = r.at("alive").get<bool>();
    rep.leo = r.at("leo").get<int>();
    for (const json& entry : r.at("log")) rep.log.push_back({entry[0].get<int>(), entry[1].get<int>()});
    const json view = r.contains("view") ? r["view"] : json();
    rep.has_view = view.is_object();
    if (rep.has_view) {
      rep.view_leader = int_or_none(view.at("leader"));
      rep.view_leader_epoch = view.at("leader_epoch").get<int>();
      rep.view_isr = ints(view.at("isr"));
    }
    out.replicas[std::stoi(id)] = rep;
  }
  for (const auto& [record, result] : o.at("sends").items()) {
    out.sends[std::stoi(record)] = result_of(result.get<std::string>());
  }
  return out;
}

ModelCluster::ModelCluster(spec::Config config) : model_(std::move(config)) {
  const std::vector<spec::State> initial = model_.initial_states();
  if (initial.empty()) throw std::runtime_error("the model has no initial state");
  state_ = initial.front();
}

std::unique_ptr<ModelCluster> ModelCluster::from_scenario(const json& scenario) {
  const json& config = scenario.at("source").at("model_config");
  return std::make_unique<ModelCluster>(spec::load_config(&config, model_overrides_from_environment()));
}

std::vector<std::string> model_overrides_from_environment() {
  std::vector<std::string> overrides;
  const char* text = std::getenv("ISRCHECK_MODEL_SET");
  if (text == nullptr) return overrides;
  std::string item;
  for (const char* p = text;; ++p) {
    if (*p == ';' || *p == '\0') {
      if (!item.empty()) overrides.push_back(item);
      item.clear();
      if (*p == '\0') break;
    } else {
      item += *p;
    }
  }
  return overrides;
}

void ModelCluster::take(const json& wanted, std::initializer_list<const char*> absent) {
  std::array<spec::Action, spec::kMaxEnabledActions> actions;
  const int n = model_.enabled_actions(state_, actions.data());
  for (int i = 0; i < n; ++i) {
    const json a = model_.action_to_json(actions[i]);
    bool excluded = false;
    for (const char* key : absent) excluded = excluded || a.contains(key);
    if (!excluded && has_fields(a, wanted)) {
      state_ = model_.next_state(state_, actions[i]);
      return;
    }
  }
  std::string enabled;
  for (int i = 0; i < n; ++i) enabled += "\n  " + model_.action_name(actions[i]);
  throw std::runtime_error("the model cannot do " + wanted.dump() + " here; enabled actions:" + enabled);
}

cut::SendResult ModelCluster::send_result(int record) const {
  const cut::PartitionObservation o = observe(model_, state_);
  auto it = o.sends.find(record);
  return it == o.sends.end() ? cut::SendResult::Unsent : it->second;
}

cut::SendResult ModelCluster::produce(int record, int broker) {
  take({{"kind", "Produce"}, {"broker", broker}, {"record", record}}, {"response_lost"});
  return send_result(record);
}

cut::SendResult ModelCluster::produce_response_lost(int record, int broker) {
  take({{"kind", "Produce"}, {"broker", broker}, {"record", record}, {"response_lost", true}});
  return send_result(record);
}

void ModelCluster::pause(int node) { take({{"kind", "Pause"}, {"node", node}}); }
void ModelCluster::resume(int node) { take({{"kind", "Resume"}, {"node", node}}); }
void ModelCluster::remove_voter(int node) { take({{"kind", "RemoveVoter"}, {"node", node}}); }
void ModelCluster::add_voter(int node) { take({{"kind", "AddVoter"}, {"node", node}}); }

cut::SendResult ModelCluster::expire_send(int record) {
  take({{"kind", "ProduceTimeout"}, {"record", record}});
  return send_result(record);
}

std::optional<int> ModelCluster::consume(int offset, int broker) {
  if (state_.consumer.position != offset) return std::nullopt;
  std::array<spec::Action, spec::kMaxEnabledActions> actions;
  const int n = model_.enabled_actions(state_, actions.data());
  for (int i = 0; i < n; ++i) {
    if (has_fields(model_.action_to_json(actions[i]), {{"kind", "Consume"}, {"broker", broker}})) {
      state_ = model_.next_state(state_, actions[i]);
      return state_.consumer.read[offset];
    }
  }
  return std::nullopt;  // nothing readable at that offset from that broker
}

void ModelCluster::crash(int node, cut::CrashKind kind, std::optional<int> leader_after) {
  static constexpr const char* kModes[] = {"clean", "kill", "power", "disk"};
  json wanted = {{"kind", "Crash"}, {"node", node}, {"mode", kModes[static_cast<int>(kind)]}};
  if (kind == cut::CrashKind::Clean && leader_after) {
    wanted["leader_after"] = *leader_after == cut::kNone ? json() : json(*leader_after);
  }
  take(wanted);
}

void ModelCluster::restart(int node) { take({{"kind", "Restart"}, {"node", node}}); }

namespace {
const char* side_name(cut::NetworkSide side) {
  switch (side) {
    case cut::NetworkSide::Quorum: return "quorum";
    case cut::NetworkSide::Brokers: return "brokers";
    case cut::NetworkSide::Clients: return "clients";
  }
  return "?";
}
}  // namespace

void ModelCluster::cut(int node, cut::NetworkSide side) {
  take({{"kind", "Cut"}, {"node", node}, {"side", side_name(side)}});
}

void ModelCluster::heal(int node, cut::NetworkSide side) {
  take({{"kind", "Heal"}, {"node", node}, {"side", side_name(side)}});
}

void ModelCluster::elect_preferred(int leader) { take({{"kind", "PreferredElection"}, {"leader", leader}}); }

cut::PartitionObservation ModelCluster::describe_partition() { return observe(model_, state_); }

bool ModelCluster::wait_until(const cut::Condition& c, std::string* why) {
  // Breadth first over internal actions: the nearest state meeting the condition, and
  // the trace's own state (same digest) when the condition names one.
  const int max_depth = c.model_steps > 0 ? c.model_steps : 16;
  std::deque<std::pair<spec::State, int>> frontier{{state_, 0}};
  std::unordered_set<uint64_t> seen{state_key(state_)};
  std::optional<spec::State> nearest;
  std::array<spec::Action, spec::kMaxEnabledActions> actions;
  while (!frontier.empty()) {
    const auto [s, depth] = frontier.front();
    frontier.pop_front();
    // The hint only chooses among states that meet the condition, never replaces it.
    if (cut::mismatches(c, observe(model_, s)).empty()) {
      if (c.model_state.empty() || state_digest(model_.state_to_json(s)) == c.model_state) {
        state_ = s;
        return true;
      }
      if (!nearest) nearest = s;
    }
    if (depth >= max_depth || seen.size() >= kMaxWaitStates) continue;
    const int n = model_.enabled_actions(s, actions.data());
    for (int i = 0; i < n; ++i) {
      if (is_harness_action(model_.action_kind(actions[i]))) continue;
      const spec::State next = model_.next_state(s, actions[i]);
      if (seen.insert(state_key(next)).second) frontier.emplace_back(next, depth + 1);
    }
  }
  if (nearest) {
    state_ = *nearest;
    return true;
  }
  if (why != nullptr) {
    *why = "no state within " + std::to_string(max_depth) + " internal steps (" + std::to_string(seen.size()) +
           " states searched) meets the condition; the current state differs in:";
    for (const std::string& m : cut::mismatches(c, observe(model_, state_))) *why += "\n  " + m;
  }
  return false;
}

}  // namespace isr::counterexamples

namespace isr::cut {

// The factory generated tests call: our adapter builds the model of the scenario.
std::unique_ptr<ClusterUnderTest> make_cluster_under_test(const ClusterSetup& setup) {
  return counterexamples::ModelCluster::from_scenario(io::files::parse_json(setup.scenario_json));
}

}  // namespace isr::cut
