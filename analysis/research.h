// `isrcheck research unclean` (issue 26 point 4): the unclean-election study the tool
// reproduces. Over a grid of configurations (RF, min ISR, acks, unclean election, ELR,
// the kind of failure) each cell gets
//   - what `check --continue --classes` says: every loss property's verdict, and per
//     property the classes of mechanism (analysis/mechanism_signature.h) with their
//     shortest trace's length, violating states and records lost; exhaustive within the
//     cell's budget (--max-states, --time-limit), else "incomplete", never guessed;
//   - what `simulate --stats` says: per property and class, the share of walks under a
//     fault schedule that violate it, with its 95% Wilson interval, from a fixed seed.
// The grid is the matrix's (analysis/matrix.h: MatrixCell, expand_matrix,
// matrix_cell_config), so a research cell checks exactly the configuration of the
// matrix cell with the same id. Implementation: the grid and the runner (research.cc),
// the reports (research_report.cc: text, JSON, HTML with Vega plots). The command line
// is cli/cmd_research.cc; docs/research.md is the worked study.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/matrix.h"

namespace isr::analysis {

// The study's grid: RF 2-3, min ISR 1..RF, acks all and 1, unclean off and on, ELR on and
// off, combined controllers, one failure that is a kill -9 (page cache kept) or may be a
// power loss (the unflushed suffix lost). docs/research.md says why these.
MatrixDimensions research_default_dimensions();

// The cells whose id (MatrixCell::id) matches one of `patterns` ('*' matches any run of
// characters), in grid order; all of them when `patterns` is empty. Throws
// std::invalid_argument naming a pattern that matches no cell.
std::vector<MatrixCell> select_research_cells(const std::vector<MatrixCell>& grid,
                                              const std::vector<std::string>& patterns);
// '*' globbing, the whole of `text`.
bool glob_match(std::string_view pattern, std::string_view text);

struct ResearchCell;

struct ResearchOptions {
  nlohmann::json base = nlohmann::json::object();  // --config
  std::vector<std::string> overrides;              // --set, after the cell's keys
  int threads = 1;                                 // per search; no figure depends on it
  uint64_t max_states = 1'000'000;                 // per cell's check; 0: none
  std::chrono::nanoseconds time_limit{0};          // per cell's check; 0: none
  size_t max_classes = 0;                          // per property in the check (0: all)
  uint64_t walks = 2000;                           // per cell; 0: no walks
  uint64_t depth = 100;                            // steps per walk
  uint64_t seed = 1;                               // the same for every cell
  std::map<std::string, double, std::less<>> rates;  // the fault schedule, per step
  const std::atomic<bool>* interrupt = nullptr;
  // After each cell, with its index and the cell's result (from the calling thread).
  std::function<void(size_t, size_t, const ResearchCell&)> progress;
  // During a cell's check, about once a second (from the calling thread): a long cell
  // (seconds at RF 3 with a power loss) still shows it is alive.
  std::function<void(const checker::BfsProgress&)> search_progress;
};

// One property's verdict in a cell's exhaustive check.
struct ResearchVerdict {
  std::string property;
  std::string verdict;            // "holds", "violated", "incomplete"
  uint64_t violating_states = 0;  // up to symmetry
  uint64_t steps = 0;             // the shortest counterexample's length, when violated
  uint64_t classes = 0;
  uint64_t classes_left_out = 0;
};

// One class of a property's violating states (`check --classes`).
struct ResearchClass {
  std::string property;
  std::string signature;
  std::string explanation;
  uint64_t steps = 0;
  uint64_t violating_states = 0;
  uint32_t lost_first = 0;
  uint32_t lost_max = 0;
};

// A share of walks with its 95% Wilson interval (`simulate --stats`).
struct ResearchRate {
  std::string property;
  std::string signature;    // empty: the property as a whole
  std::string explanation;
  uint64_t walks = 0;       // violating it (or entering it through this class)
  uint64_t of = 0;          // walks completed
  double low = 0;
  double high = 0;
  double share() const { return of == 0 ? 0.0 : static_cast<double>(walks) / static_cast<double>(of); }
};

struct ResearchCell {
  MatrixCell cell;
  nlohmann::json config;  // the resolved configuration (spec::to_json)
  bool checked = false;   // false: the run was interrupted before this cell
  std::string verdict = "incomplete";  // of the check: "holds", "violated", "incomplete"
  std::string stop_reason;             // when incomplete: "max-states", "time-limit", "interrupted"
  uint64_t distinct_states = 0;
  int depth = 0;
  double check_seconds = 0;
  std::vector<ResearchVerdict> verdicts;
  std::vector<ResearchClass> classes;
  bool walked = false;
  bool walks_complete = false;
  uint64_t walks_completed = 0;
  double walk_seconds = 0;
  std::vector<ResearchRate> rates;        // one per property, in property order
  std::vector<ResearchRate> class_rates;  // per property, most walks first
};

struct ResearchResult {
  std::vector<ResearchCell> cells;
  ResearchOptions options;  // as run (interrupt and progress cleared)
  size_t cells_done = 0;
  bool interrupted = false;
  double seconds = 0;
};

// Runs every cell in order: the check, then the walks. Throws spec::ConfigError before
// any work when a cell's configuration is invalid, std::invalid_argument on a bad rate.
// Interrupted: the cell under way and the later ones are left unchecked (incomplete).
ResearchResult run_research(const std::vector<MatrixCell>& cells, const ResearchOptions& options);

// ---- reports (research_report.cc) ----------------------------------------------------

nlohmann::json research_to_json(const ResearchResult& result);
// A table per cell: verdicts, classes, rates.
std::string render_research_text(const ResearchResult& result);
// A self-contained page: per property a Vega plot of each cell's share of violating
// walks with its 95% interval, the verdict table and every cell's classes. `vega_js`
// (vega.min.js, scripts/fetch-vega.sh) is embedded, so the page loads nothing from the
// network. Throws std::invalid_argument when it is empty or contains "<script" or
// "</script" (which would end the script element early).
std::string render_research_html(const ResearchResult& result, std::string_view vega_js);

}  // namespace isr::analysis
