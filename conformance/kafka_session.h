// One driver and the cluster it runs, shared by the scenarios of a run.
//
// Starting a cluster costs 10-20 s of a 2-core machine; most scenarios need the same
// cluster (same nodes, roles, voters, broker settings, features, Kafka version), and
// every topic-level setting of a scenario (min.insync.replicas, unclean election, flush)
// is a topic config. So a scenario reuses the running cluster when its cluster section
// matches: the previous scenario's faults are undone (paused nodes resumed, cuts healed,
// metadata holds released, stopped nodes started and unfenced) and the scenario gets a topic of its own, whose
// leader epochs start at 0 again. A disk loss of a controller voter is not undone this
// way; the next scenario then starts a new cluster.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "conformance/driver.h"
#include "conformance/power_mounts.h"

namespace isr::conformance {

// Whether `scenario` has a power loss (`crash kind=power`): its cluster's data
// directories are then isrcheck-powerfs mounts (power_mounts.h), and only such a
// cluster is reused for it.
bool needs_powerfs(const nlohmann::json& scenario);

struct KafkaOptions {
  std::vector<std::string> driver_command;  // argv of the driver JVM
  std::string kafka_version = "4.4.0";
  std::string work_root;                    // work directories go below (created)
  std::chrono::milliseconds wait_budget{20000};  // one `wait` of a scenario
  bool reuse_cluster = true;
  // At the end of each scenario, read the controller's committed decisions from the
  // metadata log into the recording (conform --record; docs/recording.md, "Decisions").
  bool read_metadata_log = false;
};

class KafkaSession {
 public:
  using DriverFactory = std::function<std::unique_ptr<Driver>(const std::string& work_root)>;

  // Starts the driver process of `options.driver_command` lazily, at the first cluster.
  explicit KafkaSession(KafkaOptions options);
  // For tests: the driver comes from `factory` (an in-process fake).
  KafkaSession(KafkaOptions options, DriverFactory factory);
  ~KafkaSession();
  KafkaSession(const KafkaSession&) = delete;
  KafkaSession& operator=(const KafkaSession&) = delete;

  // Makes a cluster ready for `scenario` (reused or new), creates its topic and producer.
  // Returns the topic's name. Throws DriverError, std::invalid_argument (a field).
  std::string prepare(const nlohmann::json& scenario);

  nlohmann::json call(nlohmann::json request, std::chrono::milliseconds budget);

  // Bookkeeping of the faults in force, so that the next scenario can undo them.
  void note_paused(int node, bool paused);
  void note_cut(int node, const std::string& side, bool cut);
  void note_alive(int node, bool alive);
  void note_metadata_held(int node, bool held);
  void note_registration_held(int node, bool held);
  void note_voter_disk_lost() { reusable_ = false; }
  // The power fault's second half, after the node's kill -9: its mount loses its page
  // cache. Returns what was lost (PowerMounts::power). Throws DriverError.
  std::string power_loss(int node);

  const KafkaOptions& options() const { return options_; }
  const std::string& work_dir() const { return work_dir_; }  // of the current cluster
  const nlohmann::json& cluster_info() const { return cluster_info_; }  // start_cluster's answer
  double last_setup_seconds() const { return last_setup_seconds_; }
  bool started_new_cluster() const { return started_new_; }
  // Whether the producer of the last prepare() holds the topic's metadata (the driver's
  // warm_producer op exists and succeeded): steering may then pause before its first send.
  bool producer_has_metadata() const { return producer_warm_; }
  std::vector<int> broker_ids() const;

  // Stops the driver and every process it started (also done by the destructor).
  void stop();

 private:
  void ensure_driver();
  void start_cluster(const nlohmann::json& scenario, const nlohmann::json& key);
  void restore();
  // Polls describe until none of `nodes` is fenced (bounded). Throws DriverError.
  void await_unfenced(const std::set<int>& nodes);

  KafkaOptions options_;
  DriverFactory factory_;
  std::unique_ptr<Driver> driver_;
  nlohmann::json cluster_key_;   // what the running cluster was started for
  nlohmann::json cluster_info_;
  std::string work_dir_;
  int clusters_ = 0, topics_ = 0;
  bool reusable_ = true;
  bool started_new_ = false;
  bool producer_warm_ = false;
  double last_setup_seconds_ = 0;
  std::set<int> paused_, dead_;
  std::set<std::pair<int, std::string>> cuts_;
  std::set<int> metadata_held_;
  std::set<int> registration_held_;
  PowerMounts mounts_;  // of the current cluster, when it was started for a power loss
};

}  // namespace isr::conformance
