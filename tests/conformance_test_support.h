// Helpers shared by the tests of the conformance harness without Kafka: the suite's
// scenarios as checked in, and the answers a fake driver gives to the ops every run
// sends (conformance/driver/PROTOCOL.md).
#pragma once

#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace isr::conformance_test {

// conformance/suite/NAME.json, parsed; a missing file fails the test that asked for it.
inline nlohmann::json suite_scenario(const std::string& name) {
  std::ifstream in(std::string(ISRCHECK_SOURCE_DIR) + "/conformance/suite/" + name + ".json");
  EXPECT_TRUE(in.good()) << name;
  return nlohmann::json::parse(in);
}

// A fake driver's answer to `start_cluster`: every node of the request, with its roles,
// started.
inline nlohmann::json started_cluster(const nlohmann::json& request) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const nlohmann::json& n : request["nodes"]) nodes.push_back({{"id", n["id"]}, {"roles", n["roles"]}});
  return {{"ok", true}, {"nodes", nodes}};
}

}  // namespace isr::conformance_test
