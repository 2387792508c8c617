// `isrcheck replay TRACE [--model M] [--json F]`: re-executes a trace file against the
// model its "model" field names, rebuilt from its configuration. Exit 0 when it
// reproduces, 1 at the first diverging step, 2 when the file is unreadable, malformed or
// not of the model and configuration it names (counterexamples/trace/trace_model.h,
// replay.h). --json writes the result (docs/trace-format.md); with --json - the summary
// line goes to stderr.
#include <iostream>
#include <memory>
#include <string>
#include <string_view>

#include "cli/commands.h"
#include "cli/model_dispatch.h"
#include "cli/run_support.h"
#include "counterexamples/trace/replay.h"
#include "counterexamples/trace/trace_model.h"

namespace isr::cli {
namespace {

struct ReplayOptions {
  std::string trace_file;
  std::string model;  // empty: the trace's own "model" field
  std::string json_file;  // empty: none; "-": stdout, the summary then on stderr
};

// The result as --json writes it (docs/trace-format.md, "replay --json").
nlohmann::json replay_json(const ReplayOptions& o, const nlohmann::json& trace,
                           const counterexamples::ReplayResult& result, const std::string& engine) {
  nlohmann::json j = {{"command", "replay"},
                      {"trace", o.trace_file},
                      {"model", trace.at("model")},
                      {"property", result.property},
                      {"verdict", result.reproduced ? "reproduced" : "diverged"},
                      {"steps", result.steps}};
  if (!engine.empty()) j["engine"] = engine;
  if (!result.reproduced) {
    j["diverged_at"] = result.diverged_at;
    j["explanation"] = result.explanation;
    if (!result.state_diff.empty()) j["state_diff"] = result.state_diff;
    if (!result.enabled_actions.empty()) j["enabled_actions"] = result.enabled_actions;
  }
  return j;
}

void replay(const ReplayOptions& o) {
  using namespace counterexamples;
  // Errors name the file and the field inside it: "t.json: steps[3].state: missing".
  auto in_file = [&](const std::string& field) {
    return field == o.trace_file ? field : o.trace_file + ": " + field;
  };
  check_output_path(o.json_file, "--json");
  std::ostream& out = o.json_file == "-" ? std::cerr : std::cout;
  try {
    const nlohmann::json trace = load_trace(o.trace_file, o.model);
    // A witness of an analysis over the state graph (availability, logs-converge) ends in
    // a state that analysis classifies, not in a property violation, and a validation's
    // trace (isrcheck validate) in the state that explains a recording: their steps replay.
    const std::string engine = trace.value("engine", "");
    const bool witness = engine == "availability" || engine == "convergence" || engine == "validate";
    with_trace_model(trace, [&](const auto& model, std::string_view) {
      const ReplayResult result = replay_trace(model, trace, witness ? ReplayEnd::StepsOnly : ReplayEnd::PropertyViolated);
      if (witness && result.reproduced) {
        out << "reproduced: " << result.steps << " steps to the " << result.property << " witness (" << engine
            << " analysis)\n";
      } else {
        out << result.summary() << "\n";
      }
      if (!o.json_file.empty()) write_json(o.json_file, "--json", replay_json(o, trace, result, engine));
      set_exit_code(result.reproduced ? 0 : 1);
    });
  } catch (const TraceFormatError& e) {
    throw UsageError(in_file(e.field), e.message);
  } catch (const nlohmann::json::exception& e) {
    throw_malformed_trace(o.trace_file, e);
  }
}

}  // namespace

void add_replay_command(CLI::App& app) {
  auto o = std::make_shared<ReplayOptions>();
  CLI::App* command = app.add_subcommand(
      "replay", "Re-execute a trace file against the model; exit 0 when it reproduces, 1 when not");
  command->add_option("trace", o->trace_file, "Trace JSON file (docs/trace-format.md)")->required();
  command->add_option("--model", o->model,
                      "Expect a trace of this model (default: the model the trace names)")
      ->check(CLI::IsMember(model_names()));
  command->add_option("--json", o->json_file, "Write the result as JSON; - for stdout (the summary then on stderr)");
  command->callback([o] { replay(*o); });
}

}  // namespace isr::cli
