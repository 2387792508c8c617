// The C++ side of conformance without Kafka: the steering plan of a scenario, the
// comparison on what Kafka exposes, the mapping of Kafka batches onto model records, the script parser of `isrcheck witness`, and the
// driver process's hygiene (a fake driver that spawns children and ignores shutdown:
// stop() must still leave no process behind).
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/witness.h"
#include "conformance/batch_mapping.h"
#include "conformance/conform.h"
#include "conformance/driver_command.h"
#include "conformance/driver_process.h"
#include "conformance/real_kafka_cluster.h"
#include "conformance/release_fixes.h"
#include "conformance/steering.h"
#include "counterexamples/scenario/scenario_reader.h"
#include "counterexamples/scenario/scenario_validation.h"
#include "spec/partition/config.h"
#include "spec/partition/metadata_version.h"
#include "tests/conformance_test_support.h"

namespace isr::conformance {
namespace {

using nlohmann::json;
using conformance_test::suite_scenario;
using analysis::parse_script;
using analysis::ScriptOp;
using counterexamples::producer_request_timeout_ms;
using counterexamples::records_per_send;
using counterexamples::validate_scenario;

TEST(Steering, Acks1LossPausesBothFollowersAcrossTheProduceAndTheKill) {
  SteeringTimes times;
  times.producer_has_metadata = true;
  const SteeringPlan plan = plan_steering(suite_scenario("b-acks1-leader-loss"), times);
  ASSERT_EQ(plan.steps.count(1), 1u);
  const StepPlan& first = plan.steps.at(1);
  ASSERT_EQ(first.before.size(), 3u);
  EXPECT_EQ(first.before[0].kind, SteerAction::Kind::Pause);
  EXPECT_EQ(first.before[0].node, 1);
  EXPECT_EQ(first.before[1].kind, SteerAction::Kind::Pause);
  EXPECT_EQ(first.before[1].node, 2);
  EXPECT_EQ(first.before[2].kind, SteerAction::Kind::Sleep);
  EXPECT_GT(first.before[2].ms, 100);  // longer than replica.fetch.wait.max.ms
  // Released right after the leader's kill (step 2), within the broker session.
  ASSERT_EQ(plan.steps.count(2), 1u);
  ASSERT_EQ(plan.steps.at(2).after.size(), 2u);
  EXPECT_EQ(plan.steps.at(2).after[0].kind, SteerAction::Kind::Resume);
  EXPECT_TRUE(plan.at_end.empty());
  EXPECT_EQ(plan.notes.size(), 2u);
}

TEST(Steering, WithoutTheTopicsMetadataTheFirstSendsHoldIsACut) {
  const SteeringPlan plan = plan_steering(suite_scenario("b-acks1-leader-loss"));
  ASSERT_EQ(plan.steps.count(1), 1u);
  EXPECT_EQ(plan.steps.at(1).before[0].kind, SteerAction::Kind::Cut);
  EXPECT_EQ(plan.steps.at(2).after[0].kind, SteerAction::Kind::Heal);
}

TEST(Steering, FollowersThatFetchInTheNextWaitAreNotHeld) {
  const SteeringPlan plan = plan_steering(suite_scenario("a-rf3-kill-leader-acked-kept"));
  EXPECT_TRUE(plan.steps.empty());
  EXPECT_TRUE(plan.notes.empty());
}

TEST(Steering, AHoldSpanningAWaitIsACutOfTheBrokersSide) {
  // Unclean election: the follower never gets record 1, and the trace waits (ISR shrink)
  // while the leader lives: a pause would get it fenced, so it is cut from replication.
  const SteeringPlan plan = plan_steering(suite_scenario("e-unclean-rf2-acked-lost"));
  ASSERT_EQ(plan.steps.count(1), 1u);
  EXPECT_EQ(plan.steps.at(1).before[0].kind, SteerAction::Kind::Cut);
  EXPECT_EQ(plan.steps.at(1).before[0].node, 1);
}

// Issue 16 point 2: the scenario pauses the follower itself (the model's Pause), so
// steering adds nothing; the scenario's ops are the pause and resume.
TEST(Steering, AScenarioPauseNeedsNoHold) {
  const json scenario = suite_scenario("j-acks1-pause-loss");
  std::vector<std::string> ops;
  for (const json& st : scenario["steps"]) ops.push_back(st.value("op", ""));
  EXPECT_EQ(ops, (std::vector<std::string>{"pause", "produce", "crash", "resume", "wait"}));
  EXPECT_EQ(scenario["steps"][0]["node"], 1);
  EXPECT_EQ(scenario["steps"][1]["expect"], "acked");
  EXPECT_EQ(scenario["expected"]["final"]["leader"], 1);
  EXPECT_EQ(scenario["expected"]["final"]["replicas"]["1"]["log"], json::array());
  const SteeringPlan plan = plan_steering(scenario);
  EXPECT_TRUE(plan.steps.empty());
  EXPECT_TRUE(plan.notes.empty());
}

// A steering hold of a follower ends just after the scenario pauses it; the cluster
// adapter then leaves the node paused (RealKafkaCluster::run).
TEST(Steering, AHoldEndsAtTheScenariosOwnPause) {
  json scenario = suite_scenario("b-acks1-leader-loss");
  // b: produce (acked by N0 alone), kill N0, wait. Pause N1 between the produce and the kill.
  json steps = json::array();
  steps.push_back(scenario["steps"][0]);
  steps.push_back({{"step", 2}, {"op", "pause"}, {"node", 1}});
  for (size_t i = 1; i < scenario["steps"].size(); ++i) steps.push_back(scenario["steps"][i]);
  scenario["steps"] = steps;
  SteeringTimes times;
  times.producer_has_metadata = true;
  const SteeringPlan plan = plan_steering(scenario, times);
  ASSERT_EQ(plan.steps.count(2), 1u);
  ASSERT_EQ(plan.steps.at(2).after.size(), 1u);
  EXPECT_EQ(plan.steps.at(2).after[0].kind, SteerAction::Kind::Resume);
  EXPECT_EQ(plan.steps.at(2).after[0].node, 1);
}

// Issue 16 point 5: the trace times the send out and retries it; the harness drops the
// leader's answer, so the followers may fetch meanwhile: no hold.
TEST(Steering, ATimeoutBeforeARetryHoldsNoFollower) {
  for (const char* name : {"g-duplicates-idempotence-off", "g-duplicates-idempotence-on",
                           "g-acks1-lost-response-duplicates"}) {
    SCOPED_TRACE(name);
    const json scenario = suite_scenario(name);
    bool retry = false;
    for (const json& st : scenario["steps"]) retry = retry || st.value("retry", false);
    EXPECT_TRUE(retry) << "the retry is marked";
    const SteeringPlan plan = plan_steering(scenario);
    EXPECT_TRUE(plan.notes.empty()) << plan.notes.front();
  }
  EXPECT_TRUE(suite_scenario("g-acks1-lost-response-duplicates")["steps"][0].value("response_lost", false));
  const json off = suite_scenario("g-duplicates-idempotence-off")["expected"]["final"]["replicas"]["0"]["log"];
  EXPECT_EQ(off, json::parse("[[0,1],[0,1]]")) << "idempotence off: twice";
  const json on = suite_scenario("g-duplicates-idempotence-on")["expected"]["final"]["replicas"]["0"]["log"];
  EXPECT_EQ(on, json::parse("[[0,1]]")) << "idempotence on: once";
}

// Divergence 4: acks=0 to a broker that does not lead drops the request (request_lost);
// nothing is appended, so no follower is held.
TEST(Steering, Acks0LostRequestAppendsNothing) {
  const json scenario = suite_scenario("h-corpus-acks-0-no-broker-ack");
  EXPECT_TRUE(scenario["steps"][0].value("request_lost", false));
  const SteeringPlan plan = plan_steering(scenario);
  EXPECT_TRUE(plan.steps.empty());
}

TEST(Witness, PauseAndLostAnswerScripts) {
  const std::vector<ScriptOp> ops = parse_script("pause 1; lose; retry; drop; resume leader");
  ASSERT_EQ(ops.size(), 5u);
  EXPECT_EQ(ops[0].kind, "pause");
  EXPECT_EQ(ops[0].node, 1);
  EXPECT_EQ(ops[4].node, -1);
  EXPECT_THROW(parse_script("pause"), std::invalid_argument);
}

// The first action of `kind` for `node` in a list, or nullptr.
const SteerAction* find_action(const std::vector<SteerAction>& list, SteerAction::Kind kind, int node) {
  for (const SteerAction& a : list)
    if (a.kind == kind && a.node == node) return &a;
  return nullptr;
}

int count_kind(const SteeringPlan& plan, SteerAction::Kind kind) {
  int n = 0;
  for (const auto& [step, sp] : plan.steps) {
    for (const SteerAction& a : sp.before) n += a.kind == kind;
    for (const SteerAction& a : sp.after) n += a.kind == kind;
  }
  for (const SteerAction& a : plan.at_end) n += a.kind == kind;
  return n;
}

// Issue 24: the re-elected leader's trace (docs/findings.md). N0 leads in its stale view
// of step 4 (it never replays N2's epoch 1): its metadata replay is held from the
// election (step 3) to the wait of step 6, released once the controller fenced N2. N1's
// stale view of step 6 (leader N2, dead) would make it fetch r1 from N0: held from N2's
// kill (step 5) to step 8. N2, held from r1, leads in step 4 while N1 truncates under
// it: its cut ends there once it knows it leads.
TEST(Steering, StaleViewsThatChangeWhatABrokerDoesAreMetadataHolds) {
  const json scenario = suite_scenario("k-reelected-leader-stale-follower");
  SteeringTimes times;
  times.producer_has_metadata = true;
  const SteeringPlan plan = plan_steering(scenario, times);
  ASSERT_EQ(plan.steps.count(3), 1u);
  const SteerAction* hold0 = find_action(plan.steps.at(3).before, SteerAction::Kind::HoldMetadata, 0);
  ASSERT_NE(hold0, nullptr);
  ASSERT_EQ(plan.steps.count(6), 1u);
  const SteerAction* release0 = find_action(plan.steps.at(6).before, SteerAction::Kind::ReleaseMetadata, 0);
  ASSERT_NE(release0, nullptr);
  EXPECT_EQ(release0->when, SteerAction::When::ControllerDone);
  EXPECT_EQ(release0->leader_epoch, 2);
  EXPECT_EQ(release0->fenced_in_wait, std::vector<int>{2});
  ASSERT_EQ(plan.steps.count(5), 1u);
  EXPECT_NE(find_action(plan.steps.at(5).before, SteerAction::Kind::HoldMetadata, 1), nullptr);
  ASSERT_EQ(plan.steps.count(8), 1u);
  const SteerAction* release1 = find_action(plan.steps.at(8).before, SteerAction::Kind::ReleaseMetadata, 1);
  ASSERT_NE(release1, nullptr);
  EXPECT_EQ(release1->fenced_in_wait, std::vector<int>{0});
  EXPECT_EQ(release1->leader_epoch, 3);
  // N2: a brokers-side cut from r1's produce, healed in step 4 once it leads at epoch 1.
  ASSERT_EQ(plan.steps.count(1), 1u);
  EXPECT_NE(find_action(plan.steps.at(1).before, SteerAction::Kind::Cut, 2), nullptr);
  ASSERT_EQ(plan.steps.count(4), 1u);
  const SteerAction* heal2 = find_action(plan.steps.at(4).before, SteerAction::Kind::Heal, 2);
  ASSERT_NE(heal2, nullptr);
  EXPECT_EQ(heal2->when, SteerAction::When::OwnViewLeads);
  EXPECT_EQ(heal2->leader_epoch, 1);
  EXPECT_EQ(count_kind(plan, SteerAction::Kind::HoldMetadata), 2);
  EXPECT_EQ(count_kind(plan, SteerAction::Kind::ReleaseMetadata), 2);
  EXPECT_TRUE(plan.at_end.empty());
}

// A combined broker+controller node is never metadata-held (its raft client is a voter,
// and as the active controller it replays from its own log): the same trace on combined
// nodes plans no metadata hold, and is not executable.
TEST(Steering, CombinedNodesAreNeverMetadataHeld) {
  json scenario = suite_scenario("k-reelected-leader-stale-follower");
  for (json& n : scenario["cluster"]["nodes"]) n["roles"] = json::array({"broker", "controller"});
  const SteeringPlan plan = plan_steering(scenario);
  EXPECT_EQ(count_kind(plan, SteerAction::Kind::HoldMetadata), 0);
  EXPECT_EQ(count_kind(plan, SteerAction::Kind::ReleaseMetadata), 0);
  // The holds it would need cannot be had: the plan says so, for conform to report.
  EXPECT_NE(plan.not_executable.find("combined broker+controller"), std::string::npos) << plan.not_executable;
}

// A view stale only in the ISR (a shrink not yet replayed) changes nothing the broker
// does: no hold (e-unclean-rf2-acked-lost: N1, broker-only, has not replayed its removal).
TEST(Steering, AViewStaleOnlyInTheIsrIsNotHeld) {
  const json scenario = suite_scenario("e-unclean-rf2-acked-lost");
  ASSERT_EQ(scenario["steps"][1]["until"]["replicas"]["1"]["view"]["isr"], json::array({0, 1}));
  const SteeringPlan plan = plan_steering(scenario);
  EXPECT_EQ(count_kind(plan, SteerAction::Kind::HoldMetadata), 0);
}

// A broker held to the end of the trace is released after the final observation.
TEST(Steering, AMetadataHoldThatNeverEndsIsReleasedAtTheEnd) {
  json scenario = suite_scenario("k-reelected-leader-stale-follower");
  json& steps = scenario["steps"];
  // Drop the last two steps (N0's kill and the wait that shows N1 current): N1 stays stale.
  steps.erase(steps.size() - 1);
  steps.erase(steps.size() - 1);
  const SteeringPlan plan = plan_steering(scenario);
  EXPECT_NE(find_action(plan.at_end, SteerAction::Kind::ReleaseMetadata, 1), nullptr);
}

TEST(Steering, MissingFieldsAreNamed) {
  EXPECT_THROW(plan_steering(json::object()), std::invalid_argument);
  try {
    plan_steering({{"steps", json::array()}});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("topic.replicas"), std::string::npos);
  }
}

cut::PartitionObservation observed(int leader, int epoch, std::vector<int> isr) {
  cut::PartitionObservation o;
  o.leader = leader;
  o.leader_epoch = epoch;
  o.isr = isr;
  o.hw = 0;
  cut::ReplicaObservation r;
  r.has_view = true;
  r.view_leader = leader;
  r.view_leader_epoch = epoch;
  r.view_isr = isr;
  o.replicas[2] = r;
  return o;
}

TEST(KafkaMismatches, AStaleViewInTheTraceIsNotComparedACurrentOneIs) {
  cut::Condition c;
  c.leader = 1;
  c.leader_epoch = 1;
  c.isr = std::vector<int>{1, 2};
  c.replicas[2].has_view = true;
  c.replicas[2].view_leader = 0;  // stale: N2 has not replayed the election in the trace
  c.replicas[2].view_leader_epoch = 0;
  c.replicas[2].view_isr = std::vector<int>{0, 1, 2};
  std::vector<std::string> skipped;
  EXPECT_TRUE(kafka_mismatches(c, observed(1, 1, {1, 2}), &skipped).empty());
  EXPECT_EQ(skipped.size(), 1u);
  // The same condition with a current view is compared, field by field.
  c.replicas[2].view_leader = 1;
  c.replicas[2].view_leader_epoch = 1;
  c.replicas[2].view_isr = std::vector<int>{1, 2};
  cut::PartitionObservation o = observed(1, 1, {1, 2});
  o.replicas[2].view_isr = {0, 1, 2};
  EXPECT_EQ(kafka_mismatches(c, o).size(), 1u);
  // The committed state itself is always compared.
  EXPECT_FALSE(kafka_mismatches(c, observed(2, 1, {1, 2})).empty());
}

TEST(KafkaMismatches, NoHwOnlyBecauseTheNewLeaderHasNotReplayedItsElectionIsNotCompared) {
  cut::Condition c;
  c.leader = 1;
  c.leader_epoch = 1;
  c.isr = std::vector<int>{1};
  c.hw = cut::kNone;
  c.replicas[1].has_view = true;  // N1 still sees the old leader N0
  c.replicas[1].view_leader = 0;
  c.replicas[1].view_leader_epoch = 0;
  c.replicas[1].view_isr = std::vector<int>{0, 1};
  cut::PartitionObservation o = observed(1, 1, {1});
  o.hw = 1;
  o.replicas[1] = o.replicas[2];
  EXPECT_TRUE(kafka_mismatches(c, o).empty());
  // With the leader's view current, "no HW" is compared and differs.
  c.replicas[1].view_leader = 1;
  c.replicas[1].view_leader_epoch = 1;
  c.replicas[1].view_isr = std::vector<int>{1};
  EXPECT_FALSE(kafka_mismatches(c, o).empty());
}

// A batch as the driver's describe reports it (LogReader: base offset, records, epoch, values).
json batch(long long base, int epoch, int m, int k) {
  json values = json::array();
  for (int i = 1; i <= k; ++i) values.push_back(batch_record_value(m, i));
  return {{"base", base}, {"count", k}, {"epoch", epoch}, {"values", values}};
}

TEST(BatchMapping, OneBatchOfKRecordsIsOneModelRecord) {
  EXPECT_EQ(batch_record_value(3, 7), "record-3.7");
  std::vector<std::string> v;
  for (int i = 1; i <= 10; ++i) v.push_back(batch_record_value(2, i));
  EXPECT_EQ(model_record_of(v, 10), 2);
  EXPECT_EQ(model_record_of(v, 9), kUnmapped);  // a batch of another size
  std::vector<std::string> swapped = v;
  std::swap(swapped[3], swapped[4]);
  EXPECT_EQ(model_record_of(swapped, 10), kUnmapped);  // out of order
  std::vector<std::string> mixed = v;
  mixed[9] = batch_record_value(3, 10);
  EXPECT_EQ(model_record_of(mixed, 10), kUnmapped);  // two sends in one batch
  EXPECT_EQ(model_record_of({"record-1", "record-2"}, 2), kUnmapped);
  EXPECT_EQ(model_record_of({"record-.1"}, 1), kUnmapped);
  EXPECT_EQ(model_record_of({"record-x.1"}, 1), kUnmapped);
}

TEST(BatchMapping, OffsetsCountBatchesAndAnOffsetInsideABatchMapsToNothing) {
  EXPECT_EQ(model_offset(0, 10), 0);
  EXPECT_EQ(model_offset(30, 10), 3);
  EXPECT_EQ(model_offset(25, 10), kUnmapped);  // an HW or LEO inside a batch: no model offset
  EXPECT_EQ(model_offset(-1, 10), kUnmapped);
}

TEST(BatchMapping, ALogOfWholeBatchesIsTheModelsLog) {
  const json batches = json::array({batch(0, 0, 1, 10), batch(10, 0, 2, 10), batch(20, 1, 3, 10)});
  const std::vector<cut::LogRecord> expected{{0, 1}, {0, 2}, {1, 3}};
  EXPECT_EQ(model_log_of(batches, 10), expected);
  EXPECT_TRUE(model_log_of(json::array(), 10).empty());
  // A batch split in two (the producer sent 4 then 6 records), or a gap in the offsets,
  // maps to an entry that matches no model record.
  json split = json::array({batch(0, 0, 1, 10), batch(10, 0, 2, 4), batch(14, 0, 2, 6)});
  split[2]["values"] = json::array();
  for (int i = 5; i <= 10; ++i) split[2]["values"].push_back(batch_record_value(2, i));
  const std::vector<cut::LogRecord> got = model_log_of(split, 10);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], (cut::LogRecord{0, 1}));
  EXPECT_EQ(got[1].record, kUnmapped);
  EXPECT_EQ(got[2].record, kUnmapped);
  const json gap = json::array({batch(10, 0, 1, 10)});
  EXPECT_EQ(model_log_of(gap, 10)[0].record, kUnmapped);
}

TEST(BatchMapping, RecordsPerSendIsReadFromTheScenarioAndCheckedThere) {
  json s = suite_scenario("b-acks1-leader-loss");
  EXPECT_EQ(records_per_send(s), 1);
  s["clients"]["producer"]["records_per_send"] = 10;
  EXPECT_EQ(records_per_send(s), 10);
  for (const json& bad : {json(0), json(1001), json("10"), json(2.5)}) {
    s["clients"]["producer"]["records_per_send"] = bad;
    try {
      records_per_send(s);
      ADD_FAILURE() << "accepted " << bad.dump();
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("clients.producer.records_per_send"), std::string::npos) << e.what();
    }
    // `isrcheck conform` refuses it before it starts anything (exit 2, the field named).
    try {
      validate_scenario(s);
      ADD_FAILURE() << "validate_scenario accepted " << bad.dump();
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("records_per_send"), std::string::npos) << e.what();
    }
  }
  s["clients"]["producer"]["records_per_send"] = 10;
  EXPECT_NO_THROW(validate_scenario(s));
}

TEST(ProducerSettings, RequestTimeoutComesFromTheScenarioAndIsChecked) {
  json s = suite_scenario("b-acks1-leader-loss");
  EXPECT_EQ(producer_request_timeout_ms(s), 3000);
  EXPECT_EQ(producer_request_timeout_ms(suite_scenario("h-corpus-acks-1-lost-response-duplicates")), 500);
  for (const json& bad : {json(99), json(60001), json("500")}) {
    s["clients"]["producer"]["request.timeout.ms"] = bad;
    try {
      validate_scenario(s);
      ADD_FAILURE() << "accepted " << bad.dump();
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("clients.producer.request.timeout.ms"), std::string::npos) << e.what();
    }
  }
}

TEST(Steering, ALostAnswerRetriedBeforeAnyFetchIsCutNotPaused) {
  // The corpus entry ends before any follower fetched: both followers are held from the
  // produce to the end, as cuts of their brokers side (spanning the producer's retry).
  const SteeringPlan plan = plan_steering(suite_scenario("h-corpus-acks-1-lost-response-duplicates"));
  ASSERT_EQ(plan.at_end.size(), 2u);
  for (const SteerAction& a : plan.at_end) EXPECT_EQ(a.kind, SteerAction::Kind::Heal);
}

// A follower cut across the producer's own retry (h-corpus-acks-1-lost-response-duplicates,
// both followers cut to the end) needs the retry before replica.lag.time.max.ms: without
// the export option that set the producer's request.timeout.ms, the plan asks for 500 ms;
// with it, the scenario's value stands.
TEST(Steering, AFollowerCutAcrossTheProducersRetryLowersItsRequestTimeout) {
  json scenario = suite_scenario("h-corpus-acks-1-lost-response-duplicates");
  EXPECT_EQ(plan_steering(scenario).producer_request_timeout_ms, 0);
  scenario["clients"]["producer"].erase("request.timeout.ms");
  const SteeringPlan plan = plan_steering(scenario);
  EXPECT_EQ(plan.producer_request_timeout_ms, 500);
  EXPECT_TRUE(std::any_of(plan.notes.begin(), plan.notes.end(),
                          [](const std::string& n) { return n.rfind("producer request.timeout.ms 500", 0) == 0; }));
  // A pause-only plan (b: no retry) asks for nothing.
  EXPECT_EQ(plan_steering(suite_scenario("b-acks1-leader-loss")).producer_request_timeout_ms, 0);
}

TEST(Steering, AFollowerTheScenarioCutsFromReplicationIsNotHeld) {
  // k-power-loss-flush-none cuts N2's brokers side itself (step 1) before the produce:
  // N2 fetches nothing, so steering holds nobody, and never heals the scenario's cut
  // (a hold released after the leader's crash did, and N2 then fetched from a restarted leader).
  const SteeringPlan plan = plan_steering(suite_scenario("k-power-loss-flush-none"));
  EXPECT_TRUE(plan.steps.empty());
  EXPECT_TRUE(plan.at_end.empty());
  EXPECT_TRUE(plan.notes.empty());
}

// Issue 28: the new user's unclean-election counterexample restarts N0 (step 4) and never
// registers it (the trace ends with N0 fenced and in no ISR): its registration and
// heartbeats are held from just before the restart to the end, and its brokers side is
// cut for as long (the model's unregistered incarnation fetches nothing; Kafka's would
// truncate under the uncleanly elected N2). N2 is cut from r1's produce to the end.
TEST(Steering, ARestartedBrokerTheTraceNeverRegistersIsHeldToTheEnd) {
  const SteeringPlan plan = plan_steering(suite_scenario("l-unclean-restarted-broker-unregistered"));
  EXPECT_EQ(plan.not_executable, "");
  ASSERT_EQ(plan.steps.count(4), 1u);
  EXPECT_NE(find_action(plan.steps.at(4).before, SteerAction::Kind::HoldRegistration, 0), nullptr);
  EXPECT_NE(find_action(plan.steps.at(4).before, SteerAction::Kind::Cut, 0), nullptr);
  EXPECT_NE(find_action(plan.at_end, SteerAction::Kind::ReleaseRegistration, 0), nullptr);
  EXPECT_NE(find_action(plan.at_end, SteerAction::Kind::Heal, 0), nullptr);
  ASSERT_EQ(plan.steps.count(1), 1u);
  EXPECT_NE(find_action(plan.steps.at(1).before, SteerAction::Kind::Cut, 2), nullptr);
  EXPECT_EQ(count_kind(plan, SteerAction::Kind::HoldRegistration), 1);
  EXPECT_EQ(count_kind(plan, SteerAction::Kind::ReleaseRegistration), 1);
}

// The same trace with N0's registration in a later wait: released just before that wait.
TEST(Steering, ARegistrationHoldEndsJustBeforeTheWaitThatRegisters) {
  json scenario = suite_scenario("l-unclean-restarted-broker-unregistered");
  json& last = scenario["steps"][6];
  ASSERT_EQ(last["op"], "wait");
  last["internal"].push_back("RegisterBroker(broker=0, leader_after=2)");
  const SteeringPlan plan = plan_steering(scenario);
  ASSERT_EQ(plan.steps.count(7), 1u);
  EXPECT_NE(find_action(plan.steps.at(7).before, SteerAction::Kind::ReleaseRegistration, 0), nullptr);
  EXPECT_NE(find_action(plan.steps.at(7).before, SteerAction::Kind::Heal, 0), nullptr);
  EXPECT_EQ(find_action(plan.at_end, SteerAction::Kind::ReleaseRegistration, 0), nullptr);
}

// A restart registered in the wait right after it is what the cluster does by itself.
TEST(Steering, ARestartRegisteredInTheNextWaitIsNotHeld) {
  json scenario = suite_scenario("l-unclean-restarted-broker-unregistered");
  json& next = scenario["steps"][4];
  ASSERT_EQ(next["op"], "wait");
  next["internal"].push_back("RegisterBroker(broker=0, leader_after=1)");
  const SteeringPlan plan = plan_steering(scenario);
  EXPECT_EQ(count_kind(plan, SteerAction::Kind::HoldRegistration), 0);
  EXPECT_EQ(plan.steps.count(4), 0u);
}

// A crash of the held broker ends its hold just after the crash (nothing left to hold).
TEST(Steering, ARegistrationHoldEndsAtTheBrokersCrash) {
  json scenario = suite_scenario("l-unclean-restarted-broker-unregistered");
  scenario["steps"][5]["node"] = 0;  // step 6 kills N0 instead of N1
  const SteeringPlan plan = plan_steering(scenario);
  ASSERT_EQ(plan.steps.count(6), 1u);
  EXPECT_NE(find_action(plan.steps.at(6).after, SteerAction::Kind::ReleaseRegistration, 0), nullptr);
  EXPECT_EQ(find_action(plan.at_end, SteerAction::Kind::ReleaseRegistration, 0), nullptr);
}

// A broker paused until the controller fenced it, resumed, and unfenced by the trace only
// after another operation: its heartbeats are held from just before the resume to that
// wait, without a cut (a fenced broker the model lets fetch). Without the fenced wait
// before the resume there is no unfencing to defer.
TEST(Steering, AFencedBrokerBroughtBackIsHeldUntilTheTraceUnfencesIt) {
  const json until_fenced = {{"fenced", {1}}};
  json scenario = {
      {"cluster", {{"nodes", json::array({{{"id", 0}, {"roles", {"broker", "controller"}}},
                                          {{"id", 1}, {"roles", {"broker", "controller"}}},
                                          {{"id", 2}, {"roles", {"broker", "controller"}}}})}}},
      {"topic", {{"replicas", {0, 1, 2}}}},
      {"steps",
       json::array({{{"step", 1}, {"op", "pause"}, {"node", 1}},
                    {{"step", 2}, {"op", "wait"}, {"until", until_fenced}, {"internal", {"FenceBroker(broker=1, leader_after=0)"}}},
                    {{"step", 3}, {"op", "resume"}, {"node", 1}},
                    {{"step", 4}, {"op", "crash"}, {"node", 2}, {"kind", "kill"}},
                    {{"step", 5}, {"op", "wait"}, {"until", json::object()}, {"internal", {"UnfenceBroker(broker=1, leader_after=0)"}}}})}};
  SteeringPlan plan = plan_steering(scenario);
  ASSERT_EQ(plan.steps.count(3), 1u);
  EXPECT_NE(find_action(plan.steps.at(3).before, SteerAction::Kind::HoldRegistration, 1), nullptr);
  EXPECT_EQ(find_action(plan.steps.at(3).before, SteerAction::Kind::Cut, 1), nullptr);
  ASSERT_EQ(plan.steps.count(5), 1u);
  EXPECT_NE(find_action(plan.steps.at(5).before, SteerAction::Kind::ReleaseRegistration, 1), nullptr);
  scenario["steps"][1]["until"]["fenced"] = json::array();
  plan = plan_steering(scenario);
  EXPECT_EQ(count_kind(plan, SteerAction::Kind::HoldRegistration), 0);
}

// b with the election moved to N2 (the model leaves the new leader open; a `simulate`
// trace may pick N2): Kafka's controller elects N1, the first live, unfenced ISR member in
// assignment order, whatever is held: not executable, with the reason.
TEST(Steering, AnElectionKafkaWouldMakeDifferentlyIsNotExecutable) {
  json scenario = suite_scenario("b-acks1-leader-loss");
  json& wait = scenario["steps"][2];
  ASSERT_EQ(wait["until"]["leader"], 1);
  EXPECT_EQ(plan_steering(scenario).not_executable, "");
  wait["until"]["leader"] = 2;
  wait["internal"] = json::array({"ControllerFailover(voter=2)", "FenceBroker(broker=0, leader_after=2)"});
  const std::string why = plan_steering(scenario).not_executable;
  EXPECT_NE(why.find("elects N2"), std::string::npos) << why;
  EXPECT_NE(why.find("N1 (PartitionChangeBuilder.electAnyLeader)"), std::string::npos) << why;
}

// Matrix red cells of issue 28 (tests/data/scenario-matrix-*.json, exported by
// conformance/coverage.sh --matrix): the orders steering had no hold for.
json matrix_scenario(const std::string& cell) {
  std::ifstream in(std::string(ISRCHECK_SOURCE_DIR) + "/tests/data/scenario-matrix-" + cell + ".json");
  return json::parse(in);
}

// rf2, min ISR 2: the wait shrinks N1 right after it fetched record 1 (the model's leader
// has not seen N1's next fetch yet), N1 fetches once more before the AlterPartition
// commits (the maximal ISR counts it: the send is acked), and the ISR ends [0]. Kafka
// keeps a follower whose last fetch reached the leader's end offset (observed: ISR [0,1]
// for 20 s after a plain cut once it caught up). The fetch-reply cut: N1's fetch gate
// armed on record 1 and N0's AlterPartition requests held from the produce (step 1), the
// sequence in step 2, N1 cut to the end (N0 comes back empty and leads; N1 keeps r1).
TEST(Steering, AFollowerTheWaitShrinksAfterItFetchedGetsTheFetchReplyCut) {
  const SteeringPlan plan = plan_steering(matrix_scenario("rf2-isr2-acksall-clean-noelr-combined-f1-lossy"));
  EXPECT_EQ(plan.not_executable, "");
  ASSERT_EQ(plan.steps.count(1), 1u);
  const SteerAction* gate = find_action(plan.steps.at(1).before, SteerAction::Kind::GateFetch, 1);
  ASSERT_NE(gate, nullptr);
  EXPECT_EQ(gate->record, 1);
  EXPECT_NE(find_action(plan.steps.at(1).before, SteerAction::Kind::HoldAlterPartition, 0), nullptr);
  ASSERT_EQ(plan.steps.count(2), 1u);
  const SteerAction* seq = find_action(plan.steps.at(2).before, SteerAction::Kind::ShrinkAfterFetch, 1);
  ASSERT_NE(seq, nullptr);
  EXPECT_EQ(seq->peer, 0);
  EXPECT_TRUE(seq->second_fetch);
  EXPECT_NE(find_action(plan.at_end, SteerAction::Kind::Heal, 1), nullptr);
  EXPECT_NE(find_action(plan.at_end, SteerAction::Kind::ReleaseGate, 1), nullptr);
  EXPECT_NE(find_action(plan.at_end, SteerAction::Kind::ReleaseAlterPartition, 0), nullptr);
  // Without the fetch between the shrink and its commit: no AlterPartition hold.
  json scenario = matrix_scenario("rf2-isr2-acksall-clean-noelr-combined-f1-lossy");
  json& internal = scenario["steps"][1]["internal"];
  ASSERT_EQ(internal[2], "Fetch(follower=1, leader=0)");
  internal.erase(2);
  const SteeringPlan single = plan_steering(scenario);
  EXPECT_EQ(find_action(single.steps.at(1).before, SteerAction::Kind::HoldAlterPartition, 0), nullptr);
  EXPECT_FALSE(find_action(single.steps.at(2).before, SteerAction::Kind::ShrinkAfterFetch, 1)->second_fetch);
}

// KIP-903's stale incarnation on a real cluster (issue 28 item 5): N0 proposes adding N2
// back in step 5 (N2 fetched r1 outside the ISR) and the controller gets that
// AlterPartition only in step 9, after N2's disk loss and re-registration. Kafka's leader
// sends it at once, so it waits at the controller proxies from the heal (step 4) and goes
// on in step 9 once N2 is unfenced; sent in step 5 itself, nothing is held. Step 5 ends
// only once that proposal waits at the proxies: its state (N2 holding r1) comes one fetch
// before the fetch on which N0 proposes, and the disk loss of step 6 could come between
// (CI of 0736f2a: the 3.4 half of the pair diverged in step 9, ISR [0,1]).
TEST(Steering, ADeferredIsrExpansionIsHeldUntilTheFollowerIsUnfencedAgain) {
  json scenario = suite_scenario("i-release-pair-kip-497-stale-incarnation");
  const SteeringPlan plan = plan_steering(scenario);
  EXPECT_EQ(plan.not_executable, "");
  ASSERT_EQ(plan.steps.count(4), 1u);
  EXPECT_NE(find_action(plan.steps.at(4).before, SteerAction::Kind::HoldAlterPartition, 0), nullptr);
  ASSERT_EQ(plan.steps.count(9), 1u);
  const SteerAction* release = find_action(plan.steps.at(9).before, SteerAction::Kind::ReleaseAlterPartition, 0);
  ASSERT_NE(release, nullptr);
  EXPECT_EQ(release->when, SteerAction::When::Unfenced);
  EXPECT_EQ(release->peer, 2);
  ASSERT_EQ(plan.steps.count(5), 1u);
  const SteerAction* proposed = find_action(plan.steps.at(5).after, SteerAction::Kind::AwaitAlterPartition, 0);
  ASSERT_NE(proposed, nullptr);
  EXPECT_EQ(proposed->peer, 2);
  EXPECT_EQ(count_kind(plan, SteerAction::Kind::AwaitAlterPartition), 1);
  json& internal = scenario["steps"][4]["internal"];
  ASSERT_EQ(internal.back(), "Fetch(follower=1, leader=0)");
  internal.push_back("AlterPartition(leader=0)");
  const SteeringPlan at_once = plan_steering(scenario);
  EXPECT_EQ(count_kind(at_once, SteerAction::Kind::HoldAlterPartition), 0);
  EXPECT_EQ(count_kind(at_once, SteerAction::Kind::AwaitAlterPartition), 0);
}

// The same trace keeps N2, restarted on an empty disk in step 8, in the ISR of N0 and then
// N1 (both holding r1) with its log empty to the end, where it is elected: Kafka's new
// incarnation would fetch r1 as soon as it replayed the partition, so it is cut from
// replication from just before the restart to the end. Restarted with its data (a kill,
// not a disk loss), no such cut.
TEST(Steering, ADiskLostFollowerTheTraceKeepsEmptyInTheIsrIsCutFromItsRestart) {
  json scenario = suite_scenario("i-release-pair-kip-497-stale-incarnation");
  const SteeringPlan plan = plan_steering(scenario);
  ASSERT_EQ(plan.steps.count(8), 1u);
  EXPECT_NE(find_action(plan.steps.at(8).before, SteerAction::Kind::Cut, 2), nullptr);
  EXPECT_NE(find_action(plan.at_end, SteerAction::Kind::Heal, 2), nullptr);
  ASSERT_EQ(scenario["steps"][5]["op"], "crash");
  scenario["steps"][5]["kind"] = "kill";
  const SteeringPlan killed = plan_steering(scenario);
  EXPECT_EQ(killed.steps.count(8) ? find_action(killed.steps.at(8).before, SteerAction::Kind::Cut, 2) : nullptr, nullptr);
}

// A shrink after another ISR change of the same leader in one wait (N2 shrunk and
// committed, then N1): Kafka may merge both into one AlterPartition, which the proxy's
// hold cannot tell apart: not executable, saying it is the harness's limit.
TEST(Steering, ASecondShrinkInOneWaitIsNotExecutableWithThisHarness) {
  json scenario = matrix_scenario("rf2-isr2-acksall-clean-noelr-combined-f1-lossy");
  json& internal = scenario["steps"][1]["internal"];
  internal.insert(internal.begin(), "AlterPartition(leader=0)");
  const std::string why = plan_steering(scenario).not_executable;
  EXPECT_NE(why.find("step 2 shrinks N1 after another ISR change of N0"), std::string::npos) << why;
  EXPECT_NE(why.find("not executable with this harness"), std::string::npos) << why;
}

// Partition.maybeShrinkIsr removes both lagging followers in one AlterPartition (the
// model's ShrinkIsr of a set, "followers=[1,2]"): each gets its fetch-reply cut, and the
// one shrink is no "second ISR change in the same wait". The rf2 cell widened to three
// replicas, both followers fetching record 1 before the set shrink.
TEST(Steering, ASetShrinkGetsAFetchReplyCutForEachFollower) {
  json scenario = matrix_scenario("rf2-isr2-acksall-clean-noelr-combined-f1-lossy");
  scenario["cluster"]["nodes"].push_back({{"id", 2}, {"roles", {"broker", "controller"}}});
  scenario["cluster"]["controller"]["voters"] = {0, 1, 2};
  scenario["topic"]["replication_factor"] = 3;
  scenario["topic"]["replicas"] = {0, 1, 2};
  auto add_replica = [](json& until, const json& log, const json& isr) {
    until["replicas"]["2"] = {{"alive", true},
                              {"leo", log.size()},
                              {"log", log},
                              {"view", {{"leader", 0}, {"leader_epoch", 0}, {"isr", isr}}}};
  };
  scenario["initial"]["until"]["isr"] = {0, 1, 2};
  for (const char* r : {"0", "1"}) scenario["initial"]["until"]["replicas"][r]["view"]["isr"] = {0, 1, 2};
  add_replica(scenario["initial"]["until"], json::array(), {0, 1, 2});
  json steps = json::array();
  for (size_t i = 0; i < 2; ++i) steps.push_back(scenario["steps"][i]);  // the produce and the wait
  scenario["steps"] = steps;
  json& wait = scenario["steps"][1];
  wait["internal"] = {"Fetch(follower=1, leader=0)", "Fetch(follower=2, leader=0)",
                      "ShrinkIsr(leader=0, followers=[1,2])", "AlterPartition(leader=0)"};
  wait["until"]["replicas"]["1"]["view"]["isr"] = {0, 1, 2};
  add_replica(wait["until"], json::array({json::array({0, 1})}), {0, 1, 2});
  const SteeringPlan plan = plan_steering(scenario);
  EXPECT_EQ(plan.not_executable, "");
  ASSERT_EQ(plan.steps.count(1), 1u);
  ASSERT_EQ(plan.steps.count(2), 1u);
  for (int f : {1, 2}) {
    const SteerAction* gate = find_action(plan.steps.at(1).before, SteerAction::Kind::GateFetch, f);
    ASSERT_NE(gate, nullptr) << "N" << f;
    EXPECT_EQ(gate->record, 1);
    const SteerAction* seq = find_action(plan.steps.at(2).before, SteerAction::Kind::ShrinkAfterFetch, f);
    ASSERT_NE(seq, nullptr) << "N" << f;
    EXPECT_EQ(seq->peer, 0);
  }
  // The same removals as two shrinks of one wait stay not executable with this harness.
  wait["internal"] = {"Fetch(follower=1, leader=0)", "Fetch(follower=2, leader=0)", "ShrinkIsr(leader=0, follower=2)",
                      "AlterPartition(leader=0)", "ShrinkIsr(leader=0, follower=1)", "AlterPartition(leader=0)"};
  const std::string why = plan_steering(scenario).not_executable;
  EXPECT_NE(why.find("shrinks N1 after another ISR change of N0"), std::string::npos) << why;
}

// The rf3 / min ISR 2 / ELR off cell with one lossy failure (exported from the matrix
// after the set shrink): both followers fetch record 1, are shrunk in one AlterPartition,
// and both fetch again before it commits (the model's way to the ack). Before the set
// shrink the cell's trace shrank them one after the other and was refused as "a second
// ISR change in the same wait"; now the refusal names the harness's one-fetch hold.
TEST(Steering, ASetShrinkWithTwoFetchesBeforeTheCommitIsNotExecutable) {
  json scenario = matrix_scenario("rf3-isr2-acksall-clean-noelr-combined-f1-lossy");
  ASSERT_EQ(scenario["steps"][1]["internal"][2], "ShrinkIsr(leader=0, followers=[1,2])");
  std::string why = plan_steering(scenario).not_executable;
  EXPECT_NE(why.find("step 2 shrinks 2 followers of N0 in one AlterPartition"), std::string::npos) << why;
  EXPECT_EQ(why.find("another ISR change"), std::string::npos) << why;
  // With only N1 fetching again the hold serves it: executable, N2 simply cut.
  json& internal = scenario["steps"][1]["internal"];
  ASSERT_EQ(internal[4], "Fetch(follower=2, leader=0)");
  internal.erase(4);
  const SteeringPlan plan = plan_steering(scenario);
  EXPECT_EQ(plan.not_executable, "");
  ASSERT_EQ(plan.steps.count(2), 1u);
  const SteerAction* one = find_action(plan.steps.at(2).before, SteerAction::Kind::ShrinkAfterFetch, 1);
  const SteerAction* two = find_action(plan.steps.at(2).before, SteerAction::Kind::ShrinkAfterFetch, 2);
  ASSERT_NE(one, nullptr);
  ASSERT_NE(two, nullptr);
  EXPECT_TRUE(one->second_fetch);
  EXPECT_FALSE(two->second_fetch);
}

// rf3, min ISR 1, unclean: N2 never gets record 1; its record hold used to end at N0's
// crash (step 3), and N2 then rejoined the new leader N1's ISR ([1,2] where the trace
// keeps [1]). Now a keep-out cut (N2 out of the ISR with its log unchanged in steps 2
// and 4) holds it from step 1 to the end beside the record hold, so that the record
// hold's end after the crash leaves it cut (the driver heals at the last heal).
TEST(Steering, AFollowerKeptOutOfTheIsrStaysCutAfterItsLeadersCrash) {
  const SteeringPlan plan = plan_steering(matrix_scenario("rf3-isr1-acksall-unclean-elr-combined-f1-lossy"));
  EXPECT_EQ(plan.not_executable, "");
  ASSERT_EQ(plan.steps.count(1), 1u);
  const auto& first = plan.steps.at(1).before;
  EXPECT_EQ(std::count_if(first.begin(), first.end(),
                          [](const SteerAction& a) { return a.kind == SteerAction::Kind::Cut && a.node == 2; }),
            2);
  ASSERT_EQ(plan.steps.count(3), 1u);
  EXPECT_NE(find_action(plan.steps.at(3).after, SteerAction::Kind::Heal, 2), nullptr);  // the record hold's end
  EXPECT_NE(find_action(plan.at_end, SteerAction::Kind::Heal, 2), nullptr);            // the keep-out's
  // N1 leads from step 4: its keep-out ends there, once its own view shows it leading.
  ASSERT_EQ(plan.steps.count(4), 1u);
  const SteerAction* heal = find_action(plan.steps.at(4).before, SteerAction::Kind::Heal, 1);
  ASSERT_NE(heal, nullptr);
  EXPECT_EQ(heal->when, SteerAction::When::OwnViewLeads);
  EXPECT_EQ(find_action(plan.at_end, SteerAction::Kind::Heal, 1), nullptr);
}

// rf2, min ISR 2, ELR: N0 is killed and restarted, registers (step 5) but the trace never
// lets it replay or fetch (ISR [1], its log unchanged in steps 5 and 8); Kafka's N0
// rejoined the ISR, and was elected after N1's power loss. N0 is cut from step 3 (the
// first operation after the wait that last showed it) to the end.
TEST(Steering, ARestartedBrokerKeptOutOfTheIsrIsCutFromReplication) {
  const SteeringPlan plan = plan_steering(matrix_scenario("rf2-isr2-acksall-clean-elr-combined-f2-lossy"));
  EXPECT_EQ(plan.not_executable, "");
  ASSERT_EQ(plan.steps.count(3), 1u);
  EXPECT_NE(find_action(plan.steps.at(3).before, SteerAction::Kind::Cut, 0), nullptr);
  EXPECT_NE(find_action(plan.at_end, SteerAction::Kind::Heal, 0), nullptr);
}

// rf3, min ISR 2, combined: N0 loses power at step 3 (restarted at 4, registration
// deferred), N1 is killed at step 5, and the wait fences N1 before N0. Kafka's controller
// fences the broker whose session expired first, N0, unless the active controller was
// among the dead: then its successor fences both in its tracker's hash order (observed on
// 4.4.0 both ways). Not executable, with the reason; with broker-only nodes beside a
// dedicated controller the reason names no failover.
TEST(Steering, AFencingOutOfSessionOrderIsNotExecutable) {
  json scenario = matrix_scenario("rf3-isr2-acksall-clean-noelr-combined-f2-lossy");
  std::string why = plan_steering(scenario).not_executable;
  EXPECT_NE(why.find("step 6 fences N1 (silent since step 5) while N0, silent since step 3"), std::string::npos) << why;
  EXPECT_NE(why.find("BrokerHeartbeatTracker.maybeRemoveExpired"), std::string::npos) << why;
  EXPECT_NE(why.find("after a failover of the active controller"), std::string::npos) << why;
  // In session order (N0 fenced first) it is executable.
  json swapped = scenario;
  json& internal = swapped["steps"][5]["internal"];
  ASSERT_EQ(internal[0], "FenceBroker(broker=1, leader_after=0)");
  std::swap(internal[0], internal[1]);
  EXPECT_EQ(plan_steering(swapped).not_executable.find("fences"), std::string::npos);
  for (json& n : scenario["cluster"]["nodes"]) n["roles"] = json::array({"broker"});
  scenario["cluster"]["nodes"].push_back({{"id", 3}, {"roles", json::array({"controller"})}});
  why = plan_steering(scenario).not_executable;
  EXPECT_NE(why.find("step 6 fences N1"), std::string::npos) << why;
  EXPECT_EQ(why.find("failover"), std::string::npos) << why;
}

// rf3, min ISR 3, unclean: N0 loses power (its log empties), restarts and registers in
// step 5, but never replays or fetches (ISR [1], log []); Kafka's N0 fetched r1 from N1
// and rejoined ([0,1]). A log emptied by the node's own power loss is no fetch: N0 is cut
// from step 3 until step 7, where it leads (released once its own view shows it).
TEST(Steering, ALogLostToPowerLossIsNoFetchForTheKeepOut) {
  const SteeringPlan plan = plan_steering(matrix_scenario("rf3-isr3-acksall-unclean-noelr-combined-f2-lossy"));
  ASSERT_EQ(plan.steps.count(3), 1u);
  EXPECT_NE(find_action(plan.steps.at(3).before, SteerAction::Kind::Cut, 0), nullptr);
  ASSERT_EQ(plan.steps.count(7), 1u);
  const SteerAction* heal = find_action(plan.steps.at(7).before, SteerAction::Kind::Heal, 0);
  ASSERT_NE(heal, nullptr);
  EXPECT_EQ(heal->when, SteerAction::When::OwnViewLeads);
  EXPECT_EQ(heal->leader_epoch, 2);
}

// Every scenario of the suite that runs on a release here can be steered (the planner
// refuses none of them): the suite's verdicts do not move to "not executable". (Five
// older-generation corpus entries would need a combined node's replay held; they are
// not executable on either release for their generation already.)
TEST(Steering, EveryExecutableSuiteScenarioIsSteerable) {
  int executable = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(ISRCHECK_SOURCE_DIR) + "/conformance/suite")) {
    if (e.path().extension() != ".json") continue;
    std::ifstream in(e.path());
    const json scenario = json::parse(in);
    if (!not_executable_reason(scenario, "4.4.0").empty() && !not_executable_reason(scenario, "3.9.1").empty()) continue;
    ++executable;
    EXPECT_EQ(plan_steering(scenario).not_executable, "") << e.path();
  }
  EXPECT_GE(executable, 25);
}

// conform reports an unsteerable scenario as not executable with the planner's reason,
// before any cluster starts (the driver factory is never called).
TEST(Steering, AnUnsteerableScenarioIsNotExecutableBeforeAnyClusterStarts) {
  json scenario = suite_scenario("k-reelected-leader-stale-follower");
  for (json& n : scenario["cluster"]["nodes"]) n["roles"] = json::array({"broker", "controller"});
  KafkaOptions options;
  options.work_root = (std::filesystem::temp_directory_path() / "isrcheck-unsteerable").string();
  bool driver_started = false;
  KafkaSession session(options, [&](const std::string&) -> std::unique_ptr<Driver> {
    driver_started = true;
    return nullptr;
  });
  const ConformResult r = run_scenario(session, scenario);
  EXPECT_EQ(r.verdict, Verdict::NotExecutable);
  EXPECT_NE(r.reason.find("combined broker+controller"), std::string::npos) << r.reason;
  EXPECT_FALSE(driver_started);
}

TEST(NotExecutable, PowerLossAndOtherGenerationsAreRefusedWithTheReason) {
  // Power loss needs isrcheck-powerfs (conformance/power_mounts.h): refused without it,
  // executable with it.
  const char* before = std::getenv("ISRCHECK_POWERFS");
  const std::string saved = before != nullptr ? before : "";
  ::setenv("ISRCHECK_POWERFS", "/nonexistent/isrcheck-powerfs", 1);
  EXPECT_NE(not_executable_reason(suite_scenario("h-corpus-no-fsync-power-loss"), "4.4.0").find("isrcheck-powerfs"),
            std::string::npos);
  ::setenv("ISRCHECK_POWERFS", "/bin/true", 1);  // an executable stands in for it
  EXPECT_EQ(not_executable_reason(suite_scenario("h-corpus-no-fsync-power-loss"), "4.4.0"), "");
  if (before != nullptr) ::setenv("ISRCHECK_POWERFS", saved.c_str(), 1); else ::unsetenv("ISRCHECK_POWERFS");
  EXPECT_NE(not_executable_reason(suite_scenario("h-corpus-kip-101-divergent-epochs"), "4.4.0").find("kip-101"),
            std::string::npos);
  EXPECT_EQ(not_executable_reason(suite_scenario("b-acks1-leader-loss"), "4.4.0"), "");
  EXPECT_NE(not_executable_reason(suite_scenario("b-acks1-leader-loss"), "3.9.1"), "");
}

// A KRaft trace that turns off a fix the release shipped asks Kafka for code it no longer
// has: `hw-advances-below-min-isr`'s unsafe side (KAFKA-15583 off, 3.7.0) diverged on
// 4.4.0 in kafka_coverage_sample; it is refused there with the fix named, runs on a
// release before it, and fixes export emulates through metadata.version stay runnable.
TEST(NotExecutable, AFixTheReleaseShippedTurnedOffIsRefused) {
  auto scenario = [](const json& fixes, const std::string& mode, bool elr = false) {
    return json{{"source", {{"model_config", {{"protocol", "kip-966"}, {"eligible_leader_replicas", elr},
                                              {"controller", {{"mode", mode}}}, {"fixes", fixes}}}}}};
  };
  const json frozen_off = scenario({{"hw_frozen_below_min_isr", false}}, "kraft");
  const std::string why = not_executable_reason(frozen_off, "4.4.0");
  EXPECT_NE(why.find("fixes.hw_frozen_below_min_isr"), std::string::npos) << why;
  EXPECT_NE(why.find("since 3.7.0"), std::string::npos) << why;
  EXPECT_NE(why.find("before 3.7"), std::string::npos) << why;
  EXPECT_EQ(not_executable_reason(frozen_off, "3.6.2"), "");
  EXPECT_EQ(not_executable_reason(scenario({{"hw_frozen_below_min_isr", true}}, "kraft"), "4.4.0"), "");
  EXPECT_EQ(not_executable_reason(scenario({{"isr_shrink_keeps_leader_epoch", false}, {"directory_assignment", false}},
                                           "kraft"), "4.4.0"), "");
  // A fix of the ELR path is inert with ELR off.
  EXPECT_EQ(not_executable_reason(scenario({{"unclean_restart_leaves_elr", false}}, "kraft"), "4.4.0"), "");
  EXPECT_NE(not_executable_reason(scenario({{"unclean_restart_leaves_elr", false}}, "kraft", true), "4.4.0"), "");
  // ZooKeeper mode decides its own fixes (zookeeper_mode.cc).
  EXPECT_EQ(fix_off_not_executable(scenario({{"alter_partition_broker_epochs", false}}, "zookeeper"), "3.9.1"), "");
  EXPECT_EQ(version_numbers("3.8.0 (ELR usable from 4.0.0)"), (std::vector<int>{3, 8, 0}));
  EXPECT_EQ(version_numbers("4.4.0"), (std::vector<int>{4, 4, 0}));
  EXPECT_TRUE(version_numbers("trunk").empty());
}

// The two fixes a KRaft cluster switches off through metadata.version, as export writes
// the level and the release check lets them through (spec/partition/metadata_version.h):
// both must name a fix of `list fixes` (a renamed fix would leave the gate naming none),
// and each alone off stays runnable on a release that has it.
TEST(NotExecutable, TheMetadataVersionGatedFixesAreRealFixesWithTheirLevels) {
  int gated = 0;
  for (const spec::FixInfo& fix : spec::all_fixes()) {
    if (!spec::fix_gated_by_metadata_version(fix.name)) continue;
    ++gated;
    const json scenario = {{"source", {{"model_config", {{"protocol", "kip-966"}, {"controller", {{"mode", "kraft"}}},
                                                         {"fixes", {{std::string(fix.name), false}}}}}}}};
    EXPECT_EQ(fix_off_not_executable(scenario, "4.4.0"), "") << fix.name;
  }
  EXPECT_EQ(gated, 2);
  EXPECT_FALSE(spec::fix_gated_by_metadata_version("hw_frozen_below_min_isr"));
  EXPECT_EQ(spec::metadata_version_level(false, false), 11);  // 3.5-IV2
  EXPECT_EQ(spec::metadata_version_level(true, false), 15);   // 3.7-IV0
  EXPECT_EQ(spec::metadata_version_level(false, true), 0);
  EXPECT_EQ(spec::metadata_version_level(true, true), 0);
}

// A combined voter's disk loss (issue 28 item 6): executable while the node stays down
// (the other voters keep the committed metadata); a restart of it is refused with the
// reason (static quorum: it would vote with an empty log; KIP-853: an observer until
// removed and re-added).
TEST(NotExecutable, ACombinedVotersDiskLossIsRefusedOnlyWhenItRestarts) {
  json scenario = suite_scenario("h-corpus-min-isr-1-single-copy");
  EXPECT_EQ(not_executable_reason(scenario, "4.4.0"), "");
  json restart = {{"step", 4}, {"op", "restart"}, {"node", 0}, {"description", "Restart(node=0)"}};
  scenario["steps"].push_back(restart);
  const std::string why = not_executable_reason(scenario, "4.4.0");
  EXPECT_NE(why.find("restarted after its disk loss"), std::string::npos) << why;
  EXPECT_NE(why.find("KIP-853"), std::string::npos) << why;
}

TEST(WitnessScript, ParsesEveryFormAndNamesBadOnes) {
  const auto ops = parse_script("produce; kill leader; restart 0; cut 1 brokers; consume");
  ASSERT_EQ(ops.size(), 5u);
  EXPECT_EQ(ops[1].kind, "kill");
  EXPECT_EQ(ops[1].node, -1);
  EXPECT_EQ(ops[3].side, "brokers");
  EXPECT_THROW(parse_script("cut 1 sideways"), std::invalid_argument);
  EXPECT_THROW(parse_script("explode"), std::invalid_argument);
  EXPECT_THROW(parse_script(" ; "), std::invalid_argument);
}

// A fake driver: answers ready, spawns two long sleeps recorded in the pids file (as node
// JVMs would be), answers every request "ok", and ignores shutdown and stdin EOF.
std::vector<std::string> fake_driver(const std::string& work) {
  const std::string script =
      "trap '' TERM INT; mkdir -p " + work + "; echo \"$$ driver\" > " + work + "/pids; " +
      "for i in 1 2; do bash -c 'trap \"\" TERM; sleep 300; :' " + work + " & echo \"$! node-$i\" >> " + work + "/pids; done; " +
      "echo '{\"id\":0,\"ok\":true,\"ready\":true,\"protocol\":1}'; "
      "while read -r line; do id=$(echo \"$line\" | sed 's/.*\"id\":\\([0-9]*\\).*/\\1/'); "
      "echo \"{\\\"id\\\":$id,\\\"ok\\\":true}\"; done; sleep 300";
  return {"bash", "-c", script};
}

std::vector<pid_t> pids_in(const std::string& file) {
  std::vector<pid_t> out;
  std::ifstream in(file);
  long p;
  std::string what;
  while (in >> p >> what) out.push_back(static_cast<pid_t>(p));
  return out;
}

// The one order of places for the driver (driver_command.h), which `conform --driver`
// and the generated GoogleTests' shared_session both use: --driver, then
// $ISRCHECK_KAFKA_DRIVER when not empty, then conformance/ beside the binary when it
// exists, then build/conformance under the current directory when it exists, else the
// place beside the binary.
TEST(DriverLocation, OneOrderForEveryEntryPoint) {
  namespace fs = std::filesystem;
  const char* saved = std::getenv("ISRCHECK_KAFKA_DRIVER");
  const std::string saved_value = saved != nullptr ? saved : "";
  const fs::path saved_cwd = fs::current_path();
  const fs::path dir = fs::temp_directory_path() / ("isrcheck-driver-location-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::current_path(dir);

  ::setenv("ISRCHECK_KAFKA_DRIVER", "/from/the/environment", 1);
  EXPECT_EQ(driver_location("/given/by/--driver"), "/given/by/--driver");
  EXPECT_EQ(driver_location(), "/from/the/environment");

  ::setenv("ISRCHECK_KAFKA_DRIVER", "", 1);  // set but empty: as if unset
  const fs::path beside = fs::read_symlink("/proc/self/exe").parent_path() / "conformance";
  const bool beside_exists = fs::exists(beside);
  EXPECT_EQ(driver_location(), beside.string());  // no build/conformance here: beside, existing or not
  fs::create_directories(dir / "build" / "conformance");
  EXPECT_EQ(driver_location(), beside_exists ? beside.string() : (fs::path("build") / "conformance").string());

  fs::current_path(saved_cwd);
  fs::remove_all(dir);
  if (saved != nullptr) {
    ::setenv("ISRCHECK_KAFKA_DRIVER", saved_value.c_str(), 1);
  } else {
    ::unsetenv("ISRCHECK_KAFKA_DRIVER");
  }
}

TEST(DriverProcess, StopLeavesNoProcessEvenWhenTheDriverIgnoresShutdown) {
  const std::string work = ::testing::TempDir() + "isrcheck-fake-driver-" + std::to_string(::getpid());
  std::filesystem::remove_all(work);
  std::vector<pid_t> pids;
  {
    DriverProcess driver(fake_driver(work), work + ".stderr", std::chrono::seconds(10));
    driver.watch_work_dir(work);
    const json r = driver.call({{"op", "ping"}}, std::chrono::seconds(5));
    EXPECT_EQ(r.value("ok", false), true);
    pids = pids_in(work + "/pids");
    ASSERT_EQ(pids.size(), 3u);
    for (pid_t p : pids) EXPECT_TRUE(process_alive(p)) << p;
    const auto started = std::chrono::steady_clock::now();
    driver.stop();
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
  }
  for (int i = 0; i < 50; ++i) {
    bool any = false;
    for (pid_t p : pids) any = any || process_alive(p);
    if (!any) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (pid_t p : pids) EXPECT_FALSE(process_alive(p)) << "left behind: " << p;
}

TEST(DriverProcess, NoAnswerWithinTheBudgetIsAnErrorNotAHang) {
  const std::string work = ::testing::TempDir() + "isrcheck-mute-driver-" + std::to_string(::getpid());
  std::filesystem::remove_all(work);
  std::filesystem::create_directories(work);
  const std::vector<std::string> mute = {
      "bash", "-c", "echo \"$$ driver\" > " + work + "/pids; echo '{\"id\":0,\"ok\":true,\"ready\":true}'; sleep 300"};
  DriverProcess driver(mute, work + "/stderr", std::chrono::seconds(10));
  driver.watch_work_dir(work);
  const auto started = std::chrono::steady_clock::now();
  try {
    driver.call({{"op", "ping"}}, std::chrono::milliseconds(500));
    FAIL() << "expected no-response";
  } catch (const DriverError& e) {
    EXPECT_EQ(e.kind, "no-response");
  }
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
  EXPECT_FALSE(driver.running());
}

}  // namespace
}  // namespace isr::conformance
