// A campaign run reads the controller's committed decisions from the metadata log after
// its read-back, before the cluster is torn down or reused, and merges them into the
// run's recording (conformance/campaign/campaign_run.h add_decisions, docs/campaign.md,
// "Decisions"): placed as docs/recording.md says, and left out where the window holds
// one of the run's own groups (a timed-out send). A ZooKeeper-mode scenario has no
// metadata log: nothing is read. On a fake driver (no Kafka) that answers every op with
// a partition at rest.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/campaign_timeline.h"
#include "conformance/campaign/campaign_config.h"
#include "conformance/campaign/campaign_run.h"
#include "conformance/driver.h"
#include "conformance/kafka_session.h"
#include "counterexamples/scenario/recording.h"
#include "tests/conformance_test_support.h"

namespace isr::conformance::campaign {
namespace {

using nlohmann::json;

json partition(long long offset, int leader, int epoch, std::vector<int> isr) {
  return {{"op", "partition"}, {"record_type", offset == 30 ? "PartitionRecord" : "PartitionChangeRecord"},
          {"metadata_offset", offset}, {"leader", leader}, {"leader_epoch", epoch}, {"isr", isr},
          {"elr", json::array()}};
}

struct Fake {
  std::string produce_result = "acked";
  std::vector<json> decisions;
  bool metadata_log_fails = false;
  bool consume_fails = false;
};

// Node 0 leads at epoch 0 with every replica in the ISR, at every describe; sends answer
// `produce_result`; nothing reads back.
class FakeDriver : public Driver {
 public:
  FakeDriver(const Fake& fake, std::vector<json>* log) : fake_(fake), log_(log) {}
  json call(json request, std::chrono::milliseconds) override {
    log_->push_back(request);
    const std::string op = request.value("op", "");
    if (op == "start_cluster") return conformance_test::started_cluster(request);
    if (op == "metadata_log") {
      if (fake_.metadata_log_fails) throw DriverError("internal", "no metadata log");
      return {{"ok", true}, {"decisions", fake_.decisions}};
    }
    if (op == "produce") return {{"ok", true}, {"result", fake_.produce_result}};
    if (op == "consume" && fake_.consume_fails) throw DriverError("internal", "the consumer failed");
    if (op == "describe") {
      return {{"ok", true}, {"leader", 0}, {"leader_epoch", 0}, {"isr", {0, 1, 2}}, {"elr", json::array()},
              {"fenced", json::array()}, {"unknown", {"hw"}}};
    }
    return {{"ok", true}};
  }
  void stop() override {}

 private:
  Fake fake_;
  std::vector<json>* log_;
};

struct Outcome {
  RunResult run;
  std::vector<std::string> ops;
};

Outcome run_once(const Fake& fake) {
  std::vector<json> log;
  KafkaOptions options;
  options.kafka_version = "4.4.0";
  options.wait_budget = std::chrono::milliseconds(200);
  options.work_root = (std::filesystem::temp_directory_path() / "isrcheck-campaign-decisions-test").string();
  CampaignConfig c;
  c.records = 1;
  c.max_faults = 0;
  c.gap_ms_min = c.gap_ms_max = 0;
  c.quiet_ms = 0;
  c.settle_timeout_ms = 0;
  Outcome out;
  {
    KafkaSession session(options, [&](const std::string&) { return std::make_unique<FakeDriver>(fake, &log); });
    out.run = execute_run(session, c, 1, 7, nullptr);
  }
  for (const json& r : log) out.ops.push_back(r.value("op", ""));
  return out;
}

// The position of `op`'s first (or last) call, -1 when never called.
long index_of(const std::vector<std::string>& ops, const std::string& op, bool last) {
  long out = -1;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i] != op) continue;
    out = static_cast<long>(i);
    if (!last) break;
  }
  return out;
}

int decisions_in(const std::vector<json>& events) {
  return static_cast<int>(
      std::count_if(events.begin(), events.end(), [](const json& e) { return e.value("kind", "") == "decision"; }));
}

// The recording as `campaign` writes it parses back (validate_run's first step).
void expect_parses(const RunResult& r) {
  EXPECT_NO_THROW(counterexamples::parse_recording(counterexamples::recording_text(r.header, r.events)));
  for (std::size_t i = 0; i < r.events.size(); ++i) EXPECT_EQ(r.events[i]["seq"], i + 1);
}

TEST(CampaignDecisions, AKRaftRunReadsTheMetadataLogAfterItsReadBackAndMergesIt) {
  Fake fake;
  // The creation, and an election no observation shows (after the last one).
  fake.decisions = {partition(30, 0, 0, {0, 1, 2}), partition(40, 1, 1, {1, 2})};
  const Outcome r = run_once(fake);
  ASSERT_TRUE(r.run.complete) << r.run.error;
  EXPECT_EQ(std::count(r.ops.begin(), r.ops.end(), "metadata_log"), 1);
  ASSERT_GE(index_of(r.ops, "consume", true), 0);
  EXPECT_GT(index_of(r.ops, "metadata_log", false), index_of(r.ops, "consume", true));
  ASSERT_TRUE(r.run.header.contains("decisions"));
  EXPECT_EQ(r.run.header["decisions"]["count"], 2);
  EXPECT_EQ(r.run.header["decisions"]["left_out"], 0);
  EXPECT_EQ(r.run.header["decisions"]["groups"], 1);
  // Every observation shows the creation's state: it goes before the first, alone.
  ASSERT_EQ(decisions_in(r.run.events), 2);
  EXPECT_EQ(r.run.events[0].value("kind", ""), "decision");
  EXPECT_FALSE(r.run.events[0].contains("group"));
  EXPECT_EQ(r.run.events[1].value("kind", ""), "observe");
  // The election is after the final observation, in one group with the read-back.
  const json& election = r.run.events.back();
  EXPECT_EQ(election.value("metadata_offset", 0), 40);
  ASSERT_TRUE(election.contains("group"));
  const json& before_it = r.run.events[r.run.events.size() - 2];
  EXPECT_EQ(before_it.value("op", ""), "consume");
  EXPECT_EQ(before_it.value("group", 0), election["group"]);
  expect_parses(r.run);
  // The run's page names the decision in its event table.
  const std::string html = analysis::render_run_timeline(r.run.header, r.run.events, r.run.summary());
  EXPECT_NE(html.find("decision PartitionRecord at metadata offset 30: leader 0, ISR [0,1,2]"), std::string::npos);
  // The figures read back from the recording are the run's.
  const RunResult again = run_from_recording(r.run.header, r.run.events);
  EXPECT_EQ(again.acked, r.run.acked);
  EXPECT_EQ(again.faults_injected, r.run.faults_injected);
}

// A decision has no harness time: a run's length is its latest event's end, wherever
// the decisions go.
TEST(CampaignDecisions, ARunsLengthIgnoresDecisionsAtTheEnd) {
  const std::vector<json> events = {{{"seq", 1}, {"kind", "observe"}, {"t_start_ms", 200}, {"t_end_ms", 500}},
                                    {{"seq", 2}, {"kind", "decision"}, {"op", "partition"}}};
  EXPECT_DOUBLE_EQ(run_from_recording(json::object(), events).run_seconds, 0.5);
}

TEST(CampaignDecisions, ADecisionWhoseWindowHoldsTheRunsOwnGroupIsLeftOut) {
  // A timed-out send: a produce and its expire_send in group 1. ISR [0,1,2] -> [0,1] ->
  // [0,1,2]: every observation may be the creation's state or the expansion's, so the
  // shrink and the expansion may lie anywhere, the group included: both are left out.
  Fake fake;
  fake.produce_result = "REQUEST_TIMED_OUT";
  fake.decisions = {partition(30, 0, 0, {0, 1, 2}), partition(35, 0, 0, {0, 1}), partition(40, 0, 0, {0, 1, 2})};
  const Outcome r = run_once(fake);
  ASSERT_TRUE(r.run.complete) << r.run.error;
  ASSERT_TRUE(r.run.header.contains("decisions"));
  EXPECT_EQ(r.run.header["decisions"]["count"], 3);
  EXPECT_EQ(r.run.header["decisions"]["left_out"], 2);
  EXPECT_EQ(r.run.header["decisions"]["groups"], 0);
  EXPECT_EQ(decisions_in(r.run.events), 1);
  int grouped = 0;
  for (const json& e : r.run.events) {
    if (!e.contains("group")) continue;
    ++grouped;
    EXPECT_EQ(e["group"], 1) << e.dump();
    EXPECT_EQ(e.value("kind", ""), "client") << e.dump();
  }
  EXPECT_EQ(grouped, 2);  // the produce and its expire_send, as the campaign wrote them
  expect_parses(r.run);
}

TEST(CampaignDecisions, ADriverErrorIsNotedAndTheRecordingStaysAsItWas) {
  Fake fake;
  fake.metadata_log_fails = true;
  const Outcome r = run_once(fake);
  ASSERT_TRUE(r.run.complete) << r.run.error;
  ASSERT_TRUE(r.run.header.contains("decisions"));
  EXPECT_NE(r.run.header["decisions"].value("error", "").find("no metadata log"), std::string::npos);
  EXPECT_EQ(decisions_in(r.run.events), 0);
  expect_parses(r.run);
}

// A run a driver error ended early reads nothing: its driver may be gone.
TEST(CampaignDecisions, ARunEndedByADriverErrorReadsNothing) {
  Fake fake;
  fake.consume_fails = true;
  fake.decisions = {partition(30, 0, 0, {0, 1, 2})};
  const Outcome r = run_once(fake);
  EXPECT_FALSE(r.run.complete);
  EXPECT_NE(r.run.error.find("the consumer failed"), std::string::npos) << r.run.error;
  EXPECT_EQ(std::count(r.ops.begin(), r.ops.end(), "metadata_log"), 0);
  EXPECT_FALSE(r.run.header.contains("decisions"));
  EXPECT_EQ(decisions_in(r.run.events), 0);
}

TEST(CampaignDecisions, AZooKeeperScenarioReadsNothing) {
  RunResult r;
  r.events = {{{"seq", 1}, {"kind", "observe"}, {"condition_met", true}, {"state", json::object()}}};
  const std::vector<json> before = r.events;
  int reads = 0;
  auto read = [&] {
    ++reads;
    return std::vector<json>{partition(30, 0, 0, {0, 1, 2})};
  };
  const json zookeeper = {{"cluster", {{"controller", {{"mode", "zookeeper"}}}}}};
  add_decisions(r, zookeeper, read);
  EXPECT_EQ(reads, 0);
  EXPECT_FALSE(r.header.contains("decisions"));
  EXPECT_EQ(r.events, before);
  // The same run's scenario in KRaft mode (the campaign's own) is read.
  const json kraft = {{"cluster", {{"controller", {{"placement", "combined"}}}}}};
  add_decisions(r, kraft, read);
  EXPECT_EQ(reads, 1);
  EXPECT_EQ(r.header["decisions"]["count"], 1);
  EXPECT_EQ(decisions_in(r.events), 1);
}

}  // namespace
}  // namespace isr::conformance::campaign
