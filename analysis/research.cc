// The study's grid and runner (see research.h): per cell an exhaustive check that goes
// on after each violation and groups violating states by mechanism, then walks under a
// fault schedule. Cells run one after another, each search on options.threads threads:
// no figure depends on the thread count (checker/bfs/bfs.h, checker/walk/fault_walks.h),
// so the study is the same on any machine.
#include "analysis/research.h"

#include <chrono>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "analysis/mechanism_signature.h"
#include "checker/bfs/bfs.h"
#include "checker/walk/fault_walks.h"
#include "spec/partition/partition_model.h"

namespace isr::analysis {

MatrixDimensions research_default_dimensions() {
  MatrixDimensions d;
  d.replication_factors = {2, 3};
  d.min_isr = {};  // 1..RF
  d.acks = {spec::Acks::All, spec::Acks::One};
  d.unclean = {false, true};
  d.elr = {true, false};
  d.placements = {spec::Placement::Combined};
  d.failures = {1};
  d.lossy = {false, true};
  return d;
}

bool glob_match(std::string_view pattern, std::string_view text) {
  // Iterative matching with one backtrack point: the last '*' seen.
  size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::vector<MatrixCell> select_research_cells(const std::vector<MatrixCell>& grid,
                                              const std::vector<std::string>& patterns) {
  if (patterns.empty()) return grid;
  for (const std::string& pattern : patterns) {
    bool any = false;
    for (const MatrixCell& c : grid) any = any || glob_match(pattern, c.id());
    if (!any) {
      throw std::invalid_argument("\"" + pattern + "\" matches no cell of the grid; cell ids look like " +
                                  (grid.empty() ? std::string("(none)") : grid.front().id()) +
                                  " ('*' matches anything; `research unclean --list-cells` lists them)");
    }
  }
  std::vector<MatrixCell> selected;
  for (const MatrixCell& c : grid) {
    for (const std::string& pattern : patterns) {
      if (glob_match(pattern, c.id())) {
        selected.push_back(c);
        break;
      }
    }
  }
  return selected;
}

namespace {

using Model = spec::PartitionModel;

void check_cell(const Model& model, const ResearchOptions& o, ResearchCell& r) {
  const MechanismLabeler labeler(model);
  checker::BfsOptions bfs;
  bfs.threads = o.threads;
  bfs.symmetry = true;
  bfs.max_states = o.max_states;
  bfs.time_limit = o.time_limit;
  bfs.interrupt = o.interrupt;
  bfs.continue_after_violation = true;
  bfs.max_classes = o.max_classes;
  bfs.progress = o.search_progress;
  const checker::BfsResult<Model> b = checker::bfs(model, bfs, &labeler);
  r.checked = true;
  r.verdict = std::string(checker::verdict_name(b.verdict));
  if (b.verdict == checker::Verdict::Incomplete) r.stop_reason = std::string(checker::stop_reason_name(b.stop_reason));
  r.distinct_states = b.distinct_states;
  r.depth = b.depth;
  r.check_seconds = b.seconds;
  for (const auto& p : b.outcomes) {
    r.verdicts.push_back(ResearchVerdict{p.property, std::string(checker::verdict_name(p.verdict)),
                                         p.violating_states, p.counterexample.actions.size(), p.classes,
                                         p.classes_left_out});
    if (p.verdict != checker::Verdict::Violated) r.verdicts.back().steps = 0;
  }
  for (const auto& c : b.classes) {
    r.classes.push_back(ResearchClass{c.property, c.key, mechanism_explanation(c.signature),
                                      c.counterexample.actions.size(), c.violating_states, c.measure_first,
                                      c.measure_max});
  }
}

void walk_cell(const Model& model, const ResearchOptions& o, ResearchCell& r) {
  const MechanismLabeler labeler(model);
  checker::FaultWalkOptions walk;
  walk.walks = o.walks;
  walk.depth = o.depth;
  walk.seed = o.seed;
  walk.threads = static_cast<unsigned>(o.threads);
  walk.rates = o.rates;
  walk.interrupt = o.interrupt;
  if (auto error = checker::validate_rates(model, walk.rates)) throw std::invalid_argument(*error);
  const checker::FaultWalkStats s = checker::fault_walks(model, walk, &labeler);
  r.walked = true;
  r.walks_complete = s.stop_reason.empty();
  r.walks_completed = s.walks_completed;
  r.walk_seconds = s.seconds;
  const uint64_t n = s.walks_completed;
  for (const auto& p : s.properties) {
    const auto [low, high] = checker::wilson_interval(p.violating_walks, n);
    r.rates.push_back(ResearchRate{p.property, "", "", p.violating_walks, n, low, high});
  }
  for (const auto& c : s.classes) {
    const auto [low, high] = checker::wilson_interval(c.walks, n);
    r.class_rates.push_back(ResearchRate{s.properties[c.property].property, c.key, mechanism_explanation(c.signature),
                                         c.walks, n, low, high});
  }
}

}  // namespace

ResearchResult run_research(const std::vector<MatrixCell>& cells, const ResearchOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  ResearchResult result;
  result.options = options;
  result.options.interrupt = nullptr;
  result.options.progress = nullptr;
  result.options.search_progress = nullptr;
  // Every configuration is validated before any work: bad input never costs a search.
  std::vector<spec::Config> configs;
  for (const MatrixCell& cell : cells) {
    configs.push_back(matrix_cell_config(options.base, options.overrides, cell));
    ResearchCell r;
    r.cell = cell;
    r.config = spec::to_json(configs.back());
    result.cells.push_back(std::move(r));
  }
  auto stopped = [&] { return options.interrupt != nullptr && options.interrupt->load(); };
  for (size_t i = 0; i < cells.size(); ++i) {
    if (stopped()) break;
    ResearchCell& r = result.cells[i];
    const Model model(configs[i]);
    check_cell(model, options, r);
    if (r.stop_reason == "interrupted") break;
    if (options.walks > 0) {
      walk_cell(model, options, r);
      if (!r.walks_complete) break;  // only a signal stops walks (no time limit on them)
    }
    ++result.cells_done;
    if (options.progress) options.progress(i, cells.size(), r);
  }
  result.interrupted = result.cells_done < cells.size();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace isr::analysis
