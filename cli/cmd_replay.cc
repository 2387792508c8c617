// `isrcheck replay TRACE`: re-executes a trace file against the model rebuilt from its
// configuration. Exit 0 when it reproduces, 1 at the first diverging step, 2 when the
// file is unreadable or malformed (counterexamples/replay.h).
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "counterexamples/replay.h"
#include "counterexamples/trace_check.h"
#include "spec/config.h"
#include "spec/partition_model.h"

namespace isr::cli {
namespace {

// The models a trace may name; only the partition model exists so far.
constexpr const char* kPartitionModel = "partition";

void replay(const std::string& trace_file) {
  using namespace counterexamples;
  // Errors name the file and the field inside it: "t.json: steps[3].state: missing".
  auto in_file = [&](const std::string& field) {
    return field == trace_file ? field : trace_file + ": " + field;
  };
  try {
    const nlohmann::json trace = read_trace_file(trace_file);
    check_trace(trace);
    const std::string model_name = trace.at("model").get<std::string>();
    if (model_name != kPartitionModel) {
      throw TraceFormatError("model", "unsupported model \"" + model_name +
                                          "\"; allowed: " + kPartitionModel);
    }
    spec::Config config;
    try {
      const nlohmann::json& config_json = trace.at("config");
      config = spec::load_config(&config_json, {});
    } catch (const spec::ConfigError& e) {
      const std::string what = e.what();
      throw TraceFormatError("config." + e.field, what.substr(std::min(what.size(), e.field.size() + 2)));
    }
    const spec::PartitionModel model(config);
    const ReplayResult result = replay_trace(model, trace);
    if (result.reproduced) {
      std::cout << result.summary() << "\n";
      set_exit_code(0);
    } else {
      std::cout << result.summary() << "\n";
      set_exit_code(1);
    }
  } catch (const TraceFormatError& e) {
    throw UsageError(in_file(e.field), e.message);
  }
}

}  // namespace

void add_replay_command(CLI::App& app) {
  auto trace_file = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand(
      "replay", "Re-execute a trace file against the model; exit 0 when it reproduces, 1 when not");
  command->add_option("trace", *trace_file, "Trace JSON file (docs/trace-format.md)")->required();
  command->callback([trace_file] { replay(*trace_file); });
}

}  // namespace isr::cli
