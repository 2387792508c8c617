// The Kafka adapter (see real_kafka_cluster.h).
#include "conformance/real_kafka_cluster.h"

#include <cstdio>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <thread>

#include "conformance/batch_mapping.h"
#include "conformance/driver_command.h"
#include "conformance/power_mounts.h"
#include "conformance/release_fixes.h"
#include "conformance/zookeeper_mode.h"
#include "counterexamples/scenario/scenario_reader.h"

namespace isr::conformance {

using nlohmann::json;
using cut::SendResult;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kUnknown = kUnknownObservable;  // real_kafka_cluster.h

std::optional<SendResult> send_result_of(const std::string& name) {
  if (name == "acked") return SendResult::Acked;
  if (name == "pending") return SendResult::Pending;
  if (name == "unsent") return SendResult::Unsent;
  if (name == "NOT_ENOUGH_REPLICAS") return SendResult::NotEnoughReplicas;
  if (name == "NOT_ENOUGH_REPLICAS_AFTER_APPEND") return SendResult::NotEnoughReplicasAfterAppend;
  if (name == "REQUEST_TIMED_OUT") return SendResult::RequestTimedOut;
  if (name == "NOT_LEADER_OR_FOLLOWER") return SendResult::NotLeaderOrFollower;
  return std::nullopt;
}

SendResult mapped(const std::string& name, int record) {
  const std::optional<SendResult> r = send_result_of(name);
  if (!r) {
    throw UnexpectedAnswer("the send of record " + std::to_string(record) + " ended with " + name +
                           ", which no scenario expects (allowed: acked, pending, NOT_ENOUGH_REPLICAS, "
                           "NOT_ENOUGH_REPLICAS_AFTER_APPEND, REQUEST_TIMED_OUT, NOT_LEADER_OR_FOLLOWER)");
  }
  return *r;
}

int int_or(const json& v, int none) { return v.is_number_integer() ? v.get<int>() : none; }

std::vector<int> ints_or_unknown(const json& v) {
  std::vector<int> out;
  if (!v.is_array()) return {kUnknown};
  for (const json& x : v) out.push_back(x.get<int>());
  std::sort(out.begin(), out.end());
  return out;
}

const char* side_text(cut::NetworkSide side) {
  switch (side) {
    case cut::NetworkSide::Quorum: return "quorum";
    case cut::NetworkSide::Brokers: return "brokers";
    case cut::NetworkSide::Clients: return "clients";
  }
  return "?";
}

bool view_current(const cut::Condition& c, const cut::ReplicaCondition& r) {
  if (!r.has_view && !r.view_leader && !r.view_leader_epoch && !r.view_isr) return true;  // nothing asked
  if (r.has_view && !*r.has_view) return false;  // not replayed since start in the trace
  return r.view_leader == c.leader && r.view_leader_epoch == c.leader_epoch && r.view_isr == c.isr;
}

}  // namespace

std::string generation_of_release(const std::string& v) {
  if (v.rfind("4.", 0) == 0) return "kip-966";
  // The releases before 3.5, by the model's generations (export_scenario.cc,
  // protocol_kafka_versions): 2.7 to 3.4 kip-497, 2.1 to 2.6 kip-320, 2.0 kip-279, 0.11 to
  // 1.1 kip-101 (KIP-279 came in 2.0), 0.10 and before hw-truncation.
  for (const char* p : {"2.7", "2.8", "3.0", "3.1", "3.2", "3.3", "3.4"})
    if (v.rfind(std::string(p) + ".", 0) == 0) return "kip-497";
  for (const char* p : {"2.1", "2.2", "2.3", "2.4", "2.5", "2.6"})
    if (v.rfind(std::string(p) + ".", 0) == 0) return "kip-320";
  if (v.rfind("2.0.", 0) == 0) return "kip-279";
  for (const char* p : {"0.11", "1.0", "1.1"})
    if (v.rfind(std::string(p) + ".", 0) == 0) return "kip-101";
  if (v.rfind("0.", 0) == 0) return "hw-truncation";
  if (v.rfind("3.5", 0) == 0 || v.rfind("3.6", 0) == 0 || v.rfind("3.7", 0) == 0 || v.rfind("3.8", 0) == 0 ||
      v.rfind("3.9", 0) == 0) {
    return "kip-903";
  }
  return "";
}

std::string not_executable_reason(const json& scenario, const std::string& kafka_version) {
  const json steps = scenario.value("steps", json::array());
  const json protocol = scenario.value("cluster", json::object()).value("protocol", json::object());
  const std::string generation = protocol.value("generation", "");
  const std::string release_generation = generation_of_release(kafka_version);
  if (!generation.empty() && generation != release_generation) {
    return "the trace is of protocol generation " + generation + " (Kafka " + protocol.value("kafka_versions", "?") +
           "), and Kafka " + kafka_version + " implements " +
           (release_generation.empty() ? std::string("an unknown one") : release_generation) +
           ": run it with --kafka-version of that generation";
  }
  if (std::string zk = zookeeper_not_executable(scenario, kafka_version); !zk.empty()) return zk;
  if (std::string off = fix_off_not_executable(scenario, kafka_version); !off.empty()) return off;
  // KIP-853's dynamic quorum (kafka-storage format --initial-controllers, AddRaftVoter)
  // shipped in Kafka 3.9.0.
  if (scenario.value("cluster", json::object()).value("controller", json::object()).value("quorum", "") == "dynamic") {
    int major = 0, minor = 0;
    if (std::sscanf(kafka_version.c_str(), "%d.%d", &major, &minor) != 2 || major < 3 || (major == 3 && minor < 9)) {
      return "the scenario runs on a dynamic KRaft quorum (KIP-853: --initial-controllers, AddRaftVoter), which "
             "Kafka " + kafka_version + " does not have (3.9.0 and later)";
    }
  }
  std::vector<int> voters;
  if (scenario.contains("cluster")) {
    for (const json& v : scenario["cluster"].value("controller", json::object()).value("voters", json::array()))
      voters.push_back(v.get<int>());
  }
  for (const json& s : steps) {
    if (s.value("op", "") != "crash") continue;
    const std::string kind = s.value("kind", "");
    const int node = s.value("node", -1);
    const std::string where = "step " + std::to_string(s.value("step", 0)) + " (" + s.value("description", "crash") + ")";
    if (kind == "power") {
      // kill -9 keeps the OS page cache: the power loss needs the nodes' data on
      // isrcheck-powerfs mounts (power_mounts.h), whose page cache the harness drops.
      std::string why;
      if (powerfs_binary(&why).empty()) return where + ": power loss: unflushed data cannot be dropped: " + why;
      for (const json& other : steps) {
        if (other.value("op", "") == "crash" && other.value("kind", "") == "disk") {
          return where + ": power loss and disk loss in one scenario: the driver's disk loss deletes the node's "
                         "data directory, which is the isrcheck-powerfs mount point here";
        }
      }
    }
    // A combined voter's disk loss wipes its KRaft log and quorum state too. While the node
    // stays down that changes nothing the partition model describes (the other voters keep
    // the committed metadata); a restart does: on the harness's static quorum
    // (controller.quorum.voters, kraft.version 0) the empty voter votes as if it had the
    // log (the kraft model's fixes.directory_ids=false hazard), and on a KIP-853 dynamic
    // quorum it comes back an observer until an operator removes and re-adds it, which the
    // partition model's restart does not describe (docs/conformance.md, "A combined
    // voter's disk loss").
    const bool restarted_later = [&] {
      bool after = false;
      for (const json& t : steps) {
        if (&t == &s) after = true;
        else if (after && t.value("op", "") == "restart" && t.value("node", -1) == node) return true;
      }
      return false;
    }();
    // On a dynamic quorum (controller.quorum=dynamic) the partition model describes the
    // observer window and the operator's RemoveVoter / AddVoter, and the driver formats the
    // wiped node with --no-initial-controllers: executable.
    const bool dynamic = scenario["cluster"].value("controller", json::object()).value("quorum", "") == "dynamic";
    if (kind == "disk" && restarted_later && !dynamic &&
        std::find(voters.begin(), voters.end(), node) != voters.end() &&
        scenario["cluster"].value("controller", json::object()).value("placement", "") == "combined") {
      return where + ": a combined broker+controller node restarted after its disk loss rejoins the KRaft quorum "
                     "on an empty metadata log: on the static quorum (controller.quorum.voters, kraft.version 0) it "
                     "would vote as if it had the log, which the partition model does not describe; a trace of "
                     "--set controller.quorum=dynamic (KIP-853: an observer until RemoveVoter and AddVoter) runs";
    }
  }
  return "";
}

std::vector<std::string> kafka_mismatches(const cut::Condition& c, const cut::PartitionObservation& o,
                                          std::vector<std::string>* skipped) {
  cut::Condition mapped_c = c;
  // With every broker down no one answers for the partition (the driver reads it from
  // the brokers' metadata; the controller serves no DescribeTopicPartitions): the
  // committed state is not observable until a broker returns, and the trace's later
  // waits compare it then. Only fields the driver reported unknown are left out.
  bool all_down = !o.replicas.empty();
  for (const auto& [node, r] : o.replicas) all_down = all_down && !r.alive;
  if (all_down) {
    auto drop = [&](auto& field, bool unknown, const char* name) {
      if (field && unknown) {
        field.reset();
        if (skipped != nullptr) skipped->push_back(std::string(name) + ": not observable, every broker is down");
      }
    };
    const std::vector<int> unknown_list{kUnknown};
    drop(mapped_c.leader_epoch, o.leader_epoch == kUnknown, "leader_epoch");
    drop(mapped_c.isr, o.isr == unknown_list, "isr");
    drop(mapped_c.elr, o.elr == unknown_list, "elr");
    drop(mapped_c.last_known_elr, o.last_known_elr == unknown_list, "last_known_elr");
    drop(mapped_c.fenced, o.fenced == unknown_list, "fenced");
    drop(mapped_c.hw, o.hw == kUnknown, "hw");
  }
  // Dynamic quorum (KIP-853): DescribeQuorum is answered by the quorum's leader only; with
  // no leader (no majority) the voter set is not observable, and later waits compare it.
  if (o.voters == std::vector<int>{kUnknown}) {
    for (auto* field : {&mapped_c.voters, &mapped_c.observers}) {
      if (*field && skipped != nullptr) skipped->push_back("voters/observers: no quorum leader answers DescribeQuorum");
      field->reset();
    }
  }
  // The trace's HW is the acting leader's; "none" because the elected leader has not yet
  // replayed its own election (its view stale) is the same unheld metadata propagation.
  if (c.hw && *c.hw == cut::kNone && c.leader && *c.leader >= 0) {
    auto it = c.replicas.find(*c.leader);
    if (it != c.replicas.end() && !view_current(c, it->second)) {
      if (skipped != nullptr) {
        skipped->push_back("hw: none in the trace only because leader " + std::to_string(*c.leader) +
                           " has not replayed its election there, not compared");
      }
      mapped_c.hw.reset();
    }
  }
  for (auto& [node, r] : mapped_c.replicas) {
    if (view_current(c, r)) continue;
    if (skipped != nullptr) {
      skipped->push_back("replica " + std::to_string(node) +
                         " view: stale in the trace (broker has not replayed the controller's last change), "
                         "not compared");
    }
    r.has_view.reset();
    r.view_leader.reset();
    r.view_leader_epoch.reset();
    r.view_isr.reset();
  }
  return cut::mismatches(mapped_c, o);
}

RealKafkaCluster::RealKafkaCluster(KafkaSession& session, json scenario)
    : session_(session), scenario_(std::move(scenario)) {
  const std::string reason = not_executable_reason(scenario_, session_.options().kafka_version);
  if (!reason.empty()) throw NotExecutable(reason);
  // Before any cluster starts: an order no steering can hold a real cluster to, and the
  // producer timeout the holds need (the producer is created in prepare()).
  const SteeringPlan before = plan_steering(scenario_);
  if (!before.not_executable.empty()) throw NotExecutable(before.not_executable);
  if (std::string zk = zookeeper_steering_not_executable(scenario_, before); !zk.empty()) throw NotExecutable(zk);
  std::vector<std::string> derived;
  if (before.producer_request_timeout_ms > 0) {
    scenario_["clients"]["producer"]["request.timeout.ms"] = before.producer_request_timeout_ms;
    for (const std::string& n : before.notes)
      if (n.rfind("producer request.timeout.ms", 0) == 0) derived.push_back(n);
  }
  per_send_ = counterexamples::records_per_send(scenario_);
  request_timeout_ms_ = counterexamples::producer_request_timeout_ms(scenario_);
  topic_ = session_.prepare(scenario_);
  SteeringTimes times;
  times.producer_has_metadata = session_.producer_has_metadata();
  plan_ = plan_steering(scenario_, times);
  plan_.notes.insert(plan_.notes.begin(), derived.begin(), derived.end());
}

RealKafkaCluster::~RealKafkaCluster() {
  // Releases still due (an aborted run): the session undoes faults before the next use.
  if (!at_end_done_) {
    try {
      for (const SteerAction& a : plan_.at_end) run(a);
    } catch (const std::exception&) {
    }
  }
}

const json* RealKafkaCluster::step_json(int step) const {
  const json& steps = scenario_.at("steps");
  if (step < 1 || step > static_cast<int>(steps.size())) return nullptr;
  return &steps[static_cast<size_t>(step - 1)];
}

int RealKafkaCluster::begin(const std::string& op) {
  const json& steps = scenario_.at("steps");
  for (size_t i = cursor_; i < steps.size(); ++i) {
    if (steps[i].value("op", "") != op) continue;
    if (i != cursor_) {
      notes_.push_back("call " + op + " skipped scenario steps " + std::to_string(cursor_ + 1) + ".." +
                       std::to_string(i) + ": their steering did not run");
    }
    cursor_ = i + 1;
    const int step = static_cast<int>(i) + 1;
    auto it = plan_.steps.find(step);
    if (it != plan_.steps.end()) {
      for (const SteerAction& a : it->second.before) run(a);
    }
    return step;
  }
  notes_.push_back("call " + op + " matches no remaining scenario step: run without steering");
  return 0;
}

void RealKafkaCluster::end(int step) {
  auto it = plan_.steps.find(step);
  if (step == 0 || it == plan_.steps.end()) return;
  for (const SteerAction& a : it->second.after) run(a);
}

void RealKafkaCluster::run(const SteerAction& a) {
  const milliseconds budget(15000);
  // A cut that ends when its follower leads waits for that inside the wait.
  if (a.kind == SteerAction::Kind::Heal) await_release_point(a);
  switch (a.kind) {
    case SteerAction::Kind::Pause:
      steer_paused_.insert(a.node);
      signal(a.node, true);
      break;
    case SteerAction::Kind::Resume:
      steer_paused_.erase(a.node);
      if (scenario_paused_.count(a.node)) {
        notes_.push_back("steering's hold of N" + std::to_string(a.node) +
                         " ends while the scenario keeps it paused: not continued");
        return;
      }
      signal(a.node, false);
      break;
    case SteerAction::Kind::Cut:
      // Two holds may cut one node at once (a record hold, a registration hold): the
      // first cut cuts, the last heal heals.
      if (steer_cuts_[a.node]++ == 0) {
        session_.call({{"op", "cut"}, {"node", a.node}, {"side", "brokers"}}, budget);
        session_.note_cut(a.node, "brokers", true);
      }
      break;
    case SteerAction::Kind::Heal:
      if (steer_cuts_[a.node] > 0 && --steer_cuts_[a.node] > 0) {
        notes_.push_back("steering's hold of N" + std::to_string(a.node) +
                         " ends while another hold keeps it cut from replication: not healed yet");
        return;
      }
      if (scenario_cut_.count(a.node)) {
        notes_.push_back("steering's hold of N" + std::to_string(a.node) +
                         " ends while the scenario keeps it cut from replication: not healed");
        return;
      }
      session_.call({{"op", "heal"}, {"node", a.node}, {"side", "brokers"}}, budget);
      session_.note_cut(a.node, "brokers", false);
      break;
    case SteerAction::Kind::Sleep:
      std::this_thread::sleep_for(milliseconds(a.ms));
      break;
    case SteerAction::Kind::GateFetch:
      session_.call({{"op", "gate_fetch"}, {"node", a.node}, {"value", "record-" + std::to_string(a.record)}}, budget);
      break;
    case SteerAction::Kind::ReleaseGate:
      session_.call({{"op", "release_fetch_gate"}, {"node", a.node}}, budget);
      break;
    case SteerAction::Kind::HoldAlterPartition:
      session_.call({{"op", "hold_alter_partition"}, {"node", a.node}}, budget);
      break;
    case SteerAction::Kind::ReleaseAlterPartition:
      await_release_point(a);
      session_.call({{"op", "release_alter_partition"}, {"node", a.node}}, budget);
      break;
    case SteerAction::Kind::ShrinkAfterFetch:
      shrink_after_fetch(a);
      return;
    case SteerAction::Kind::AwaitAlterPartition:
      return;  // inside its wait, before the wait ends (await_held_proposals)
    case SteerAction::Kind::HoldMetadata:
      session_.call({{"op", "hold_metadata"}, {"node", a.node}}, budget);
      session_.note_metadata_held(a.node, true);
      metadata_held_.insert(a.node);
      break;
    case SteerAction::Kind::HoldRegistration:
      session_.call({{"op", "hold_registration"}, {"node", a.node}}, budget);
      session_.note_registration_held(a.node, true);
      registration_held_.insert(a.node);
      break;
    case SteerAction::Kind::ReleaseRegistration: {
      const json r = session_.call({{"op", "release_registration"}, {"node", a.node}}, budget);
      session_.note_registration_held(a.node, false);
      registration_held_.erase(a.node);
      notes_.push_back("steered: " + describe(a) + " (" + std::to_string(r.value("held_frames", 0)) +
                       " registration and heartbeat frames waited in the controller proxies so far)");
      return;
    }
    case SteerAction::Kind::ReleaseMetadata: {
      await_release_point(a);
      const json r = session_.call({{"op", "release_metadata"}, {"node", a.node}}, budget);
      session_.note_metadata_held(a.node, false);
      metadata_held_.erase(a.node);
      notes_.push_back("steered: " + describe(a) + " (" + std::to_string(r.value("held_frames", 0)) +
                       " raft request frames waited in the controller proxies so far)");
      return;
    }
  }
  notes_.push_back("steered: " + describe(a));
}

void RealKafkaCluster::shrink_after_fetch(const SteerAction& a) {
  const milliseconds budget(15000);
  const auto started = Clock::now();
  const auto deadline = started + session_.options().wait_budget;
  const std::string f = "N" + std::to_string(a.node), l = "N" + std::to_string(a.peer);
  std::string how;
  if (a.second_fetch) {
    // The leader's shrink of f waits at the controller proxies (replica.lag.time.max.ms
    // after f's last fetch reached it, plus up to half of it for the expiration task).
    for (;;) {
      const json h = session_.call({{"op", "holds"}, {"node", a.node}}, budget);
      if (h.value("alter_partition_waiting", 0) > 0) {
        how = "the shrink waited at the controller proxies after " +
              std::to_string(std::chrono::duration_cast<milliseconds>(Clock::now() - started).count()) + " ms";
        break;
      }
      if (Clock::now() >= deadline) {
        how = "no AlterPartition of " + l + " within the wait budget";
        break;
      }
      if (interrupt_flag().load()) throw Interrupted();
      std::this_thread::sleep_for(milliseconds(100));
    }
    // One fetch of f reaches the leader: the HW advances over the maximal ISR, the send is
    // acked, and no expansion runs while the AlterPartition is in flight.
    session_.call({{"op", "release_fetch_gate"}, {"node", a.node}}, budget);
    std::this_thread::sleep_for(milliseconds(500));
  }
  if (steer_cuts_[a.node]++ == 0) {
    session_.call({{"op", "cut"}, {"node", a.node}, {"side", "brokers"}}, budget);
    session_.note_cut(a.node, "brokers", true);
  }
  if (a.second_fetch) {
    std::this_thread::sleep_for(milliseconds(300));  // a fetch parked at the leader completes
    session_.call({{"op", "release_alter_partition"}, {"node", a.peer}}, budget);
  } else {
    // The gate's held request now waits behind the cut; the leader shrinks f by itself.
    session_.call({{"op", "release_fetch_gate"}, {"node", a.node}}, budget);
  }
  notes_.push_back("steered: " + describe(a) + ": " + (how.empty() ? std::string() : how + "; ") + f +
                   " cut from replication" + (a.second_fetch ? ", one fetch let through before, " + l +
                                                                   "'s AlterPartition released after"
                                                             : ""));
}

std::string RealKafkaCluster::await_held_proposals(int step, Clock::time_point deadline) {
  auto it = plan_.steps.find(step);
  if (step == 0 || it == plan_.steps.end()) return "";
  for (const SteerAction& a : it->second.after) {
    if (a.kind != SteerAction::Kind::AwaitAlterPartition) continue;
    const auto started = Clock::now();
    for (;;) {
      const json h = session_.call({{"op", "holds"}, {"node", a.node}}, milliseconds(15000));
      const auto waited = std::chrono::duration_cast<milliseconds>(Clock::now() - started).count();
      if (h.value("alter_partition_waiting", 0) > 0) {
        notes_.push_back("step " + std::to_string(step) + ": N" + std::to_string(a.node) + "'s AlterPartition adding N" +
                         std::to_string(a.peer) + " waits at the controller proxies (after " + std::to_string(waited) +
                         " ms more)");
        break;
      }
      if (Clock::now() >= deadline) {
        return "the state was reached, but N" + std::to_string(a.node) + "'s AlterPartition adding N" +
               std::to_string(a.peer) + " did not reach the controller proxies within the wait budget (" +
               std::to_string(session_.options().wait_budget.count()) + " ms): the trace has N" +
               std::to_string(a.node) + " propose it in this wait, on N" + std::to_string(a.peer) +
               "'s fetch after the one that caught it up";
      }
      if (interrupt_flag().load()) throw Interrupted();
      std::this_thread::sleep_for(milliseconds(50));
    }
  }
  return "";
}

int RealKafkaCluster::session_timeout_ms() const {
  const json bc = scenario_.value("cluster", json::object()).value("broker_config", json::object());
  const json v = bc.value("broker.session.timeout.ms", json());
  if (v.is_number_integer()) return v.get<int>();
  if (v.is_string()) {
    try {
      return std::stoi(v.get<std::string>());
    } catch (const std::exception&) {
      // not a number: Kafka refuses it at start; the driver's lowered default applies here
    }
  }
  return 1500;  // the driver's lowered broker.session.timeout.ms (PROTOCOL.md)
}

void RealKafkaCluster::await_release_point(const SteerAction& a) {
  if (a.when == SteerAction::When::Now) return;
  const auto started = Clock::now();
  const auto deadline = started + session_.options().wait_budget;
  // With every live broker held, no view shows the controller's change: the fencing of a
  // node the wait fences happens once its session expired, broker.session.timeout.ms
  // after its last heartbeat (its crash), plus the controller's fencing scan and commit.
  std::optional<Clock::time_point> fence_due;
  for (int n : a.fenced_in_wait) {
    auto it = crashed_at_.find(n);
    if (it == crashed_at_.end()) continue;
    const auto due = it->second + milliseconds(session_timeout_ms() + 2500);
    if (!fence_due || due > *fence_due) fence_due = due;
  }
  std::string how = "not reached within the wait budget";
  for (;;) {
    const json d = session_.call({{"op", "describe"}, {"topic", topic_}, {"timeout_ms", 5000}}, milliseconds(20000));
    const json replicas = d.value("replicas", json::object());
    if (a.when == SteerAction::When::Unfenced) {
      // A deferred ISR expansion goes on once its follower's new incarnation registered
      // and was unfenced (describe's fenced list, DescribeCluster).
      const json r = replicas.value(std::to_string(a.peer), json::object());
      const std::vector<int> fenced = ints_or_unknown(d.value("fenced", json()));
      if (r.value("alive", false) && std::find(fenced.begin(), fenced.end(), kUnknown) == fenced.end() &&
          std::find(fenced.begin(), fenced.end(), a.peer) == fenced.end()) {
        how = "N" + std::to_string(a.peer) + " is registered and unfenced";
        break;
      }
    } else if (a.when == SteerAction::When::OwnViewLeads) {
      const json v = replicas.value(std::to_string(a.node), json::object()).value("view", json());
      if (v.is_object() && v.value("leader", json()) == json(a.node) &&
          v.value("leader_epoch", json()) == json(a.leader_epoch)) {
        how = "its view shows it leading at epoch " + std::to_string(a.leader_epoch);
        break;
      }
    } else {
      bool unheld_live = false, seen = false;
      for (const auto& [id, r] : replicas.items()) {
        const int node = std::stoi(id);
        if (metadata_held_.count(node) || !r.value("alive", false)) continue;
        unheld_live = true;
        const json v = r.value("view", json());
        if (v.is_object() && v.value("leader_epoch", json()).is_number_integer() &&
            v["leader_epoch"].get<int>() >= a.leader_epoch) {
          seen = true;
        }
      }
      if (seen) {
        how = "an unheld broker's view shows leader epoch " + std::to_string(a.leader_epoch);
        break;
      }
      if (!unheld_live && fence_due && Clock::now() >= *fence_due) {
        how = "every live broker held: the fenced node's session expired (broker.session.timeout.ms " +
              std::to_string(session_timeout_ms()) + " ms after its crash, plus 2500 ms)";
        break;
      }
      if (!unheld_live && !fence_due) {
        how = "every live broker held and no fencing to wait for";
        break;
      }
    }
    if (Clock::now() >= deadline) break;
    if (interrupt_flag().load()) throw Interrupted();
    std::this_thread::sleep_for(milliseconds(200));
  }
  notes_.push_back("release point of N" + std::to_string(a.node) + " after " +
                   std::to_string(std::chrono::duration_cast<milliseconds>(Clock::now() - started).count()) +
                   " ms: " + how);
}

void RealKafkaCluster::signal(int node, bool stop) {
  const milliseconds budget(15000);
  session_.call({{"op", stop ? "pause" : "resume"}, {"node", node}}, budget);
  session_.note_paused(node, stop);
}

bool RealKafkaCluster::producer_retries() const {
  const json producer = scenario_.value("clients", json::object()).value("producer", json::object());
  return producer.value("enable.idempotence", false) || producer.value("retries", 0) > 0;
}

bool RealKafkaCluster::retried_later(int step, int record) const {
  const json& steps = scenario_.at("steps");
  for (size_t i = static_cast<size_t>(std::max(step, 0)); i < steps.size(); ++i) {
    const json& t = steps[i];
    if (t.value("op", "") == "produce" && t.value("record", 0) == record && t.value("retry", false)) return true;
  }
  return false;
}

bool RealKafkaCluster::answer_lost_before_retry(int step, int record) const {
  const json& steps = scenario_.at("steps");
  for (size_t i = static_cast<size_t>(std::max(step, 0)); i < steps.size(); ++i) {
    const json& t = steps[i];
    const std::string op = t.value("op", "");
    if (op == "expire_send" && t.value("record", 0) == record) return retried_later(static_cast<int>(i) + 1, record);
    if (op == "produce") return false;
    if (op == "wait" && t.value("until", json::object()).value("sends", json::object()).value(std::to_string(record), "") != "pending")
      return false;
  }
  return false;
}

SendResult RealKafkaCluster::produce(int record, int broker) {
  (void)broker;  // a real client finds the leader itself
  return send(record, false);
}

SendResult RealKafkaCluster::produce_response_lost(int record, int broker) {
  (void)broker;
  return send(record, true);
}

SendResult RealKafkaCluster::send(int record, bool response_lost_in_trace) {
  bool response_lost = response_lost_in_trace;
  const int step = begin("produce");
  const json* s = step_json(step);
  const std::string expect = s != nullptr ? s->value("expect", "") : "";
  const bool retry = s != nullptr && s->value("retry", false);
  // The trace retries this send later and Kafka's producer retries by itself: the
  // application sees the send pending meanwhile, never the retriable error in between
  // (Sender re-enqueues the batch, RecordAccumulator.reenqueue).
  const bool hidden_error = producer_retries() && retried_later(step, record) &&
                            (expect == "REQUEST_TIMED_OUT" || expect == "NOT_ENOUGH_REPLICAS" ||
                             expect == "NOT_ENOUGH_REPLICAS_AFTER_APPEND" || expect == "NOT_LEADER_OR_FOLLOWER");
  // A send the trace shows unanswered is read after 1 s, or after half the producer's
  // request.timeout.ms when that is shorter: by then a retry of its own could have been
  // answered (a lost first answer, retried after request.timeout.ms).
  const int wait_ms = expect == "pending" || hidden_error ? std::min(1000, request_timeout_ms_ / 2) : 5000;
  // The trace's client times out this send and retries it later, while its leader goes
  // on and commits it (acks=all: the model's ProduceTimeout of an appended record, which
  // is the same state as an answer lost after the append, docs/model.md). A healthy
  // cluster answers within milliseconds, so the answer is dropped at the proxy.
  if (!response_lost && expect == "pending" && answer_lost_before_retry(step, record)) {
    response_lost = true;
    notes_.push_back("step " + std::to_string(step) + ": the trace times out record " + std::to_string(record) +
                     " and retries it: the leader's answer is dropped");
  }
  if (response_lost) {
    // The broker the client sends to handles the request; its client proxy drops the answer.
    const int leader = s != nullptr ? s->value("broker", 0) : 0;
    session_.call({{"op", "drop_produce_responses"}, {"node", leader}, {"count", 1}}, milliseconds(15000));
    notes_.push_back("step " + std::to_string(step) + ": N" + std::to_string(leader) +
                     "'s client proxy drops the response to this produce request");
  }
  const bool request_lost = s != nullptr && s->value("request_lost", false);
  auto requests_dropped = [&] {
    int total = 0;
    for (int n : session_.broker_ids())
      total += session_.call({{"op", "dropped"}, {"node", n}}, milliseconds(10000)).value("dropped_requests", 0);
    return total;
  };
  const int dropped_before = request_lost ? requests_dropped() : 0;
  if (request_lost) {
    // acks=0 to a broker that does not lead: the model's broker drops the request; the
    // client of a real cluster sends to the leader it knows, so every client proxy drops
    // the next produce request instead: the record reaches no broker either way.
    for (int n : session_.broker_ids())
      session_.call({{"op", "drop_produce_requests"}, {"node", n}, {"count", 1}}, milliseconds(15000));
    notes_.push_back("step " + std::to_string(step) + ": acks=0 to a broker that does not lead: the client "
                     "proxies drop the produce request, so it reaches no broker");
  }
  json r;
  if (retry && producer_retries()) {
    // The producer's own retry (retries > 0): nothing to send, the send in progress ends.
    // A retry the trace shows unanswered is read as a first send is (wait_ms), not awaited
    // to its end: with no follower fetching, Kafka's retry itself times out.
    const int await_ms = expect == "pending" ? wait_ms : 15000;
    r = session_.call({{"op", "await_send"}, {"record", record}, {"timeout_ms", await_ms}}, milliseconds(await_ms + 15000));
    notes_.push_back("step " + std::to_string(step) + ": the retry of record " + std::to_string(record) +
                     " is Kafka's producer's own (retries > 0): awaited, not sent again");
  } else {
    r = session_.call({{"op", "produce"}, {"record", record}, {"wait_ms", wait_ms}}, milliseconds(wait_ms + 15000));
  }
  if (request_lost) {
    // acks=0 completes the send once the request is written to the socket, possibly
    // before the proxy has read it: disarm only once a proxy has dropped it (bounded).
    const auto until = Clock::now() + milliseconds(5000);
    while (requests_dropped() == dropped_before && Clock::now() < until) std::this_thread::sleep_for(milliseconds(50));
    for (int n : session_.broker_ids())
      session_.call({{"op", "drop_produce_requests"}, {"node", n}, {"count", 0}}, milliseconds(15000));
  }
  last_send_answer_ = r.value("result", "?");
  SendResult result = mapped(last_send_answer_, record);
  if (hidden_error && result == SendResult::Pending) {
    notes_.push_back("step " + std::to_string(step) + ": record " + std::to_string(record) + " pending where the "
                     "trace shows " + expect + " before its retry: Kafka's producer retries by itself, the "
                     "application sees no error in between");
    result = *send_result_of(expect);
  }
  // acks=all: the leader answers only after its ISR fetched the record, so an ack means the
  // request passed through "appended, waiting for the ISR" (the trace's pending). When the
  // trace's very next step is a wait that shows this send acked, the cluster merely took
  // that wait's fetches within milliseconds: the send was pending when the leader handled it.
  if (result == SendResult::Acked && expect == "pending" && s != nullptr) {
    const json* next = step_json(step + 1);
    const std::string acks = s->value("acks", json("")).is_string() ? s->value("acks", "") : "";
    if (acks == "all" && next != nullptr && next->value("op", "") == "wait" &&
        next->at("until").value("sends", json::object()).value(std::to_string(record), "") == "acked") {
      notes_.push_back("step " + std::to_string(step) + ": record " + std::to_string(record) +
                       " acked within " + std::to_string(wait_ms) +
                       " ms (acks=all: after the ISR's fetches, which the trace takes in step " +
                       std::to_string(step + 1) + "): pending when the leader handled it");
      result = SendResult::Pending;
    }
  }
  end(step);
  return result;
}

SendResult RealKafkaCluster::expire_send(int record) {
  const int step = begin("expire_send");
  if (producer_retries() && retried_later(step, record)) {
    // Kafka's producer retries this send by itself (the trace's later retry): the
    // application sees it pending, never the timeout in between.
    const json r = session_.call({{"op", "send_status"}, {"record", record}}, milliseconds(10000));
    last_send_answer_ = r.value("result", "?");
    end(step);
    SendResult result = mapped(last_send_answer_, record);
    if (result == SendResult::Pending) {
      notes_.push_back("step " + std::to_string(step) + ": record " + std::to_string(record) +
                       " pending where the trace times it out before its retry: Kafka's producer retries by "
                       "itself, the application sees no timeout in between");
      result = SendResult::RequestTimedOut;
    }
    return result;
  }
  const json r = session_.call({{"op", "await_send"}, {"record", record}, {"timeout_ms", 15000}},
                               milliseconds(30000));
  last_send_answer_ = r.value("result", "?");
  end(step);
  return mapped(last_send_answer_, record);
}

std::optional<int> RealKafkaCluster::consume(int offset, int broker) {
  (void)broker;
  const int step = begin("consume");
  if (per_send_ > 1) {
    // Model offset o is the batch at Kafka offset o*k: all k of its records must read
    // back, in order, as the pieces of one model record (else kUnmapped: no match).
    const json r = session_.call({{"op", "consume"}, {"offset", static_cast<long long>(offset) * per_send_},
                                  {"count", per_send_}, {"timeout_ms", 3000}},
                                 milliseconds(15000));
    end(step);
    if (!r.contains("values") || r["values"].is_null()) return std::nullopt;
    const int m = model_record_of(r["values"].get<std::vector<std::string>>(), per_send_);
    if (m == kUnmapped) {
      notes_.push_back("step " + std::to_string(step) + ": offsets " + std::to_string(offset * per_send_) + ".." +
                       std::to_string(offset * per_send_ + per_send_ - 1) + " read " + r["values"].dump() +
                       ", not one model record's batch");
    }
    return m;
  }
  const json r = session_.call({{"op", "consume"}, {"offset", offset}, {"timeout_ms", 3000}}, milliseconds(15000));
  end(step);
  if (!r.contains("record") || r["record"].is_null()) return std::nullopt;
  return r["record"].get<int>();
}

void RealKafkaCluster::crash(int node, cut::CrashKind kind, std::optional<int> leader_after) {
  (void)leader_after;  // the controller decides by itself
  const int step = begin("crash");
  switch (kind) {
    case cut::CrashKind::Kill:
      session_.call({{"op", "kill"}, {"node", node}}, milliseconds(20000));
      break;
    case cut::CrashKind::Clean:
      try {
        session_.call({{"op", "stop"}, {"node", node}, {"timeout_ms", 30000}}, milliseconds(45000));
      } catch (const DriverError& e) {
        if (e.kind != "timeout") throw;
        notes_.push_back("step " + std::to_string(step) + ": controlled shutdown of N" + std::to_string(node) +
                         " did not end within 30 s; the driver killed it");
      }
      break;
    case cut::CrashKind::DiskLoss: {
      const json r = session_.call({{"op", "disk_loss"}, {"node", node}}, milliseconds(30000));
      if (r.value("combined_voter", false)) session_.note_voter_disk_lost();
      break;
    }
    case cut::CrashKind::PowerLoss: {
      // The JVM first (kill -9: its dirty mmap pages reach the file system as it exits),
      // then the machine's page cache: every write since the file's last fsync is gone.
      session_.call({{"op", "kill"}, {"node", node}}, milliseconds(20000));
      const std::string lost = session_.power_loss(node);
      notes_.push_back("step " + std::to_string(step) + ": power loss of N" + std::to_string(node) +
                       ": kill -9, then its isrcheck-powerfs mount dropped what was not fsynced (" + lost + ")");
      break;
    }
  }
  session_.note_paused(node, false);
  scenario_paused_.erase(node);
  steer_paused_.erase(node);
  session_.note_alive(node, false);
  crashed_at_[node] = Clock::now();
  end(step);
}

void RealKafkaCluster::restart(int node) {
  const int step = begin("restart");
  // A broker whose registration steering holds serves nothing until it is unfenced.
  json start = {{"op", "start"}, {"node", node}, {"timeout_ms", 60000}};
  if (registration_held_.count(node)) start["wait_serving"] = false;
  session_.call(start, milliseconds(75000));
  session_.note_alive(node, true);
  end(step);
}

void RealKafkaCluster::cut(int node, cut::NetworkSide side) {
  const int step = begin("cut");
  session_.call({{"op", "cut"}, {"node", node}, {"side", side_text(side)}}, milliseconds(15000));
  session_.note_cut(node, side_text(side), true);
  if (side == cut::NetworkSide::Brokers) scenario_cut_.insert(node);
  end(step);
}

void RealKafkaCluster::heal(int node, cut::NetworkSide side) {
  const int step = begin("heal");
  session_.call({{"op", "heal"}, {"node", node}, {"side", side_text(side)}}, milliseconds(15000));
  session_.note_cut(node, side_text(side), false);
  if (side == cut::NetworkSide::Brokers) scenario_cut_.erase(node);
  end(step);
}

void RealKafkaCluster::pause(int node) {
  const int step = begin("pause");
  scenario_paused_.insert(node);
  if (!steer_paused_.count(node)) signal(node, true);
  // A fetch the node parked at its leader just before the SIGSTOP would still be
  // answered into its socket (within replica.fetch.wait.max.ms) and carry a record
  // produced meanwhile to it; the model's paused follower fetches nothing. So the pause
  // lasts longer than replica.fetch.wait.max.ms before the next operation.
  std::this_thread::sleep_for(milliseconds(300));
  notes_.push_back("step " + std::to_string(step) + ": N" + std::to_string(node) +
                   " paused (SIGSTOP), then 300 ms > replica.fetch.wait.max.ms");
  end(step);
}

void RealKafkaCluster::resume(int node) {
  const int step = begin("resume");
  scenario_paused_.erase(node);
  if (!steer_paused_.count(node)) signal(node, false);
  end(step);
}

void RealKafkaCluster::remove_voter(int node) {
  const int step = begin("remove_voter");
  session_.call({{"op", "remove_voter"}, {"node", node}, {"timeout_ms", 30000}}, milliseconds(45000));
  end(step);
}

void RealKafkaCluster::add_voter(int node) {
  const int step = begin("add_voter");
  // The driver retries while AddVoterHandler finds the observer lagging (isReplicaCaughtUp).
  session_.call({{"op", "add_voter"}, {"node", node}, {"timeout_ms", 60000}}, milliseconds(75000));
  end(step);
}

void RealKafkaCluster::elect_preferred(int leader) {
  const int step = begin("elect_preferred");
  session_.call({{"op", "elect_preferred"}, {"leader", leader}, {"timeout_ms", 30000}}, milliseconds(45000));
  end(step);
}

cut::PartitionObservation RealKafkaCluster::describe_partition() {
  const json d = session_.call({{"op", "describe"}, {"topic", topic_}, {"timeout_ms", 5000}}, milliseconds(20000));
  const json sends = session_.call({{"op", "sends"}}, milliseconds(10000));
  last_describe_ = d;
  last_describe_["sends"] = sends.value("sends", json::object());
  cut::PartitionObservation o;
  o.leader = d.contains("leader") && d["leader"].is_null() && !d.value("unknown", json::array()).contains("leader")
                 ? cut::kNone
                 : int_or(d.value("leader", json()), kUnknown);
  o.leader_epoch = int_or(d.value("leader_epoch", json()), kUnknown);
  o.isr = ints_or_unknown(d.value("isr", json()));
  o.elr = ints_or_unknown(d.value("elr", json::array()));
  o.last_known_elr = ints_or_unknown(d.value("last_known_elr", json::array()));
  o.fenced = ints_or_unknown(d.value("fenced", json()));
  // Dynamic quorum only: the driver adds the voter set and the controllers running as
  // observers (DynamicQuorum.describe); null when no quorum leader answered.
  if (d.contains("voters")) {
    o.voters = ints_or_unknown(d["voters"]);
    o.observers = ints_or_unknown(d.value("observers", json()));
  }
  const bool hw_unknown = [&] {
    for (const json& u : d.value("unknown", json::array()))
      if (u == "hw") return true;
    return false;
  }();
  o.hw = d.value("hw", json()).is_number_integer() ? d["hw"].get<int>() : (hw_unknown ? kUnknown : cut::kNone);
  // A model record that stands for a batch of k records: the HW counts batches.
  if (per_send_ > 1 && o.hw >= 0) o.hw = model_offset(o.hw, per_send_);
  // The scenario's hw is the acting leader's (null when no live broker leads the committed
  // epoch). A listed leader whose process is down (no quorum to fence it) acts as nothing:
  // that is "no HW", not an unknown one.
  if (o.hw == kUnknown && o.leader >= 0) {
    const json leader_replica = d.value("replicas", json::object()).value(std::to_string(o.leader), json::object());
    if (leader_replica.value("alive", true) == false) o.hw = cut::kNone;
  }
  const json replicas_1 = d.value("replicas", json::object());
  for (const auto& [id, r] : replicas_1.items()) {
    cut::ReplicaObservation rep;
    rep.alive = r.value("alive", false);
    rep.leo = int_or(r.value("leo", json()), kUnknown);
    if (per_send_ > 1) {
      // The log in model records: one per batch of k (batch_mapping.h), LEO in batches.
      if (rep.leo >= 0) rep.leo = model_offset(rep.leo, per_send_);
      rep.log = model_log_of(r.value("batches", json::array()), per_send_);
    } else {
      for (const json& e : r.value("log", json::array())) rep.log.push_back({e[0].get<int>(), e[1].get<int>()});
    }
    const json view = r.value("view", json());
    rep.has_view = view.is_object();
    if (rep.has_view) {
      rep.view_leader = int_or(view.value("leader", json()), cut::kNone);
      rep.view_leader_epoch = int_or(view.value("leader_epoch", json()), kUnknown);
      rep.view_isr = ints_or_unknown(view.value("isr", json()));
    }
    o.replicas[std::stoi(id)] = rep;
  }
  for (const auto& [record, result] : last_describe_["sends"].items()) {
    const std::optional<SendResult> r = send_result_of(result.get<std::string>());
    // An answer outside the vocabulary shows as unsent, and the report prints the raw one.
    o.sends[std::stoi(record)] = r ? *r : SendResult::Unsent;
  }
  last_observation_ = o;
  return o;
}

bool RealKafkaCluster::wait_until(const cut::Condition& condition, std::string* why) {
  const auto started = Clock::now();
  int step = 0;
  const size_t total = scenario_.at("steps").size();
  const bool is_initial = !initial_done_;
  const bool is_final = initial_done_ && cursor_ >= total;
  if (is_initial) {
    initial_done_ = true;
  } else if (!is_final) {
    step = begin("wait");
  }
  const auto deadline = started + session_.options().wait_budget;
  // A send the trace shows failed with a retriable error and retries later is, to the
  // application of a producer that retries by itself, still pending at this point.
  cut::Condition c = condition;
  if (producer_retries() && !is_final) {
    for (auto& [record, result] : c.sends) {
      if ((result == SendResult::RequestTimedOut || result == SendResult::NotEnoughReplicas ||
           result == SendResult::NotEnoughReplicasAfterAppend || result == SendResult::NotLeaderOrFollower) &&
          retried_later(step > 0 ? step : static_cast<int>(cursor_), record)) {
        notes_.push_back("step " + std::to_string(step) + ": send of record " + std::to_string(record) + " " +
                         cut::send_result_name(result) + " in the trace before its retry: compared as pending "
                         "(Kafka's producer retries by itself)");
        result = SendResult::Pending;
      }
    }
  }
  std::vector<std::string> last;
  std::vector<std::string> skipped;
  bool met = false;
  for (;;) {
    skipped.clear();
    last = kafka_mismatches(c, describe_partition(), &skipped);
    if (last.empty()) {
      met = true;
      break;
    }
    if (Clock::now() >= deadline) break;
    if (interrupt_flag().load()) throw Interrupted();
    std::this_thread::sleep_for(milliseconds(200));
  }
  wait_seconds_ += std::chrono::duration<double>(Clock::now() - started).count();
  for (const std::string& s : skipped) notes_.push_back((step ? "step " + std::to_string(step) + ": " : "") + s);
  if (met) {
    if (std::string missing = await_held_proposals(step, deadline); !missing.empty()) {
      if (why != nullptr) *why = missing;
      return false;
    }
    end(step);
    if (is_final && !at_end_done_) {
      at_end_done_ = true;
      for (const SteerAction& a : plan_.at_end) run(a);
    }
    return true;
  }
  if (why != nullptr) {
    *why = "not reached within " + std::to_string(session_.options().wait_budget.count()) + " ms; last observation differs in:";
    for (const std::string& m : last) *why += "\n  " + m;
  }
  return false;
}

KafkaSession& shared_session() {
  static KafkaSession* session = [] {
    KafkaOptions options;
    options.driver_command = read_driver_command(driver_location());
    if (const char* v = std::getenv("ISRCHECK_KAFKA_VERSION")) options.kafka_version = v;
    const char* work = std::getenv("ISRCHECK_KAFKA_WORK");
    options.work_root = work != nullptr ? work
                                        : (std::filesystem::temp_directory_path() /
                                           ("isrcheck-kafka-" + std::to_string(::getpid())))
                                              .string();
    auto* s = new KafkaSession(std::move(options));
    // Stopped at exit: no JVM outlives the test process.
    std::atexit([] { shared_session().stop(); });
    return s;
  }();
  return *session;
}

std::vector<json> RealKafkaCluster::metadata_decisions() {
  const json d = session_.call({{"op", "metadata_log"}, {"topic", topic_}, {"timeout_ms", 60000}}, milliseconds(90000));
  std::vector<json> out;
  for (const json& decision : d.value("decisions", json::array())) out.push_back(decision);
  return out;
}

}  // namespace isr::conformance
