// A ClusterUnderTest (counterexamples/scenario/cluster_under_test.h) that is a real Apache Kafka
// cluster, run by the conformance driver (kafka_session.h), so that the scenarios and the
// generated GoogleTest files that run against the model run unchanged against Kafka.
//
// The adapter follows the scenario it was built for, step by step: each call is matched
// with the scenario's next step of that kind, and the steering plan (steering.h) of that
// step runs around it (the pause or cut that keeps the cluster on the trace's path).
//
// Observables are compared on what Kafka exposes (kafka_mismatches below, documented in
// docs/conformance.md): exactly, field by field, except a broker's metadata view that
// the trace shows stale (the trace stopped between the controller's decision and that
// broker's replay of it; Kafka replays within milliseconds unless steering holds the
// broker's metadata, and then its view may be older than the trace's), which is not
// compared.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "conformance/kafka_session.h"
#include "conformance/steering.h"
#include "counterexamples/scenario/cluster_under_test.h"

namespace isr::conformance {

// The cluster answered something the scenario vocabulary has no name for (an unexpected
// Kafka error class): a divergence, reported with the answer.
struct UnexpectedAnswer : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A scenario step the harness cannot perform faithfully here.
struct NotExecutable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The stand-in for a value the driver could not read (listed in its `unknown`): never
// equal to anything a scenario expects, so an unknown field is never taken for a match;
// a recording (counterexamples/scenario/recording.h) leaves such a field out.
inline constexpr int kUnknownObservable = -999;

// Why a scenario cannot run faithfully on this machine against `kafka_version`, or empty.
std::string not_executable_reason(const nlohmann::json& scenario, const std::string& kafka_version);

// The model's protocol generation a Kafka release implements (MODEL.md section 3):
// kip-966 for 4.x, kip-903 for 3.5 to 3.9; empty when unknown.
std::string generation_of_release(const std::string& kafka_version);

// The fields of `o` that break `c`, as cut::mismatches, on what Kafka exposes: the view
// of a broker that `c` shows stale (not the committed leader, epoch and ISR of `c`) is not
// compared. `skipped` receives one line per field left out and why.
std::vector<std::string> kafka_mismatches(const cut::Condition& c, const cut::PartitionObservation& o,
                                          std::vector<std::string>* skipped = nullptr);

class RealKafkaCluster : public cut::ClusterUnderTest {
 public:
  using Clock = std::chrono::steady_clock;
  // Prepares `session`'s cluster for `scenario` (a fresh topic). Throws DriverError,
  // NotExecutable, std::invalid_argument.
  RealKafkaCluster(KafkaSession& session, nlohmann::json scenario);
  ~RealKafkaCluster() override;

  cut::SendResult produce(int record, int broker) override;
  cut::SendResult produce_response_lost(int record, int broker) override;
  cut::SendResult expire_send(int record) override;
  std::optional<int> consume(int offset, int broker) override;
  void crash(int node, cut::CrashKind kind, std::optional<int> leader_after) override;
  void restart(int node) override;
  void cut(int node, cut::NetworkSide side) override;
  void heal(int node, cut::NetworkSide side) override;
  void elect_preferred(int leader) override;
  void pause(int node) override;
  void resume(int node) override;
  void remove_voter(int node) override;
  void add_voter(int node) override;
  cut::PartitionObservation describe_partition() override;
  std::vector<std::string> differences(const cut::Condition& c, const cut::PartitionObservation& o) override {
    return kafka_mismatches(c, o);
  }
  bool wait_until(const cut::Condition& c, std::string* why) override;

  // What happened besides the operations: steering actions, mappings applied.
  const std::vector<std::string>& notes() const { return notes_; }
  const SteeringPlan& plan() const { return plan_; }
  // The last `describe` answer (raw), for reports.
  const nlohmann::json& last_describe() const { return last_describe_; }
  // Raw result of the last produce / expire_send ("acked", "pending", an Errors name).
  const std::string& last_send_answer() const { return last_send_answer_; }
  // The last observation describe_partition made (a wait's last poll), for recordings.
  const cut::PartitionObservation& last_observation() const { return last_observation_; }
  const std::string& topic() const { return topic_; }
  // The controller's committed decisions for this scenario's partition and the broker
  // registrations since its creation, read from the voters' `__cluster_metadata` logs by
  // the driver (`metadata_log`, in offset order; docs/recording.md, "Decisions"). Throws
  // DriverError when the driver cannot read them. Not for ZooKeeper mode (no such log).
  std::vector<nlohmann::json> metadata_decisions();
  double seconds_in_waits() const { return wait_seconds_; }

 private:
  // Matches a call with the next scenario step of `op` and runs its `before` actions;
  // returns the step number (0 when none matches: no steering).
  int begin(const std::string& op);
  void end(int step);
  void run(const SteerAction& a);
  const nlohmann::json* step_json(int step) const;
  cut::SendResult send(int record, bool response_lost);
  // Whether the scenario's producer retries by itself (retries > 0, or idempotent, which
  // keeps Kafka's retries): then a retry step of the trace is the producer's own.
  bool producer_retries() const;
  // Whether a step after `step` retries `record` (a produce marked retry).
  bool retried_later(int step, int record) const;
  // Whether the trace times out the send of `record` made at `step` (its next step on
  // the record is an expire_send, no wait shows it acked first) and retries it later:
  // the leader's answer must not reach the client, so the harness drops it.
  bool answer_lost_before_retry(int step, int record) const;
  void signal(int node, bool stop);  // SIGSTOP / SIGCONT unless the other party still holds it
  // Blocks (bounded) until a release inside a wait may run (SteerAction::When).
  void await_release_point(const SteerAction& a);
  // The fetch-reply cut's sequence inside a wait (steering.h).
  void shrink_after_fetch(const SteerAction& a);
  // A wait's AwaitAlterPartition actions (steering.h), once its state is reached: blocks
  // until each held proposal waits at the controller proxies or `deadline` passes.
  // Returns what did not arrive in time ("" when every one did).
  std::string await_held_proposals(int step, Clock::time_point deadline);
  int session_timeout_ms() const;

  KafkaSession& session_;
  nlohmann::json scenario_;
  // Kafka records per model record (clients.producer.records_per_send; batch_mapping.h):
  // each send is one batch of that many records, and observations are mapped back.
  int per_send_ = 1;
  // The producer's request.timeout.ms (producer_request_timeout_ms): a send the trace
  // shows unanswered is observed well before the producer's own retry could answer it.
  int request_timeout_ms_ = 3000;
  SteeringPlan plan_;
  std::string topic_;
  size_t cursor_ = 0;        // index of the next scenario step
  bool initial_done_ = false;
  bool at_end_done_ = false;
  std::vector<std::string> notes_;
  nlohmann::json last_describe_;
  cut::PartitionObservation last_observation_;
  std::string last_send_answer_;
  double wait_seconds_ = 0;
  // Who holds a node paused: the scenario's own pause op, and steering's holds. A node
  // continues only when neither does (steering never undoes the scenario's pause).
  std::set<int> scenario_paused_, steer_paused_;
  std::set<int> metadata_held_;
  std::set<int> registration_held_;  // brokers whose registration and heartbeats steering holds
  std::map<int, int> steer_cuts_;    // steering's brokers-side cuts in force, per node  // brokers whose metadata replay steering holds
  std::map<int, Clock::time_point> crashed_at_;  // when each node was last stopped
  // Nodes the scenario's own cut keeps cut from replication: steering never heals them.
  std::set<int> scenario_cut_;
};

// The process-wide session the generated GoogleTests share (make_cluster_under_test):
// built on first use from the environment (docs/conformance.md): the driver where
// driver_location finds it (driver_command.h: $ISRCHECK_KAFKA_DRIVER, else next to the
// binary), ISRCHECK_KAFKA_VERSION (default 4.4.0) and ISRCHECK_KAFKA_WORK (default a
// fresh directory under /tmp).
KafkaSession& shared_session();

}  // namespace isr::conformance
