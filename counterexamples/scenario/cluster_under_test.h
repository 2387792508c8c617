// The interface a generated scenario test (isrcheck export --format gtest) drives: one
// Kafka partition on a cluster that a harness can produce to, consume from, crash,
// restart, partition from the network and describe.
//
// Self-contained on purpose (standard library only): an implementation under test
// copies this header, writes one adapter (a ClusterUnderTest and the factory
// make_cluster_under_test), and compiles the generated tests against it. Our own adapter,
// which drives the model, is counterexamples/export/model_cluster.h. docs/scenarios.md says how
// each call maps onto a real cluster (Kafka tools and APIs).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace isr::cut {

inline constexpr int kNone = -1;  // no leader / no acting leader (Kafka's leader -1)

enum class CrashKind { Clean, Kill, PowerLoss, DiskLoss };
enum class NetworkSide { Quorum, Brokers, Clients };

// A send as the producing application sees it.
enum class SendResult {
  Unsent,
  Pending,                       // no response yet
  Acked,
  NotEnoughReplicas,             // NOT_ENOUGH_REPLICAS (error 19)
  NotEnoughReplicasAfterAppend,  // NOT_ENOUGH_REPLICAS_AFTER_APPEND (error 20)
  RequestTimedOut,               // REQUEST_TIMED_OUT (error 7) / delivery timeout
  NotLeaderOrFollower,           // NOT_LEADER_OR_FOLLOWER (error 6)
};

inline const char* send_result_name(SendResult r) {
  switch (r) {
    case SendResult::Unsent: return "unsent";
    case SendResult::Pending: return "pending";
    case SendResult::Acked: return "acked";
    case SendResult::NotEnoughReplicas: return "NOT_ENOUGH_REPLICAS";
    case SendResult::NotEnoughReplicasAfterAppend: return "NOT_ENOUGH_REPLICAS_AFTER_APPEND";
    case SendResult::RequestTimedOut: return "REQUEST_TIMED_OUT";
    case SendResult::NotLeaderOrFollower: return "NOT_LEADER_OR_FOLLOWER";
  }
  return "?";
}

// One record batch in a replica's log: the leader epoch it was written in and the record
// id k (the value "record-<k>").
struct LogRecord {
  int leader_epoch = 0;
  int record = 0;
  bool operator==(const LogRecord&) const = default;
};

// What a harness sees of one replica (docs/scenarios.md, "Observables").
struct ReplicaObservation {
  bool alive = true;
  int leo = 0;                     // kafka.log:type=Log,name=LogEndOffset on that broker
  std::vector<LogRecord> log;      // kafka-dump-log.sh on its segment
  bool has_view = false;           // the broker's metadata cache holds the partition
  int view_leader = kNone;         // Metadata request sent to this broker
  int view_leader_epoch = 0;
  std::vector<int> view_isr;
};

struct PartitionObservation {
  int leader = kNone;              // DescribeTopicPartitions / kafka-topics.sh --describe
  int leader_epoch = 0;
  std::vector<int> isr, elr, last_known_elr;
  std::vector<int> fenced;         // registered brokers missing from DescribeCluster
  int hw = kNone;                  // ListOffsets(latest) answered by the leader; kNone without one
  std::map<int, ReplicaObservation> replicas;
  std::map<int, SendResult> sends; // record id -> result, for records sent so far
  // KIP-853 dynamic quorum (DescribeQuorum / Admin.describeMetadataQuorum): the ids of
  // the voter set's keys, and the controller-role nodes that run as observers (a voter
  // whose disk was lost, on its new directory id). Empty on a static quorum.
  std::vector<int> voters, observers;
};

// A condition on the observation: every field that is set must match.
struct ReplicaCondition {
  std::optional<bool> alive;
  std::optional<int> leo;
  std::optional<std::vector<LogRecord>> log;
  std::optional<bool> has_view;
  std::optional<int> view_leader;
  std::optional<int> view_leader_epoch;
  std::optional<std::vector<int>> view_isr;
};

struct Condition {
  std::optional<int> leader;
  std::optional<int> leader_epoch;
  std::optional<std::vector<int>> isr, elr, last_known_elr, fenced;
  std::optional<int> hw;
  std::map<int, ReplicaCondition> replicas;
  std::map<int, SendResult> sends;
  std::optional<std::vector<int>> voters, observers;  // dynamic quorum only
  // Hints for model adapters only (a real cluster ignores them): the digest of the model
  // state the trace reached and the number of internal model steps it took to get there.
  std::string model_state;
  int model_steps = 0;
};

namespace detail {
inline std::string text(const std::vector<int>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
  return out + "]";
}
inline std::string text(const std::vector<LogRecord>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    out += (i ? " " : "") + std::to_string(v[i].leader_epoch) + ":r" + std::to_string(v[i].record);
  }
  return out + "]";
}
inline std::string text(int v) { return std::to_string(v); }
inline std::string text(bool v) { return v ? "true" : "false"; }
inline std::string text(SendResult v) { return send_result_name(v); }

template <class T>
void compare(const std::string& what, const std::optional<T>& expected, const T& found,
             std::vector<std::string>& out) {
  if (expected && !(*expected == found)) {
    out.push_back(what + ": expected " + text(*expected) + ", observed " + text(found));
  }
}
}  // namespace detail

// The fields of `o` that break `c`, one line each ("isr: expected [0,1], observed [0]");
// empty when `o` satisfies `c`.
inline std::vector<std::string> mismatches(const Condition& c, const PartitionObservation& o) {
  using detail::compare;
  std::vector<std::string> out;
  compare("leader", c.leader, o.leader, out);
  compare("leader_epoch", c.leader_epoch, o.leader_epoch, out);
  compare("isr", c.isr, o.isr, out);
  compare("elr", c.elr, o.elr, out);
  compare("last_known_elr", c.last_known_elr, o.last_known_elr, out);
  compare("fenced", c.fenced, o.fenced, out);
  compare("hw", c.hw, o.hw, out);
  compare("voters", c.voters, o.voters, out);
  compare("observers", c.observers, o.observers, out);
  for (const auto& [node, rc] : c.replicas) {
    const std::string who = "replica " + std::to_string(node) + " ";
    auto it = o.replicas.find(node);
    if (it == o.replicas.end()) {
      out.push_back(who + "not observed");
      continue;
    }
    const ReplicaObservation& r = it->second;
    compare(who + "alive", rc.alive, r.alive, out);
    compare(who + "leo", rc.leo, r.leo, out);
    compare(who + "log", rc.log, r.log, out);
    compare(who + "has_view", rc.has_view, r.has_view, out);
    compare(who + "view leader", rc.view_leader, r.view_leader, out);
    compare(who + "view leader_epoch", rc.view_leader_epoch, r.view_leader_epoch, out);
    compare(who + "view isr", rc.view_isr, r.view_isr, out);
  }
  for (const auto& [record, result] : c.sends) {
    auto it = o.sends.find(record);
    const SendResult found = it == o.sends.end() ? SendResult::Unsent : it->second;
    compare("send of record " + std::to_string(record), std::optional<SendResult>(result), found, out);
  }
  return out;
}

// What the generated test needs to build a cluster: the scenario document itself (JSON,
// docs/scenarios.md), from which an adapter reads the cluster, topic and client settings.
struct ClusterSetup {
  std::string scenario_name;
  std::string scenario_json;
};

class ClusterUnderTest {
 public:
  virtual ~ClusterUnderTest() = default;

  // Sends record `record` with the scenario's acks. `broker` is the broker the client's
  // metadata names as leader when the request goes out (a real client finds it itself;
  // the model needs it). Returns the send's result once the request has been handled:
  // Pending while the leader waits for the ISR (acks=all).
  virtual SendResult produce(int record, int broker) = 0;
  // The same send, but the broker's response to it is lost on the way back to the client
  // (the broker handled it: appended it, or refused it). A real cluster drops the
  // response at a proxy; the client sees a timeout, and retries if it may.
  virtual SendResult produce_response_lost(int record, int broker) = 0;
  // Lets the pending send of `record` run into its delivery timeout.
  virtual SendResult expire_send(int record) = 0;
  // Reads offset `offset` from `broker` (the leader the consumer knows); the record id,
  // or nullopt when nothing is readable there (beyond the high watermark).
  virtual std::optional<int> consume(int offset, int broker) = 0;

  // Stops `node`. For a clean stop, `leader_after` is the leader the controller moved to
  // in the trace (a model adapter picks that move; a real cluster decides by itself).
  virtual void crash(int node, CrashKind kind, std::optional<int> leader_after) = 0;
  virtual void restart(int node) = 0;
  virtual void cut(int node, NetworkSide side) = 0;
  virtual void heal(int node, NetworkSide side) = 0;
  // Preferred-replica election moving leadership to `leader`.
  virtual void elect_preferred(int leader) = 0;
  // Freezes `node`'s process (SIGSTOP: a GC pause, a VM freeze) / lets it continue
  // (SIGCONT). A frozen node keeps its state but takes no step; its sessions expire.
  virtual void pause(int node) = 0;
  virtual void resume(int node) = 0;
  // KIP-853 dynamic quorum: an operator removes the voter key of `node` that names its
  // lost directory (Admin.removeRaftVoter / kafka-metadata-quorum remove-controller), and
  // adds its new key once it caught up (Admin.addRaftVoter / add-controller).
  virtual void remove_voter(int node) = 0;
  virtual void add_voter(int node) = 0;

  virtual PartitionObservation describe_partition() = 0;
  // The fields of `o` that break `c`, on what this implementation exposes: `mismatches`
  // by default. A real cluster's adapter leaves out what it documents it cannot match
  // (the Kafka adapter: a broker view that the trace shows stale, docs/conformance.md).
  virtual std::vector<std::string> differences(const Condition& c, const PartitionObservation& o) {
    return mismatches(c, o);
  }
  // Lets the cluster run by itself (no client request, no fault) until `c` holds.
  // Returns false, saying why in `why`, when it cannot get there within its budget.
  virtual bool wait_until(const Condition& c, std::string* why) = 0;
};

// Defined by the adapter the generated tests are linked with.
std::unique_ptr<ClusterUnderTest> make_cluster_under_test(const ClusterSetup& setup);

}  // namespace isr::cut
