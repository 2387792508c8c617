// ZooKeeper mode on a real cluster, without Kafka (issue 28 item 4; conformance/
// zookeeper_mode.h): which scenarios run where, the holds a ZooKeeper cluster cannot
// give, what the session asks the driver for, and the releases' generations.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "conformance/kafka_session.h"
#include "conformance/real_kafka_cluster.h"
#include "conformance/steering.h"
#include "conformance/zookeeper_mode.h"
#include "tests/conformance_test_support.h"

namespace isr::conformance {
namespace {

using nlohmann::json;
using conformance_test::suite_scenario;

const std::vector<std::string> kZooKeeperSuite = {"z-zk-cut-session-expiry", "z-zk-kill-followers-not-enough-replicas",
                                                  "z-zk-pause-within-session"};

TEST(ZooKeeperScenario, TheSuitesZooKeeperScenariosRunOn391AndOnNo4xRelease) {
  for (const std::string& name : kZooKeeperSuite) {
    const json s = suite_scenario(name);
    EXPECT_TRUE(zookeeper_scenario(s)) << name << ": export writes cluster.controller.mode";
    EXPECT_EQ(not_executable_reason(s, "3.9.1"), "") << name;
    EXPECT_NE(not_executable_reason(s, "4.4.0"), "") << name;
    EXPECT_EQ(plan_steering(s).not_executable, "") << name;
    EXPECT_EQ(zookeeper_steering_not_executable(s, plan_steering(s)), "") << name;
  }
  // KRaft scenarios keep their form (no mode field) and are not taken for ZooKeeper ones.
  const json kraft = suite_scenario("b-acks1-leader-loss");
  EXPECT_FALSE(kraft["cluster"]["controller"].contains("mode"));
  EXPECT_FALSE(zookeeper_scenario(kraft));
}

TEST(ZooKeeperScenario, A4xReleaseOrCombinedPlacementIsRefusedWithTheReason) {
  json s = suite_scenario("z-zk-cut-session-expiry");
  // A kip-903 trace is 3.5 to 3.9: on 4.4 the generation already differs; with the
  // generation check passed (a 4.x release of the same generation) ZooKeeper mode is named.
  EXPECT_NE(zookeeper_not_executable(s, "4.4.0").find("no ZooKeeper mode"), std::string::npos);
  EXPECT_EQ(zookeeper_not_executable(s, "3.9.1"), "");
  s["cluster"]["controller"]["placement"] = "combined";
  EXPECT_NE(not_executable_reason(s, "3.9.1").find("combined placement"), std::string::npos);
}

TEST(ZooKeeperScenario, KRaftOnlyHoldsAreNotExecutableInZooKeeperMode) {
  // The new user's trace holds a restarted broker's BrokerRegistration at the controller
  // proxies; a ZooKeeper broker registers a znode instead.
  json registration = suite_scenario("l-unclean-restarted-broker-unregistered");
  const SteeringPlan reg_plan = plan_steering(registration);
  EXPECT_EQ(zookeeper_steering_not_executable(registration, reg_plan), "") << "KRaft: the hold runs";
  registration["cluster"]["controller"]["mode"] = "zookeeper";
  EXPECT_NE(zookeeper_steering_not_executable(registration, reg_plan).find("znode"), std::string::npos);
  // k-reelected holds brokers' metadata replay (their raft fetches at the controller
  // proxies); a ZooKeeper broker gets LeaderAndIsr from the controller instead.
  json metadata = suite_scenario("k-reelected-leader-stale-follower");
  const SteeringPlan meta_plan = plan_steering(metadata);
  metadata["cluster"]["controller"]["mode"] = "zookeeper";
  EXPECT_NE(zookeeper_steering_not_executable(metadata, meta_plan).find("LeaderAndIsr"), std::string::npos);
}

// A fake driver that answers every op the session sends and records the requests; its
// `controller` op answers `controller`.
class FakeDriver : public Driver {
 public:
  FakeDriver(std::vector<json>* log, int* controller) : log_(log), controller_(controller) {}
  json call(json request, std::chrono::milliseconds) override {
    log_->push_back(request);
    const std::string op = request.value("op", "");
    if (op == "start_cluster") return conformance_test::started_cluster(request);
    if (op == "controller") return {{"ok", true}, {"controller", *controller_}};
    if (op == "describe") return {{"ok", true}, {"fenced", json::array()}};
    return {{"ok", true}};
  }
  void stop() override {}

 private:
  std::vector<json>* log_;
  int* controller_;
};

std::vector<std::string> ops(const std::vector<json>& log) {
  std::vector<std::string> out;
  for (const json& r : log) out.push_back(r.value("op", ""));
  return out;
}

TEST(ZooKeeperSession, StartsAZooKeeperClusterAndReusesItOnlyWhileBroker0IsTheController) {
  std::vector<json> log;
  int controller = 0;
  KafkaOptions options;
  options.kafka_version = "3.9.1";
  options.work_root = (std::filesystem::temp_directory_path() / "isrcheck-zk-session-test").string();
  KafkaSession session(options, [&](const std::string&) { return std::make_unique<FakeDriver>(&log, &controller); });
  const json s = suite_scenario("z-zk-cut-session-expiry");
  session.prepare(s);
  ASSERT_FALSE(log.empty());
  EXPECT_EQ(log.front()["op"], "start_cluster");
  EXPECT_EQ(log.front()["controller_mode"], "zookeeper");
  EXPECT_EQ(zookeeper_initial_controller(s), 0);

  // The controller is still broker 0: the cluster is reused (no second start).
  log.clear();
  session.prepare(s);
  std::vector<std::string> seen = ops(log);
  EXPECT_NE(std::find(seen.begin(), seen.end(), "controller"), seen.end());
  EXPECT_EQ(std::find(seen.begin(), seen.end(), "start_cluster"), seen.end());

  // A failover moved it to broker 1: the model's controller starts on broker 0, so the
  // next scenario gets a new cluster.
  log.clear();
  controller = 1;
  session.prepare(s);
  seen = ops(log);
  EXPECT_NE(std::find(seen.begin(), seen.end(), "start_cluster"), seen.end());
  std::filesystem::remove_all(options.work_root);
}

TEST(Releases, EveryReleaseLineMapsToTheModelsGeneration) {
  EXPECT_EQ(generation_of_release("4.4.0"), "kip-966");
  EXPECT_EQ(generation_of_release("3.9.1"), "kip-903");
  EXPECT_EQ(generation_of_release("3.5.2"), "kip-903");
  EXPECT_EQ(generation_of_release("3.4.1"), "kip-497");
  EXPECT_EQ(generation_of_release("2.7.2"), "kip-497");
  EXPECT_EQ(generation_of_release("2.6.3"), "kip-320");
  EXPECT_EQ(generation_of_release("2.1.1"), "kip-320");
  EXPECT_EQ(generation_of_release("2.0.1"), "kip-279");
  EXPECT_EQ(generation_of_release("1.1.1"), "kip-101");
  EXPECT_EQ(generation_of_release("0.11.0.3"), "kip-101");
  EXPECT_EQ(generation_of_release("0.10.2.2"), "hw-truncation");
  EXPECT_EQ(generation_of_release("9.9.9"), "");
}

}  // namespace
}  // namespace isr::conformance
