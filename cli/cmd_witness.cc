// `isrcheck witness [--config F] [--set k=v]... --script "produce; kill leader; consume"
// --trace-out FILE`: the model's trace of a client script on a settled cluster (the
// shortest path that performs the script, each operation in a settled state:
// analysis/witness.h), for scenarios that are not counterexamples. Exit 0 with the
// trace written, 1 when the model cannot perform the script within its bounds.
#include <iostream>
#include <memory>
#include <string>

#include "analysis/witness.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "cli/run_support.h"
#include "io/files.h"

namespace isr::cli {
namespace {

struct WitnessOptions {
  ConfigOptions config;
  std::string script;
  std::string description;
  std::string trace_out;
  size_t max_states = 2000000;
};

void run_witness(const WitnessOptions& options) {
  const spec::Config config = load_config(options.config);
  // Both texts go into the trace's JSON, which holds UTF-8 only.
  if (!io::files::valid_utf8(options.script)) throw UsageError("--script", "not valid UTF-8");
  if (!io::files::valid_utf8(options.description)) throw UsageError("--description", "not valid UTF-8");
  check_output_path(options.trace_out, "--trace-out");
  std::vector<analysis::ScriptOp> script;
  try {
    script = analysis::parse_script(options.script);
    analysis::check_script_nodes(config, script);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--script", e.what());
  }
  const analysis::WitnessResult r = analysis::find_witness(
      config, script, options.description.empty() ? "the model's run of: " + options.script : options.description,
      options.max_states);
  if (!r.found) {
    std::cout << "no witness: " << r.why << "\n";
    set_exit_code(1);
    return;
  }
  write_text(options.trace_out, "--trace-out", r.trace.dump(1) + "\n");
  std::cout << "witness: " << r.trace["steps"].size() - 1 << " steps (" << r.states << " states searched), written to "
            << options.trace_out << "\n";
}

}  // namespace

void add_witness_command(CLI::App& app) {
  auto options = std::make_shared<WitnessOptions>();
  CLI::App* command = app.add_subcommand(
      "witness", "The model's trace of a client script on a settled cluster (for conformance scenarios)");
  add_config_options(*command, options->config);
  command->add_option("--script", options->script,
                      "Operations separated by ';': produce, timeout, consume, kill N|leader, clean N|leader, "
                      "disk N|leader, restart N, cut N SIDE, heal N SIDE, elect N, remove_voter N, add_voter N")
      ->required();
  command->add_option("--description", options->description, "What the trace shows, for people");
  command->add_option("--trace-out", options->trace_out, "Write the trace here (trace format v1)")->required();
  command->add_option("--max-states", options->max_states, "Search at most this many states")
      ->check(decimal_count())->capture_default_str();
  command->callback([options] { run_witness(*options); });
}

}  // namespace isr::cli
