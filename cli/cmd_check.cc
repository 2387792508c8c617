// `isrcheck check`: exhaustive breadth-first search of a model (checker/bfs/bfs.h): the
// partition model, or with --model kraft the KRaft controller quorum. A violation comes
// with a shortest counterexample; the result is the same with any --threads.
//
// Exit status: 0 every property holds in every reachable state; 1 a property is
// violated (the trace is printed, and written with --trace-out); 2 bad usage or
// configuration; 3 incomplete (a limit or Ctrl-C stopped the search: what was verified
// so far is printed).
//
// With --continue the search goes on after a violation and every property gets its own
// verdict (also with --distributed); with --classes too (one process only), the
// violating states of each property are grouped by mechanism signature
// (cli/check_continue.h, docs/research.md).
//
// With --distributed, under `mpirun -np N`, the search is spread over N processes
// (checker/bfs/distributed_bfs.h, docs/distributed.md) with the same result; rank 0 prints
// and writes everything, every rank exits with the same status.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/bfs/bfs.h"
#include "checker/bfs/checkpoint_file.h"
#include "checker/bfs/distributed_bfs.h"
#include "analysis/mechanism_signature.h"
#include "cli/check_checkpoint.h"
#include "cli/check_continue.h"
#include "cli/check_summary.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "cli/model_dispatch.h"
#include "cli/run_support.h"
#include "cli/spill_support.h"
#include "counterexamples/render/render.h"
#include "counterexamples/trace/replay.h"
#include "counterexamples/trace/trace_writer.h"
#include "distributed/mpi_transport.h"

namespace isr::cli {
namespace {

using nlohmann::json;

struct CheckOptions {
  ConfigOptions config;
  unsigned threads = 0;
  std::string symmetry = "on";
  std::string por = "on";  // issue 29 point 6: where the model declares reductions
  uint64_t max_states = 0;
  std::string max_memory;
  std::string spill_dir;  // --spill
  std::string time_limit;
  std::string fingerprint;  // empty: 128 (64 with --distributed, which stores 64-bit fingerprints)
  std::string frontier = "delta";
  std::string json_file;
  std::string trace_file;
  bool quiet = false;
  bool explain = false;
  bool distributed = false;
  bool continue_search = false;  // --continue
  bool classes = false;          // --classes
  size_t max_classes = 20;       // --max-classes
  bool max_classes_given = false;
  std::string trace_dir;         // --trace-dir
  std::string checkpoint_dir;    // --checkpoint
  std::string checkpoint_every;  // --checkpoint-every
  std::string resume_dir;        // --resume
};

std::string stop_reason_text(checker::StopReason reason, const CheckOptions& o) {
  switch (reason) {
    case checker::StopReason::MaxStates:
      return "the --max-states limit (" + std::to_string(o.max_states) + " states) was reached";
    case checker::StopReason::MaxMemory:
      return "the --max-memory limit (" + o.max_memory + ") was reached";
    case checker::StopReason::Interrupted:
      return "it was interrupted";
    case checker::StopReason::TimeLimit:
      return "the --time-limit (" + o.time_limit + ") was reached";
    case checker::StopReason::None:
      break;
  }
  return "?";
}

double per(uint64_t bytes, uint64_t count) {
  return count == 0 ? 0.0 : static_cast<double>(bytes) / static_cast<double>(count);
}

// What each structure of the search costs, in total and per state (docs/checker.md, "Reach").
template <class R>
nlohmann::json memory_json(const R& r) {
  return {{"visited_set_bytes", r.visited_set_bytes},
          {"visited_set_bytes_per_fingerprint", per(r.visited_set_bytes, r.visited_set_fingerprints)},
          {"parent_log_bytes", r.parent_log_bytes},
          {"parent_log_bytes_per_state", per(r.parent_log_bytes, r.distinct_states)},
          {"frontier_peak_bytes", r.frontier_peak_bytes},
          {"frontier_bytes_per_state", r.frontier_bytes_per_state},
          {"state_bytes", r.state_bytes},
          {"candidate_bytes", r.candidate_bytes},
          {"candidate_record_bytes", r.candidate_record_bytes}};
}

template <class R>
std::string memory_summary(const R& r) {
  std::ostringstream s;
  s << "memory per structure: visited set " << fixed(per(r.visited_set_bytes, r.visited_set_fingerprints), 1)
    << " B/fingerprint; parent log " << fixed(per(r.parent_log_bytes, r.distinct_states), 1)
    << " B/state\n  frontier " << fixed(r.frontier_bytes_per_state, 1) << " B/state (of " << r.state_bytes
    << "), peak " << bytes_text(r.frontier_peak_bytes) << "; candidates " << r.candidate_record_bytes
    << " B each, peak " << bytes_text(r.candidate_bytes) << "\n";
  return s.str();
}

// The per-rank figures of a distributed search, for the summary and --json.
void distributed_summary(std::ostream& out, nlohmann::json& report, const checker::RankStats* ranks, size_t n,
                         uint64_t bytes_sent, uint64_t distinct, uint64_t waves) {
  size_t slowest = 0;
  json per_rank = json::array();
  for (size_t k = 0; k < n; ++k) {
    if (ranks[k].cpu_seconds > ranks[slowest].cpu_seconds) slowest = k;
    per_rank.push_back({{"rank", k},
                        {"distinct_states", ranks[k].distinct_states},
                        {"states_generated", ranks[k].states_generated},
                        {"peak_memory_bytes", ranks[k].peak_memory_bytes},
                        {"bytes_sent", ranks[k].bytes_sent},
                        {"cpu_seconds", ranks[k].cpu_seconds},
                        {"communication_seconds", ranks[k].communication_seconds}});
  }
  const double per_state = distinct > 0 ? static_cast<double>(bytes_sent) / static_cast<double>(distinct) : 0;
  out << "ranks: " << n << ", " << waves << " waves; sent between ranks: " << bytes_text(bytes_sent) << " ("
      << fixed(per_state, 1) << " bytes per distinct state)\n";
  for (size_t k = 0; k < n; ++k) {
    out << "  rank " << k << ": " << ranks[k].distinct_states << " states, peak memory "
        << bytes_text(ranks[k].peak_memory_bytes) << ", " << fixed(ranks[k].cpu_seconds, 2) << " CPU s, "
        << fixed(ranks[k].communication_seconds, 2) << " s in communication, sent "
        << bytes_text(ranks[k].bytes_sent) << "\n";
  }
  out << "slowest rank: " << slowest << " (" << fixed(ranks[slowest].cpu_seconds, 2) << " CPU s)\n";
  report["distributed"] = {{"ranks", n},
                           {"waves", waves},
                           {"bytes_sent", bytes_sent},
                           {"bytes_sent_per_state", per_state},
                           {"slowest_rank", slowest},
                           {"per_rank", per_rank}};
}

template <checker::Model M>
void check(const M& model, std::string_view model_name, const CheckOptions& o) {
  check_output_path(o.json_file, "--json");
  check_output_path(o.trace_file, "--trace-out");
  if (o.distributed && o.threads != 0) {
    throw UsageError("--threads", "is not used with --distributed: each rank runs one thread; start one rank "
                                  "per core (mpirun -np N)");
  }
  // What the distributed engine (checker/bfs/distributed_bfs.h) does not do yet is refused,
  // not silently ignored.
  if (o.distributed && o.fingerprint == "128") {
    throw UsageError("--fingerprint", "128 is not supported with --distributed yet (allowed there: 64, the default)");
  }
  if (o.distributed && !o.time_limit.empty()) {
    throw UsageError("--time-limit", "is not supported with --distributed yet (use --max-states)");
  }
  if (o.distributed && o.frontier != "delta") {
    throw UsageError("--frontier", "reference is not supported with --distributed (its frontier has one encoding)");
  }
  if (o.distributed && !o.spill_dir.empty()) {
    throw UsageError("--spill", "is not supported with --distributed yet (each rank keeps its structures in memory)");
  }
  if (o.classes && !o.continue_search) {
    throw UsageError("--classes", "needs --continue (the search must go on after a violation to find every class)");
  }
  if (o.max_classes_given && !o.classes) throw UsageError("--max-classes", "is used only with --classes");
  if (!o.trace_dir.empty() && !o.continue_search) {
    throw UsageError("--trace-dir", "is used only with --continue (one trace per property); use --trace-out");
  }
  if (o.classes && o.distributed) {
    throw UsageError("--classes", "is not supported with --distributed yet: the classes are interned in one "
                                  "process (run --continue --classes with --threads; --continue alone is distributed)");
  }
  // The mechanism signature is the partition model's (analysis/mechanism_signature.h).
  std::unique_ptr<checker::PathLabeler<M>> labeler;
  if (o.classes) {
    if constexpr (std::is_same_v<M, spec::PartitionModel>) {
      labeler = std::make_unique<analysis::MechanismLabeler>(model);
    } else {
      throw UsageError("--classes", "has a mechanism signature for --model partition only (the model here: " +
                                        std::string(model_name) + ")");
    }
  }
  check_output_directory(o.trace_dir, "--trace-dir");
  const bool checkpointing = !o.checkpoint_dir.empty() || !o.resume_dir.empty();
  if (!o.checkpoint_every.empty() && !checkpointing) {
    throw UsageError("--checkpoint-every", "is used only with --checkpoint DIR or --resume DIR");
  }
  if (checkpointing && o.continue_search) {
    throw UsageError(o.resume_dir.empty() ? "--checkpoint" : "--resume",
                     "is not supported with --continue yet (a checkpoint does not hold the per-property violation "
                     "log)");
  }
  if (checkpointing && !o.spill_dir.empty()) {
    throw UsageError(o.resume_dir.empty() ? "--checkpoint" : "--resume",
                     "is not supported with --spill yet (a checkpoint holds the in-memory visited set; the spilled "
                     "part would have to be copied beside it)");
  }
  if (!o.checkpoint_dir.empty() && !o.resume_dir.empty() && o.checkpoint_dir != o.resume_dir) {
    throw UsageError("--checkpoint", "differs from --resume: a resumed search goes on writing its checkpoint where it "
                                     "read it; give --resume DIR alone");
  }
  check_output_directory(o.checkpoint_dir, "--checkpoint");
  std::optional<distributed::MpiSession> session;
  if (o.distributed) session.emplace();
  const bool speaker = !session || session->rank() == 0;
  // With --json - stdout carries the JSON document alone; the summary goes to stderr.
  // Only rank 0 of a distributed search prints.
  std::ostream silent(nullptr);
  std::ostream& out = !speaker ? silent : o.json_file == "-" ? std::cerr : std::cout;

  checker::BfsOptions bfs;
  bfs.threads = o.distributed ? 1
                              : static_cast<int>(o.threads == 0 ? std::max(1u, std::thread::hardware_concurrency())
                                                                : o.threads);
  bfs.symmetry = o.symmetry == "on";
  bfs.por = o.por == "on";
  bfs.max_states = o.max_states;
  if (!o.max_memory.empty()) bfs.max_memory_bytes = parse_size(o.max_memory, "--max-memory");
  if (!o.spill_dir.empty()) {
    check_spill_directory(o.spill_dir);
    bfs.spill_dir = o.spill_dir;
    // Without --max-memory the budget is what the machine has free now (docs/checker.md).
    if (bfs.max_memory_bytes == 0) bfs.max_memory_bytes = spill_budget_from_free_memory();
  }
  if (!o.time_limit.empty()) bfs.time_limit = parse_duration(o.time_limit, "--time-limit");
  bfs.fingerprint_bits = o.fingerprint == "64" || (o.fingerprint.empty() && o.distributed) ? 64 : 128;
  bfs.frontier_delta = o.frontier == "delta";
  bfs.interrupt = &interrupted();
  bfs.continue_after_violation = o.continue_search;
  bfs.max_classes = o.max_classes;
  if (checkpointing) {
    bfs.checkpoint.dir = o.resume_dir.empty() ? o.checkpoint_dir : o.resume_dir;
    bfs.checkpoint.resume = !o.resume_dir.empty();
    // 0 is allowed here (after every level), unlike the limits where it would mean none.
    if (o.checkpoint_every == "0") {
      bfs.checkpoint.every = std::chrono::nanoseconds(0);
    } else if (!o.checkpoint_every.empty()) {
      bfs.checkpoint.every = parse_duration(o.checkpoint_every, "--checkpoint-every");
    }
    bfs.checkpoint.identity =
        checkpoint_identity_text(model_name, model.config_json(), bfs.symmetry, bfs.por, bfs.fingerprint_bits);
    if (bfs.checkpoint.resume) {
      check_resumable(o.resume_dir, bfs.checkpoint.identity, o.distributed ? checker::kManifestFile : checker::kCheckpointFile);
      if (session) check_resumable_ranks(o.resume_dir, session->size());
    }
  }
  if (!o.quiet) {
    const bool continuing = o.continue_search;
    bfs.progress = [continuing](const checker::BfsProgress& p) {
      std::cerr << "depth " << p.depth << " | distinct " << human(static_cast<double>(p.distinct_states))
                << " | generated " << human(static_cast<double>(p.states_generated)) << " | frontier "
                << human(static_cast<double>(p.frontier)) << " | " << human(p.states_per_second)
                << " states/s | memory " << bytes_text(p.memory_bytes) << " | " << fixed(p.seconds, 0) << " s";
      if (continuing) {
        std::cerr << " | violated so far: " << p.properties_violated << " properties, "
                  << human(static_cast<double>(p.violating_states)) << " violating states";
      }
      std::cerr << "\n";
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
  std::optional<checker::DistributedBfsResult<M>> d;
  std::optional<distributed::MpiTransport> transport;
  {
    InterruptGuard guard;
    if (session) {
      transport.emplace(*session);
      try {
        d = checker::distributed_bfs(model, bfs, *transport);
      } catch (const checker::CheckpointError& e) {
        // Every rank throws it (a write is agreed on collectively), a read on its own rank.
        distributed::MpiSession::abort(2, std::string("error: ") + (o.resume_dir.empty() ? "--checkpoint" : "--resume") +
                                              ": " + e.what());
      } catch (const std::exception& e) {
        // The other ranks would wait for this one forever.
        distributed::MpiSession::abort(4, std::string("internal error: ") + e.what());
      }
      r = std::move(d->result);
    } else {
      try {
        r = checker::bfs(model, bfs, labeler.get());
      } catch (const checker::CheckpointError& e) {
        throw UsageError(o.resume_dir.empty() ? "--checkpoint" : "--resume", e.what());
      }
    }
  }

  // After a distributed search, an error on one rank (a file rank 0 cannot write) must
  // end every rank, not leave them waiting for it.
  auto report_result = [&] {
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
                   {"memory", memory_json(r)},
                   {"fingerprint_bits", r.fingerprint_bits},
                   {"collision_probability", r.collision_probability},
                   {"collision_probability_64", r.collision_probability_64},
                   {"bounds_reached", r.bounds_reached},
                   {"options", {{"threads", bfs.threads},
                                {"ranks", d ? d->ranks : 1},
                                {"symmetry", bfs.symmetry},
                                {"por", r.por},
                                {"max_states", bfs.max_states},
                                {"max_memory_bytes", bfs.max_memory_bytes},
                                {"time_limit_seconds", std::chrono::duration<double>(bfs.time_limit).count()},
                                {"fingerprint", bfs.fingerprint_bits},
                                {"frontier", o.frontier}}},
                   {"config", model.config_json()}};
    if (!bfs.spill_dir.empty()) {
      report["spill"] = {{"directory", bfs.spill_dir},
                         {"visited_set_disk_bytes", r.spill_visited_bytes},
                         {"visited_set_merges", r.visited_spills},
                         {"frontier_disk_bytes_written", r.spill_frontier_bytes}};
    }

    int exit_status = 0;
    json trace;
    if (r.continued) {
      ContinueOutput co;
      co.trace_dir = speaker ? o.trace_dir : std::string();  // rank 0 writes the files
      co.classes = o.classes;
      if (r.verdict == checker::Verdict::Incomplete) {
        co.stop_text = stop_reason_text(r.stop_reason, o);
        report["stop_reason"] = checker::stop_reason_name(r.stop_reason);
      }
      if (labeler) co.explain = analysis::mechanism_explanation;
      exit_status = report_continue(model, model_name, r, co, out, report, trace);
      if (!trace.is_null()) report["trace"] = trace;
    } else switch (r.verdict) {
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
        // The reach a user most often misses: the same verdict in far fewer states
        // (docs/checker.md, "Everything on, to the end"). Only for models that declare
        // reductions; with none, --por on changes nothing.
        if constexpr (checker::HasIrrelevantActions<M> || checker::HasDeadComponents<M> ||
                      checker::HasStubbornSets<M>) {
          if (!bfs.por)
            out << "hint: --por on (partial-order reduction: the same verdict in fewer states, docs/checker.md)\n";
        }
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
    if (d) {
      out << "time: " << fixed(r.seconds, 2) << " s, " << d->ranks << " rank" << (d->ranks == 1 ? "" : "s")
          << " of 1 thread\n";
    } else {
      out << "time: " << fixed(r.seconds, 2) << " s, " << bfs.threads << " thread" << (bfs.threads == 1 ? "" : "s")
          << "\n";
    }
    out << "states/s: " << fixed(r.states_per_second, 0) << " generated, "
              << fixed(r.distinct_per_second, 0) << " distinct\n";
    out << "peak memory: " << bytes_text(r.peak_memory_bytes) << " (visited set "
              << bytes_text(r.visited_set_bytes) << ", " << fixed(r.bytes_per_state, 1)
              << " bytes/state with the parent log)\n";
    if (!d) out << memory_summary(r);
    if (!bfs.spill_dir.empty()) {
      out << "spilled to disk (--spill, budget " << bytes_text(bfs.max_memory_bytes) << "): visited set "
          << bytes_text(r.spill_visited_bytes) << " (" << r.visited_spills << " merges), frontier "
          << bytes_text(r.spill_frontier_bytes) << " written over all levels\n";
    }
    std::ostringstream collision;
    collision << std::setprecision(2) << r.collision_probability << " (" << r.fingerprint_bits
              << "-bit fingerprints";
    if (r.fingerprint_bits != 64) collision << "; with 64-bit: <= " << r.collision_probability_64;
    collision << ")";
    out << "fingerprint collision probability: <= " << collision.str() << "\n";
    out << bounds_reached_summary(r.bounds_reached, r.verdict == checker::Verdict::Holds);
    unused_switches_report(model, r, r.verdict == checker::Verdict::Holds, out, report);
    report_checkpoint(bfs.checkpoint, r.checkpoint, r.verdict == checker::Verdict::Incomplete, out, report,
                      d ? checker::kManifestFile : checker::kCheckpointFile);
    if (d) distributed_summary(out, report, d->per_rank.data(), d->per_rank.size(), d->bytes_sent, r.distinct_states, d->waves);
    if (o.explain) out << figures_explained();

    if (!speaker) {
      // Rank 0 writes the files; the others wait for it, so that mpirun does not end the
      // job while rank 0 is still writing.
      out << std::flush;
      transport->barrier();
      set_exit_code(exit_status);
      return;
    }
    if (r.verdict == checker::Verdict::Violated) {
      if (!o.quiet) {
        if (r.continued) out << "the first violation in BFS order (" << r.property << "):\n";
        out << counterexamples::render_text(trace);
      }
      if (!o.trace_file.empty()) {
        write_json(o.trace_file, "--trace-out", trace);
        out << "trace written to " << o.trace_file << "\n";
      }
    }
    if (!o.json_file.empty()) write_json(o.json_file, "--json", report);
    if (transport) {
      std::cout << std::flush;
      std::cerr << std::flush;
      transport->barrier();
    }
    set_exit_code(exit_status);
  };
  if (!session) return report_result();
  try {
    report_result();
  } catch (const UsageError& e) {
    distributed::MpiSession::abort(2, std::string("error: ") + e.what());
  } catch (const std::exception& e) {
    distributed::MpiSession::abort(4, std::string("internal error: ") + e.what());
  }
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
      ->check(decimal_count())
      ->check(CLI::Range(0u, 1024u));
  command->add_option("--symmetry", o->symmetry,
                      "Reduce by permutations of interchangeable nodes: on (default) or off")
      ->check(CLI::IsMember({"on", "off"}));
  command->add_option("--por", o->por,
                      "Partial-order reduction where the model declares it (docs/checker.md): on (default) or off "
                      "(every enabled action expanded: to compare counts with earlier runs); the verdict is the same, "
                      "a counterexample may differ")
      ->check(CLI::IsMember({"on", "off"}));
  command->add_option("--max-states", o->max_states,
                      "Stop after this many distinct states (default 0: no limit; exit 3)")
      ->check(decimal_count());
  command->add_option("--max-memory", o->max_memory,
                      "Stop when the search's structures exceed this size: 512M, 4G (exit 3); with --spill, "
                      "the memory to stay under by moving structures to disk")
      ->check(not_empty("512M or 4G"));
  command->add_option("--spill", o->spill_dir,
                      "Directory for a search larger than memory: the visited set and the frontier move to "
                      "files there (deleted at once) to stay under --max-memory (default: 3/4 of the memory "
                      "available now); the same counts as in memory")
      ->check(not_empty("a writable directory, e.g. /var/tmp"));
  command->add_option("--time-limit", o->time_limit,
                      "Stop after this long: 90s, 3m, 1h (exit 3, what was verified so far is printed)")
      ->check(not_empty("90s, 3m or 1h"));
  command->add_option("--fingerprint", o->fingerprint,
                      "Fingerprint width in bits: 128 (default) or 64 (half the visited set's memory, "
                      "a collision estimate 2^64 times higher; the only width of --distributed)")
      ->check(CLI::IsMember({"64", "128"}));
  command->add_option("--frontier", o->frontier,
                      "Frontier encoding: delta (default: each state against the previous one) or "
                      "reference (against the initial state only; more memory, for comparison)")
      ->check(CLI::IsMember({"delta", "reference"}));
  command->add_option("--json", o->json_file, "Write the result (and the trace) as JSON; - for stdout");
  command->add_option("--trace-out", o->trace_file, "Write the counterexample trace (trace format v1)");
  command->add_flag("--quiet", o->quiet, "No progress lines and no rendered trace");
  command->add_flag("--distributed", o->distributed,
                    "Spread the search over the ranks of `mpirun -np N` (same result; docs/distributed.md)");
  command->add_flag("--continue", o->continue_search,
                    "Go on after a violation: every property gets its own verdict and shortest counterexample "
                    "(exit 1 if any is violated, 3 if a limit stopped the search first; docs/research.md)");
  command->add_option("--trace-dir", o->trace_dir,
                      "With --continue: write each violated property's trace (and each class's) into this "
                      "directory, as PROPERTY.json and PROPERTY.class-N.json");
  command->add_flag("--classes", o->classes,
                    "With --continue: group each property's violating states by mechanism signature (faults, "
                    "elections, truncations, ISR changes on the shortest path; --model partition)");
  command->add_option("--max-classes", o->max_classes,
                      "With --classes: show at most this many classes per property, first found first "
                      "(default 20; 0 = all); the others are still counted")
      ->check(CLI::Range(size_t{0}, size_t{1} << 32))
      ->each([o](const std::string&) { o->max_classes_given = true; });
  command->add_option("--checkpoint", o->checkpoint_dir,
                      "Write the search into this directory (checkpoint.bin, atomically; with --distributed a "
                      "manifest and one file per rank) every --checkpoint-every and when stopped (Ctrl-C, SIGTERM, "
                      "a limit); go on later with --resume DIR")
      ->check(not_empty("a directory"));
  command->add_option("--checkpoint-every", o->checkpoint_every,
                      "With --checkpoint: write at the end of the first level this long after the last one: 10m "
                      "(default), 30s, 1h; 0 after every level")
      ->check(not_empty("10m, 30s or 1h"));
  command->add_option("--resume", o->resume_dir,
                      "Go on from the checkpoint in this directory, with the same model, configuration and "
                      "options (and as many ranks): the same result as an uninterrupted run (goes on writing checkpoints "
                      "there)")
      ->check(not_empty("a directory"));
  command->add_flag("--explain", o->explain,
                    "After the figures, say what distinct/generated states, depth, memory and the collision estimate mean");
  command->callback([o] {
    with_model(o->config, [&](const auto& model, std::string_view name) { check(model, name, *o); });
  });
}

}  // namespace isr::cli
