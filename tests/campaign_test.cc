// `isrcheck campaign`'s pieces that need no cluster (docs/campaign.md): the seeded fault
// schedule (a function of the seed, pinned for one seed so that a platform or library
// change cannot alter it, and its invariants over many seeds), the configuration's
// errors, the model configuration a run is validated under, the recording extensions a
// campaign writes (`sample` events, a produce whose broker the harness does not know,
// a timed-out send grouped with its timeout), the HTML timelines, and the command's
// argument errors and --plan.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "analysis/campaign_timeline.h"
#include "analysis/trace_validation.h"
#include "conformance/campaign/campaign_config.h"
#include "conformance/campaign/campaign_run.h"
#include "conformance/campaign/fault_schedule.h"
#include "counterexamples/scenario/recording.h"
#include "io/config_error.h"
#include "io/files.h"
#include "spec/partition/config.h"
#include "tests/trace_test_support.h"

namespace isr::conformance::campaign {
namespace {

using nlohmann::json;

std::string texts(const std::vector<ScheduledOp>& ops) {
  std::string out;
  for (const ScheduledOp& op : ops) out += "[" + std::to_string(op.gap_ms) + "] " + op_text(op) + "; ";
  return out;
}

TEST(CampaignSchedule, IsAFunctionOfTheSeedPinnedForOneSeed) {
  const CampaignConfig c;
  const uint64_t seed = run_seed(7, 1);
  EXPECT_EQ(seed, 6951516134914417455ull);
  EXPECT_EQ(make_schedule(c, seed), make_schedule(c, seed));
  // Pinned: splitmix64 with integer arithmetic gives this everywhere (fault_schedule.h).
  EXPECT_EQ(texts(make_schedule(c, seed)),
            "[1] crash node 0 kill; [159] produce record 1; [212] produce record 2; [284] restart node 0; "
            "[851] produce record 3; [226] cut node 2 brokers; [981] produce record 4; [1208] heal node 2 brokers; "
            "[1314] produce record 5; [1451] crash node 0 kill; [1096] produce record 6; [849] restart node 0; ");
  // Other seeds, other schedules.
  std::set<std::string> distinct;
  for (int run = 1; run <= 20; ++run) distinct.insert(texts(make_schedule(c, run_seed(7, run))));
  EXPECT_GT(distinct.size(), 15u);
}

// Over many seeds and configurations: every record sent once, in order; every fault
// ended (restart, resume, heal of the same node and side), never more nodes under a
// fault than max_concurrent, never more faults than max_faults, gaps in range.
TEST(CampaignSchedule, InvariantsOverManySeeds) {
  for (int variant = 0; variant < 4; ++variant) {
    CampaignConfig c;
    c.max_concurrent = 1 + variant % 2;
    c.max_faults = 2 + variant;
    c.fault_percent = variant == 3 ? 100 : 60;
    c.gap_ms_min = 10 * variant;
    c.gap_ms_max = 500 + 100 * variant;
    c.records = 3 + variant;
    for (uint64_t s = 0; s < 300; ++s) {
      const std::vector<ScheduledOp> ops = make_schedule(c, run_seed(s, variant));
      int next_record = 1, started = 0;
      std::map<int, std::string> active;  // node -> the fault in force
      for (const ScheduledOp& op : ops) {
        ASSERT_GE(op.gap_ms, c.gap_ms_min);
        ASSERT_LE(op.gap_ms, c.gap_ms_max);
        if (op.op == "produce") {
          ASSERT_EQ(op.record, next_record++);
          continue;
        }
        ASSERT_GE(op.node, 0);
        ASSERT_LT(op.node, kNodes);
        const std::string fault = op.op == "crash" ? "down" : op.op == "pause" ? "paused" : "cut " + op.side;
        if (op.op == "crash" || op.op == "pause" || op.op == "cut") {
          ASSERT_EQ(active.count(op.node), 0u) << texts(ops);
          active[op.node] = fault;
          ++started;
          ASSERT_LE(static_cast<int>(active.size()), c.max_concurrent) << texts(ops);
        } else {
          const std::string ended = op.op == "restart" ? "down" : op.op == "resume" ? "paused" : "cut " + op.side;
          ASSERT_EQ(active[op.node], ended) << texts(ops);
          active.erase(op.node);
        }
      }
      EXPECT_EQ(next_record, c.records + 1);
      EXPECT_TRUE(active.empty()) << texts(ops);
      EXPECT_LE(started, c.max_faults);
      EXPECT_EQ(count_faults(ops).total(), started);
    }
  }
}

TEST(CampaignSchedule, NoFaultsWhenNoneAreAllowed) {
  CampaignConfig c;
  c.max_faults = 0;
  for (const ScheduledOp& op : make_schedule(c, 42)) EXPECT_EQ(op.op, "produce");
}

std::string config_error(const json& doc, const std::vector<std::string>& overrides = {}) {
  try {
    load_campaign_config(&doc, overrides);
  } catch (const io::ConfigError& e) {
    return e.field + " | " + e.what();
  }
  return "no error";
}

TEST(CampaignConfigTest, BadFieldsNameTheFieldAndWhatIsAllowed) {
  EXPECT_NE(config_error(json::object(), {"acks=2"}).find("acks | acks: expected \"all\" or \"1\""), std::string::npos);
  EXPECT_NE(config_error({{"records", 9}}).find("records |"), std::string::npos);
  EXPECT_NE(config_error({{"records", 9}}).find("6"), std::string::npos);
  EXPECT_NE(config_error({{"brokers", 5}}).find("brokers |"), std::string::npos);
  EXPECT_NE(config_error({{"max_concurrent", 3}}).find("max_concurrent |"), std::string::npos);
  EXPECT_NE(config_error({{"faults", {{"melt", 1}}}}).find("faults.melt"), std::string::npos);
  EXPECT_NE(config_error({{"gap_ms_min", 500}, {"gap_ms_max", 100}}).find("gap_ms_max |"), std::string::npos);
  EXPECT_NE(config_error({{"colour", "red"}}).find("colour"), std::string::npos);
  EXPECT_NE(config_error({{"session_timeout_ms", 100}}).find("session_timeout_ms |"), std::string::npos);
  EXPECT_NE(config_error({{"faults", {{"kill", 0}, {"clean", 0}, {"pause", 0}, {"cut_brokers", 0}, {"cut_quorum", 0},
                                      {"cut_clients", 0}}}})
                .find("faults |"),
            std::string::npos);
  EXPECT_EQ(config_error({{"acks", "1"}, {"unclean_leader_election", true}, {"faults", {{"kill", 5}}}}), "no error");
  const CampaignConfig c = load_campaign_config(nullptr, {"acks=1", "faults.pause=7", "max_concurrent=2"});
  EXPECT_EQ(c.acks, "1");
  EXPECT_EQ(c.weights[static_cast<int>(FaultKind::Pause)], 7);
  EXPECT_EQ(c.max_concurrent, 2);
  EXPECT_EQ(load_campaign_config(&(const json&)to_json(c), {}).weights, c.weights);
}

// The model a run is validated under: the Kafka settings, a producer without retries,
// fault budgets exactly the schedule's.
TEST(CampaignRun, ModelConfigurationHasTheSchedulesBudgets) {
  CampaignConfig c;
  c.acks = "1";
  c.unclean_leader_election = true;
  const std::vector<ScheduledOp> ops = make_schedule(c, run_seed(7, 1));
  const FaultCounts f = count_faults(ops);
  const json m = model_config_for(c, ops);
  EXPECT_EQ(m["acks"], "1");
  EXPECT_EQ(m["unclean_leader_election"], true);
  EXPECT_EQ(m["idempotence"], false);
  EXPECT_EQ(m["bounds"]["max_retries"], 0);
  EXPECT_EQ(m["bounds"]["max_records"], c.records);
  EXPECT_EQ(m["faults"]["max_crashes"], f.crashes);
  EXPECT_EQ(m["faults"]["max_network_cuts"], f.cuts);
  EXPECT_EQ(m["faults"]["max_lossy_crashes"], 0);
  EXPECT_EQ(f.crashes, 2);
  EXPECT_EQ(f.cuts, 1);
  const json scenario = run_scenario_json(c, ops, "campaign-run-1", "4.4.0");
  EXPECT_EQ(scenario["clients"]["producer"]["retries"], 0);
  EXPECT_EQ(scenario["topic"]["config"]["unclean.leader.election.enable"], "true");
  EXPECT_EQ(scenario["source"]["model_config"], m);
  EXPECT_FALSE(scenario["cluster"]["broker_config"].contains("broker.session.timeout.ms"));
  c.session_timeout_ms = 6000;
  EXPECT_EQ(run_scenario_json(c, ops, "r", "4.4.0")["cluster"]["broker_config"]["broker.session.timeout.ms"], "6000");
}

std::vector<json> lines_of(const std::string& path) {
  std::vector<json> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(json::parse(line));
  return out;
}

std::string joined(const std::vector<json>& lines) {
  std::string out;
  for (const json& l : lines) out += l.dump() + "\n";
  return out;
}

// A real recording (j: acks=1, a paused follower, Kafka 4.4.0) rewritten as a campaign
// writes it: no broker on its produces, a `sample` after each event. Still explained;
// with a broker the model cannot send to, not.
TEST(CampaignRecording, UnknownBrokersAndSamplesAreValidated) {
  const std::vector<json> original = lines_of(std::string(ISRCHECK_SOURCE_DIR) + "/tests/data/recordings/j-acks1-pause-loss.jsonl");
  std::vector<json> lines{original.front()};
  json last_state;
  for (std::size_t i = 1; i < original.size(); ++i) {
    json e = original[i];
    if (e.value("op", "") == "produce") e["broker"] = nullptr;
    if (e.value("kind", "") == "observe") last_state = e["state"];
    lines.push_back(e);
    if (!last_state.is_null()) lines.push_back({{"kind", "sample"}, {"state", last_state}});
  }
  for (std::size_t i = 1; i < lines.size(); ++i) lines[i]["seq"] = i;
  const counterexamples::Recording rec = counterexamples::parse_recording(joined(lines));
  const json& named = rec.header["model_config"];
  const spec::Config config = spec::load_config(&named, {});
  const analysis::ValidationResult r = analysis::validate_recording(rec, config, {});
  EXPECT_EQ(r.verdict, analysis::ValidationResult::Verdict::Explained) << r.event << ": " << r.why;
  bool any_unknown = false;
  for (const auto& e : rec.events) any_unknown = any_unknown || (e.op == "produce" && e.broker == -1);
  EXPECT_TRUE(any_unknown);
  EXPECT_NE(counterexamples::event_text(rec.events[1]).find("sample"), std::string::npos);
  // The same recording with its first produce sent to broker 1, a follower: unexplained.
  std::vector<json> wrong = lines;
  for (json& e : wrong)
    if (e.value("op", "") == "produce") {
      e["broker"] = 1;
      break;
    }
  const analysis::ValidationResult w =
      analysis::validate_recording(counterexamples::parse_recording(joined(wrong)), config, {});
  EXPECT_EQ(w.verdict, analysis::ValidationResult::Verdict::Unexplained);
  // A produce without the field at all is malformed (null says "not known").
  std::vector<json> missing = lines;
  for (json& e : missing)
    if (e.value("op", "") == "produce") {
      e.erase("broker");
      break;
    }
  try {
    counterexamples::parse_recording(joined(missing));
    ADD_FAILURE() << "accepted a produce without broker";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("broker: missing is not allowed (a node id from 0 to 1000, or null"),
              std::string::npos)
        << e.what();
  }
}

// A timed-out send is recorded as a produce and its expire_send in one group (the client
// cannot know when the broker handled it): explained; the same two events ungrouped,
// with the produce's outcome already the timeout, are not (the model's send is pending
// until its ProduceTimeout).
TEST(CampaignRecording, TimedOutSendIsGroupedWithItsTimeout) {
  CampaignConfig c;
  c.records = 1;
  c.max_faults = 0;
  const json header = {{"format", "isrcheck-recording"},
                       {"version", 1},
                       {"scenario", "t"},
                       {"model_config", model_config_for(c, make_schedule(c, 1))}};
  auto recording = [&](bool grouped) {
    json produce = {{"seq", 1}, {"kind", "client"}, {"op", "produce"}, {"record", 1}, {"broker", nullptr},
                    {"outcome", "REQUEST_TIMED_OUT"}};
    json expire = {{"seq", 2}, {"kind", "client"}, {"op", "expire_send"}, {"record", 1}, {"outcome", "REQUEST_TIMED_OUT"}};
    if (grouped) produce["group"] = expire["group"] = 1;
    return counterexamples::parse_recording(header.dump() + "\n" + produce.dump() + "\n" + expire.dump() + "\n");
  };
  const spec::Config config = spec::load_config(&header["model_config"], {});
  EXPECT_EQ(analysis::validate_recording(recording(true), config, {}).verdict,
            analysis::ValidationResult::Verdict::Explained);
  EXPECT_EQ(analysis::validate_recording(recording(false), config, {}).verdict,
            analysis::ValidationResult::Verdict::Unexplained);
}

analysis::ValidationResult validate_committed(const std::string& name, int max_internal = 8) {
  const std::string text = io::files::read_file(std::string(ISRCHECK_SOURCE_DIR) + "/tests/data/recordings/" + name);
  const counterexamples::Recording rec = counterexamples::parse_recording(text);
  const json& named = rec.header["model_config"];
  analysis::ValidateOptions options;
  options.max_internal = max_internal;
  return analysis::validate_recording(rec, spec::load_config(&named, {}), options);
}

// Two real campaign runs (Kafka 4.4.0, campaign seed 1, runs 5 and 8), kept for what
// they taught (docs/validation.md, "Unexplained runs"). A model change that changes a
// verdict must update the docs with this test.
TEST(CampaignRecording, RealRunLeaderCutFromBrokersShrinksBothFollowersAtOnce) {
  // The leader N0 is cut from the brokers: its maybeShrinkIsr removes both lagging
  // followers in one AlterPartition, and the controller puts both in the ELR (ISR below
  // min ISR 2). Unexplained while the model shrank one follower per AlterPartition
  // ([0,1,2] -> [0,2] -> [0] gave ELR [2]: `elr: recorded [1,2], model [2]` at event 6);
  // explained since a ShrinkIsr removes a set (spec/partition/isr.cc, finding 7).
  const analysis::ValidationResult r = validate_committed("campaign-elr-shrink-together.jsonl");
  EXPECT_EQ(r.verdict, analysis::ValidationResult::Verdict::Explained) << r.event << ": " << r.why;
  EXPECT_TRUE(r.differences.empty());
  EXPECT_NE(r.trace.dump().find("\"followers\":[1,2]"), std::string::npos) << "the model's way: one set shrink";
}

TEST(CampaignRecording, RealRunSendsThatNeverLeftTheClient) {
  // The leader N0 is cut from clients (campaign seed 1, run 8): the send of record 1
  // expires in the client's accumulator without ever being sent (delivery.timeout.ms),
  // so after the heal no log holds it. The validator's model gives up on a batch that
  // never left the client (expire_unsent_batches, RecordAccumulator.expiredBatches), and
  // the recorded send, grouped with its expiry, may then have no step of the model.
  // Unexplained at the observation after the heal before that (docs/validation.md,
  // finding 8): the model had to send record 1, and N0 appended it once healed.
  const analysis::ValidationResult r = validate_committed("campaign-unsent-send-expires.jsonl", 12);
  ASSERT_EQ(r.verdict, analysis::ValidationResult::Verdict::Explained) << r.event << ": " << r.why;
  // The model's run: record 1 expires unsent, and no Produce of it is ever taken.
  int unsent = 0;
  for (const json& step : r.trace.at("steps")) {
    const json& a = step.at("action");
    if (!a.is_object() || a.value("record", 0) != 1) continue;
    EXPECT_NE(a.at("kind"), "Produce") << a.dump();
    if (a.at("kind") == "ProduceTimeout" && a.value("unsent", false)) ++unsent;
  }
  EXPECT_EQ(unsent, 1);
}

// Campaign c2 run 9 (docs/validation.md, finding 12): N0 stopped cleanly, then the leader
// N1 killed, so no controller quorum and no election; the send of record 3 timed out in
// the client and reached no broker. Unexplained at that send before the model could give
// up on a record it never sent; explained at 12 internal actions (the restart of N0 needs
// more than 8, finding 9).
TEST(CampaignRecording, RealRunSendWhileNoBrokerLeadsExpiresUnsent) {
  const analysis::ValidationResult r = validate_committed("campaign-no-leader-send-expires.jsonl", 12);
  ASSERT_EQ(r.verdict, analysis::ValidationResult::Verdict::Explained) << r.event << ": " << r.why;
  int unsent = 0;
  for (const json& step : r.trace.at("steps")) {
    const json& a = step.at("action");
    if (a.is_object() && a.at("kind") == "ProduceTimeout" && a.value("unsent", false) && a.value("record", 0) == 3)
      ++unsent;
  }
  EXPECT_EQ(unsent, 1);
}

// A send the client timed out while the leader was cut from clients, grouped with the
// heal: the broker may handle it only after the heal. The outcomes of a group's client
// calls are checked once the group is done (analysis/trace_validation.cc); checked right
// after the send, as before, no model state could have taken the send yet.
TEST(CampaignRecording, GroupedSendMayBeHandledAfterALaterHealOfTheGroup) {
  CampaignConfig c;
  c.records = 1;
  c.max_faults = 0;
  json model_config = model_config_for(c, make_schedule(c, 1));
  model_config["faults"]["max_network_cuts"] = 1;
  const json header = {{"format", "isrcheck-recording"}, {"version", 1}, {"scenario", "t"}, {"model_config", model_config}};
  const std::vector<json> events = {
      {{"seq", 1}, {"kind", "fault"}, {"op", "cut"}, {"node", 0}, {"side", "clients"}},
      {{"seq", 2}, {"kind", "client"}, {"op", "produce"}, {"record", 1}, {"broker", nullptr},
       {"outcome", "REQUEST_TIMED_OUT"}, {"group", 1}},
      {{"seq", 3}, {"kind", "client"}, {"op", "expire_send"}, {"record", 1}, {"outcome", "REQUEST_TIMED_OUT"}, {"group", 1}},
      {{"seq", 4}, {"kind", "fault"}, {"op", "heal"}, {"node", 0}, {"side", "clients"}, {"group", 1}}};
  const spec::Config config = spec::load_config(&header["model_config"], {});
  const analysis::ValidationResult r =
      analysis::validate_recording(counterexamples::parse_recording(header.dump() + "\n" + joined(events)), config, {});
  EXPECT_EQ(r.verdict, analysis::ValidationResult::Verdict::Explained) << r.event << ": " << r.why;
  // Without the group the send comes before the heal: unexplained at the send.
  std::vector<json> ungrouped = events;
  for (json& e : ungrouped) e.erase("group");
  const analysis::ValidationResult u =
      analysis::validate_recording(counterexamples::parse_recording(header.dump() + "\n" + joined(ungrouped)), config, {});
  EXPECT_EQ(u.verdict, analysis::ValidationResult::Verdict::Unexplained);
  EXPECT_EQ(u.event_seq, 2);
}

// A timed-out send grouped with its expiry and the heal, whose record no log ever holds:
// record 2 is read at offset 0. The model gives up on record 1 before it left the client
// (the validator turns expire_unsent_batches on); the recorded send then has no model step.
TEST(CampaignRecording, GroupedSendThatNeverLeftTheClientExpiresUnsent) {
  CampaignConfig c;
  c.records = 2;
  c.max_faults = 0;
  json model_config = model_config_for(c, make_schedule(c, 1));
  model_config["faults"]["max_network_cuts"] = 1;
  ASSERT_FALSE(model_config.value("expire_unsent_batches", false)) << "the recording does not ask for it";
  const json header = {{"format", "isrcheck-recording"}, {"version", 1}, {"scenario", "t"}, {"model_config", model_config}};
  const std::vector<json> events = {
      {{"seq", 1}, {"kind", "fault"}, {"op", "cut"}, {"node", 0}, {"side", "clients"}},
      {{"seq", 2}, {"kind", "client"}, {"op", "produce"}, {"record", 1}, {"broker", nullptr},
       {"outcome", "REQUEST_TIMED_OUT"}, {"group", 1}},
      {{"seq", 3}, {"kind", "client"}, {"op", "expire_send"}, {"record", 1}, {"outcome", "REQUEST_TIMED_OUT"}, {"group", 1}},
      {{"seq", 4}, {"kind", "fault"}, {"op", "heal"}, {"node", 0}, {"side", "clients"}, {"group", 1}},
      {{"seq", 5}, {"kind", "client"}, {"op", "produce"}, {"record", 2}, {"broker", nullptr}, {"outcome", "acked"}},
      {{"seq", 6}, {"kind", "client"}, {"op", "consume"}, {"broker", 0}, {"offset", 0}, {"read", 2}}};
  const spec::Config config = spec::load_config(&header["model_config"], {});
  ASSERT_FALSE(config.expire_unsent_batches);
  const analysis::ValidationResult r =
      analysis::validate_recording(counterexamples::parse_recording(header.dump() + "\n" + joined(events)), config, {});
  ASSERT_EQ(r.verdict, analysis::ValidationResult::Verdict::Explained) << r.event << ": " << r.why;
  EXPECT_EQ(r.trace.at("config").value("expire_unsent_batches", false), true);
  // Without the recorded expiry the send is not one that may never have left the client:
  // it needs its Produce, and no model step then explains its timeout.
  std::vector<json> no_expiry = events;
  no_expiry.erase(no_expiry.begin() + 2);
  for (std::size_t i = 0; i < no_expiry.size(); ++i) no_expiry[i]["seq"] = i + 1;
  const analysis::ValidationResult u =
      analysis::validate_recording(counterexamples::parse_recording(header.dump() + "\n" + joined(no_expiry)), config, {});
  EXPECT_EQ(u.verdict, analysis::ValidationResult::Verdict::Unexplained);
}

// The model configuration of a one-record acks=1 campaign run with one lost answer allowed.
json acks1_one_lost_answer_config() {
  CampaignConfig c;
  c.acks = "1";
  c.records = 1;
  c.max_faults = 0;
  json model_config = model_config_for(c, make_schedule(c, 1));
  model_config["faults"]["max_lost_produce_responses"] = 1;
  return model_config;
}

// acks=1: the leader answers at the append, so a send it appended after the client gave up
// is the model's Produce with a lost answer (the campaign records it so, and allows that
// many lost answers in the run's model configuration); as a send and a separate timeout
// with the record in the leader's log it is not a model behaviour (an acks=1 send is
// never left in flight, and a send that expired unsent appended nothing).
TEST(CampaignRecording, Acks1TimedOutSendIsAProduceWithALostAnswer) {
  const json model_config = acks1_one_lost_answer_config();
  const json header = {{"format", "isrcheck-recording"}, {"version", 1}, {"scenario", "t"}, {"model_config", model_config}};
  const spec::Config config = spec::load_config(&header["model_config"], {});
  const json lost = {{"seq", 1}, {"kind", "client"}, {"op", "produce"}, {"record", 1}, {"broker", nullptr},
                     {"response_lost", true}, {"outcome", "REQUEST_TIMED_OUT"}};
  EXPECT_EQ(analysis::validate_recording(counterexamples::parse_recording(header.dump() + "\n" + lost.dump() + "\n"),
                                         config, {})
                .verdict,
            analysis::ValidationResult::Verdict::Explained);
  const json send = {{"seq", 1}, {"kind", "client"}, {"op", "produce"}, {"record", 1}, {"broker", nullptr},
                     {"outcome", "REQUEST_TIMED_OUT"}, {"group", 1}};
  const json timeout = {{"seq", 2}, {"kind", "client"}, {"op", "expire_send"}, {"record", 1},
                        {"outcome", "REQUEST_TIMED_OUT"}, {"group", 1}};
  const json appended = {{"seq", 3}, {"kind", "observe"}, {"state", {{"replicas", {{"0", {{"leo", 1}}}}}}}};
  const std::string pair = header.dump() + "\n" + send.dump() + "\n" + timeout.dump() + "\n";
  EXPECT_EQ(analysis::validate_recording(counterexamples::parse_recording(pair + appended.dump() + "\n"), config, {})
                .verdict,
            analysis::ValidationResult::Verdict::Unexplained);
  // Without the observation of the append the pair is a send that never left the client.
  EXPECT_EQ(analysis::validate_recording(counterexamples::parse_recording(pair), config, {}).verdict,
            analysis::ValidationResult::Verdict::Explained);
}

// The same acks=1 timeout when no broker could take the send: every broker killed before
// it, so the batch waited in the accumulator until delivery.timeout.ms
// (RecordAccumulator.expiredBatches) and no leader ever answered. The campaign records
// every acks=1 timeout as a lost answer (it cannot tell the two apart: both are Kafka's
// "Expiring 1 record(s)"), so the validator takes it as either; as a lost answer alone
// (no Produce is enabled with no broker running) it was a false "unexplained".
TEST(CampaignRecording, Acks1TimedOutSendWithNoBrokerRunningExpiredUnsent) {
  json model_config = acks1_one_lost_answer_config();
  model_config["faults"]["max_crashes"] = 3;
  const json header = {{"format", "isrcheck-recording"}, {"version", 1}, {"scenario", "t"}, {"model_config", model_config}};
  const spec::Config config = spec::load_config(&header["model_config"], {});
  std::string text = header.dump() + "\n";
  for (int node = 0; node < 3; ++node) {
    text += json({{"seq", node + 1}, {"kind", "fault"}, {"op", "crash"}, {"node", node}, {"crash_kind", "kill"}}).dump() +
            "\n";
  }
  const json lost = {{"seq", 4}, {"kind", "client"}, {"op", "produce"}, {"record", 1}, {"broker", nullptr},
                     {"response_lost", true}, {"outcome", "REQUEST_TIMED_OUT"}};
  const analysis::ValidationResult r =
      analysis::validate_recording(counterexamples::parse_recording(text + lost.dump() + "\n"), config, {});
  EXPECT_EQ(r.verdict, analysis::ValidationResult::Verdict::Explained) << r.to_json().dump();
  // Nothing was appended anywhere: the explanation's last step is the unsent timeout.
  const json unsent = {{"seq", 5}, {"kind", "observe"}, {"state", {{"replicas", {{"0", {{"leo", 0}}}}}}}};
  EXPECT_EQ(analysis::validate_recording(
                counterexamples::parse_recording(text + lost.dump() + "\n" + unsent.dump() + "\n"), config, {})
                .verdict,
            analysis::ValidationResult::Verdict::Explained);
}

json small_run_events() {
  const json state = {{"leader", 0}, {"leader_epoch", 0}, {"isr", {0, 1, 2}}, {"elr", json::array()}, {"hw", 1},
                      {"replicas", {{"0", {{"alive", true}, {"leo", 1}}}, {"1", {{"alive", false}, {"leo", 0}}},
                                    {"2", {{"alive", true}, {"leo", 1}}}}}};
  return json::array({{{"seq", 1}, {"kind", "observe"}, {"state", state}, {"t_start_ms", 0}, {"t_end_ms", 5}},
                      {{"seq", 2}, {"kind", "fault"}, {"op", "crash"}, {"node", 1}, {"crash_kind", "kill"},
                       {"t_start_ms", 10}, {"t_end_ms", 20}},
                      {{"seq", 3}, {"kind", "note"}, {"text", "<script>alert(1)</script>"}, {"t_start_ms", 20},
                       {"t_end_ms", 20}},
                      {{"seq", 4}, {"kind", "client"}, {"op", "produce"}, {"record", 1}, {"broker", nullptr},
                       {"outcome", "acked"}, {"answer", "acked"}, {"t_start_ms", 30}, {"t_end_ms", 40}},
                      {{"seq", 5}, {"kind", "sample"}, {"state", state}, {"t_start_ms", 40}, {"t_end_ms", 45}}});
}

TEST(CampaignTimeline, RunPageMarksWhereTheModelAndKafkaPartAndIsOffline) {
  const json header = {{"kafka_version", "4.4.0"}, {"campaign", {{"run", 3}, {"seed", "99"}, {"config", {{"acks", "1"}}}}}};
  const json events = small_run_events();
  const json summary = {{"faults_injected", 1}, {"acked", {1}}, {"read_back", json::array()}, {"lost", {1}},
                        {"settled", true},
                        {"validation",
                         {{"verdict", "unexplained"}, {"event_seq", 4}, {"event", "client produce record 1"},
                          {"why", "no model state reached within 8 internal actions can do it"},
                          {"differences", {"isr: recorded [0,2], model [0,1,2]"}}}}};
  const std::string html = analysis::render_run_timeline(header, {events.begin(), events.end()}, summary);
  EXPECT_NE(html.find("Campaign run 3"), std::string::npos);
  EXPECT_NE(html.find("unexplained</b> at event 4"), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"client parted\" id=\"parted\">"), std::string::npos);
  EXPECT_NE(html.find("isr: recorded [0,2], model [0,1,2]"), std::string::npos);
  EXPECT_NE(html.find("acked records lost: [1]"), std::string::npos);
  EXPECT_NE(html.find("N1 down"), std::string::npos);  // the lane's interval
  EXPECT_NE(html.find("send record 1: acked"), std::string::npos);
  EXPECT_EQ(html.find("<script>"), std::string::npos);  // escaped, and no script of its own
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));  // only the SVG namespace
  EXPECT_EQ(html.find("https://"), std::string::npos);
}

TEST(CampaignTimeline, CampaignPageListsUnexplainedThenLossFirst) {
  const json campaign = {
      {"seed", "1"},
      {"kafka_version", "4.4.0"},
      {"config", {{"acks", "all"}}},
      {"totals", {{"runs", 3}, {"explained", 1}, {"unexplained", 1}, {"lost", 1}}},
      {"runs",
       {{{"run", 1}, {"page", "run-0001.html"}, {"lost", json::array()}, {"validation", {{"verdict", "explained"}}}},
        {{"run", 2}, {"page", "run-0002.html"}, {"lost", {4}}, {"validation", {{"verdict", "explained"}}}},
        {{"run", 3}, {"page", "run-0003.html"}, {"lost", json::array()},
         {"validation", {{"verdict", "unexplained"}, {"event_seq", 9}, {"event", "observe"}}}}}}};
  const std::string html = analysis::render_campaign_page(campaign);
  const std::size_t third = html.find("run-0003.html"), second = html.find("run-0002.html"),
                    first = html.find("run-0001.html");
  ASSERT_NE(third, std::string::npos);
  EXPECT_LT(third, second);
  EXPECT_LT(second, first);
  EXPECT_NE(html.find("event 9: observe"), std::string::npos);
}

TEST(CampaignCli, BadArgumentsExitTwoNamingTheField) {
  const std::string out = trace_test::temp_path("-campaign");
  auto run = [&](const std::string& args) { return trace_test::run_isrcheck("campaign --out '" + out + "' " + args); };
  trace_test::Run r = run("--runs 1 --set acks=2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("acks: expected \"all\" or \"1\""), std::string::npos) << r.err;
  r = run("--set acks=1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--runs: missing"), std::string::npos) << r.err;
  r = run("--runs 0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--runs: 0 is not allowed"), std::string::npos) << r.err;
  r = run("--runs 1 --seed -4");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--seed"), std::string::npos) << r.err;
  r = run("--runs 1 --set records=7");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("records:"), std::string::npos) << r.err;
  r = run("--runs 1 --max-internal 99");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--max-internal"), std::string::npos) << r.err;
  r = trace_test::run_isrcheck("campaign --runs 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--out"), std::string::npos) << r.err;
}

// --plan: the schedules alone, no cluster; the same seed twice gives the same plan.
TEST(CampaignCli, PlanIsTheSameForTheSameSeed) {
  const std::string a = trace_test::temp_path("-plan-a"), b = trace_test::temp_path("-plan-b");
  const trace_test::Run ra = trace_test::run_isrcheck("campaign --plan --runs 3 --seed 7 --out '" + a + "'");
  const trace_test::Run rb = trace_test::run_isrcheck("campaign --plan --runs 3 --seed 7 --out '" + b + "'");
  ASSERT_EQ(ra.exit_code, 0) << ra.err;
  ASSERT_EQ(rb.exit_code, 0) << rb.err;
  EXPECT_EQ(ra.out, rb.out);
  EXPECT_NE(ra.out.find("run 1 (seed 6951516134914417455): [1 ms] crash node 0 kill;"), std::string::npos) << ra.out;
  const json plan = io::files::read_json_file(a + "/plan.json");
  EXPECT_EQ(plan["runs"].size(), 3u);
  EXPECT_EQ(plan, io::files::read_json_file(b + "/plan.json"));
  std::filesystem::remove_all(a);
  std::filesystem::remove_all(b);
}

}  // namespace
}  // namespace isr::conformance::campaign
