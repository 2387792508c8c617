// conform --record reads the controller's committed decisions at the end of a KRaft run
// and merges them into the recording (conformance/conform.cc, docs/recording.md,
// "Decisions"); a ZooKeeper-mode run has no metadata log and its recording stays as it
// was; without --record nothing is read. On a fake driver (no Kafka): the run diverges at
// its initial wait (the fake describes nothing), which ends it like any run.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "conformance/conform.h"
#include "conformance/kafka_session.h"
#include "tests/conformance_test_support.h"

namespace isr::conformance {
namespace {

using nlohmann::json;
using conformance_test::suite_scenario;

// Answers every op; `metadata_log` with one PartitionRecord of the initial state.
class FakeDriver : public Driver {
 public:
  explicit FakeDriver(std::vector<json>* log) : log_(log) {}
  json call(json request, std::chrono::milliseconds) override {
    log_->push_back(request);
    const std::string op = request.value("op", "");
    if (op == "start_cluster") return conformance_test::started_cluster(request);
    if (op == "metadata_log") {
      return {{"ok", true},
              {"decisions",
               {{{"op", "partition"}, {"record_type", "PartitionRecord"}, {"metadata_offset", 30}, {"leader", 0},
                 {"leader_epoch", 0}, {"isr", {0, 1, 2}}, {"elr", json::array()}}}}};
    }
    if (op == "describe") return {{"ok", true}, {"fenced", json::array()}, {"unknown", {"leader", "hw"}}};
    return {{"ok", true}};
  }
  void stop() override {}

 private:
  std::vector<json>* log_;
};

struct Outcome {
  ConformResult result;
  std::vector<std::string> ops;
};

Outcome run(const std::string& scenario, const std::string& version, bool record) {
  std::vector<json> log;
  KafkaOptions options;
  options.kafka_version = version;
  options.wait_budget = std::chrono::milliseconds(200);
  options.read_metadata_log = record;
  options.work_root = (std::filesystem::temp_directory_path() / "isrcheck-conform-decisions-test").string();
  Outcome out;
  {
    KafkaSession session(options, [&](const std::string&) { return std::make_unique<FakeDriver>(&log); });
    out.result = run_scenario(session, suite_scenario(scenario));
  }
  for (const json& r : log) out.ops.push_back(r.value("op", ""));
  return out;
}

int count(const std::vector<std::string>& ops, const std::string& op) {
  return static_cast<int>(std::count(ops.begin(), ops.end(), op));
}

TEST(ConformDecisions, AKRaftRunRecordsTheControllersDecisions) {
  const Outcome r = run("b-acks1-leader-loss", "4.4.0", true);
  ASSERT_FALSE(r.result.recording.empty()) << verdict_name(r.result.verdict) << " " << r.result.reason;
  EXPECT_EQ(count(r.ops, "metadata_log"), 1);
  ASSERT_TRUE(r.result.recording_header.contains("decisions"));
  EXPECT_EQ(r.result.recording_header["decisions"]["count"], 1);
  // The decision goes before the initial observation, which shows its state or not:
  // either way it is in the recording, once, in seq order.
  int decisions = 0;
  for (std::size_t i = 0; i < r.result.recording.size(); ++i) {
    EXPECT_EQ(r.result.recording[i]["seq"], i + 1);
    decisions += r.result.recording[i].value("kind", "") == "decision";
  }
  EXPECT_EQ(decisions, 1);
}

TEST(ConformDecisions, AZooKeeperRunHasNoMetadataLogAndKeepsItsRecording) {
  const Outcome r = run("z-zk-cut-session-expiry", "3.9.1", true);
  ASSERT_FALSE(r.result.recording.empty()) << verdict_name(r.result.verdict) << " " << r.result.reason;
  EXPECT_EQ(count(r.ops, "metadata_log"), 0);
  EXPECT_FALSE(r.result.recording_header.contains("decisions"));
  for (const json& e : r.result.recording) EXPECT_NE(e.value("kind", ""), "decision");
}

TEST(ConformDecisions, WithoutRecordingNothingIsRead) {
  const Outcome r = run("b-acks1-leader-loss", "4.4.0", false);
  EXPECT_EQ(count(r.ops, "metadata_log"), 0);
  EXPECT_FALSE(r.result.recording_header.contains("decisions"));
}

}  // namespace
}  // namespace isr::conformance
