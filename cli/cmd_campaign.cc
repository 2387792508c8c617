// `isrcheck campaign --out DIR [--config F] [--set k=v]... [--seed N] [--runs N]
// [--duration D] [--kafka-version V] [--max-internal N]`: randomized fault campaigns on a
// real 3-node Kafka cluster, every run recorded and validated with the model
// (docs/campaign.md). Writes per run DIR/run-NNNN.jsonl (the recording), .html (its
// timeline) and, when explained, .trace.json (the model's run of it); DIR/campaign.json
// and DIR/index.html after every run. Exit: 0 every run explained, 1 a run the model
// cannot explain, 2 bad input, 3 interrupted (the runs done are reported, no JVM left),
// 4 internal error.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <csignal>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/campaign_timeline.h"
#include "cli/commands.h"
#include "cli/run_support.h"
#include "conformance/campaign/campaign_config.h"
#include "conformance/campaign/campaign_run.h"
#include "conformance/campaign/fault_schedule.h"
#include "conformance/driver.h"
#include "conformance/driver_command.h"
#include "conformance/kafka_session.h"
#include "counterexamples/scenario/recording.h"
#include "io/config_error.h"
#include "io/files.h"

namespace isr::cli {
namespace {

namespace fs = std::filesystem;
namespace cc = conformance::campaign;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

struct CampaignOptions {
  std::string config_file;
  std::vector<std::string> overrides;
  std::string seed = "1";
  std::string runs;
  std::string duration;
  std::string out;
  std::string kafka_version = "4.4.0";
  std::string driver;
  std::string work_dir;
  int max_internal = 8;
  int retry_max_internal = 12;
  std::string max_states = "300000";
  bool plan_only = false;
  std::string timeline;  // --timeline RUN.jsonl: re-validate and re-draw one recorded run
};

extern "C" void on_campaign_signal(int) { conformance::interrupt_flag().store(true); }

// SIGINT and SIGTERM end the campaign in order: the run in progress stops at its next
// call, the driver and every node JVM are stopped, the runs done are reported.
class CampaignSignalGuard {
 public:
  CampaignSignalGuard() {
    conformance::interrupt_flag().store(false);
    int_ = std::signal(SIGINT, on_campaign_signal);
    term_ = std::signal(SIGTERM, on_campaign_signal);
  }
  ~CampaignSignalGuard() {
    std::signal(SIGINT, int_);
    std::signal(SIGTERM, term_);
  }

 private:
  void (*int_)(int);
  void (*term_)(int);
};

std::string run_file(int run, const std::string& suffix) {
  std::ostringstream s;
  s << "run-" << std::setw(4) << std::setfill('0') << run << suffix;
  return s.str();
}

std::string minutes(double seconds) {
  const long s = static_cast<long>(seconds);
  return std::to_string(s / 60) + "m" + (s % 60 < 10 ? "0" : "") + std::to_string(s % 60) + "s";
}

uint64_t parse_seed(const std::string& text) {
  const bool digits = !text.empty() && text.size() <= 20 && text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits) throw UsageError("--seed", "\"" + text + "\" is not allowed (an integer from 0 to 2^64-1)");
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    throw UsageError("--seed", "\"" + text + "\" is not allowed (an integer from 0 to 2^64-1)");
  }
}

void run_campaign(const CampaignOptions& o) {
  // Every input is checked before a cluster starts: bad input exits 2 at once.
  json document;
  if (!o.config_file.empty()) document = io::files::read_config_file(o.config_file);
  const cc::CampaignConfig config = cc::load_campaign_config(o.config_file.empty() ? nullptr : &document, o.overrides);
  const uint64_t seed = parse_seed(o.seed);
  long long max_runs = -1;
  if (!o.runs.empty()) {
    const bool digits = o.runs.size() <= 6 && !o.runs.empty() && o.runs.find_first_not_of("0123456789") == std::string::npos;
    max_runs = digits ? std::stoll(o.runs) : -1;
    if (max_runs < 1 || max_runs > 100000) throw UsageError("--runs", o.runs + " is not allowed (an integer from 1 to 100000)");
  }
  std::chrono::nanoseconds duration{0};
  if (!o.duration.empty()) duration = parse_duration(o.duration, "--duration");
  if (max_runs < 0 && o.duration.empty() && o.timeline.empty()) {
    throw UsageError("--runs", "missing: give --runs N, --duration D (10m, 1h), or both (whichever ends first)");
  }
  if (o.max_internal < analysis::kMinMaxInternal || o.max_internal > analysis::kMaxMaxInternal) {
    throw UsageError("--max-internal", std::to_string(o.max_internal) + " is not allowed (an integer from 0 to 64)");
  }
  if (o.retry_max_internal < 0 || o.retry_max_internal > analysis::kMaxMaxInternal) {
    throw UsageError("--retry-max-internal",
                     std::to_string(o.retry_max_internal) + " is not allowed (an integer from 0 to 64; 0: no retry)");
  }
  const uint64_t max_states = parse_size(o.max_states, "--max-states");
  if (max_states == 0) throw UsageError("--max-states", "0 is not allowed (at least 1 state)");
  if (o.out.empty()) throw UsageError("--out", "missing: the directory the recordings and timelines go to");
  check_output_directory(o.out, "--out");

  if (!o.timeline.empty()) {
    // One recorded run, validated again (perhaps at another bound) and drawn again.
    counterexamples::Recording parsed;
    std::string text;
    try {
      text = io::files::read_file(o.timeline);
      parsed = counterexamples::parse_recording(text);
    } catch (const std::exception& e) {
      throw UsageError(o.timeline, e.what());
    }
    std::vector<json> events;
    for (const auto& e : parsed.events) events.push_back(e.raw);
    cc::RunResult r = cc::run_from_recording(parsed.header, events);
    CampaignSignalGuard signals;
    cc::ValidateRunOptions vopts;
    vopts.max_internal = o.max_internal;
    vopts.retry_max_internal = o.retry_max_internal;
    vopts.max_states = max_states;
    vopts.stop = &conformance::interrupt_flag();
    try {
      cc::validate_run(r, vopts);
    } catch (const io::ConfigError& e) {
      throw UsageError(o.timeline + ": model_config." + e.field, e.what());
    }
    const std::string stem = fs::path(o.timeline).stem().string();
    json summary = r.summary();
    write_text((fs::path(o.out) / (stem + ".html")).string(), "--out",
               analysis::render_run_timeline(r.header, r.events, summary));
    using V = analysis::ValidationResult::Verdict;
    std::cout << stem << ": " << r.faults_injected << " faults, " << r.acked.size() << " acked, " << r.lost.size()
              << " acked lost, " << analysis::verdict_name(r.validation.verdict);
    if (r.validation.verdict != V::Explained) std::cout << " at event " << r.validation.event_seq << " (" << r.validation.event << ")";
    std::cout << " at " << r.max_internal_used << " internal [" << fixed(r.validate_seconds, 1) << " s validate]; "
              << (fs::path(o.out) / (stem + ".html")).string() << "\n";
    set_exit_code(r.validation.verdict == V::Explained ? 0 : r.validation.verdict == V::Unexplained ? 1 : 3);
    return;
  }
  if (o.plan_only) {
    // The schedules alone, no cluster: what a seed does (same seed, same schedule).
    const long long n = max_runs < 0 ? 1 : max_runs;
    json plans = json::array();
    for (int run = 1; run <= n; ++run) {
      const uint64_t s = cc::run_seed(seed, run);
      json ops = json::array();
      for (const cc::ScheduledOp& op : cc::make_schedule(config, s)) ops.push_back(cc::to_json(op));
      plans.push_back({{"run", run}, {"seed", std::to_string(s)}, {"schedule", ops}});
      std::cout << "run " << run << " (seed " << s << "):";
      for (const cc::ScheduledOp& op : cc::make_schedule(config, s)) std::cout << " [" << op.gap_ms << " ms] " << cc::op_text(op) << ";";
      std::cout << "\n";
    }
    write_json((fs::path(o.out) / "plan.json").string(), "--out",
               {{"config", cc::to_json(config)}, {"seed", std::to_string(seed)}, {"runs", plans}});
    return;
  }

  conformance::KafkaOptions kafka;
  kafka.kafka_version = o.kafka_version;
  try {
    kafka.driver_command = conformance::read_driver_command(conformance::driver_location(o.driver));
  } catch (const std::invalid_argument& e) {
    throw UsageError("--driver", e.what());
  }
  kafka.work_root = o.work_dir.empty()
                        ? (fs::temp_directory_path() / ("isrcheck-campaign-" + std::to_string(::getpid()))).string()
                        : o.work_dir;

  CampaignSignalGuard signals;
  conformance::KafkaSession session(kafka);
  cc::ValidateRunOptions vopts;
  vopts.max_internal = o.max_internal;
  vopts.retry_max_internal = o.retry_max_internal;
  vopts.max_states = max_states;
  vopts.stop = &conformance::interrupt_flag();

  const auto started = Clock::now();
  const auto cpu_started = std::clock();
  json campaign = {{"config", cc::to_json(config)},
                   {"seed", std::to_string(seed)},
                   {"kafka_version", o.kafka_version},
                   {"runs", json::array()}};
  json totals = {{"runs", 0},  {"explained", 0}, {"unexplained", 0}, {"incomplete", 0},
                 {"faults_injected", 0}, {"acked", 0}, {"lost", 0}, {"wall_seconds", 0}};
  bool interrupted_run = false;
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - started).count(); };
  auto write_campaign = [&] {
    totals["wall_seconds"] = std::round(elapsed());
    totals["cpu_seconds"] = std::round(static_cast<double>(std::clock() - cpu_started) / CLOCKS_PER_SEC);
    campaign["totals"] = totals;
    campaign["interrupted"] = interrupted_run;
    write_json((fs::path(o.out) / "campaign.json").string(), "--out", campaign);
    write_text((fs::path(o.out) / "index.html").string(), "--out", analysis::render_campaign_page(campaign));
  };
  std::cout << "campaign: " << cc::short_name(config) << ", seed " << seed << ", Kafka " << o.kafka_version
            << (max_runs > 0 ? ", " + std::to_string(max_runs) + " runs" : "")
            << (o.duration.empty() ? "" : ", for " + o.duration) << "; output in " << o.out << "\n";
  for (int run = 1; max_runs < 0 || run <= max_runs; ++run) {
    if (!o.duration.empty() && Clock::now() - started >= duration) break;
    const uint64_t s = cc::run_seed(seed, run);
    cc::RunResult r;
    try {
      cc::execute_run(session, config, run, s, &r);
    } catch (const conformance::Interrupted&) {
      interrupted_run = true;
    }
    if (!interrupted_run && !r.events.empty()) {
      try {
        cc::validate_run(r, vopts);
      } catch (const std::invalid_argument& e) {
        r.error += (r.error.empty() ? "" : "; ") + std::string("recording not valid: ") + e.what();
      }
      if (conformance::interrupt_flag().load()) interrupted_run = true;
    }
    const std::string base = (fs::path(o.out) / run_file(run, "")).string();
    if (!r.events.empty()) {
      write_text(base + ".jsonl", "--out", counterexamples::recording_text(r.header, r.events));
    }
    json summary = r.summary();
    summary["page"] = run_file(run, ".html");
    summary["recording"] = run_file(run, ".jsonl");
    using V = analysis::ValidationResult::Verdict;
    if (r.validated && r.validation.verdict == V::Explained) {
      write_text(base + ".trace.json", "--out", r.validation.trace.dump(1) + "\n");
      summary["trace"] = run_file(run, ".trace.json");
    }
    write_text(base + ".html", "--out", analysis::render_run_timeline(r.header, r.events, summary));
    campaign["runs"].push_back(summary);
    totals["runs"] = totals["runs"].get<int>() + 1;
    const std::string verdict = r.validated ? analysis::verdict_name(r.validation.verdict) : "not validated";
    if (verdict == "explained") totals["explained"] = totals["explained"].get<int>() + 1;
    else if (verdict == "unexplained") totals["unexplained"] = totals["unexplained"].get<int>() + 1;
    else totals["incomplete"] = totals["incomplete"].get<int>() + 1;
    totals["faults_injected"] = totals["faults_injected"].get<int>() + r.faults_injected;
    totals["acked"] = totals["acked"].get<int>() + static_cast<int>(r.acked.size());
    totals["lost"] = totals["lost"].get<int>() + static_cast<int>(r.lost.size());
    write_campaign();
    std::cout << "run " << run << " (seed " << s << "): " << r.faults_injected << " faults, "
              << r.acked.size() << " acked, " << r.lost.size() << " acked lost, " << verdict;
    if (r.validated && r.validation.verdict != V::Explained)
      std::cout << " at event " << r.validation.event_seq << " (" << r.validation.event << ")";
    if (r.validated) std::cout << " at " << r.max_internal_used << " internal";
    if (!r.error.empty()) std::cout << "; ended early: " << r.error;
    std::cout << " [" << fixed(r.run_seconds, 1) << " s run, " << fixed(r.validate_seconds, 1) << " s validate] | "
              << totals["runs"].get<int>() << " runs, " << totals["unexplained"].get<int>() << " unexplained, "
              << totals["lost"].get<int>() << " acked lost, " << minutes(elapsed())
              << (o.duration.empty() ? "" : " of " + o.duration) << std::endl;
    if (interrupted_run) break;
  }
  session.stop();  // the driver and every node JVM, before reporting
  write_campaign();
  std::cout << (interrupted_run ? "interrupted after " : "done: ") << totals["runs"].get<int>() << " run(s), "
            << totals["explained"].get<int>() << " explained, " << totals["unexplained"].get<int>()
            << " unexplained, " << totals["incomplete"].get<int>() << " incomplete; "
            << totals["faults_injected"].get<int>() << " faults injected, " << totals["acked"].get<int>()
            << " acked records checked, " << totals["lost"].get<int>() << " lost; " << minutes(elapsed())
            << (interrupted_run ? " (incomplete)" : "") << "; " << (fs::path(o.out) / "index.html").string() << "\n";
  set_exit_code(interrupted_run ? 3 : totals["unexplained"].get<int>() > 0 ? 1 : 0);
}

}  // namespace

void add_campaign_command(CLI::App& app) {
  auto o = std::make_shared<CampaignOptions>();
  CLI::App* command = app.add_subcommand(
      "campaign", "Randomized fault campaigns on a real 3-node Kafka cluster, every run validated (docs/campaign.md)");
  command->add_option("--out", o->out, "Directory for the recordings, timelines and campaign.json")->required();
  command->add_option("--config", o->config_file, "Campaign configuration (JSON; keys as docs/campaign.md lists)");
  command->add_option("--set", o->overrides, "key=value over the configuration (acks=1, faults.kill=3)");
  command->add_option("--seed", o->seed, "Campaign seed (same seed: same fault schedules)")->capture_default_str();
  command->add_option("--runs", o->runs, "Number of runs");
  command->add_option("--duration", o->duration, "Run until this much time has passed (10m, 1h)");
  command->add_option("--kafka-version", o->kafka_version, "Kafka release to run")
      ->check(CLI::IsMember(std::vector<std::string>{"4.4.0", "3.9.1"}))
      ->capture_default_str();
  command->add_option("--driver", o->driver, "The conformance driver (as isrcheck conform --driver)");
  command->add_option("--work-dir", o->work_dir, "Where the cluster's directories go (default: under $TMPDIR)");
  command->add_option("--max-internal", o->max_internal, "Validation: internal model actions between two events")
      ->capture_default_str();
  command->add_option("--retry-max-internal", o->retry_max_internal,
                      "Validation: the bound an unexplained run is retried at (0: no retry)")
      ->capture_default_str();
  command->add_option("--max-states", o->max_states, "Validation: model states kept per run before giving up")
      ->capture_default_str();
  command->add_option("--timeline", o->timeline,
                      "Validate one recorded run (DIR/run-NNNN.jsonl) again and write its timeline to --out; start no "
                      "cluster");
  command->add_flag("--plan", o->plan_only, "Print and write (DIR/plan.json) the runs' fault schedules; start no cluster");
  command->callback([o] { run_campaign(*o); });
}

}  // namespace isr::cli
