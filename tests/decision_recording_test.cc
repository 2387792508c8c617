// The controller's committed decisions in recordings (docs/recording.md, "Decisions"):
// merging them into the harness's event log with only what is known about their order,
// parsing them, and validating them as controller steps of the model
// (docs/validation.md, "Decisions"), on a real Kafka 4.4.0 recording and corrupted copies.
#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/trace_validation.h"
#include "counterexamples/scenario/decision_merge.h"
#include "counterexamples/scenario/recording.h"
#include "spec/partition/config.h"

namespace isr {
namespace {

using nlohmann::json;

json observe(json state) { return {{"kind", "observe"}, {"condition_met", true}, {"state", std::move(state)}}; }

json partition(long long offset, int leader, int epoch, std::vector<int> isr) {
  return {{"op", "partition"}, {"record_type", "PartitionChangeRecord"}, {"metadata_offset", offset},
          {"leader", leader},  {"leader_epoch", epoch},                    {"isr", isr},
          {"elr", json::array()}};
}

TEST(DecisionMerge, ADecisionGoesBetweenTheObservationsThatBoundIt) {
  const std::vector<json> events = {
      observe({{"leader", 0}, {"leader_epoch", 0}, {"isr", {0, 1, 2}}}),
      {{"kind", "fault"}, {"op", "crash"}, {"node", 0}, {"crash_kind", "kill"}},
      observe({{"leader", 1}, {"leader_epoch", 1}, {"isr", {1, 2}}}),
  };
  json created = partition(10, 0, 0, {0, 1, 2});
  created["record_type"] = "PartitionRecord";
  const std::vector<json> decisions = {created, partition(21, 1, 1, {1, 2})};
  const auto merged = counterexamples::merge_decisions(events, decisions);
  ASSERT_EQ(merged.events.size(), 5u);
  // The creation is shown by the first observation: before it, alone (nothing else is
  // before that observation). The election is shown by the last one and cannot be the
  // first one's state: between them, in one group with the crash.
  EXPECT_EQ(merged.events[0].value("kind", ""), "decision");
  EXPECT_FALSE(merged.events[0].contains("group"));
  EXPECT_EQ(merged.events[1].value("kind", ""), "observe");
  EXPECT_FALSE(merged.events[1].contains("group"));
  EXPECT_EQ(merged.events[2].value("op", ""), "crash");
  EXPECT_EQ(merged.events[3].value("metadata_offset", 0), 21);
  EXPECT_EQ(merged.events[2]["group"], 1);
  EXPECT_EQ(merged.events[3]["group"], 1);
  EXPECT_EQ(merged.events[4].value("kind", ""), "observe");
  EXPECT_FALSE(merged.events[4].contains("group"));
  EXPECT_EQ(merged.groups, 1);
  for (std::size_t i = 0; i < merged.events.size(); ++i) EXPECT_EQ(merged.events[i]["seq"], i + 1);
  // Parses back, with the decision's fields.
  std::string text = json({{"format", "isrcheck-recording"}, {"version", 1}, {"model_config", json::object()}}).dump() + "\n";
  for (const json& e : merged.events) text += e.dump() + "\n";
  const auto recording = counterexamples::parse_recording(text);
  ASSERT_EQ(recording.events[3].kind, "decision");
  EXPECT_EQ(recording.events[3].leader, 1);
  EXPECT_EQ(recording.events[3].leader_epoch, 1);
  EXPECT_EQ(recording.events[3].isr, (std::vector<int>{1, 2}));
  EXPECT_EQ(counterexamples::event_text(recording.events[3]),
            "decision PartitionChangeRecord at metadata offset 21: leader 1, leader epoch 1, isr [1,2], elr []");
}

TEST(DecisionMerge, AnObservationThatMayBeTwoDecisionsBoundsNeither) {
  // ISR [0,1] -> [0] -> [0,1]: an observation of [0,1] after the shrink may be the
  // creation's state or the expansion's, so it orders neither the shrink nor the
  // expansion before it: all three events and both changes share one group.
  const std::vector<json> events = {
      {{"kind", "fault"}, {"op", "cut"}, {"node", 1}, {"side", "brokers"}},
      observe({{"leader", 0}, {"leader_epoch", 0}, {"isr", {0, 1}}}),
      {{"kind", "fault"}, {"op", "heal"}, {"node", 1}, {"side", "brokers"}},
  };
  const std::vector<json> decisions = {partition(5, 0, 0, {0, 1}), partition(6, 0, 0, {0}), partition(7, 0, 0, {0, 1})};
  const auto merged = counterexamples::merge_decisions(events, decisions);
  ASSERT_EQ(merged.events.size(), 6u);
  EXPECT_EQ(merged.groups, 1);
  for (const json& e : merged.events) EXPECT_EQ(e.value("group", 0), 1) << e.dump();
  // The creation is before the observation (it shows the creation's state or a later one).
  EXPECT_EQ(merged.events[3].value("metadata_offset", 0), 5);
  EXPECT_EQ(merged.events[3].value("before_seq", 0), 2);
  EXPECT_FALSE(merged.events[4].contains("before_seq"));
}

TEST(DecisionMerge, AfterEveryObservationWhenNoneShowsIt) {
  const std::vector<json> events = {observe({{"leader", 0}, {"leader_epoch", 0}, {"isr", {0, 1}}})};
  const auto merged = counterexamples::merge_decisions(events, {partition(5, 0, 0, {0, 1}), partition(9, 1, 1, {1})});
  ASSERT_EQ(merged.events.size(), 3u);
  EXPECT_EQ(merged.events[0].value("metadata_offset", 0), 5);
  EXPECT_EQ(merged.events[1].value("kind", ""), "observe");
  EXPECT_EQ(merged.events[2].value("metadata_offset", 0), 9);
  EXPECT_EQ(merged.groups, 0);
}

// A campaign groups a timed-out send with its timeout (any order). A decision whose window
// holds that group would need the group's events in file order inside a decision group:
// it is left out instead, and the decisions around it keep their places; the groups
// written are numbered above the harness's own.
TEST(DecisionMerge, ADecisionWhoseWindowHoldsAHarnessGroupIsLeftOut) {
  const std::vector<json> events = {
      observe({{"leader", 0}, {"leader_epoch", 0}, {"isr", {0, 1, 2}}}),
      {{"kind", "fault"}, {"op", "pause"}, {"node", 0}},
      {{"kind", "client"}, {"op", "produce"}, {"record", 1}, {"group", 3}},
      {{"kind", "fault"}, {"op", "resume"}, {"node", 0}, {"group", 3}},
      observe({{"leader", 1}, {"leader_epoch", 1}, {"isr", {1, 2}}}),
      {{"kind", "fault"}, {"op", "crash"}, {"node", 1}, {"crash_kind", "kill"}},
      observe({{"leader", 2}, {"leader_epoch", 2}, {"isr", {2}}}),
  };
  json created = partition(10, 0, 0, {0, 1, 2});
  created["record_type"] = "PartitionRecord";
  const std::vector<json> decisions = {created, partition(21, 1, 1, {1, 2}), partition(30, 2, 2, {2})};
  const auto merged = counterexamples::merge_decisions(events, decisions);
  EXPECT_EQ(merged.left_out, 1);
  EXPECT_EQ(merged.groups, 1);
  ASSERT_EQ(merged.events.size(), 9u);
  EXPECT_EQ(merged.events[0].value("metadata_offset", 0), 10);
  EXPECT_FALSE(merged.events[0].contains("group"));
  // The harness's group as it was; no decision joins it.
  for (std::size_t i = 1; i <= 5; ++i) EXPECT_NE(merged.events[i].value("kind", ""), "decision") << i;
  EXPECT_FALSE(merged.events[2].contains("group"));
  EXPECT_EQ(merged.events[3]["group"], 3);
  EXPECT_EQ(merged.events[4]["group"], 3);
  // The last election shares a new group, above the harness's, with the crash.
  EXPECT_EQ(merged.events[6].value("op", ""), "crash");
  EXPECT_EQ(merged.events[6]["group"], 4);
  EXPECT_EQ(merged.events[7].value("metadata_offset", 0), 30);
  EXPECT_EQ(merged.events[7]["group"], 4);
  for (std::size_t i = 0; i < merged.events.size(); ++i) EXPECT_EQ(merged.events[i]["seq"], i + 1);
}

std::string header_line() {
  return json({{"format", "isrcheck-recording"}, {"version", 1}, {"model_config", json::object()}}).dump() + "\n";
}

std::string parse_error(const std::string& line) {
  try {
    (void)counterexamples::parse_recording(header_line() + line + "\n");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(DecisionParse, ErrorsNameTheFieldAndTheAllowedValues) {
  EXPECT_EQ(parse_error(R"({"seq":1,"kind":"decision","op":"elect","metadata_offset":1,"record_type":"X"})"),
            "line 2: op: \"elect\" is not allowed (partition, register_broker, broker_change, fence_broker, "
            "unfence_broker)");
  EXPECT_EQ(parse_error(R"({"seq":1,"kind":"decision","op":"partition","record_type":"PartitionRecord"})"),
            "line 2: metadata_offset: missing is not allowed (the record's offset in __cluster_metadata, an integer "
            ">= 0)");
  EXPECT_EQ(parse_error(R"({"seq":1,"kind":"decision","op":"partition","metadata_offset":3,)"
                        R"("record_type":"PartitionRecord","leader":0,"leader_epoch":0,"isr":[0,"x"]})"),
            "line 2: isr: [0,\"x\"] is not allowed (an array of node ids from 0 to 1000)");
  EXPECT_EQ(parse_error(R"({"seq":1,"kind":"decision","op":"broker_change","metadata_offset":3,)"
                        R"("record_type":"BrokerRegistrationChangeRecord","broker":0,"fencing":"maybe"})"),
            "line 2: fencing: \"maybe\" is not allowed (fence, unfence, none)");
  EXPECT_EQ(parse_error(R"({"seq":1,"kind":"decision","op":"fence_broker","metadata_offset":3,)"
                        R"("record_type":"FenceBrokerRecord","broker":0,"after_seq":1})"),
            "line 2: after_seq: 1 is not allowed (only in a group)");
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string kRecording = std::string(ISRCHECK_SOURCE_DIR) + "/tests/data/recordings/e-unclean-off-offline-decisions.jsonl";

analysis::ValidationResult validate(const counterexamples::Recording& recording) {
  const spec::Config config = spec::load_config(&recording.header.at("model_config"), {});
  return analysis::validate_recording(recording, config, analysis::ValidateOptions{});
}

// The decision at `metadata_offset` of the recording, to corrupt.
counterexamples::RecordedEvent& decision_at(counterexamples::Recording& r, long long metadata_offset) {
  for (auto& e : r.events)
    if (e.kind == "decision" && e.metadata_offset == metadata_offset) return e;
  throw std::runtime_error("no decision at that offset");
}

TEST(DecisionValidation, ARealRecordingWithTheControllersDecisionsIsExplained) {
  const auto recording = counterexamples::parse_recording(read(kRecording));
  int decisions = 0;
  for (const auto& e : recording.events) decisions += e.kind == "decision";
  ASSERT_EQ(decisions, 4);  // PartitionRecord, the ISR shrink, the offline election, the fencing
  const auto r = validate(recording);
  EXPECT_EQ(r.verdict, analysis::ValidationResult::Verdict::Explained) << r.event << ": " << r.why;
  EXPECT_EQ(r.events, recording.events.size());  // every decision is validated
}

TEST(DecisionValidation, AnUncleanElectionWithUncleanOffIsUnexplainedAtTheDecision) {
  // The corruption: the partition goes offline at offset 58 (N0, the only ISR member,
  // killed); recorded instead: N1, out of the ISR without the acked record, elected.
  auto recording = counterexamples::parse_recording(read(kRecording));
  auto& e = decision_at(recording, 58);
  e.leader = 1;
  e.isr = {1};
  e.elr = {};
  const auto r = validate(recording);
  ASSERT_EQ(r.verdict, analysis::ValidationResult::Verdict::Unexplained);
  EXPECT_EQ(r.event_seq, e.seq);
  EXPECT_NE(r.why.find("committed state of this decision"), std::string::npos) << r.why;
  // The nearest model states keep N0 leading or take the partition offline: never N1.
  ASSERT_FALSE(r.differences.empty());
  EXPECT_EQ(r.differences[0].rfind("leader: recorded 1, model ", 0), 0u) << testing::PrintToString(r.differences);
}

TEST(DecisionValidation, AnIsrTheModelNeverFormsIsUnexplainedNamingTheIsr) {
  // The shrink at offset 54 recorded as ISR [1] under leader 0: a leader outside its ISR.
  auto recording = counterexamples::parse_recording(read(kRecording));
  auto& e = decision_at(recording, 54);
  e.isr = {1};
  const auto r = validate(recording);
  ASSERT_EQ(r.verdict, analysis::ValidationResult::Verdict::Unexplained);
  EXPECT_EQ(r.event_seq, e.seq);
  ASSERT_EQ(r.differences.size(), 1u) << testing::PrintToString(r.differences);
  EXPECT_EQ(r.differences[0].rfind("isr: recorded [1], model ", 0), 0u) << r.differences[0];
}

TEST(DecisionValidation, AFencingTheModelDoesNotMakeIsUnexplained) {
  // The fencing of N0 at offset 59 recorded as an unfencing: N0 is dead, the model keeps it fenced.
  auto recording = counterexamples::parse_recording(read(kRecording));
  auto& e = decision_at(recording, 59);
  e.fencing = "unfence";
  const auto r = validate(recording);
  ASSERT_EQ(r.verdict, analysis::ValidationResult::Verdict::Unexplained);
  EXPECT_EQ(r.event_seq, e.seq);
  EXPECT_EQ(r.differences, std::vector<std::string>{"broker 0 fenced: recorded false, model true"});
}

TEST(DecisionValidation, ARegistrationRecordedFencedIsNotHeldAgainstTheModel) {
  // Kafka registers every incarnation fenced and unfences it at a later heartbeat; the
  // model's RegisterBroker registers and unfences in one step, so a RegisterBrokerRecord's
  // fenced=true says nothing the model can be held to. The fencing at offset 59 recorded
  // as a registration of the live, unfenced N1: still explained.
  auto recording = counterexamples::parse_recording(read(kRecording));
  auto& e = decision_at(recording, 59);
  e.op = "register_broker";
  e.record_type = "RegisterBrokerRecord";
  e.broker = 1;
  e.fencing = "fence";
  const auto r = validate(recording);
  EXPECT_EQ(r.verdict, analysis::ValidationResult::Verdict::Explained) << r.event << ": " << r.why;
  // A broker change that fences N1 is held against the model: N1 is alive and unfenced.
  e.op = "broker_change";
  e.record_type = "BrokerRegistrationChangeRecord";
  const auto changed = validate(recording);
  ASSERT_EQ(changed.verdict, analysis::ValidationResult::Verdict::Unexplained);
  EXPECT_EQ(changed.differences, std::vector<std::string>{"broker 1 fenced: recorded true, model false"});
}

TEST(DecisionValidation, AGroupTooLargeForTheEngineIsValidatedWithFewerDecisions) {
  // The engine orders at most 63 constraints of a group: 60 more fencings of the dead N0
  // in the recording's last group (3 harness steps, 2 decisions) leave its broker records
  // out; 60 more copies of the offline partition state leave all its decisions out.
  // Either way the recording stays explained, and the result says how many were left out.
  const std::string text = read(kRecording);
  auto with_extra = [&](bool partition_records) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    json model = json::parse(lines.back());  // the fencing at offset 59, group 2
    if (partition_records) model = json::parse(lines[lines.size() - 2]);  // offline at 58
    model.erase("before_seq");
    model.erase("after_seq");
    for (int k = 0; k < 60; ++k) {
      json extra = model;
      extra["seq"] = static_cast<int>(lines.size());
      extra["metadata_offset"] = 100 + k;
      lines.push_back(extra.dump());
    }
    std::string out;
    for (const std::string& line : lines) out += line + "\n";
    return counterexamples::parse_recording(out);
  };
  const auto brokers = validate(with_extra(false));
  EXPECT_EQ(brokers.verdict, analysis::ValidationResult::Verdict::Explained) << brokers.event << ": " << brokers.why;
  EXPECT_EQ(brokers.decisions_left_out, 61u);
  EXPECT_EQ(brokers.to_json()["decisions_left_out"], 61);
  const auto all = validate(with_extra(true));
  EXPECT_EQ(all.verdict, analysis::ValidationResult::Verdict::Explained) << all.event << ": " << all.why;
  EXPECT_EQ(all.decisions_left_out, 62u);
}

}  // namespace
}  // namespace isr
