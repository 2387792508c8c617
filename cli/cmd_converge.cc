// `isrcheck converge`: the logs-converge liveness check (analysis/convergence.h) on a
// small partition-model configuration: from every reachable state, with no further
// faults, can the live replicas still come to hold identical logs? A stuck state comes
// with the shortest trace to it.
//
// Exit status: 0 converges from every reachable state; 1 a stuck state exists (its
// trace is printed, and written with --trace-out); 2 bad usage or configuration; 3
// incomplete (the graph passed --max-states before any stuck state was found).
#include <cstdint>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/convergence.h"
#include "cli/commands.h"
#include "cli/progress.h"
#include "cli/load.h"
#include "cli/run_support.h"
#include "counterexamples/render/render.h"
#include "counterexamples/trace/replay.h"
#include "spec/partition/partition_model.h"

namespace isr::cli {
namespace {

struct ConvergeOptions {
  ConfigOptions config;
  std::string symmetry = "on";
  std::string por = "on";  // issue 29 point 6: where the model declares reductions
  int threads = 1;
  uint64_t max_states = 2'000'000;
  std::string json_file;
  std::string trace_file;
  bool quiet = false;
};

void run_converge(const ConvergeOptions& o) {
  const spec::Config config = load_config(o.config);
  check_output_path(o.json_file, "--json");
  check_output_path(o.trace_file, "--trace-out");
  // With --json - stdout carries the JSON document alone; the summary goes to stderr.
  std::ostream& out = o.json_file == "-" ? std::cerr : std::cout;
  analysis::ConvergenceOptions options;
  options.symmetry = o.symmetry == "on";
  options.max_states = o.max_states;
  options.por = o.por == "on";
  options.threads = o.threads;
  analysis::ConvergenceReport r;
  {
    ProgressLines progress("converge", "analyses", true);
    progress.set(0, 1, "the state graph and its classification");
    options.progress_states = &progress.states();
    r = analysis::analyze_convergence(config, options);
  }

  nlohmann::json report = {{"command", "converge"},
                           {"property", "logs-converge"},
                           {"verdict", analysis::convergence_verdict_name(r.verdict)},
                           {"graph_states", r.graph_states},
                           {"graph_edges", r.graph_edges},
                           {"complete", r.complete},
                           {"converged_states", r.converged_states},
                           {"stuck_states", r.stuck_states},
                           {"bound_limited_states", r.bound_limited_states},
                           {"unknown_states", r.unknown_states},
                           {"seconds", r.seconds},
                           {"graph_seconds", r.graph_seconds},
                           {"classify_seconds", r.classify_seconds},
                           {"options",
                            {{"symmetry", options.symmetry},
                             {"por", r.por},
                             {"threads", options.threads},
                             {"max_states", options.max_states}}},
                           {"config", spec::PartitionModel(config).config_json()}};
  int exit_status = 0;
  switch (r.verdict) {
    case analysis::ConvergenceVerdict::Converges:
      out << "verdict: CONVERGES: from every one of the " << r.graph_states
                << " reachable states" << (options.symmetry ? " (up to symmetry)" : "")
                << ", with no further faults, the live replicas can reach identical logs\n";
      break;
    case analysis::ConvergenceVerdict::Stuck: {
      // The witness must stand on its own: its steps replay on the model.
      const spec::PartitionModel model(config);
      const auto replayed = counterexamples::replay_trace(model, r.witness_trace, counterexamples::ReplayEnd::StepsOnly);
      if (!replayed.reproduced) throw std::logic_error("the convergence witness does not replay: " + replayed.summary());
      out << "verdict: STUCK: " << r.stuck_states << " reachable state" << (r.stuck_states == 1 ? "" : "s")
                << " from which no fault-free path brings the live replicas to identical logs\n";
      out << "shortest trace to one: " << r.witness_steps << " steps\n";
      report["trace"] = r.witness_trace;
      exit_status = 1;
      break;
    }
    case analysis::ConvergenceVerdict::Incomplete:
      out << "verdict: INCOMPLETE: no stuck state among the " << r.graph_states
                << " states explored; the graph passed --max-states (" << o.max_states << ")\n";
      exit_status = 3;
      break;
  }
  out << "graph: " << r.graph_states << " states, " << r.graph_edges << " edges"
            << (options.symmetry ? " (symmetry on)" : "") << (r.por ? " (partial-order reduction on)" : "")
            << (r.complete ? "" : ", incomplete") << "\n";
  out << "converged states (live logs identical): " << r.converged_states << "\n";
  out << "stuck states: " << r.stuck_states << "\n";
  out << "left out (an epoch bound is reachable): " << r.bound_limited_states << "\n";
  if (!r.complete) out << "unknown (can reach an unexpanded state): " << r.unknown_states << "\n";
  out << "time: " << fixed(r.seconds, 2) << " s (graph " << fixed(r.graph_seconds, 2) << " s with "
            << options.threads << " thread" << (options.threads == 1 ? "" : "s") << ", classification "
            << fixed(r.classify_seconds, 2) << " s)\n";
  if (r.verdict == analysis::ConvergenceVerdict::Stuck) {
    if (!o.quiet) out << counterexamples::render_text(r.witness_trace);
    if (!o.trace_file.empty()) {
      write_json(o.trace_file, "--trace-out", r.witness_trace);
      out << "trace written to " << o.trace_file << "\n";
    }
  }
  if (!o.json_file.empty()) write_json(o.json_file, "--json", report);
  set_exit_code(exit_status);
}

}  // namespace

void add_converge_command(CLI::App& app) {
  auto o = std::make_shared<ConvergeOptions>();
  CLI::App* command = app.add_subcommand(
      "converge", "logs-converge: from every reachable state, with no further faults, can the live replicas "
                  "reach identical logs? (small configurations; docs/convergence.md)");
  add_config_options(*command, o->config);
  command->add_option("--symmetry", o->symmetry,
                      "One vertex per orbit of interchangeable nodes: on (default) or off")
      ->check(CLI::IsMember({"on", "off"}));
  command->add_option("--por", o->por,
                      "Partial-order reduction in the state graph (dead components cleared, irrelevant actions "
                      "dropped; docs/convergence.md): on (default) or off (to compare counts with earlier runs); same verdict")
      ->check(CLI::IsMember({"on", "off"}));
  command->add_option("--threads", o->threads, "Threads building the state graph (default 1); same result")
      ->check(decimal_count())
      ->check(CLI::Range(1, 256));
  command->add_option("--max-states", o->max_states,
                      "Stop building the state graph beyond this many states (default 2000000; exit 3)")
      ->check(decimal_count())
      ->check(CLI::Range(uint64_t{1}, uint64_t{100'000'000}));
  command->add_option("--json", o->json_file, "Write the result (and the trace) as JSON; - for stdout");
  command->add_option("--trace-out", o->trace_file, "Write the trace to the stuck state (trace format v1)");
  command->add_flag("--quiet", o->quiet, "No rendered trace");
  command->callback([o] { run_converge(*o); });
}

}  // namespace isr::cli
