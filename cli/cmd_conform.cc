// `isrcheck conform SCENARIO_OR_TRACE... [--kafka-version V] [--keep-logs DIR] [--json F]`:
// runs scenarios (a trace is exported to its scenario first) against a real Apache Kafka
// cluster started by the conformance driver, and compares every observation with the
// model's prediction (docs/conformance.md). Exit: 0 all conform (or are not executable
// here), 1 a divergence, 2 bad input, 3 interrupted, 4 internal error.
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/run_support.h"
#include "conformance/conform.h"
#include "conformance/driver.h"
#include "conformance/driver_command.h"
#include "conformance/real_kafka_cluster.h"
#include "counterexamples/export/export_scenario.h"
#include "counterexamples/scenario/recording.h"
#include "counterexamples/scenario/scenario_reader.h"
#include "counterexamples/scenario/scenario_validation.h"
#include "counterexamples/trace/trace_model.h"

namespace isr::cli {
namespace {

namespace fs = std::filesystem;

struct ConformOptions {
  std::vector<std::string> inputs;
  std::string kafka_version = "4.4.0";
  std::string keep_logs;
  std::string json_out;
  std::string record_dir;  // --record: one recording (JSON lines) per scenario
  std::string driver;     // file with the driver command line
  std::string work_dir;   // empty: a fresh directory under the temp dir
  std::string wait_timeout = "20s";
  bool no_reuse = false;
};

// 4.4.0 and 3.9.1 run in CI; the older releases (ZooKeeper mode only, issue 28 item 5)
// are those docs/conformance.md's release table shows running here with the 4.4 driver
// (KIP-896: its kafka-clients talk to brokers from 2.1 on).
const char* const kKafkaVersions[] = {"4.4.0", "3.9.1", "3.5.2", "3.4.1", "2.7.2", "2.6.3"};

extern "C" void on_conform_signal(int) { conformance::interrupt_flag().store(true); }

// SIGINT and SIGTERM both end the run in order (the driver and its nodes stopped).
class SignalGuard {
 public:
  SignalGuard() {
    conformance::interrupt_flag().store(false);
    int_ = std::signal(SIGINT, on_conform_signal);
    term_ = std::signal(SIGTERM, on_conform_signal);
  }
  ~SignalGuard() {
    std::signal(SIGINT, int_);
    std::signal(SIGTERM, term_);
  }

 private:
  void (*int_)(int);
  void (*term_)(int);
};

// The scenario of an input file: a scenario as is, a trace exported first.
nlohmann::json load_input(const std::string& path) {
  using namespace counterexamples;
  nlohmann::json doc;
  try {
    doc = read_trace_file(path);
  } catch (const TraceFormatError& e) {
    throw UsageError(path, e.message);
  }
  if (is_trace_document(doc)) {
    try {
      check_trace_of_model(doc);
      return nlohmann::json(trace_to_scenario(doc, fs::path(path).stem().string()));
    } catch (const TraceFormatError& e) {
      throw UsageError(path + ": " + e.field, e.message);
    }
  }
  try {
    validate_scenario(doc);
  } catch (const std::invalid_argument& e) {
    throw UsageError(path, e.what());
  }
  return doc;
}

// Keeps the broker logs and configs of a run (not the partition data) under `dir`.
void keep_logs(const std::string& work_dir, const std::string& dir, const std::string& name) {
  if (work_dir.empty() || !fs::exists(work_dir)) return;
  const fs::path target = fs::path(dir) / name;
  std::error_code ec;
  fs::create_directories(target, ec);
  for (auto it = fs::recursive_directory_iterator(work_dir, ec); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path rel = fs::relative(it->path(), work_dir, ec);
    const std::string first = rel.begin() != rel.end() ? rel.begin()->string() : "";
    if (it->is_directory() && (it->path().filename() == "data" || it->path().filename() == "metadata")) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) {
      fs::create_directories((target / rel).parent_path(), ec);
      fs::copy_file(it->path(), target / rel, fs::copy_options::overwrite_existing, ec);
    }
    (void)first;
  }
}

void print_result(const conformance::ConformResult& r, std::ostream& out) {
  using conformance::Verdict;
  out << r.name << ": ";
  switch (r.verdict) {
    case Verdict::Conforms: out << "conforms"; break;
    case Verdict::Diverges:
      out << "diverges at " << r.step_text << ": expected " << r.expected << ", observed " << r.observed;
      break;
    case Verdict::NotExecutable: out << "not executable here: " << r.reason; break;
    case Verdict::Interrupted: out << "interrupted: " << r.reason; break;
    case Verdict::Error: out << "internal error at " << r.step_text << ": " << r.reason; break;
  }
  out << "  [" << fixed(r.setup_seconds, 1) << " s setup" << (r.new_cluster ? ", new cluster" : ", cluster reused")
            << ", " << fixed(r.run_seconds, 1) << " s run, " << r.steps_run << " steps]\n";
  for (const std::string& line : r.side_by_side) out << "    " << line << "\n";
  for (const std::string& line : r.steered) out << "  steered: " << line << "\n";
}

// Writes the recorded execution of `r` as DIR/<scenario>.jsonl (docs/recording.md): the
// header says how the run ended, so a validator knows a recording that stops early.
void write_recording(const conformance::ConformResult& r, const std::string& dir, std::ostream& out) {
  if (r.recording_header.is_null()) return;  // not executable: nothing ran
  nlohmann::json header = r.recording_header;
  header["conform_verdict"] = conformance::verdict_name(r.verdict);
  header["complete"] = r.verdict == conformance::Verdict::Conforms;
  const std::string path = (fs::path(dir) / (r.name + ".jsonl")).string();
  write_text(path, "--record", counterexamples::recording_text(header, r.recording));
  out << "  recorded " << r.recording.size() << " events in " << path << "\n";
}

void run_conform(const ConformOptions& options) {
  // Every input is read before any cluster starts: bad input exits 2 at once.
  std::vector<nlohmann::json> scenarios;
  for (const std::string& path : options.inputs) scenarios.push_back(load_input(path));
  if (!options.record_dir.empty()) check_output_directory(options.record_dir, "--record");
  check_output_path(options.json_out, "--json");
  // With --json - stdout carries the JSON document alone; the per-scenario lines go to stderr.
  std::ostream& out = options.json_out == "-" ? std::cerr : std::cout;

  conformance::KafkaOptions kafka;
  kafka.kafka_version = options.kafka_version;
  kafka.wait_budget = std::chrono::duration_cast<std::chrono::milliseconds>(
      parse_duration(options.wait_timeout, "--wait-timeout"));
  kafka.reuse_cluster = !options.no_reuse;
  kafka.read_metadata_log = !options.record_dir.empty();  // the controller's decisions, into each recording
  try {
    kafka.driver_command = conformance::read_driver_command(conformance::driver_location(options.driver));
  } catch (const std::invalid_argument& e) {
    throw UsageError("--driver", e.what());
  }
  kafka.work_root = options.work_dir.empty()
                        ? (fs::temp_directory_path() / ("isrcheck-conform-" + std::to_string(::getpid()))).string()
                        : options.work_dir;

  SignalGuard signals;
  conformance::KafkaSession session(kafka);
  nlohmann::json report = nlohmann::json::array();
  int worst = 0;
  bool interrupted_run = false;
  for (const nlohmann::json& scenario : scenarios) {
    conformance::ConformResult r;
    try {
      conformance::run_scenario(session, scenario, &r);
    } catch (const conformance::Interrupted&) {
      interrupted_run = true;
    }
    print_result(r, out);
    if (!options.record_dir.empty()) write_recording(r, options.record_dir, out);
    out.flush();
    if (!options.keep_logs.empty() && r.verdict != conformance::Verdict::Conforms &&
        r.verdict != conformance::Verdict::NotExecutable) {
      keep_logs(r.work_dir, options.keep_logs, r.name);
      out << "  logs kept in " << (fs::path(options.keep_logs) / r.name).string() << "\n";
    }
    report.push_back(r.to_json());
    if (r.verdict == conformance::Verdict::Diverges) worst = std::max(worst, 1);
    if (r.verdict == conformance::Verdict::Error) worst = 4;
    if (interrupted_run) break;
  }
  session.stop();  // the driver and every node JVM, before reporting
  if (interrupted_run) {
    out << "interrupted after " << report.size() << " of " << scenarios.size() << " scenario(s)\n";
  }
  if (!options.json_out.empty()) {
    write_json(options.json_out, "--json",
               {{"kafka_version", options.kafka_version}, {"interrupted", interrupted_run}, {"scenarios", report}});
  }
  set_exit_code(interrupted_run ? 3 : worst);
}

}  // namespace

void add_conform_command(CLI::App& app) {
  auto options = std::make_shared<ConformOptions>();
  CLI::App* command = app.add_subcommand(
      "conform", "Run scenarios (or traces) against a real Apache Kafka cluster and compare (docs/conformance.md)");
  command->add_option("inputs", options->inputs, "Scenario or trace JSON files")->required();
  command->add_option("--kafka-version", options->kafka_version, "Kafka release to run")
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(kKafkaVersions), std::end(kKafkaVersions))))
      ->capture_default_str();
  command->add_option("--keep-logs", options->keep_logs, "Keep the broker logs of every scenario that does not conform here");
  command->add_option("--json", options->json_out, "Write the results as JSON; - for stdout");
  command->add_option("--record", options->record_dir,
                      "Write each scenario's recorded execution to DIR/<scenario>.jsonl (docs/recording.md), "
                      "for isrcheck validate");
  command->add_option("--driver", options->driver,
                      "The directory scripts/install-kafka.sh builds the driver in, or a file with the driver's "
                      "command line, one argument per line (default: $ISRCHECK_KAFKA_DRIVER, else conformance/ next "
                      "to the isrcheck binary, i.e. build/conformance, else build/conformance under the current "
                      "directory)");
  command->add_option("--work-dir", options->work_dir, "Where the clusters' directories go (default: under $TMPDIR)");
  command->add_option("--wait-timeout", options->wait_timeout, "Budget of one wait for an observable state")
      ->capture_default_str();
  command->add_flag("--no-reuse", options->no_reuse, "Start a new cluster for every scenario");
  command->callback([options] { run_conform(*options); });
}

}  // namespace isr::cli
