// `isrcheck simulate`: random walks over a model (checker/walk/random_walk.h), the partition
// model or with --model kraft the KRaft controller quorum, for configurations too large
// to explore exhaustively. Prints the seed first so that any run can be repeated exactly
// (same seed => same result with any --threads).
//
// Exit status, as for `check`: 0 no violation in the requested walks; 1 a property
// violated (the shrunk trace is printed, and written with --trace-out); 2 bad usage;
// 3 incomplete (interrupted or out of time before every walk ran).
//
// With --distributed, under `mpirun -np N`, the walks are spread over N processes
// (checker/walk/distributed_walks.h) with the same result; rank 0 prints and writes.
//
// With --stats the walks follow a fault schedule (--rate KIND=P, per step) and do not
// stop at a violation: the result is how often each property, and each class of
// mechanism, is violated (cli/simulate_stats.h); exit 1 when some walk violated one.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/mechanism_signature.h"
#include "checker/counterexample.h"
#include "checker/walk/distributed_walks.h"
#include "checker/walk/random_walk.h"
#include "checker/walk/rng.h"
#include "checker/walk/shrink.h"
#include "checker/walk/walk_result.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "cli/model_dispatch.h"
#include "cli/run_support.h"
#include "cli/simulate_stats.h"
#include "counterexamples/render/render.h"
#include "counterexamples/trace/replay.h"
#include "counterexamples/trace/trace_writer.h"
#include "distributed/mpi_transport.h"
#include "io/files.h"

namespace isr::cli {
namespace {

using checker::WalkOutcome;
using nlohmann::json;

struct SimulateOptions {
  ConfigOptions config;
  uint64_t walks = 1000;
  uint64_t depth = 100;
  std::optional<uint64_t> seed;
  unsigned threads = 0;
  std::string time_limit;
  std::string weights_file;
  std::string json_file;
  std::string trace_file;
  bool quiet = false;
  bool distributed = false;
  bool stats = false;              // --stats
  std::vector<std::string> rates;  // --rate KIND=P
  size_t max_classes = 10;         // --max-classes (with --stats)
  bool max_classes_given = false;
};

template <checker::Model M>
std::map<std::string, double, std::less<>> read_weights(const std::string& path, const M& model) {
  json document;
  try {
    document = io::files::read_json_file(path);
  } catch (const io::files::InputError& e) {
    throw UsageError("--weights", e.what());
  }
  if (!document.is_object()) {
    throw UsageError("--weights", path + " must be a JSON object {\"ActionKind\": weight, ...}");
  }
  std::map<std::string, double, std::less<>> weights;
  for (const auto& [kind, weight] : document.items()) {
    if (!weight.is_number()) {
      throw UsageError("--weights", path + ": \"" + kind + "\" must be a number >= 0");
    }
    weights[kind] = weight.template get<double>();
  }
  if (auto error = checker::validate_weights(model, weights)) {
    throw UsageError("--weights", path + ": " + *error);
  }
  return weights;
}

// The shrunk counterexample as trace JSON (counterexamples/trace/trace_writer.h), with how the walk
// found it.
template <checker::Model M>
json trace_json(const M& model, std::string_view model_name, const checker::WalkViolation<M>& v,
                uint64_t seed) {
  const auto states = checker::replay_states(model, v.shrunk);
  if (!states) throw std::logic_error("the shrunk trace does not replay");
  checker::Counterexample<M> counterexample;
  counterexample.property = v.property;
  counterexample.states = *states;
  counterexample.actions = v.shrunk.actions;
  json trace = counterexamples::trace_to_json(model, counterexample, "simulate", model_name);
  trace["simulate"] = {{"seed", seed},
                       {"walk", v.walk_index},
                       {"found_length", v.found.actions.size()},
                       {"shrink", checker::shrink_stats_to_json(v.shrink)}};
  // The same seed gives the same trace, byte for byte: the shrink's wall-clock time is
  // in the --json report, not in the trace.
  trace["simulate"]["shrink"].erase("seconds");
  return trace;
}

std::string outcome_name(WalkOutcome outcome) {
  switch (outcome) {
    case WalkOutcome::kNoViolation: return "no-violation";
    case WalkOutcome::kViolation: return "violation";
    case WalkOutcome::kIncomplete: return "incomplete";
  }
  return "?";
}

void print_stats(std::ostream& out, const checker::WalkStats& s, uint64_t depth, unsigned threads) {
  out << "walks: " << s.walks_completed << " of " << s.walks_requested << ", depth <= "
            << depth << ", " << threads << " thread" << (threads == 1 ? "" : "s") << "\n";
  out << "steps: " << s.steps << " in " << fixed(s.seconds, 2) << " s ("
            << fixed(s.steps_per_second, 0) << " steps/s); walks ending at the depth bound "
            << s.depth_limit_hits << ", in a deadlock " << s.deadlocks;
  if (s.weight_dead_ends > 0) out << ", with only weight-0 actions " << s.weight_dead_ends;
  out << "\n";
  out << "walk lengths: min " << s.lengths.min << ", max " << s.lengths.max << "\n";
  out << "distinct states: "
            << (s.distinct_states_exact
                    ? std::to_string(s.distinct_states) + " (exact)"
                    : "~" + std::to_string(s.distinct_states) + " (estimated from a 1/" +
                          std::to_string(uint64_t{1} << s.distinct_states_sample_level) +
                          " sample of fingerprints)")
            << "\n";
  std::size_t width = 4;
  for (const auto& k : s.coverage) width = std::max(width, k.kind.size());
  out << "coverage:\n  " << std::left << std::setw(static_cast<int>(width)) << "kind"
            << std::right << std::setw(8) << "weight" << std::setw(12) << "taken"
            << std::setw(14) << "enabled" << "\n";
  for (const auto& k : s.coverage) {
    std::ostringstream weight;
    weight << k.weight;
    out << "  " << std::left << std::setw(static_cast<int>(width)) << k.kind << std::right
              << std::setw(8) << weight.str() << std::setw(12) << k.taken << std::setw(14)
              << k.enabled << "\n";
  }
  for (const auto& w : s.warnings) out << "warning: " << w << "\n";
}

// --stats: walks under a fault schedule, every property's rate (cli/simulate_stats.h).
template <checker::Model M>
void simulate_stats(const M& model, std::string_view model_name, const SimulateOptions& o) {
  if (o.distributed) throw UsageError("--stats", "is not supported with --distributed yet (use --threads)");
  if (!o.weights_file.empty()) {
    throw UsageError("--weights", "is not used with --stats: the fault schedule is --rate KIND=P, and the other "
                                  "actions are taken uniformly");
  }
  if (!o.trace_file.empty()) {
    throw UsageError("--trace-out", "is not used with --stats (it counts violations; `check --continue --classes "
                                    "--trace-dir` writes a trace per class)");
  }
  check_output_path(o.json_file, "--json");
  std::ostream& out = o.json_file == "-" ? std::cerr : std::cout;
  checker::FaultWalkOptions walk;
  walk.walks = o.walks;
  walk.depth = o.depth;
  walk.seed = o.seed ? *o.seed
                     : checker::mix64(static_cast<uint64_t>(
                           std::chrono::system_clock::now().time_since_epoch().count()));
  walk.threads = o.threads != 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  if (!o.time_limit.empty()) walk.time_limit = parse_duration(o.time_limit, "--time-limit");
  walk.rates = fault_rates(model, o.rates);
  walk.interrupt = &interrupted();
  if (!o.quiet) {
    walk.progress = [](const checker::FaultWalkProgress& p) {
      std::cerr << "walks " << p.walks_done << " of " << p.walks_requested << " | violating so far "
                << p.violating_walks << " | " << fixed(p.seconds, 0) << " s\n";
    };
  }
  // The classes are the partition model's mechanism signatures (analysis/mechanism_signature.h).
  std::unique_ptr<checker::PathLabeler<M>> labeler;
  std::function<std::string(const std::vector<uint32_t>&)> explain;
  if constexpr (std::is_same_v<M, spec::PartitionModel>) {
    labeler = std::make_unique<analysis::MechanismLabeler>(model);
    explain = analysis::mechanism_explanation;
  }
  out << "seed: " << walk.seed << "\n" << std::flush;
  checker::FaultWalkStats s;
  {
    InterruptGuard guard;
    s = checker::fault_walks(model, walk, labeler.get());
  }
  const bool complete = s.stop_reason.empty();
  json report = {{"command", "simulate"},
                 {"model", model_name},
                 {"seed", walk.seed},
                 {"options", {{"walks", walk.walks},
                              {"depth", walk.depth},
                              {"threads", walk.threads},
                              {"stats", true},
                              {"rates", walk.rates},
                              {"time_limit_seconds", std::chrono::duration<double>(walk.time_limit).count()}}},
                 {"config", model.config_json()}};
  report_fault_stats(s, walk.depth, walk.threads, explain, o.max_classes, out, report);
  bool violated = false;
  for (const auto& p : s.properties) violated = violated || p.violating_walks > 0;
  int exit_status = 0;
  if (!complete) {
    report["verdict"] = "incomplete";
    report["stop_reason"] = s.stop_reason;
    out << "INCOMPLETE (" << s.stop_reason << "): the figures above are over the " << s.walks_completed << " of "
        << s.walks_requested << " walks that finished\n";
    exit_status = 3;
  } else {
    report["verdict"] = violated ? "violated" : "no-violation";
    out << (violated ? "VIOLATED in some walks (rates above)\n" : "no violation in any walk\n");
    exit_status = violated ? 1 : 0;
  }
  if (!o.json_file.empty()) write_json(o.json_file, "--json", report);
  set_exit_code(exit_status);
}

template <checker::Model M>
void simulate(const M& model, std::string_view model_name, const SimulateOptions& o) {
  if (o.stats) return simulate_stats(model, model_name, o);
  if (!o.rates.empty()) throw UsageError("--rate", "is used only with --stats");
  if (o.max_classes_given) throw UsageError("--max-classes", "is used only with --stats");
  check_output_path(o.json_file, "--json");
  check_output_path(o.trace_file, "--trace-out");
  std::optional<distributed::MpiSession> session;
  std::optional<distributed::MpiTransport> transport;
  if (o.distributed) {
    session.emplace();
    transport.emplace(*session);
  }
  const bool speaker = !session || session->rank() == 0;
  // With --json - stdout carries the JSON document alone; the summary goes to stderr.
  // Only rank 0 of a distributed run prints.
  std::ostream silent(nullptr);
  std::ostream& out = !speaker ? silent : o.json_file == "-" ? std::cerr : std::cout;

  checker::WalkOptions walk;
  walk.walks = o.walks;
  walk.depth = o.depth;
  walk.seed = o.seed ? *o.seed
                     : checker::mix64(static_cast<uint64_t>(
                           std::chrono::system_clock::now().time_since_epoch().count()));
  // A distributed run has one rank per core: one thread each unless told otherwise.
  walk.threads = o.threads != 0 ? o.threads : o.distributed ? 1 : std::max(1u, std::thread::hardware_concurrency());
  if (!o.time_limit.empty()) walk.time_limit = parse_duration(o.time_limit, "--time-limit");
  if (!o.weights_file.empty()) walk.weights = read_weights(o.weights_file, model);
  walk.interrupt = &interrupted();
  if (transport && !o.seed) {
    // Every rank walks from rank 0's seed.
    std::vector<uint64_t> seeds;
    transport->allgather(&walk.seed, 1, seeds);
    walk.seed = seeds[0];
  }

  // The seed first, so that even an interrupted run can be repeated.
  out << "seed: " << walk.seed << "\n" << std::flush;

  checker::WalkResult<M> result;
  {
    InterruptGuard guard;
    if (session) {
      try {
        result = checker::distributed_simulate(model, walk, *transport);
      } catch (const std::exception& e) {
        distributed::MpiSession::abort(4, std::string("internal error: ") + e.what());
      }
    } else {
      result = checker::simulate(model, walk);
    }
  }
  const auto& s = result.stats;

  json report = {{"command", "simulate"},
                 {"model", model_name},
                 {"seed", walk.seed},
                 {"outcome", outcome_name(result.outcome)},
                 // The word every long command's --json uses: "incomplete" after a signal.
                 {"verdict", outcome_name(result.outcome)},
                 {"options", {{"walks", walk.walks},
                              {"ranks", session ? session->size() : 1},
                              {"depth", walk.depth},
                              {"threads", walk.threads},
                              {"time_limit_seconds",
                               std::chrono::duration<double>(walk.time_limit).count()},
                              {"weights", walk.weights}}},
                 {"config", model.config_json()},
                 {"stats", checker::walk_stats_to_json(s)}};
  if (!o.quiet) print_stats(out, s, walk.depth, walk.threads);

  int exit_status = 0;
  if (result.violation) {
    const auto& v = *result.violation;
    const json trace = trace_json(model, model_name, v, walk.seed);
    // The trace must stand on its own: replay it as `isrcheck replay` would.
    const auto replayed = counterexamples::replay_trace(model, trace);
    if (!replayed.reproduced) {
      throw std::logic_error("the shrunk trace does not replay: " + replayed.summary());
    }
    out << "VIOLATION: " << v.property << " (" << v.description << ") in walk "
              << v.walk_index
              << (v.smallest_walk_index ? "" : " (run interrupted: an earlier walk may also fail)")
              << "\n";
    out << "shrunk: " << v.shrink.length_before << " steps -> "
              << v.shrink.length_after_delta << " by delta debugging -> "
              << v.shrink.length_after << (v.shrink.proven_shortest ? " (proven shortest)" : "")
              << "; " << v.shrink.candidates_tried << " candidates, " << v.shrink.bfs_states
              << " BFS states, " << fixed(v.shrink.seconds, 3) << " s"
              << (v.shrink.budget_exhausted ? " (budget exhausted)" : "") << "\n";
    if (!o.quiet) out << counterexamples::render_text(trace);
    if (!o.trace_file.empty() && speaker) {
      write_json(o.trace_file, "--trace-out", trace);
      out << "trace written to " << o.trace_file << "\n";
    }
    report["violation"] = {{"property", v.property},
                           {"walk", v.walk_index},
                           {"smallest_walk_index", v.smallest_walk_index},
                           {"found_length", v.found.actions.size()},
                           {"shrink", checker::shrink_stats_to_json(v.shrink)},
                           {"trace", trace}};
    exit_status = 1;
  } else if (result.outcome == WalkOutcome::kIncomplete) {
    report["stop_reason"] = result.stop_reason;
    out << "INCOMPLETE (" << result.stop_reason << "): " << s.walks_completed << " of "
              << s.walks_requested << " walks (" << s.steps
              << " steps) ran without a violation\n";
    exit_status = 3;
  } else {
    out << "no violation in " << s.walks_completed << " walks (" << s.steps
              << " steps)\n";
  }
  if (!o.json_file.empty() && speaker) write_json(o.json_file, "--json", report);
  if (transport) {
    // Rank 0 writes; mpirun must not end the job before it has.
    std::cout << std::flush;
    std::cerr << std::flush;
    transport->barrier();
  }
  set_exit_code(exit_status);
}

}  // namespace

void add_simulate_command(CLI::App& app) {
  auto o = std::make_shared<SimulateOptions>();
  CLI::App* command = app.add_subcommand(
      "simulate", "Random walks with shrinking, for configurations too large to check");
  add_model_option(*command, o->config.model);
  add_config_options(*command, o->config);
  command->add_option("--walks", o->walks, "Number of walks (default 1000)")
      ->check(CLI::Range(uint64_t{1}, std::numeric_limits<uint64_t>::max() / 2));
  command->add_option("--depth", o->depth, "Most steps per walk (default 100)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 32));
  command->add_option("--seed", o->seed,
                      "Seed (default: from the clock; always printed)");
  command->add_option("--threads", o->threads,
                      "Worker threads (default 0: one per core); results do not depend on it")
      ->check(decimal_count())
      ->check(CLI::Range(0u, 1024u));
  command->add_option("--time-limit", o->time_limit,
                      "Stop after this long: seconds, or 500ms/10s/5m/2h (exit 3 if walks remain)")
      ->check(not_empty("90s, 3m or 1h"));
  command->add_option("--weights", o->weights_file,
                      "JSON file of action-kind weights, e.g. {\"Crash\": 0.1}; 0 disables a kind");
  command->add_option("--json", o->json_file, "Write the result (stats, coverage, trace) as JSON");
  command->add_option("--trace-out", o->trace_file,
                      "Write the shrunk counterexample trace (trace format v1)");
  command->add_flag("--quiet", o->quiet, "Print only the seed and the verdict");
  command->add_flag("--distributed", o->distributed,
                    "Spread the walks over the ranks of `mpirun -np N` (same result for the seed; docs/distributed.md)");
  command->add_flag("--stats", o->stats,
                    "Walks under a fault schedule (--rate), not stopping at a violation: per property and class "
                    "the share of walks violating it with a 95% interval (docs/simulate.md)");
  command->add_option("--rate", o->rates,
                      "With --stats: KIND=P, the probability per step of a fault of that action kind (repeat; "
                      "defaults: Crash=0.01 Cut=0.005 Pause=0.005 SessionExpiry=0.005, where the model has them)");
  command->add_option("--max-classes", o->max_classes,
                      "With --stats: print at most this many classes per property, most frequent first (default "
                      "10; 0 = all; --json has them all)")
      ->check(CLI::Range(size_t{0}, size_t{1} << 32))
      ->each([o](const std::string&) { o->max_classes_given = true; });
  command->callback([o] {
    with_model(o->config, [&](const auto& model, std::string_view name) { simulate(model, name, *o); });
  });
}

}  // namespace isr::cli
