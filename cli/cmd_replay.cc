// `isrcheck replay TRACE`: re-executes a trace file against the model its "model" field
// names (partition or kraft), rebuilt from its configuration. Exit 0 when it reproduces,
// 1 at the first diverging step, 2 when the file is unreadable or malformed
// (counterexamples/trace/replay.h).
#include <iostream>
#include <memory>
#include <string>
#include <string_view>

#include "cli/commands.h"
#include "cli/model_dispatch.h"
#include "cli/run_support.h"
#include "counterexamples/trace/replay.h"
#include "counterexamples/trace/trace_reader.h"

namespace isr::cli {
namespace {

struct ReplayOptions {
  std::string trace_file;
  std::string model;  // empty: the trace's own "model" field
};

// With --model, the trace must be of that model.
void require_model(const nlohmann::json& trace, const std::string& model) {
  if (model.empty()) return;
  const std::string recorded = trace.at("model").get<std::string>();
  if (recorded != model) {
    throw UsageError("--model", "the trace is of model \"" + recorded + "\", not \"" + model + "\"");
  }
}

void replay(const ReplayOptions& o) {
  using namespace counterexamples;
  // Errors name the file and the field inside it: "t.json: steps[3].state: missing".
  auto in_file = [&](const std::string& field) {
    return field == o.trace_file ? field : o.trace_file + ": " + field;
  };
  try {
    const nlohmann::json trace = read_trace_file(o.trace_file);
    check_trace(trace);
    require_model(trace, o.model);
    // A witness of an analysis over the state graph (availability, logs-converge) ends in
    // a state that analysis classifies, not in a property violation, and a validation's
    // trace (isrcheck validate) in the state that explains a recording: their steps replay.
    const std::string engine = trace.value("engine", "");
    const bool witness = engine == "availability" || engine == "convergence" || engine == "validate";
    with_trace_model(trace, [&](const auto& model, std::string_view) {
      const ReplayResult result = replay_trace(model, trace, witness ? ReplayEnd::StepsOnly : ReplayEnd::PropertyViolated);
      if (witness && result.reproduced) {
        std::cout << "reproduced: " << result.steps << " steps to the " << result.property << " witness (" << engine
                  << " analysis)\n";
      } else {
        std::cout << result.summary() << "\n";
      }
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
  command->callback([o] { replay(*o); });
}

}  // namespace isr::cli
