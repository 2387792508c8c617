// ZooKeeper mode on a real cluster (issue 28 item 4): which scenarios run on a
// ZooKeeper-mode Kafka cluster and what the harness cannot do there.
//
// A trace of `controller.mode=zookeeper` is exported with `cluster.controller.mode:
// "zookeeper"`; its controller-role nodes are the ZooKeeper ensemble (the model's voters,
// spec/partition/zookeeper.cc), which the driver runs as QuorumPeerMain JVMs of their own
// (conformance/driver ZooKeeperMode.java), and the controller is a broker. What follows
// from that:
//
// - Kafka 4.0 removed ZooKeeper mode (KIP-833): a ZooKeeper scenario needs a 3.x release.
// - A node is a broker or a ZooKeeper server, not both: a trace with combined placement
//   (the ensemble on the brokers' machines, one fault taking both down) is not executable;
//   export it with `controller.placement=dedicated`.
// - Steering's metadata and registration holds act on KRaft requests at the controller
//   proxies (Fetch of the metadata log, BrokerRegistration, BrokerHeartbeat); a ZooKeeper
//   broker replays LeaderAndIsr over the replication listener and registers a znode, so a
//   plan that needs either is not executable here. Holds of followers' fetches (pauses,
//   brokers-side cuts) work unchanged.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "conformance/steering.h"

namespace isr::conformance {

// The scenario's cluster runs the ZooKeeper-mode controller (cluster.controller.mode).
bool zookeeper_scenario(const nlohmann::json& scenario);

// Why a ZooKeeper scenario cannot run on `kafka_version` or with this placement (empty:
// it can, or the scenario is not of ZooKeeper mode).
std::string zookeeper_not_executable(const nlohmann::json& scenario, const std::string& kafka_version);

// Why the steering plan cannot be carried out on a ZooKeeper-mode cluster (empty: it can).
std::string zookeeper_steering_not_executable(const nlohmann::json& scenario, const SteeringPlan& plan);

// The broker the model's ZooKeeper controller starts on (the lowest broker id, broker 0 of
// the model's initial state): a reused cluster whose controller moved is started anew.
int zookeeper_initial_controller(const nlohmann::json& scenario);

}  // namespace isr::conformance
