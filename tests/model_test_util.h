// Helpers for tests that drive the Kafka partition model (spec/) by hand: build a model
// from --set style overrides, choose actions by kind and parameters (failing the test,
// with the list of enabled actions, when the chosen action is not enabled), run scripted
// scenarios, check properties by name, and walk the model at random.
//
// A scenario is written as a list of Steps such as fetch(1, 0) or crash(2, StopKind::Kill);
// a Step matches enabled actions on the parameters it names (kAny matches anything) and
// must match exactly one of them, so a test never depends on the enumeration order.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <ostream>
#include <stdexcept>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "spec/partition/config.h"
#include "spec/partition/partition_model.h"
#include "spec/partition/properties/catalog.h"
#include "spec/partition/rules.h"
#include "spec/partition/state.h"

namespace isr::spec {

// gtest messages name outcomes instead of printing their bytes.
inline void PrintTo(SendOutcome o, std::ostream* os) {
  static constexpr const char* kNames[] = {"unsent",    "in-flight", "acked",      "not-enough-replicas",
                                           "not-enough-replicas-after-append", "timed-out", "not-leader"};
  *os << kNames[static_cast<int>(o)];
}

}  // namespace isr::spec

namespace isr::spec::modeltest {

inline constexpr int kAny = -1;

// An action pattern: a kind and the parameters to match (kAny: any value).
struct Step {
  ActionKind kind;
  int node = kAny;
  int other = kAny;
  int arg = kAny;

  bool matches(const Action& a) const {
    return a.kind == kind && (node == kAny || a.node == node) && (other == kAny || a.other == other) &&
           (arg == kAny || a.arg == arg);
  }
};

inline Step produce(int broker, int record) { return {ActionKind::Produce, broker, kAny, record}; }
inline Step produce_timeout(int record) { return {ActionKind::ProduceTimeout, kAny, kAny, record}; }
inline Step fetch(int follower, int leader) { return {ActionKind::Fetch, follower, leader}; }
inline Step fetch_response(int follower) { return {ActionKind::FetchResponse, follower}; }
inline Step epoch_query(int follower, int leader) { return {ActionKind::EpochQuery, follower, leader}; }
inline Step shrink_isr(int leader, int follower) { return {ActionKind::ShrinkIsr, leader, follower, 0}; }
// One AlterPartition removing every follower of `removed` (two or more: shrink_action).
inline Step shrink_isr_set(int leader, NodeSet removed) {
  const Action a = shrink_action(leader, removed);
  return {ActionKind::ShrinkIsr, a.node, a.other, a.arg};
}
inline Step alter_partition(int leader) { return {ActionKind::AlterPartition, leader}; }
// `leader_after`: the leader the controller elects with the change (kNoNode: none).
inline Step fence_broker(int broker, int leader_after) { return {ActionKind::FenceBroker, broker, leader_after}; }
inline Step register_broker(int broker, int leader_after) {
  return {ActionKind::RegisterBroker, broker, leader_after};
}
inline Step unfence_broker(int broker, int leader_after) {
  return {ActionKind::UnfenceBroker, broker, leader_after};
}
inline Step unclean_election(int node) { return {ActionKind::UncleanElection, node}; }
inline Step preferred_election(int node) { return {ActionKind::PreferredElection, node}; }
inline Step metadata_update(int broker) { return {ActionKind::MetadataUpdate, broker}; }
inline Step controller_failover(int voter) { return {ActionKind::ControllerFailover, voter}; }
// ZooKeeper mode from kip-497: the new controller's startup elects `leader_after`.
inline Step controller_failover(int voter, int leader_after) {
  return {ActionKind::ControllerFailover, voter, leader_after, rules::kFailoverElects};
}
// For a clean stop `leader_after` is the leader the controlled shutdown moves to, or
// rules::kWithoutController; the other stop kinds ignore it.
inline Step crash(int node, StopKind kind, int leader_after = kAny) {
  return {ActionKind::Crash, node, leader_after, static_cast<int>(kind)};
}
inline Step restart(int node) { return {ActionKind::Restart, node}; }
inline Step cut(int node, NetworkSide side) { return {ActionKind::Cut, node, kAny, side}; }
inline Step heal(int node, NetworkSide side) { return {ActionKind::Heal, node, kAny, side}; }
inline Step flush(int node) { return {ActionKind::Flush, node}; }
inline Step checkpoint_hw(int node) { return {ActionKind::CheckpointHw, node}; }
inline Step consume(int broker) { return {ActionKind::Consume, broker}; }
// ZooKeeper mode.
inline Step session_expiry(int node) { return {ActionKind::SessionExpiry, node}; }
inline Step broker_bounce(int broker, int leader_after) { return {ActionKind::BrokerBounce, broker, leader_after}; }
inline Step deposed_write(int controller, int leader_after) {
  return {ActionKind::DeposedWrite, controller, leader_after};
}
inline Step stale_leader_and_isr(int broker) { return {ActionKind::StaleLeaderAndIsr, broker}; }
// KIP-858.
inline Step assign_replicas_to_dirs(int broker) { return {ActionKind::AssignReplicasToDirs, broker}; }
inline Step pause(int node) { return {ActionKind::Pause, node}; }
inline Step resume(int node) { return {ActionKind::Resume, node}; }
// KIP-853 (controller.quorum=dynamic).
inline Step remove_voter(int node) { return {ActionKind::RemoveVoter, node}; }
inline Step add_voter(int node) { return {ActionKind::AddVoter, node}; }

inline std::string describe(const Step& step) {
  static constexpr const char* kNames[] = {
      "Produce",         "ProduceTimeout",    "Fetch",          "FetchResponse",      "EpochQuery",
      "ShrinkIsr",       "AlterPartition",    "FenceBroker",    "RegisterBroker",     "UnfenceBroker",
      "UncleanElection", "PreferredElection", "MetadataUpdate", "ControllerFailover", "Crash",
      "Restart",         "Cut",               "Heal",           "Flush",              "CheckpointHw",
      "Consume",         "SessionExpiry",     "BrokerBounce",   "DeposedWrite",       "StaleLeaderAndIsr",
      "AssignReplicasToDirs", "Pause", "Resume", "Reassign", "RemoveVoter", "AddVoter"};
  static_assert(std::size(kNames) == static_cast<size_t>(ActionKind::kCount));
  std::ostringstream out;
  out << kNames[static_cast<int>(step.kind)] << "{node=";
  auto field = [&](int v) {
    if (v == kAny) out << '*';
    else out << v;
  };
  field(step.node);
  out << ", other=";
  field(step.other);
  out << ", arg=";
  field(step.arg);
  out << '}';
  return out.str();
}

inline PartitionModel make_model(const std::vector<std::string>& overrides) {
  return PartitionModel(load_config(nullptr, overrides));
}

// What hand-driven scenarios assume, pinned so that tuning the defaults (for the speed
// of exhaustive checks) does not rewrite them: fetch responses as steps of their own,
// two records, one retry, room for six partition changes, and no power loss unless a
// scenario asks for it. A scenario's own overrides come after these and win.
inline std::vector<std::string> pinned(const std::vector<std::string>& overrides) {
  std::vector<std::string> all = {"async_fetch_responses=true", "bounds.max_records=2", "bounds.max_retries=1",
                                  "bounds.max_partition_epoch=6", "faults.max_lossy_crashes=0"};
  all.insert(all.end(), overrides.begin(), overrides.end());
  return all;
}

inline std::vector<Action> enabled_actions(const PartitionModel& m, const State& s) {
  std::vector<Action> out(kMaxEnabledActions);
  out.resize(static_cast<size_t>(m.enabled_actions(s, out.data())));
  return out;
}

inline std::string enabled_names(const PartitionModel& m, const State& s) {
  std::string out;
  for (const Action& a : enabled_actions(m, s)) out += "\n    " + m.action_name(a);
  return out.empty() ? " (none)" : out;
}

inline const properties::PropertyInfo& property(std::string_view name) {
  const properties::PropertyInfo* p = properties::find(name);
  if (p == nullptr) throw std::invalid_argument("no property named " + std::string(name));
  return *p;
}

inline bool holds(const PartitionModel& m, const State& s, std::string_view name) {
  return property(name).holds(m.config(), s);
}

// Every catalog property's verdict, in catalog order (whether or not it applies).
inline std::vector<bool> verdicts(const PartitionModel& m, const State& s) {
  std::vector<bool> out;
  for (const auto& p : properties::catalog()) out.push_back(p.holds(m.config(), s));
  return out;
}

// The record ids of a replica's log, offset by offset.
inline std::vector<int> records(const State& s, int replica) {
  const ReplicaState& r = s.replicas[replica];
  std::vector<int> out;
  for (int i = 0; i < r.leo; ++i) out.push_back(r.log[i].record);
  return out;
}

// (leader epoch, record id) per offset.
inline std::vector<std::pair<int, int>> entries(const State& s, int replica) {
  const ReplicaState& r = s.replicas[replica];
  std::vector<std::pair<int, int>> out;
  for (int i = 0; i < r.leo; ++i) out.emplace_back(r.log[i].epoch, r.log[i].record);
  return out;
}

inline SendOutcome outcome(const State& s, int record) {
  return static_cast<SendOutcome>(s.producer.outcome[record - 1]);
}

inline NodeSet nodes(std::initializer_list<int> ids) {
  NodeSet out = 0;
  for (int id : ids) out |= bit(id);
  return out;
}

inline bool same_bytes(const State& a, const State& b) { return std::memcmp(&a, &b, sizeof(State)) == 0; }

inline std::string bytes_of(const State& s) {
  return std::string(reinterpret_cast<const char*>(&s), sizeof(State));
}

// One model and the state a scenario has driven it to.
class Scenario {
 public:
  // `overrides` apply on top of pinned(); Raw{} takes them as they are.
  struct Raw {};
  explicit Scenario(const std::vector<std::string>& overrides)
      : model_(make_model(pinned(overrides))), state_(model_.initial_states().at(0)) {}
  Scenario(Raw, const std::vector<std::string>& overrides)
      : model_(make_model(overrides)), state_(model_.initial_states().at(0)) {}

  const PartitionModel& model() const { return model_; }
  const Config& config() const { return model_.config(); }
  const State& state() const { return state_; }
  State& mutable_state() { return state_; }
  const ReplicaState& replica(int r) const { return state_.replicas[r]; }
  const ControllerState& controller() const { return state_.controller; }

  std::vector<Action> enabled() const { return enabled_actions(model_, state_); }

  std::vector<Action> matching(const Step& step) const {
    std::vector<Action> out;
    for (const Action& a : enabled())
      if (step.matches(a)) out.push_back(a);
    return out;
  }
  bool can(const Step& step) const { return !matching(step).empty(); }
  int count(ActionKind kind) const { return static_cast<int>(matching(Step{kind}).size()); }

  // Applies the one enabled action `step` matches; fails (state unchanged) otherwise.
  ::testing::AssertionResult apply(const Step& step) {
    const std::vector<Action> found = matching(step);
    if (found.size() != 1) {
      return ::testing::AssertionFailure()
             << (found.empty() ? "not enabled: " : "ambiguous: ") << describe(step) << " after "
             << trace_text() << "\n  enabled:" << enabled_names(model_, state_);
    }
    state_ = model_.next_state(state_, found[0]);
    trace_.push_back(model_.action_name(found[0]));
    return ::testing::AssertionSuccess();
  }

  ::testing::AssertionResult run(std::initializer_list<Step> steps) {
    for (const Step& step : steps) {
      ::testing::AssertionResult r = apply(step);
      if (!r) return r;
    }
    return ::testing::AssertionSuccess();
  }

  ::testing::AssertionResult holds(std::string_view name) const {
    if (modeltest::holds(model_, state_, name)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << name << " is violated after " << trace_text() << "\n"
                                         << model_.state_to_json(state_).dump();
  }
  ::testing::AssertionResult violated(std::string_view name) const {
    if (!modeltest::holds(model_, state_, name)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << name << " holds after " << trace_text() << "\n"
                                         << model_.state_to_json(state_).dump();
  }
  // Every property of the configuration's list holds.
  ::testing::AssertionResult all_hold() const {
    for (const auto& p : model_.properties()) {
      if (!p.holds(model_, state_)) return holds(p.name);
    }
    return ::testing::AssertionSuccess();
  }

  std::string trace_text() const {
    if (trace_.empty()) return "Init";
    std::string out = "Init";
    for (const auto& name : trace_) out += " -> " + name;
    return out;
  }
  std::string json() const { return model_.state_to_json(state_).dump(); }

 private:
  PartitionModel model_;
  State state_;
  std::vector<std::string> trace_;
};

// Follower `f` fetches from `l` until it has the leader's whole log, then up to twice
// more: once so that the leader learns its offset (which may advance the leader's HW),
// and once more for a response carrying that HW (a response carries the HW from before
// the fetch it answers, Partition.readRecords), each unless the fetch would change
// nothing (the model does not enumerate such fetches).
inline ::testing::AssertionResult catch_up(Scenario& s, int f, int l) {
  for (int guard = 0; guard < kMaxLog && s.replica(f).leo < s.replica(l).leo; ++guard) {
    if (auto r = s.run({fetch(f, l), fetch_response(f)}); !r) return r;
  }
  if (s.replica(f).leo != s.replica(l).leo) {
    return ::testing::AssertionFailure() << "follower " << f << " made no progress: " << s.json();
  }
  for (int more = 0; more < 2 && s.can(fetch(f, l)); ++more) {
    if (auto r = s.run({fetch(f, l), fetch_response(f)}); !r) return r;
  }
  return ::testing::AssertionSuccess();
}

// Visits every state reachable from `from` through actions `allowed` accepts (each
// state once, by its bytes); returns the number visited, stopping at `limit`.
inline size_t explore(const PartitionModel& m, const State& from, const std::function<bool(const Action&)>& allowed,
                      const std::function<void(const State&)>& visit, size_t limit = 500000) {
  std::set<std::string> seen{bytes_of(from)};
  std::vector<State> stack{from};
  while (!stack.empty() && seen.size() < limit) {
    const State s = stack.back();
    stack.pop_back();
    visit(s);
    for (const Action& a : enabled_actions(m, s)) {
      if (!allowed(a)) continue;
      const State t = m.next_state(s, a);
      if (seen.insert(bytes_of(t)).second) stack.push_back(t);
    }
  }
  return seen.size();
}

// RapidCheck scales inRange by the test's size, so early runs would only ever take the
// first enabled action and stop after a step or two; walks want the whole range from
// the start (shrinking still moves towards `lo`).
template <class T = int>
auto uniform(T lo, T hi) {
  return rc::gen::resize(100, rc::gen::inRange<T>(lo, hi));
}

// Configurations random walks cover: each a name and its --set overrides.
struct NamedConfig {
  std::string name;
  std::vector<std::string> overrides;
};

// "default" is the model's own default configuration (atomic fetches); the others start
// from pinned() and so model fetch responses as separate steps.
inline const std::vector<NamedConfig>& walk_configs() {
  static const std::vector<NamedConfig> all = [] {
    std::vector<NamedConfig> list = {
      {"async-default", {}},
      {"acks-1", {"acks=1", "bounds.max_records=3", "faults.max_crashes=2"}},
      {"unclean", {"unclean_leader_election=true", "faults.max_crashes=3", "faults.max_disk_losses=1",
                   "controller.placement=dedicated"}},
      {"hw-truncation", {"protocol=hw-truncation", "acks=1", "faults.max_crashes=2", "bounds.max_leader_moves=2"}},
      {"kip-101", {"protocol=kip-101", "faults.max_crashes=2", "bounds.max_leader_moves=2"}},
      {"kip-320-cuts", {"protocol=kip-320", "faults.max_network_cuts=2", "faults.max_crashes=2"}},
      {"kip-966-lossy", {"faults.max_crashes=3", "faults.max_lossy_crashes=2", "faults.max_disk_losses=1",
                         "faults.max_clean_shutdowns=1", "bounds.max_retries=2", "idempotence=true"}},
      {"rf5", {"brokers=5", "replication_factor=5", "min_insync_replicas=3", "faults.max_crashes=3",
               "faults.max_clean_shutdowns=1"}},
      {"dedicated", {"controller.placement=dedicated", "faults.max_crashes=3", "faults.max_network_cuts=2",
                     "faults.max_clean_shutdowns=1", "bounds.max_leader_moves=1"}},
      {"rf2-of-3", {"brokers=4", "replication_factor=2", "acks=all", "faults.max_crashes=2",
                    "faults.max_network_cuts=1", "admin_unclean_election=true"}},
      // The ZooKeeper-mode controller with KIP-380 (bounces), clean shutdowns and cuts.
      {"kip-497-zk", {"protocol=kip-497", "faults.max_crashes=3", "faults.max_lossy_crashes=1",
                      "faults.max_clean_shutdowns=1", "faults.max_network_cuts=1"}},
      // Before KAFKA-6082 (2.1): a deposed controller's queued write and its stale
      // LeaderAndIsr (StaleLeaderAndIsr) happen, with controller failovers through crashes.
      {"kip-279-zk-deposed", {"protocol=kip-279", "faults.max_crashes=3", "faults.max_lossy_crashes=0",
                              "faults.max_network_cuts=2"}},
      // Process pauses (SIGSTOP): frozen leaders, followers and voters, their sessions expiring.
      {"pauses", {"faults.max_pauses=2", "faults.max_crashes=2", "acks=1", "min_insync_replicas=1"}},
      {"pauses-zk", {"protocol=kip-497", "faults.max_pauses=2", "faults.max_crashes=1"}},
      // Reassignments (KIP-455) onto a fourth broker and back, consumers on followers (KIP-392).
      {"reassign", {"brokers=4", "bounds.max_reassignments=3", "faults.max_crashes=2",
                    "consumer_fetch_from=any-replica"}},
      // KIP-853's dynamic quorum: wiped voters as observers, RemoveVoter and AddVoter.
      {"dynamic-quorum", {"controller.quorum=dynamic", "faults.max_crashes=3", "faults.max_disk_losses=2",
                          "faults.max_lossy_crashes=0"}},
    };
    for (NamedConfig& nc : list) nc.overrides = pinned(nc.overrides);
    list.insert(list.begin(), NamedConfig{"default", {}});
    list.push_back({"atomic-faults", {"faults.max_crashes=3", "faults.max_disk_losses=1", "faults.max_clean_shutdowns=1",
                                      "faults.max_network_cuts=1", "bounds.max_records=2", "bounds.max_retries=1"}});
    return list;
  }();
  return all;
}

}  // namespace isr::spec::modeltest
