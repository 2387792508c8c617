// What `isrcheck check --continue [--classes]` prints and writes after the search: each
// property's verdict with its shortest counterexample (a trace file per property under
// --trace-dir), and with --classes a table per property of its violation classes
// (checker/path_labeler.h; the partition model's signature is analysis/mechanism_signature.h).
// docs/research.md says what the columns mean.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/bfs/bfs_types.h"
#include "checker/model.h"
#include "cli/run_support.h"
#include "counterexamples/trace/replay.h"
#include "counterexamples/trace/trace_writer.h"

namespace isr::cli {

struct ContinueOutput {
  std::string trace_dir;  // empty: no trace files
  std::string stop_text;  // why an incomplete search stopped
  bool classes = false;   // --classes: the report gets a "classes" array, even empty
  // The signature of a class in one line of the model's words (empty: none).
  std::function<std::string(const std::vector<uint32_t>&)> explain;
};

// A trace file name for `property` (its kebab-case name is a safe file name).
inline std::string continue_trace_path(const std::string& dir, std::string_view property, int class_number = 0) {
  std::string name(property);
  if (class_number > 0) name += ".class-" + std::to_string(class_number);
  return dir + "/" + name + ".json";
}

// Prints the verdicts (and classes) to `out`, adds them to `report`, writes the trace
// files, and returns the exit status: 3 when the search stopped early (what is decided so
// far is printed), 1 when a property is violated, else 0. `first_trace` receives the
// trace of the first violation in BFS order (what a search without --continue reports).
template <checker::Model M>
int report_continue(const M& model, std::string_view model_name, const checker::BfsResult<M>& r,
                    const ContinueOutput& o, std::ostream& out, nlohmann::json& report, nlohmann::json& first_trace) {
  using nlohmann::json;
  auto trace_of = [&](const checker::Counterexample<M>& path) {
    json trace = counterexamples::trace_to_json(model, path, "bfs", model_name);
    const auto replayed = counterexamples::replay_trace(model, trace);
    if (!replayed.reproduced) throw std::logic_error("a --continue trace does not replay: " + replayed.summary());
    return trace;
  };
  size_t violated = 0;
  size_t undecided = 0;
  size_t width = 0;
  for (const auto& p : r.outcomes) {
    violated += p.verdict == checker::Verdict::Violated;
    undecided += p.verdict == checker::Verdict::Incomplete;
    width = std::max(width, p.property.size());
  }
  const bool stopped = r.verdict == checker::Verdict::Incomplete;
  const size_t n = r.outcomes.size();
  if (stopped) {
    out << "verdict: INCOMPLETE: " << violated << " of " << n << " properties violated, " << undecided
        << " undecided; incomplete because " << o.stop_text << "\n";
  } else if (violated > 0) {
    out << "verdict: VIOLATED: " << violated << " of " << n << " properties violated, " << n - violated
        << " hold (the search went on after each violation: --continue)\n";
  } else {
    out << "verdict: HOLDS within these bounds: every property holds in all " << r.distinct_states
        << " reachable states" << (r.symmetry ? " (up to symmetry)" : "") << "\n";
  }
  out << "per property:\n";
  json outcomes = json::array();
  for (const auto& p : r.outcomes) {
    json entry = {{"property", p.property},
                  {"verdict", checker::verdict_name(p.verdict)},
                  {"violating_states", p.violating_states}};
    out << "  " << p.property << std::string(width + 2 - p.property.size(), ' ');
    switch (p.verdict) {
      case checker::Verdict::Holds: out << "holds"; break;
      case checker::Verdict::Incomplete: out << "undecided (the search stopped first)"; break;
      case checker::Verdict::Violated: {
        out << "VIOLATED: shortest counterexample " << p.counterexample.actions.size() << " steps, "
            << p.violating_states << " violating states";
        if (r.symmetry) out << " (up to symmetry)";
        json trace = trace_of(p.counterexample);
        entry["steps"] = p.counterexample.actions.size();
        if (!o.trace_dir.empty()) {
          const std::string path = continue_trace_path(o.trace_dir, p.property);
          write_json(path, "--trace-dir", trace);
          entry["trace_file"] = path;
          out << ", trace " << path;
        }
        entry["trace"] = std::move(trace);
        break;
      }
    }
    if (p.classes > 0) {
      entry["classes"] = p.classes;
      entry["classes_left_out"] = p.classes_left_out;
    }
    out << "\n";
    outcomes.push_back(std::move(entry));
  }
  report["outcomes"] = outcomes;
  if (!r.property.empty()) {
    first_trace = trace_of(r.counterexample);
    report["property"] = r.property;
  }

  // The class tables, one per violated property, classes in BFS order of their first state.
  json classes = json::array();
  std::string current;
  int number = 0;
  for (const auto& c : r.classes) {
    if (c.property != current) {
      current = c.property;
      number = 0;
      for (const auto& p : r.outcomes) {
        if (p.property != current) continue;
        out << "classes of " << current << ": " << p.classes << " (by mechanism signature; docs/research.md)";
        if (p.classes_left_out > 0) out << ", the first " << p.classes - p.classes_left_out << " shown (--max-classes)";
        out << "\n  class  steps  states  acked lost (first/max)  signature\n";
      }
    }
    ++number;
    const std::string explanation = o.explain ? o.explain(c.signature) : std::string();
    std::string steps = std::to_string(c.counterexample.actions.size());
    std::string states = std::to_string(c.violating_states);
    std::string lost = std::to_string(c.measure_first) + "/" + std::to_string(c.measure_max);
    std::string label = std::to_string(number);
    auto pad = [](std::string s, size_t w) { return s.size() < w ? s + std::string(w - s.size(), ' ') : s + " "; };
    out << "  " << pad(label, 7) << pad(steps, 7) << pad(states, 8) << pad(lost, 24) << c.key << "\n";
    if (!explanation.empty()) out << "         " << explanation << "\n";
    json entry = {{"property", c.property},
                  {"class", number},
                  {"signature", c.key},
                  {"explanation", explanation},
                  {"steps", c.counterexample.actions.size()},
                  {"violating_states", c.violating_states},
                  {"records_lost", c.measure_first},
                  {"records_lost_max", c.measure_max}};
    json trace = trace_of(c.counterexample);
    if (!o.trace_dir.empty()) {
      const std::string path = continue_trace_path(o.trace_dir, c.property, number);
      write_json(path, "--trace-dir", trace);
      entry["trace_file"] = path;
    }
    entry["trace"] = std::move(trace);
    classes.push_back(std::move(entry));
  }
  if (o.classes) report["classes"] = classes;
  if (stopped) return 3;
  return violated > 0 ? 1 : 0;
}

}  // namespace isr::cli
