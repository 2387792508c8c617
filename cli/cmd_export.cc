// `isrcheck export TRACE --format scenario|gtest|itf [--out FILE]`: turns a trace into
// an implementation-neutral scenario (JSON), a GoogleTest file driving that scenario
// through ClusterUnderTest, or an Informal Trace Format file (docs/scenarios.md).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/run_support.h"
#include "counterexamples/export/export_gtest.h"
#include "counterexamples/export/export_itf.h"
#include "counterexamples/export/export_scenario.h"
#include "counterexamples/scenario/scenario_format.h"
#include "counterexamples/scenario/scenario_writer.h"
#include "counterexamples/trace/trace_model.h"

namespace isr::cli {
namespace {

struct ExportOptions {
  std::string trace_file;
  std::string format = "scenario";
  std::string out;   // empty: stdout
  std::string name;  // empty: from the file name
  int records_per_send = 1;  // Kafka records per model record (one batch)
  int request_timeout_ms = 0;  // the producer's request.timeout.ms on a real cluster; 0: the harness's
  bool guard = false;          // gtest: a regression guard instead of a reproduction
  std::vector<std::string> broker_config;  // KEY=VALUE broker settings of the real cluster
};

const char* const kFormats[] = {"scenario", "gtest", "itf"};

void run_export(const ExportOptions& options) {
  using namespace counterexamples;
  const std::string& f = options.format;
  if (f != "scenario" && f != "gtest" && f != "itf") {
    throw UsageError("--format", "unknown format \"" + f + "\"; allowed: scenario, gtest, itf");
  }
  check_output_path(options.out, "--out");
  if (options.records_per_send < kMinRecordsPerSend || options.records_per_send > kMaxRecordsPerSend) {
    throw UsageError("--records-per-send", std::to_string(options.records_per_send) + " is not allowed; allowed: " +
                                               std::to_string(kMinRecordsPerSend) + " to " +
                                               std::to_string(kMaxRecordsPerSend) + " (Kafka records per model record)");
  }
  if (options.records_per_send != 1 && f == "itf") {
    throw UsageError("--records-per-send", "applies to --format scenario and gtest, not itf");
  }
  if (options.request_timeout_ms != 0 &&
      (options.request_timeout_ms < kMinRequestTimeoutMs || options.request_timeout_ms > kMaxRequestTimeoutMs)) {
    throw UsageError("--request-timeout-ms", std::to_string(options.request_timeout_ms) + " is not allowed; allowed: " +
                                                 std::to_string(kMinRequestTimeoutMs) + " to " +
                                                 std::to_string(kMaxRequestTimeoutMs) + " (milliseconds)");
  }
  if (options.request_timeout_ms != 0 && f == "itf") {
    throw UsageError("--request-timeout-ms", "applies to --format scenario and gtest, not itf");
  }
  if (options.guard && f != "gtest") throw UsageError("--guard", "applies to --format gtest only, not " + f);
  if (!options.broker_config.empty() && f == "itf") {
    throw UsageError("--broker-config", "applies to --format scenario and gtest, not itf");
  }
  std::string name = options.name;
  if (name.empty()) {
    name = std::filesystem::path(options.trace_file).stem().string();
  }
  std::string text;
  try {
    const nlohmann::json trace = load_trace(options.trace_file);
    if (f == "itf") {
      text = trace_to_itf(trace).dump(1) + "\n";
    } else {
      nlohmann::ordered_json scenario = trace_to_scenario(trace, name);
      set_records_per_send(scenario, options.records_per_send);
      if (options.request_timeout_ms != 0) set_producer_request_timeout(scenario, options.request_timeout_ms);
      for (const std::string& setting : options.broker_config) {
        try {
          set_broker_config(scenario, setting);
        } catch (const std::invalid_argument& e) {
          throw UsageError("--broker-config", e.what());
        }
      }
      text = f == "scenario" ? scenario_text(scenario)
                             : scenario_to_gtest(scenario, options.guard ? GtestKind::Guard : GtestKind::Reproduction);
    }
  } catch (const TraceFormatError& e) {
    throw UsageError(e.field == options.trace_file ? e.field : options.trace_file + ": " + e.field, e.message);
  } catch (const nlohmann::json::exception& e) {
    throw_malformed_trace(options.trace_file, e);
  }
  write_text(options.out.empty() ? "-" : options.out, "--out", text);
}

}  // namespace

void add_export_command(CLI::App& app) {
  auto options = std::make_shared<ExportOptions>();
  CLI::App* command = app.add_subcommand(
      "export", "Export a trace as a scenario for real clusters (JSON), a GoogleTest file, or ITF");
  command->add_option("trace", options->trace_file, "Trace JSON file (docs/trace-format.md)")->required();
  command->add_option("--format", options->format, "scenario, gtest or itf (docs/scenarios.md)")
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(kFormats), std::end(kFormats))))
      ->capture_default_str();
  command->add_option("--out", options->out, "Write to this file instead of stdout");
  command->add_option("--name", options->name, "Scenario name (default: the trace file's name)");
  command->add_flag("--guard", options->guard,
                    "gtest: a regression guard, failing if the hazard happens (for an implementation with the fix), "
                    "instead of a reproduction, passing where it happens (docs/scenarios.md)");
  command->add_option("--records-per-send", options->records_per_send,
                      "Kafka records per model record: each send is one producer batch of that many records "
                      "(1 to 1000; docs/conformance.md)")
      ->capture_default_str();
  command->add_option("--request-timeout-ms", options->request_timeout_ms,
                      "The producer's request.timeout.ms on a real cluster (100 to 60000; default: the harness's "
                      "3000; docs/conformance.md)");
  command->add_option("--broker-config", options->broker_config,
                      "KEY=VALUE: a broker setting of the real cluster (a timer the model does not have, e.g. "
                      "replica.lag.time.max.ms=30000); may be repeated")
      ->allow_extra_args(false);
  command->callback([options] { run_export(*options); });
}

}  // namespace isr::cli
