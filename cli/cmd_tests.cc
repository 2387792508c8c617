// `isrcheck tests --config F [--set k=v] --cover actions|transitions [--max N] --out DIR`:
// writes a small set of scenarios (docs/scenarios.md) that together cover every action
// kind, or every transition class, reachable within the configuration's bounds, plus an
// index.json. Exit 0 when written, 3 when the state graph hit --max-states (incomplete).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "analysis/covering_tests.h"
#include "cli/commands.h"
#include "cli/progress.h"
#include "cli/load.h"
#include "cli/run_support.h"
#include "counterexamples/export/export_scenario.h"
#include "counterexamples/scenario/scenario_writer.h"
#include "spec/partition/config.h"

namespace isr::cli {
namespace {

struct TestsOptions {
  ConfigOptions config;
  std::string cover;
  int max = 0;
  uint64_t max_states = 2000000;
  std::string out;
};

void write_file(const std::filesystem::path& path, const std::string& text) { write_text(path.string(), "--out", text); }

void run_tests(const TestsOptions& o) {
  analysis::CoveringOptions options;
  if (o.cover == "actions") {
    options.criterion = analysis::CoverCriterion::Actions;
  } else if (o.cover == "transitions") {
    options.criterion = analysis::CoverCriterion::Transitions;
  } else {
    throw UsageError("--cover", "unknown criterion \"" + o.cover + "\"; allowed: actions, transitions");
  }
  if (o.max < 0) throw UsageError("--max", "must be >= 0 (0: no limit)");
  // The state graph is held in memory whole: unlike check's, this limit cannot be off.
  if (o.max_states == 0) throw UsageError("--max-states", "must be at least 1 (the state graph's size limit)");
  if (o.out.empty()) throw UsageError("--out", "empty; give a directory for the scenarios");
  options.max_tests = o.max;
  options.max_states = o.max_states;
  const spec::Config config = load_config(o.config);

  check_output_directory(o.out, "--out");

  InterruptGuard guard;  // SIGINT/SIGTERM: the scenarios of the partial graph are written, exit 3
  options.interrupt = &interrupted();
  analysis::CoveringResult result;
  {
    ProgressLines progress("tests", "searches", true);
    progress.set(0, 1, "the state graph (at most " + std::to_string(o.max_states) + " states) and the covering paths");
    options.progress_states = &progress.states();
    result = analysis::covering_tests(config, options);
  }

  nlohmann::ordered_json index;
  index["format"] = "isrcheck-covering-tests";
  index["version"] = 1;
  index["cover"] = std::string(analysis::cover_criterion_name(options.criterion));
  index["config"] = spec::to_json(config);
  index["state_graph"] = {{"states", result.states}, {"edges", result.edges}, {"complete", result.complete},
                          {"interrupted", result.interrupted}};
  index["verdict"] = result.complete ? "complete" : "incomplete";
  index["reachable_classes"] = result.reachable_classes;
  index["uncovered"] = result.uncovered;
  index["unreachable_kinds"] = result.unreachable_kinds;
  nlohmann::ordered_json files = nlohmann::ordered_json::array();
  for (size_t i = 0; i < result.tests.size(); ++i) {
    const analysis::CoveringTest& test = result.tests[i];
    char number[24];
    std::snprintf(number, sizeof number, "%02zu", i + 1);
    const std::string name = std::string("cover-") + number;
    nlohmann::ordered_json scenario = counterexamples::trace_to_scenario(test.trace, name);
    // Not a counterexample: what the run must observe is the path itself.
    scenario["expected"]["violation"] = {{"property", nullptr}, {"target", test.target}, {"covers", test.covers}};
    scenario["source"]["property"] = nullptr;
    write_file(std::filesystem::path(o.out) / (name + ".json"), counterexamples::scenario_text(scenario));
    files.push_back({{"file", name + ".json"},
                     {"target", test.target},
                     {"covers", test.covers},
                     {"trace_steps", test.trace.at("steps").size() - 1},
                     {"scenario_steps", scenario["steps"].size()}});
  }
  index["scenarios"] = files;
  write_file(std::filesystem::path(o.out) / "index.json", index.dump(2) + "\n");

  std::cout << "state graph: " << result.states << " states, " << result.edges << " edges"
            << (result.complete ? "" : result.interrupted ? " (INCOMPLETE: interrupted)" : " (incomplete: --max-states reached)")
            << "\n"
            << "classes (" << index["cover"].get<std::string>() << "): " << result.reachable_classes.size()
            << " reachable, " << (result.reachable_classes.size() - result.uncovered.size()) << " covered by "
            << result.tests.size() << " scenarios";
  if (!result.uncovered.empty()) std::cout << " (" << result.uncovered.size() << " left out by --max)";
  std::cout << "\nwritten to " << o.out << "/index.json\n";
  set_exit_code(result.complete ? 0 : 3);
}

}  // namespace

void add_tests_command(CLI::App& app) {
  auto o = std::make_shared<TestsOptions>();
  CLI::App* command = app.add_subcommand(
      "tests", "Write scenarios that together cover every reachable action kind or transition class");
  add_config_options(*command, o->config);
  command->add_option("--cover", o->cover, "actions or transitions (docs/scenarios.md)")->required();
  command->add_option("--max", o->max, "At most this many scenarios (0: no limit)")->capture_default_str();
  command->add_option("--max-states", o->max_states, "Stop exploring beyond this many states (at least 1: the state graph is kept whole)")
      ->check(decimal_count())
      ->capture_default_str();
  command->add_option("--out", o->out, "Directory for the scenarios and index.json")->required();
  command->callback([o] { run_tests(*o); });
}

}  // namespace isr::cli
