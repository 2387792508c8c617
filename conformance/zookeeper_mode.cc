// ZooKeeper mode on a real cluster (see zookeeper_mode.h).
#include "conformance/zookeeper_mode.h"

#include <algorithm>
#include <cstdlib>
#include <string>

namespace isr::conformance {

using nlohmann::json;

namespace {

const json& controller_section(const json& scenario) {
  static const json empty = json::object();
  if (!scenario.is_object() || !scenario.contains("cluster") || !scenario["cluster"].is_object()) return empty;
  const json& cluster = scenario["cluster"];
  if (!cluster.contains("controller") || !cluster["controller"].is_object()) return empty;
  return cluster["controller"];
}

std::string step_where(const SteeringPlan& plan, SteerAction::Kind kind) {
  for (const auto& [step, sp] : plan.steps) {
    for (const auto* list : {&sp.before, &sp.after})
      for (const SteerAction& a : *list)
        if (a.kind == kind) return "step " + std::to_string(step) + " needs " + describe(a);
  }
  return "";
}

}  // namespace

bool zookeeper_scenario(const json& scenario) {
  const json& c = controller_section(scenario);
  return c.value("mode", std::string("kraft")) == "zookeeper";
}

std::string zookeeper_not_executable(const json& scenario, const std::string& kafka_version) {
  if (!zookeeper_scenario(scenario)) return "";
  // KIP-833: ZooKeeper mode is deprecated in 3.x and gone from 4.0 (kafka.Kafka refuses a
  // configuration without process.roles).
  const int major = std::atoi(kafka_version.c_str());
  if (major >= 4) {
    return "a ZooKeeper-mode trace (controller.mode=zookeeper), and Kafka " + kafka_version +
           " has no ZooKeeper mode (removed in 4.0, KIP-833): run it with --kafka-version 3.9.1";
  }
  const json& c = controller_section(scenario);
  if (c.value("placement", std::string()) == "combined") {
    return "ZooKeeper mode with combined placement: the model puts a ZooKeeper server on each of the first "
           "brokers' nodes (one crash stops both), which the harness does not run; export the trace with "
           "controller.placement=dedicated (the ensemble on nodes of its own)";
  }
  return "";
}

std::string zookeeper_steering_not_executable(const json& scenario, const SteeringPlan& plan) {
  if (!zookeeper_scenario(scenario)) return "";
  std::string where = step_where(plan, SteerAction::Kind::HoldMetadata);
  if (!where.empty()) {
    return where + ": in ZooKeeper mode a broker receives metadata as the controller's LeaderAndIsr over the "
                   "replication listener, which no controller proxy can hold apart from its fetches";
  }
  where = step_where(plan, SteerAction::Kind::HoldRegistration);
  if (!where.empty()) {
    return where + ": in ZooKeeper mode a broker registers an ephemeral znode (KafkaZkClient.registerBroker), "
                   "not through BrokerRegistration requests a controller proxy could hold";
  }
  return "";
}

int zookeeper_initial_controller(const json& scenario) {
  int lowest = -1;
  if (!scenario.contains("cluster") || !scenario["cluster"].contains("nodes")) return lowest;
  for (const json& n : scenario["cluster"]["nodes"]) {
    const json roles = n.value("roles", json::array());
    if (std::find(roles.begin(), roles.end(), json("broker")) == roles.end()) continue;
    const int id = n.value("id", -1);
    if (lowest < 0 || id < lowest) lowest = id;
  }
  return lowest;
}

}  // namespace isr::conformance
