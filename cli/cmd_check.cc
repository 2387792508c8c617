// `isrcheck check`: exhaustive breadth-first search of a model (checker/bfs.h): the
// partition model, or with --model kraft the KRaft controller quorum. A violation comes
// with a shortest counterexample; the result is the same with any --threads.
//
// Exit status: 0 every property holds in every reachable state; 1 a property is
// violated (the trace is printed, and written with --trace-out); 2 bad usage or
// configuration; 3 incomplete (a limit or Ctrl-C stopped the search: what was verified
// so far is printed).
#include <algorithm>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/bfs.h"
#include "cli/check_summary.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "cli/model_dispatch.h"
#include "cli/run_support.h"
#include "counterexamples/render/render.h"
#include "counterexamples/trace/replay.h"
#include "counterexamples/trace/trace_writer.h"

namespace isr::cli {
namespace {

using nlohmann::json;

struct CheckOptions {
  ConfigOptions config;
  unsigned threads = 0;
  std::string symmetry = "on";
  std::string por = "off";
  uint64_t max_states = 0;
  std::string max_memory;
  std::string json_file;
  std::string trace_file;
  bool quiet = false;
  bool explain = false;
};

std::string stop_reason_text(checker::StopReason reason, const CheckOptions& o) {
  switch (reason) {
    case checker::StopReason::MaxStates:
      return "the --max-states limit (" + std::to_string(o.max_states) + " states) was reached";
    case checker::StopReason::MaxMemory:
      return "the --max-memory limit (" + o.max_memory + ") was reached";
    case checker::StopReason::Interrupted:
      return "it was interrupted";
    case checker::StopReason::None:
      break;
  }
  return "?";
}

template <checker::Model M>
void check(const M& model, std::string_view model_name, const CheckOptions& o) {
  // With --json - stdout carries the JSON document alone; the summary goes to stderr.
  std::ostream& out = o.json_file == "-" ? std::cerr : std::cout;
  check_output_path(o.json_file, "--json");
  check_output_path(o.trace_file, "--trace-out");

  checker::BfsOptions bfs;
  bfs.threads = static_cast<int>(o.threads == 0 ? std::max(1u, std::thread::hardware_concurrency())
                                                : o.threads);
  bfs.symmetry = o.symmetry == "on";
  bfs.por = o.por == "on";
  bfs.max_states = o.max_states;
  if (!o.max_memory.empty()) bfs.max_memory_bytes = parse_size(o.max_memory, "--max-memory");
  bfs.interrupt = &interrupted();
  if (!o.quiet) {
    bfs.progress = [](const checker::BfsProgress& p) {
      std::cerr << "depth " << p.depth << " | distinct " << human(static_cast<double>(p.distinct_states))
                << " | generated " << human(static_cast<double>(p.states_generated)) << " | frontier "
                << human(static_cast<double>(p.frontier)) << " | " << human(p.states_per_second)
                << " states/s | memory " << bytes_text(p.memory_bytes) << " | " << fixed(p.seconds, 0)
                << " s\n";
    };
  }

  json property_names = json::array();
  std::vector<std::pair<std::string, std::string>> property_lines;
  for (const auto& p : model.properties()) {
    property_names.push_back(p.name);
    property_lines.emplace_back(std::string(p.name), std::string(p.description));
  }
  // What is checked comes first, in Kafka's terms, before the (possibly long) search.
  out << kafka_terms_summary(model.config_json(), model_name);

  checker::BfsResult<M> r;
  {
    InterruptGuard guard;
    r = checker::bfs(model, bfs);
  }

  json report = {{"command", "check"},
                 {"model", model_name},
                 {"verdict", checker::verdict_name(r.verdict)},
                 {"properties", property_names},
                 {"distinct_states", r.distinct_states},
                 {"states_generated", r.states_generated},
                 {"depth", r.depth},
                 {"level_sizes", r.level_sizes},
                 {"seconds", r.seconds},
                 {"states_per_second", r.states_per_second},
                 {"distinct_per_second", r.distinct_per_second},
                 {"peak_memory_bytes", r.peak_memory_bytes},
                 {"visited_set_bytes", r.visited_set_bytes},
                 {"parent_log_bytes", r.parent_log_bytes},
                 {"bytes_per_state", r.bytes_per_state},
                 {"collision_probability", r.collision_probability},
                 {"bounds_reached", r.bounds_reached},
                 {"options", {{"threads", bfs.threads},
                              {"symmetry", bfs.symmetry},
                              {"por", r.por},
                              {"max_states", bfs.max_states},
                              {"max_memory_bytes", bfs.max_memory_bytes}}},
                 {"config", model.config_json()}};

  int exit_status = 0;
  json trace;
  switch (r.verdict) {
    case checker::Verdict::Holds:
      out << "verdict: HOLDS within these bounds: every property holds in all " << r.distinct_states
          << " reachable states" << (bfs.symmetry ? " (up to symmetry)" : "") << "\n";
      break;
    case checker::Verdict::Violated: {
      std::string description;
      for (const auto& p : model.properties()) {
        if (p.name == r.property) description = std::string(p.description);
      }
      trace = counterexamples::trace_to_json(model, r.counterexample, "bfs", model_name);
      // The trace must stand on its own: replay it as `isrcheck replay` would.
      const auto replayed = counterexamples::replay_trace(model, trace);
      if (!replayed.reproduced) throw std::logic_error("the BFS trace does not replay: " + replayed.summary());
      out << "verdict: VIOLATED: " << r.property << " (" << description << ")\n";
      out << "shortest counterexample: " << r.counterexample.actions.size() << " steps\n";
      report["property"] = r.property;
      report["property_description"] = description;
      report["trace"] = trace;
      exit_status = 1;
      break;
    }
    case checker::Verdict::Incomplete:
      out << "verdict: INCOMPLETE: no violation in the " << r.distinct_states
                << " distinct states up to depth " << r.depth << "; incomplete because "
                << stop_reason_text(r.stop_reason, o) << "\n";
      report["stop_reason"] = checker::stop_reason_name(r.stop_reason);
      exit_status = 3;
      break;
  }
  out << properties_summary(property_lines);
  out << "distinct states: " << r.distinct_states << (bfs.symmetry ? " (symmetry on)" : "")
      << (r.por ? " (partial-order reduction on)" : "") << "\n";
  if (r.por) {
    out << "partial-order reduction: " << r.por_reduced << " states expanded with fewer actions than enabled, "
        << r.por_proviso << " fully expanded by the cycle proviso\n";
    report["por_reduced"] = r.por_reduced;
    report["por_proviso"] = r.por_proviso;
  }
  out << "states generated: " << r.states_generated << "\n";
  out << "depth: " << r.depth << "\n";
  out << "time: " << fixed(r.seconds, 2) << " s, " << bfs.threads << " thread"
            << (bfs.threads == 1 ? "" : "s") << "\n";
  out << "states/s: " << fixed(r.states_per_second, 0) << " generated, "
            << fixed(r.distinct_per_second, 0) << " distinct\n";
  out << "peak memory: " << bytes_text(r.peak_memory_bytes) << " (visited set "
            << bytes_text(r.visited_set_bytes) << ", " << fixed(r.bytes_per_state, 1)
            << " bytes/state with the parent log)\n";
  std::ostringstream collision;
  collision << std::setprecision(2) << r.collision_probability;
  out << "fingerprint collision probability: <= " << collision.str() << "\n";
  out << bounds_reached_summary(r.bounds_reached, r.verdict == checker::Verdict::Holds);
  if (o.explain) out << figures_explained();

  if (r.verdict == checker::Verdict::Violated) {
    if (!o.quiet) out << counterexamples::render_text(trace);
    if (!o.trace_file.empty()) {
      write_json(o.trace_file, "--trace-out", trace);
      out << "trace written to " << o.trace_file << "\n";
    }
  }
  if (!o.json_file.empty()) write_json(o.json_file, "--json", report);
  set_exit_code(exit_status);
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto o = std::make_shared<CheckOptions>();
  CLI::App* command = app.add_subcommand(
      "check", "Exhaustive search: every property in every reachable state (shortest counterexample)");
  add_model_option(*command, o->config.model);
  add_config_options(*command, o->config);
  command->add_option("--threads", o->threads,
                      "Worker threads (default 0: one per core); results do not depend on it")
      ->check(CLI::Range(0u, 1024u));
  command->add_option("--symmetry", o->symmetry,
                      "Reduce by permutations of interchangeable nodes: on (default) or off")
      ->check(CLI::IsMember({"on", "off"}));
  command->add_option("--por", o->por,
                      "Partial-order reduction where the model declares it (docs/checker.md): on or off (default; "
                      "the verdict is the same, a counterexample may differ)")
      ->check(CLI::IsMember({"on", "off"}));
  command->add_option("--max-states", o->max_states,
                      "Stop after this many distinct states (default 0: no limit; exit 3)");
  command->add_option("--max-memory", o->max_memory,
                      "Stop when the search's structures exceed this size: 512M, 4G (exit 3)");
  command->add_option("--json", o->json_file, "Write the result (and the trace) as JSON; - for stdout");
  command->add_option("--trace-out", o->trace_file, "Write the counterexample trace (trace format v1)");
  command->add_flag("--quiet", o->quiet, "No progress lines and no rendered trace");
  command->add_flag("--explain", o->explain,
                    "After the figures, say what distinct/generated states, depth, memory and the collision estimate mean");
  command->callback([o] {
    with_model(o->config, [&](const auto& model, std::string_view name) { check(model, name, *o); });
  });
}

}  // namespace isr::cli
