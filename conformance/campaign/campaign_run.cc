// One campaign run on a real cluster, recorded and validated (see campaign_run.h).
#include "conformance/campaign/campaign_run.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <set>
#include <thread>

#include "conformance/real_kafka_cluster.h"
#include "conformance/zookeeper_mode.h"
#include "counterexamples/scenario/decision_merge.h"
#include "counterexamples/scenario/recording.h"
#include "spec/partition/config.h"

namespace isr::conformance::campaign {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

// The model's leader and partition epoch bounds for a run with `faults` faults. Neither
// epoch is observable, but the model may spend them between two observations on ISR
// shrinks and expansions and elections that leave no trace, and with the model's limit
// (kMaxEpoch - 1 = 14) the states within 8 internal actions of one send passed 300,000
// in the first campaign runs. A fault causes at most two elections (away from a node and
// back after its restart) and four partition changes (a shrink, the election, an ELR
// change, the expansion); one of each is allowed besides.
int leader_epoch_bound(int faults) { return std::min(spec::kMaxEpoch - 1, 1 + 2 * faults); }
int partition_epoch_bound(int faults) { return std::min(spec::kMaxEpoch - 1, 2 + 4 * faults); }

// A send's answer in the recording's words. Kafka names outside the scenario vocabulary
// (NETWORK_EXCEPTION when the leader's connection drops under an in-flight request, a
// disconnect, a storage error) leave the client not knowing whether the record was
// appended, as the model's timed-out send does (spec/partition/faults.cc
// drop_parked_produce: "NETWORK_EXCEPTION, retriable; outcome unknown, like a
// timeout"); they are recorded as REQUEST_TIMED_OUT with the driver's raw answer beside.
std::string mapped_answer(const std::string& raw) {
  static const std::set<std::string> known = {"acked", "pending", "NOT_ENOUGH_REPLICAS",
                                              "NOT_ENOUGH_REPLICAS_AFTER_APPEND", "REQUEST_TIMED_OUT",
                                              "NOT_LEADER_OR_FOLLOWER"};
  return known.count(raw) ? raw : std::string("REQUEST_TIMED_OUT");
}

cut::CrashKind crash_kind_of(const std::string& k) {
  return k == "clean" ? cut::CrashKind::Clean : cut::CrashKind::Kill;
}

cut::NetworkSide side_of(const std::string& s) {
  return s == "quorum" ? cut::NetworkSide::Quorum : s == "clients" ? cut::NetworkSide::Clients : cut::NetworkSide::Brokers;
}

// A partition at rest: a leader, every replica alive, in the ISR, unfenced, at the HW,
// every broker's view the controller's, no send unanswered.
bool settled(const cut::PartitionObservation& o) {
  if (o.leader < 0 || o.replicas.size() != static_cast<std::size_t>(kNodes)) return false;
  if (o.isr.size() != static_cast<std::size_t>(kNodes) || !o.fenced.empty() || !o.elr.empty()) return false;
  for (const auto& [id, r] : o.replicas) {
    if (!r.alive || r.leo != o.hw || !r.has_view) return false;
    if (r.view_leader != o.leader || r.view_leader_epoch != o.leader_epoch || r.view_isr != o.isr) return false;
  }
  for (const auto& [record, result] : o.sends)
    if (result == cut::SendResult::Pending) return false;
  return true;
}

void sleep_ms(int ms) {
  const auto until = Clock::now() + std::chrono::milliseconds(ms);
  while (Clock::now() < until) {
    if (interrupt_flag().load()) throw Interrupted();
    std::this_thread::sleep_for(std::min(std::chrono::milliseconds(50),
                                         std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()) +
                                             std::chrono::milliseconds(1)));
  }
}

}  // namespace

json RunResult::summary() const {
  json s = {{"run", run},
            {"seed", std::to_string(seed)},
            {"faults_injected", faults_injected},
            {"acked", acked},
            {"read_back", read_back},
            {"lost", lost},
            {"settled", settled},
            {"complete", complete},
            {"interrupted", interrupted},
            {"error", error},
            {"run_seconds", run_seconds},
            {"events", events.size()}};
  if (validated) {
    s["validation"] = validation.to_json();
    s["validation"].erase("rounds");
    s["validation"].erase("trace");
    s["max_internal"] = max_internal_used;
    s["validate_seconds"] = validate_seconds;
    if (!retry.is_null()) s["retry"] = retry;
  }
  return s;
}

json model_config_for(const CampaignConfig& c, const std::vector<ScheduledOp>& schedule) {
  const FaultCounts f = count_faults(schedule);
  const json doc = {{"brokers", kNodes},
                    {"replication_factor", kNodes},
                    {"min_insync_replicas", c.min_insync_replicas},
                    {"acks", c.acks},
                    {"unclean_leader_election", c.unclean_leader_election},
                    // The campaign's producer: no retries, so no idempotence (Kafka refuses
                    // idempotence with retries=0): every attempt is a recorded send.
                    {"idempotence", false},
                    {"consumer", true},
                    {"faults",
                     {{"max_crashes", f.crashes},
                      {"max_clean_shutdowns", f.clean},
                      {"max_lossy_crashes", 0},
                      {"max_disk_losses", 0},
                      {"max_network_cuts", f.cuts},
                      {"max_pauses", f.pauses},
                      {"max_lost_produce_responses", 0}}},
                    {"bounds",
                     {{"max_records", c.records},
                      {"max_leader_epoch", leader_epoch_bound(f.total())},
                      {"max_partition_epoch", partition_epoch_bound(f.total())},
                      {"max_retries", 0},
                      {"max_leader_moves", 0}}}};
  return spec::to_json(spec::load_config(&doc, {}));
}

json run_scenario_json(const CampaignConfig& c, const std::vector<ScheduledOp>& schedule, const std::string& name,
                       const std::string& kafka_version) {
  json nodes = json::array();
  for (int n = 0; n < kNodes; ++n) nodes.push_back({{"id", n}, {"roles", {"broker", "controller"}}});
  const json topic_config = {{"min.insync.replicas", std::to_string(c.min_insync_replicas)},
                             {"unclean.leader.election.enable", c.unclean_leader_election ? "true" : "false"}};
  json model_config = model_config_for(c, schedule);
  const std::string generation = generation_of_release(kafka_version);
  if (!generation.empty() && generation != "kip-966") {
    json doc = model_config;
    doc["protocol"] = generation;
    doc.erase("fixes");
    doc.erase("eligible_leader_replicas");
    model_config = spec::to_json(spec::load_config(&doc, {}));
  }
  json broker_config = topic_config;
  if (c.session_timeout_ms > 0) broker_config["broker.session.timeout.ms"] = std::to_string(c.session_timeout_ms);
  json cluster = {{"nodes", nodes},
                  {"controller", {{"placement", "combined"}, {"voters", {0, 1, 2}}}},
                  {"protocol", {{"generation", generation}, {"kafka_versions", kafka_version}}},
                  {"broker_config", broker_config},
                  {"flush", "none"}};
  if (generation == "kip-966") cluster["features"] = {{"eligible.leader.replicas.version", 1}};
  return {{"format", "isrcheck-scenario"},
          {"version", 1},
          {"name", name},
          {"cluster", cluster},
          {"topic", {{"name", name}, {"partitions", 1}, {"replication_factor", kNodes}, {"replicas", {0, 1, 2}},
                     {"config", topic_config}}},
          {"clients",
           {{"producer", {{"acks", c.acks}, {"enable.idempotence", false}, {"retries", 0},
                          {"max.in.flight.requests.per.connection", 1}}},
            {"consumer", {{"enabled", true}, {"isolation.level", "read_uncommitted"}}}}},
          {"source", {{"model", "partition"}, {"engine", "campaign"}, {"model_config", model_config}}},
          {"initial", {{"until", json::object()}}},
          {"steps", json::array()},
          {"expected", {{"final", json::object()}}}};
}

RunResult execute_run(KafkaSession& session, const CampaignConfig& c, int run, uint64_t seed, RunResult* partial) {
  RunResult local;
  RunResult& r = partial != nullptr ? *partial : local;
  r = RunResult{};
  r.run = run;
  r.seed = seed;
  r.schedule = make_schedule(c, seed);
  const std::string version = session.options().kafka_version;
  const std::string name = "campaign-run-" + std::to_string(run);
  const json scenario = run_scenario_json(c, r.schedule, name, version);
  r.header = counterexamples::recording_header(scenario, version);
  json schedule = json::array();
  for (const ScheduledOp& op : r.schedule) schedule.push_back(to_json(op));
  r.header["campaign"] = {{"run", run}, {"seed", std::to_string(seed)}, {"config", to_json(c)}, {"schedule", schedule}};
  r.header["complete"] = false;

  const auto started = Clock::now();
  // Event times count from the end of the set-up (cluster start or reuse, the topic,
  // the producer), so that a timeline shows the run, not the cluster's start.
  auto origin = started;
  auto ms = [&] { return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - origin).count(); };
  std::unique_ptr<RealKafkaCluster> cluster;
  std::size_t notes_seen = 0;
  int step = 0;
  long long t_start = 0;
  auto add = [&](json event) {
    // The adapter's notes first, but not its "no scenario step" line: a campaign has no
    // steps, so no call is steered (docs/campaign.md).
    const std::vector<std::string>& notes = cluster->notes();
    for (; notes_seen < notes.size(); ++notes_seen) {
      if (notes[notes_seen].find("matches no remaining scenario step") != std::string::npos) continue;
      r.events.push_back({{"seq", r.events.size() + 1}, {"kind", "note"}, {"step", step}, {"text", notes[notes_seen]}});
    }
    json line = {{"seq", r.events.size() + 1}};
    line.update(event);
    line["step"] = step;
    line["t_start_ms"] = t_start;
    line["t_end_ms"] = ms();
    r.events.push_back(std::move(line));
  };
  // The send table of an observation in the recording's words (mapped_answer).
  auto observation = [&](const cut::PartitionObservation& o) {
    json state = counterexamples::recorded_observation(o, kUnknownObservable);
    json sends = json::object();
    const json raw_sends = cluster->last_describe().value("sends", json::object());
    for (const auto& [record, raw] : raw_sends.items())
      sends[record] = mapped_answer(raw.is_string() ? raw.get<std::string>() : "?");
    state["sends"] = sends;
    return state;
  };
  auto sample = [&] {
    t_start = ms();
    const cut::PartitionObservation o = cluster->describe_partition();
    add({{"kind", "sample"}, {"state", observation(o)}});
  };
  // A send the client saw time out (REQUEST_TIMED_OUT, at once or after `pending`): the
  // client's request.timeout.ms is the model's ProduceTimeout, and the harness does not
  // know when the broker read the request (spec/partition/produce.cc: the model's Produce
  // is the broker handling it). So the send and its timeout are recorded as one `group`,
  // which stays open through the release (resume, heal) of every node that held
  // requests when it was sent (paused, or cut from clients: the request waits in its
  // socket or proxy and is read after the client gave up). docs/campaign.md.
  int groups = 0;
  int open_group = 0;
  int lost_answers = 0;  // acks=1 sends recorded with a lost answer
  std::set<int> group_waits_for;  // nodes whose release closes open_group
  std::set<int> holding;          // paused or cut from clients now
  auto add_grouped = [&](json event) {
    if (open_group > 0) event["group"] = open_group;
    add(std::move(event));
  };
  // After a fault ends: two describes in a row that agree (at most stable_budget) are a
  // partition at rest, recorded as a validated observation; else a sample.
  auto observe_if_stable = [&] {
    t_start = ms();
    cut::PartitionObservation o = cluster->describe_partition();
    json state = observation(o);
    const auto until = Clock::now() + std::chrono::milliseconds(5000);
    while (open_group == 0 && Clock::now() < until) {
      sleep_ms(300);
      o = cluster->describe_partition();
      json again = observation(o);
      if (again == state) {
        add({{"kind", "observe"}, {"condition_met", true}, {"state", state}});
        return;
      }
      state = std::move(again);
    }
    add({{"kind", "sample"}, {"state", state}});
  };
  try {
    cluster = std::make_unique<RealKafkaCluster>(session, scenario);
    r.header["campaign"]["setup_seconds"] = session.last_setup_seconds();
    origin = Clock::now();
    {
      // The wall-clock time of t = 0, to find a run's events in the brokers' logs.
      const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
      std::tm utc{};
      gmtime_r(&now, &utc);
      char text[32];
      std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
      r.header["campaign"]["t0_utc"] = text;
    }
    t_start = ms();
    add({{"kind", "observe"}, {"condition_met", true}, {"state", observation(cluster->describe_partition())}});
    for (std::size_t i = 0; i < r.schedule.size(); ++i) {
      const ScheduledOp& op = r.schedule[i];
      ++step;
      sleep_ms(op.gap_ms);
      t_start = ms();
      bool released = false;
      if (op.op == "produce") {
        try {
          cluster->produce(op.record, 0);
        } catch (const UnexpectedAnswer&) {
          // An answer outside the vocabulary: recorded through mapped_answer below.
        }
        std::string raw = cluster->last_send_answer();
        std::string final_raw = raw;
        if (raw == "pending") {
          // Unanswered within the harness's wait: awaited to its end (delivery.timeout.ms).
          try {
            cluster->expire_send(op.record);
          } catch (const UnexpectedAnswer&) {
          }
          final_raw = cluster->last_send_answer();
        }
        const std::string outcome = mapped_answer(final_raw);
        if (outcome == "REQUEST_TIMED_OUT") {
          if (open_group == 0) {
            open_group = ++groups;
            group_waits_for = holding;
          }
          if (c.acks == "1") {
            // acks=1: the leader answers at the append, so a send it handled but whose
            // answer the client never had is the model's Produce with a lost answer
            // (spec/partition/produce.cc: appended, outcome timed out), one event; the
            // run's model configuration allows one such loss per timed-out send.
            add_grouped({{"kind", "client"}, {"op", "produce"}, {"record", op.record}, {"broker", nullptr},
                         {"response_lost", true}, {"outcome", outcome}, {"answer", final_raw}});
            ++lost_answers;
          } else {
            add_grouped({{"kind", "client"}, {"op", "produce"}, {"record", op.record}, {"broker", nullptr},
                         {"response_lost", false}, {"outcome", outcome}, {"answer", raw}});
            add_grouped({{"kind", "client"}, {"op", "expire_send"}, {"record", op.record}, {"outcome", outcome},
                         {"answer", final_raw}});
          }
          if (group_waits_for.empty()) open_group = 0;
        } else {
          add_grouped({{"kind", "client"}, {"op", "produce"}, {"record", op.record}, {"broker", nullptr},
                       {"response_lost", false}, {"outcome", mapped_answer(raw)}, {"answer", raw}});
        }
      } else {
        if (op.op == "crash") cluster->crash(op.node, crash_kind_of(op.crash_kind), std::nullopt);
        else if (op.op == "restart") cluster->restart(op.node);
        else if (op.op == "pause") cluster->pause(op.node);
        else if (op.op == "resume") cluster->resume(op.node);
        else if (op.op == "cut") cluster->cut(op.node, side_of(op.side));
        else if (op.op == "heal") cluster->heal(op.node, side_of(op.side));
        json event = {{"kind", "fault"}, {"op", op.op}, {"node", op.node}};
        if (!op.crash_kind.empty()) event["crash_kind"] = op.crash_kind;
        if (!op.side.empty()) event["side"] = op.side;
        add_grouped(event);
        if (op.op == "crash" || op.op == "pause" || op.op == "cut") ++r.faults_injected;
        if (op.op == "pause" || (op.op == "cut" && op.side == "clients")) holding.insert(op.node);
        if (op.op == "resume" || (op.op == "heal" && op.side == "clients") || op.op == "crash") {
          holding.erase(op.node);
          group_waits_for.erase(op.node);
          if (open_group > 0 && group_waits_for.empty()) open_group = 0;
        }
        released = op.op == "restart" || op.op == "resume" || op.op == "heal";
      }
      // At rest after a fault ends, and after a send that another send follows; a fault
      // that follows a send comes after the seeded gap only (a kill before the followers
      // fetched is what loses acks=1 records), so there the partition is only sampled.
      const bool send_follows = op.op == "produce" && i + 1 < r.schedule.size() && r.schedule[i + 1].op == "produce";
      if (released || send_follows) observe_if_stable();
      else sample();
    }
    open_group = 0;
    // The end: quiet, then a bounded wait for a settled partition, observed.
    step = -1;
    sleep_ms(c.quiet_ms);
    t_start = ms();
    const auto deadline = Clock::now() + std::chrono::milliseconds(c.settle_timeout_ms);
    cut::PartitionObservation last = cluster->describe_partition();
    while (!settled(last) && Clock::now() < deadline) {
      sleep_ms(500);
      last = cluster->describe_partition();
    }
    r.settled = settled(last);
    const json final_state = observation(last);
    add({{"kind", "observe"}, {"condition_met", r.settled}, {"state", final_state}});
    // Read everything back from the leader, offset by offset, until nothing is readable.
    const json leader = last.leader >= 0 ? json(last.leader) : json();
    for (int offset = 0; offset <= spec::kMaxLog; ++offset) {
      t_start = ms();
      const std::optional<int> read = cluster->consume(offset, std::max(last.leader, 0));
      add({{"kind", "client"}, {"op", "consume"}, {"offset", offset}, {"broker", leader},
           {"read", read ? json(*read) : json()}});
      if (!read) break;
      r.read_back.push_back(*read);
    }
    const json final_sends = final_state.value("sends", json::object());
    for (const auto& [record, status] : final_sends.items())
      if (status == "acked") r.acked.push_back(std::stoi(record));
    std::sort(r.acked.begin(), r.acked.end());
    for (int a : r.acked)
      if (std::find(r.read_back.begin(), r.read_back.end(), a) == r.read_back.end()) r.lost.push_back(a);
    r.complete = true;
  } catch (const Interrupted&) {
    r.interrupted = true;
    r.error = "interrupted";
  } catch (const std::exception& e) {
    r.error = std::string("step ") + std::to_string(step) + ": " + e.what();
  }
  // Before the cluster is torn down or reused: its metadata log is the next run's too.
  // Only after a run that finished (as conform reads only after a run that did not
  // fail): after a driver error the driver may be gone, and a read would start another.
  if (cluster && r.complete) {
    try {
      add_decisions(r, scenario, [&] { return cluster->metadata_decisions(); });
    } catch (const Interrupted&) {
      r.interrupted = true;
      if (r.error.empty()) r.error = "interrupted";
    }
  }
  r.header["complete"] = r.complete;
  if (lost_answers > 0) {
    // Known only now: the model configuration allows exactly the answers the run lost.
    json doc = r.header["model_config"];
    doc["faults"]["max_lost_produce_responses"] = lost_answers;
    r.header["model_config"] = spec::to_json(spec::load_config(&doc, {}));
  }
  if (!r.error.empty()) r.header["campaign"]["error"] = r.error;
  r.run_seconds = std::chrono::duration<double>(Clock::now() - started).count();
  cluster.reset();  // its destructor undoes nothing the session does not (KafkaSession::restore)
  if (r.interrupted) throw Interrupted();
  return r;
}

void add_decisions(RunResult& r, const json& scenario, const std::function<std::vector<json>()>& read) {
  if (zookeeper_scenario(scenario)) return;
  try {
    const std::vector<json> decisions = read();
    const counterexamples::MergedRecording merged = counterexamples::merge_decisions(r.events, decisions);
    r.events = merged.events;
    r.header["decisions"] = {{"source", "__cluster_metadata"}, {"count", decisions.size()},
                             {"groups", merged.groups}, {"left_out", merged.left_out}};
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    // DriverError, or an answer the driver should not give: the run stays as recorded.
    r.header["decisions"] = {{"source", "__cluster_metadata"}, {"error", e.what()}};
  }
}

RunResult run_from_recording(const json& header, const std::vector<json>& events) {
  RunResult r;
  r.header = header;
  r.events = events;
  const json campaign = header.value("campaign", json::object());
  r.run = campaign.value("run", 0);
  try {
    r.seed = std::stoull(campaign.value("seed", std::string("0")));
  } catch (const std::exception&) {
    r.seed = 0;
  }
  r.complete = header.value("complete", false);
  r.error = campaign.value("error", "");
  json final_sends = json::object();
  for (const json& e : events) {
    const std::string kind = e.value("kind", ""), op = e.value("op", "");
    if (kind == "fault" && (op == "crash" || op == "pause" || op == "cut")) ++r.faults_injected;
    if (kind == "observe") {
      final_sends = e.value("state", json::object()).value("sends", json::object());
      r.settled = e.value("condition_met", false);
    }
    if (kind == "client" && op == "consume" && e.value("read", json()).is_number_integer())
      r.read_back.push_back(e["read"].get<int>());
  }
  for (const auto& [record, status] : final_sends.items())
    if (status == "acked") r.acked.push_back(std::stoi(record));
  std::sort(r.acked.begin(), r.acked.end());
  for (int a : r.acked)
    if (std::find(r.read_back.begin(), r.read_back.end(), a) == r.read_back.end()) r.lost.push_back(a);
  // The latest harness time: a decision, which may come last, has none.
  long long end_ms = 0;
  for (const json& e : events) end_ms = std::max(end_ms, e.value("t_end_ms", 0LL));
  r.run_seconds = end_ms / 1000.0;
  return r;
}

void validate_run(RunResult& r, const ValidateRunOptions& options) {
  const auto started = Clock::now();
  counterexamples::Recording recording;
  recording = counterexamples::parse_recording(counterexamples::recording_text(r.header, r.events));
  const json& named = recording.header["model_config"];
  const spec::Config config = spec::load_config(&named, {});
  analysis::ValidateOptions o;
  o.max_internal = options.max_internal;
  o.max_states = options.max_states;
  o.stop = options.stop;
  r.validation = analysis::validate_recording(recording, config, o);
  r.max_internal_used = options.max_internal;
  using V = analysis::ValidationResult::Verdict;
  if (r.validation.verdict == V::Unexplained && options.retry_max_internal > options.max_internal) {
    // A larger bound can only explain more (docs/validation.md): retried once.
    o.max_internal = options.retry_max_internal;
    analysis::ValidationResult again = analysis::validate_recording(recording, config, o);
    r.retry = {{"max_internal", options.retry_max_internal},
               {"verdict", analysis::verdict_name(again.verdict)},
               {"event_seq", again.event_seq},
               {"states_kept", again.states_kept}};
    // The retry's verdict replaces the first when it says more: explained, or
    // unexplained at a later event. An incomplete retry (--max-states) keeps the first.
    if (again.verdict == V::Explained || (again.verdict == V::Unexplained && again.event_seq > r.validation.event_seq)) {
      r.validation = std::move(again);
      r.max_internal_used = options.retry_max_internal;
    }
  }
  r.validated = true;
  r.validate_seconds = std::chrono::duration<double>(Clock::now() - started).count();
}

}  // namespace isr::conformance::campaign
