// The shared driver and cluster of a conformance run (see kafka_session.h).
#include "conformance/kafka_session.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "conformance/driver_process.h"
#include "conformance/zookeeper_mode.h"
#include "counterexamples/scenario/scenario_reader.h"

namespace isr::conformance {

using nlohmann::json;
namespace fs = std::filesystem;

bool needs_powerfs(const json& scenario) {
  for (const json& s : scenario.value("steps", json::array()))
    if (s.is_object() && s.value("op", "") == "crash" && s.value("kind", "") == "power") return true;
  return false;
}

namespace {

// Broker settings the topic config also sets: they do not make clusters differ.
bool topic_level(const std::string& key) {
  return key == "min.insync.replicas" || key == "unclean.leader.election.enable" ||
         key == "log.flush.interval.messages";
}

const json& section(const json& doc, const char* name) {
  if (!doc.contains(name) || !doc[name].is_object()) {
    throw std::invalid_argument(std::string(name) + ": missing or not an object");
  }
  return doc[name];
}

std::string topic_name(int n, const std::string& scenario) {
  std::string out = "isrcheck-" + std::to_string(n) + "-";
  for (char c : scenario) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    out += ok ? c : '-';
  }
  return out.substr(0, 200);
}

}  // namespace

KafkaSession::KafkaSession(KafkaOptions options) : options_(std::move(options)) {
  factory_ = [this](const std::string& root) -> std::unique_ptr<Driver> {
    return std::make_unique<DriverProcess>(options_.driver_command, root + "/driver.stderr.log",
                                           std::chrono::seconds(60));
  };
}

KafkaSession::KafkaSession(KafkaOptions options, DriverFactory factory)
    : options_(std::move(options)), factory_(std::move(factory)) {}

KafkaSession::~KafkaSession() { stop(); }

void KafkaSession::stop() {
  if (driver_) driver_->stop();
  driver_.reset();
  cluster_key_ = json();
  mounts_.unmount_all();  // after the nodes: nothing holds their files any more
}

std::string KafkaSession::power_loss(int node) {
  try {
    return mounts_.power(node);
  } catch (const std::runtime_error& e) {
    throw DriverError("internal", std::string("power loss of node ") + std::to_string(node) + ": " + e.what());
  }
}

void KafkaSession::ensure_driver() {
  if (driver_) return;
  fs::create_directories(options_.work_root);
  driver_ = factory_(options_.work_root);
}

json KafkaSession::call(json request, std::chrono::milliseconds budget) {
  ensure_driver();
  return driver_->call(std::move(request), budget);
}

std::vector<int> KafkaSession::broker_ids() const {
  std::vector<int> out;
  for (const json& n : cluster_info_.value("nodes", json::array())) {
    for (const json& role : n.value("roles", json::array()))
      if (role == "broker") out.push_back(n.at("id").get<int>());
  }
  return out;
}

void KafkaSession::note_paused(int node, bool paused) {
  if (paused) paused_.insert(node); else paused_.erase(node);
}
void KafkaSession::note_cut(int node, const std::string& side, bool cut) {
  if (cut) cuts_.insert({node, side}); else cuts_.erase({node, side});
}
void KafkaSession::note_registration_held(int node, bool held) {
  if (held) registration_held_.insert(node); else registration_held_.erase(node);
}

void KafkaSession::note_metadata_held(int node, bool held) {
  if (held) metadata_held_.insert(node); else metadata_held_.erase(node);
}
void KafkaSession::note_alive(int node, bool alive) {
  if (alive) dead_.erase(node); else dead_.insert(node);
}

void KafkaSession::start_cluster(const json& scenario, const json& key) {
  if (!cluster_key_.is_null()) {
    call({{"op", "stop_cluster"}}, std::chrono::seconds(60));
    cluster_key_ = json();
  }
  mounts_.unmount_all();
  const json& cluster = section(scenario, "cluster");
  work_dir_ = options_.work_root + "/cluster-" + std::to_string(++clusters_);
  fs::remove_all(work_dir_);
  driver_->watch_work_dir(work_dir_);
  json data_dirs = json::object();
  if (key.value("powerfs", false)) {
    // Before the driver formats the nodes: their data directories are the mounts, beside
    // the work directory (which the driver wants empty).
    std::string why;
    const std::string binary = powerfs_binary(&why);
    if (binary.empty()) throw DriverError("internal", "power loss: " + why);
    std::vector<int> ids;
    for (const json& n : cluster.at("nodes")) ids.push_back(n.at("id").get<int>());
    try {
      fs::remove_all(work_dir_ + ".disks");
      mounts_.mount(binary, work_dir_ + ".disks", ids);
    } catch (const std::runtime_error& e) {
      throw DriverError("internal", std::string("power loss: ") + e.what());
    }
    for (const auto& [node, dir] : mounts_.mountpoints()) data_dirs[std::to_string(node)] = dir;
  }
  json features = json::object();
  const json features_1 = cluster.value("features", json::object());
  for (const auto& [k, v] : features_1.items()) {
    features[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  json broker_config = json::object();
  const json broker_config_2 = cluster.value("broker_config", json::object());
  for (const auto& [k, v] : broker_config_2.items()) {
    broker_config[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  cluster_info_ = call({{"op", "start_cluster"},
                        {"work_dir", work_dir_},
                        {"kafka_version", options_.kafka_version},
                        {"controller_mode", zookeeper_scenario(scenario) ? "zookeeper" : "kraft"},
                        {"quorum", cluster.at("controller").value("quorum", "static")},
                        {"nodes", cluster.at("nodes")},
                        {"voters", cluster.at("controller").at("voters")},
                        {"broker_config", broker_config},
                        {"features", features},
                        {"data_dirs", data_dirs},
                        {"timeout_ms", 120000}},
                       std::chrono::seconds(150));
  // A driver older than data_dirs ignores it: its nodes would write beside the mounts,
  // and a power loss would drop nothing.
  for (const json& n : cluster_info_.value("nodes", json::array())) {
    const std::string id = std::to_string(n.value("id", -1));
    if (data_dirs.contains(id) && n.value("log_dir", "") != data_dirs[id].get<std::string>()) {
      throw DriverError("internal", "power loss: the driver put node " + id + "'s log.dirs at " +
                                        n.value("log_dir", "?") + ", not on its isrcheck-powerfs mount " +
                                        data_dirs[id].get<std::string>() +
                                        " (a driver without data_dirs: rebuild it with scripts/install-kafka.sh)");
    }
  }
  cluster_key_ = key;
  reusable_ = true;
  paused_.clear();
  dead_.clear();
  cuts_.clear();
  metadata_held_.clear();
  registration_held_.clear();
  started_new_ = true;
}

void KafkaSession::await_unfenced(const std::set<int>& nodes) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    const json d = call({{"op", "describe"}, {"timeout_ms", 5000}}, std::chrono::seconds(20));
    const json fenced = d.value("fenced", json::array());
    bool any = false;
    for (int n : nodes)
      for (const json& f : fenced) any = any || f == json(n);
    if (fenced.is_array() && !any) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  throw DriverError("timeout", "released brokers not unfenced within 30 s before the next scenario");
}

void KafkaSession::restore() {
  for (int n : std::set<int>(paused_)) {
    call({{"op", "resume"}, {"node", n}}, std::chrono::seconds(15));
    paused_.erase(n);
  }
  for (int n : std::set<int>(metadata_held_)) {
    call({{"op", "release_metadata"}, {"node", n}}, std::chrono::seconds(15));
    metadata_held_.erase(n);
  }
  // A broker whose registration was held registers once released; the next topic must
  // not be created while it is still fenced (its preferred leader would be skipped).
  const std::set<int> registering = registration_held_;
  for (int n : registering) {
    call({{"op", "release_registration"}, {"node", n}}, std::chrono::seconds(15));
    registration_held_.erase(n);
  }
  if (!registering.empty()) await_unfenced(registering);
  for (const auto& [n, side] : std::set<std::pair<int, std::string>>(cuts_)) {
    call({{"op", "heal"}, {"node", n}, {"side", side}}, std::chrono::seconds(15));
    cuts_.erase({n, side});
  }
  for (int n : std::set<int>(dead_)) {
    call({{"op", "start"}, {"node", n}, {"wait_unfenced", true}, {"timeout_ms", 60000}},
         std::chrono::seconds(75));
    dead_.erase(n);
  }
}

std::string KafkaSession::prepare(const json& scenario) {
  const auto started = std::chrono::steady_clock::now();
  const json& cluster = section(scenario, "cluster");
  const json& topic = section(scenario, "topic");
  if (!cluster.contains("nodes") || !cluster["nodes"].is_array()) {
    throw std::invalid_argument("cluster.nodes: missing or not an array");
  }
  if (!cluster.contains("controller") || !cluster["controller"].contains("voters")) {
    throw std::invalid_argument("cluster.controller.voters: missing");
  }
  json broker_key = json::object();
  const json broker_config_3 = cluster.value("broker_config", json::object());
  for (const auto& [k, v] : broker_config_3.items())
    if (!topic_level(k)) broker_key[k] = v;
  const json key = {{"version", options_.kafka_version},
                    {"nodes", cluster["nodes"]},
                    {"voters", cluster["controller"]["voters"]},
                    {"zookeeper", zookeeper_scenario(scenario)},
                    {"quorum", cluster["controller"].value("quorum", "static")},
                    {"broker_config", broker_key},
                    {"features", cluster.value("features", json::object())},
                    {"powerfs", needs_powerfs(scenario)}};
  ensure_driver();
  started_new_ = false;
  bool reused = false;
  if (options_.reuse_cluster && reusable_ && cluster_key_ == key) {
    try {
      restore();
      reused = true;
      // ZooKeeper mode: the model's controller starts on the lowest broker; a scenario that
      // moved it (a failover) leaves a cluster whose next scenario would start elsewhere.
      if (zookeeper_scenario(scenario)) {
        const json c = call({{"op", "controller"}, {"timeout_ms", 5000}}, std::chrono::seconds(15));
        reused = c.value("controller", -1) == zookeeper_initial_controller(scenario);
      }
    } catch (const DriverError&) {
      reused = false;  // could not undo the last scenario's faults: a new cluster
    }
  }
  if (!reused) start_cluster(scenario, key);

  json config = json::object();
  const json config_4 = topic.value("config", json::object());
  for (const auto& [k, v] : config_4.items()) {
    config[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  // The broker settings the reuse key leaves out (topic_level) must reach the topic even
  // when the scenario's topic does not name them: a reused cluster may have been started
  // with another value (log.flush.interval.messages=1 for a flush every-append scenario,
  // which a flush none topic would inherit). flush.messages: the scenario's broker value,
  // else Kafka's default (Long.MAX_VALUE: never by count).
  if (!config.contains("flush.messages")) {
    const json broker_flush = cluster.value("broker_config", json::object()).value("log.flush.interval.messages", json());
    config["flush.messages"] = broker_flush.is_string() ? broker_flush.get<std::string>()
                               : broker_flush.is_null() ? std::string("9223372036854775807")
                                                        : broker_flush.dump();
  }
  const std::string name = topic_name(++topics_, scenario.value("name", "scenario"));
  call({{"op", "create_topic"}, {"name", name}, {"replicas", topic.at("replicas")}, {"config", config},
        {"timeout_ms", 30000}},
       std::chrono::seconds(40));

  const json producer = section(scenario, "clients").value("producer", json::object());
  const bool idempotent = producer.value("enable.idempotence", false);
  json request = {{"op", "producer"},
                  {"acks", producer.value("acks", "all")},
                  {"enable_idempotence", idempotent},
                  {"max_in_flight", producer.value("max.in.flight.requests.per.connection", 1)},
                  {"linger_ms", 0}};
  // The model's retry bound is the number of resends; Kafka refuses an idempotent
  // producer with retries=0 (ProducerConfig: "Must set retries to non-zero when using the
  // idempotent producer"), so an idempotent producer keeps Kafka's default (retries until
  // delivery.timeout.ms), which is what "idempotent" means for an application.
  request["retries"] = idempotent ? 2147483647 : producer.value("retries", 0);
  const int request_timeout_ms = counterexamples::producer_request_timeout_ms(scenario);
  request["request_timeout_ms"] = request_timeout_ms;
  // A model record that stands for a batch of k records (batch_mapping.h): the driver
  // appends the k records, then flushes; linger.ms keeps the batch open until the flush,
  // so that the sender cannot drain it with fewer records (RecordAccumulator.ready: a
  // batch is sendable when full, lingered, or flushed). 1 s is far more than k appends
  // take, and delivery.timeout.ms (6 s) >= linger.ms + request.timeout.ms (3 s) holds.
  const int per_send = counterexamples::records_per_send(scenario);
  if (per_send > 1) {
    request["records_per_send"] = per_send;
    request["linger_ms"] = 1000;
  }
  // Kafka requires delivery.timeout.ms >= linger.ms + request.timeout.ms (ProducerConfig).
  request["delivery_timeout_ms"] = std::max(6000, request_timeout_ms + request["linger_ms"].get<int>() + 3000);
  call(request, std::chrono::seconds(20));
  // A producer fetches a topic's metadata at its first send; steering that pauses a broker
  // before that send needs it fetched already. Drivers without the op answer bad_request.
  producer_warm_ = false;
  try {
    call({{"op", "warm_producer"}, {"topic", name}, {"timeout_ms", 5000}}, std::chrono::seconds(15));
    producer_warm_ = true;
  } catch (const DriverError& e) {
    if (e.kind != "bad_request") throw;
  }
  last_setup_seconds_ =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return name;
}

}  // namespace isr::conformance
