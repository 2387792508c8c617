// `isrcheck validate RUN.jsonl [--model partition] [--config F] [--set k=v]...
// [--max-internal N] [--max-states N] [--trace-out T] [--json F]`: is a recorded execution
// of a real cluster (docs/recording.md, written by `isrcheck conform --record`) a
// behaviour of the model? (analysis/trace_validation.h, docs/validation.md). Exit 0
// explained (with the model's trace), 1 unexplained at an event, 2 bad input, 3
// incomplete (interrupted or --max-states reached).
#include <iostream>
#include <memory>
#include <string>

#include "analysis/trace_validation.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "cli/model_dispatch.h"
#include "cli/run_support.h"
#include "counterexamples/scenario/recording.h"
#include "io/config_error.h"
#include "io/files.h"

namespace isr::cli {
namespace {

struct ValidateCliOptions {
  std::string recording;
  ConfigOptions config;
  int max_internal = 8;
  std::string max_states = "1000000";
  std::string trace_out;
  std::string json_out;
};

void run_validate(const ValidateCliOptions& o) {
  if (o.config.model != kPartitionModelName) {
    throw UsageError("--model", "\"" + o.config.model +
                                    "\" is not allowed (partition: a recording observes one partition, whose "
                                    "observables are the partition model's)");
  }
  if (o.max_internal < analysis::kMinMaxInternal || o.max_internal > analysis::kMaxMaxInternal) {
    throw UsageError("--max-internal", std::to_string(o.max_internal) + " is not allowed (an integer from " +
                                           std::to_string(analysis::kMinMaxInternal) + " to " +
                                           std::to_string(analysis::kMaxMaxInternal) + ")");
  }
  const uint64_t max_states = parse_size(o.max_states, "--max-states");
  if (max_states == 0) throw UsageError("--max-states", "0 is not allowed (at least 1 state)");
  check_output_path(o.trace_out, "--trace-out");
  check_output_path(o.json_out, "--json");

  counterexamples::Recording recording;
  try {
    recording = counterexamples::parse_recording(io::files::read_file(o.recording));
  } catch (const std::invalid_argument& e) {
    throw UsageError(o.recording, e.what());
  } catch (const std::runtime_error& e) {
    throw UsageError(o.recording, e.what());
  }
  const nlohmann::json recorded_model = recording.header.value("model", nlohmann::json("partition"));
  if (recorded_model != nlohmann::json("partition")) {
    throw UsageError(o.recording + ": model", recorded_model.dump() +
                                                  " is not allowed (partition: the model whose observables a "
                                                  "recording holds)");
  }
  // The configuration the recording names, unless --config replaces it; --set on top.
  spec::Config config;
  if (!o.config.file.empty()) {
    config = load_config(o.config);
  } else {
    const nlohmann::json& named = recording.header["model_config"];
    try {
      config = spec::load_config(&named, o.config.overrides);
    } catch (const io::ConfigError& e) {
      // A --set names its own field; a bad recorded configuration is the file's fault.
      bool from_set = false;
      for (const std::string& s : o.config.overrides) from_set = from_set || s.rfind(e.field + "=", 0) == 0;
      if (from_set) throw;
      throw UsageError(o.recording + ": model_config." + e.field, e.what());
    }
  }

  InterruptGuard guard;
  analysis::ValidateOptions options;
  options.max_internal = o.max_internal;
  options.max_states = max_states;
  options.stop = &interrupted();
  const analysis::ValidationResult r = analysis::validate_recording(recording, config, options);

  const std::string scenario = recording.header.value("scenario", std::string("?"));
  // With --json - stdout carries the JSON alone; the summary goes to stderr.
  std::ostream& out = o.json_out == "-" ? std::cerr : std::cout;
  if (!recording.header.value("complete", true)) {
    out << "note: the recording ends early (conform: " << recording.header.value("conform_verdict", "?")
              << "); its " << r.events << " events are validated\n";
  }
  using V = analysis::ValidationResult::Verdict;
  nlohmann::json report = r.to_json();
  report["recording"] = o.recording;
  report["scenario"] = scenario;
  report["max_internal"] = o.max_internal;
  if (r.verdict == V::Explained) {
    const size_t steps = r.trace["steps"].size() - 1;
    out << "explained: " << r.events << " events of " << scenario << " by a model trace of " << steps
              << " steps (at most " << o.max_internal << " internal actions between events, " << r.states_kept
              << " model states kept)";
    if (!o.trace_out.empty()) {
      write_text(o.trace_out, "--trace-out", r.trace.dump(1) + "\n");
      out << ", written to " << o.trace_out;
      report["trace"] = o.trace_out;
    }
    out << "\n";
  } else if (r.verdict == V::Unexplained) {
    out << "unexplained at event " << r.event_seq << " (" << r.explained << " of " << r.events
              << " events explained): " << r.event << "\n  " << r.why << "\n  nearest model states reached: "
              << r.nearest_count << "\n";
    if (!r.differences.empty()) {
      out << "  the nearest differs in:\n";
      for (const std::string& d : r.differences) out << "    " << d << "\n";
    }
    if (!r.enabled_external.empty()) {
      out << "  what the harness could have done there:\n";
      for (const std::string& a : r.enabled_external) out << "    " << a << "\n";
    }
  } else {
    out << "incomplete at event " << r.event_seq << " (" << r.explained << " of " << r.events
              << " events explained): "
              << (interrupted().load() ? "interrupted" : "--max-states " + std::to_string(max_states) + " reached")
              << "; " << r.states_kept << " model states kept\n";
  }
  if (!o.json_out.empty()) write_json(o.json_out, "--json", report);
  set_exit_code(r.verdict == V::Explained ? 0 : r.verdict == V::Unexplained ? 1 : 3);
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto o = std::make_shared<ValidateCliOptions>();
  CLI::App* command = app.add_subcommand(
      "validate", "Is a recorded execution of a real cluster (conform --record) a behaviour of the model? "
                  "(docs/validation.md)");
  command->add_option("recording", o->recording, "Recorded execution, JSON lines (docs/recording.md)")->required();
  command->add_option("--model", o->config.model, "Which model explains it: partition (the only one allowed)")
      ->capture_default_str();
  add_config_options(*command, o->config);
  command->add_option("--max-internal", o->max_internal,
                      "Internal model actions allowed between two recorded events (0 to 64)")
      ->capture_default_str();
  command->add_option("--max-states", o->max_states, "Model states kept before giving up (exit 3)")
      ->capture_default_str();
  command->add_option("--trace-out", o->trace_out, "Write the model trace that explains the recording (render, replay)");
  command->add_option("--json", o->json_out, "Write the verdict as JSON; - for stdout");
  command->callback([o] { run_validate(*o); });
}

}  // namespace isr::cli
