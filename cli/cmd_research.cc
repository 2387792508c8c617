// `isrcheck research unclean` (analysis/research.h, docs/research.md): the
// unclean-election study over a grid of configurations, per cell every loss property's
// verdict with its classes of mechanism and the share of walks under a fault schedule
// that lose data, with 95% intervals; text on stdout, --json and an offline --html
// report whose plots the embedded Vega library draws.
//
// Exit status: 0 the study ran (violations are its findings, not failures; a cell over
// its budget is reported incomplete); 2 bad input; 3 interrupted (SIGINT/SIGTERM): the
// cells done are reported, the others are marked not checked.
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/research.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "cli/run_support.h"
#include "cli/simulate_stats.h"
#include "cli/version.h"
#include "io/files.h"
#include "spec/partition/partition_model.h"

namespace isr::cli {
namespace {

struct ResearchCommandOptions {
  ConfigOptions config;
  std::vector<std::string> cells;  // --cells: id patterns
  bool list_cells = false;
  int threads = 1;
  uint64_t max_states = 1'000'000;
  std::string time_limit;
  size_t max_classes = 0;
  uint64_t walks = 2000;
  uint64_t depth = 100;
  uint64_t seed = 1;
  std::vector<std::string> rates;
  std::string json_file;
  std::string html_file;
  std::string vega_js;
  bool quiet = false;
};

// The plotting library the HTML report embeds, so that it draws offline: vega as
// scripts/fetch-vega.sh fetched it (pinned). --vega-js FILE, else $ISRCHECK_VEGA_JS,
// else the build's copy (CMakeLists.txt).
std::string research_vega_js(const ResearchCommandOptions& o) {
  std::string path = o.vega_js;
  const char* from_env = std::getenv("ISRCHECK_VEGA_JS");
  if (path.empty() && from_env != nullptr && *from_env != '\0') path = from_env;
  if (path.empty()) path = kVegaJs;
  std::string text;
  try {
    text = io::files::read_file(path);
  } catch (const io::files::InputError& e) {
    throw UsageError("--vega-js", "the HTML report embeds vega to draw its plots offline: " + std::string(e.what()) +
                                      "; run scripts/fetch-vega.sh (the build does), or give --vega-js FILE or "
                                      "ISRCHECK_VEGA_JS");
  }
  if (text.empty()) throw UsageError("--vega-js", path + " is empty; run scripts/fetch-vega.sh again");
  return text;
}

std::string research_rate_line(const analysis::ResearchRate& r) {
  return r.property + " " + percent(r.share()) + " [" + percent(r.low) + ", " + percent(r.high) + "]";
}

void run_research_command(const ResearchCommandOptions& o) {
  const std::vector<analysis::MatrixCell> grid = analysis::expand_matrix(analysis::research_default_dimensions());
  if (o.list_cells) {
    for (const auto& c : grid) std::cout << c.id() << "  " << c.label() << "\n";
    return;
  }
  std::vector<analysis::MatrixCell> cells;
  try {
    cells = analysis::select_research_cells(grid, o.cells);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--cells", e.what());
  }
  if (o.threads < 1 || o.threads > 256) {
    throw UsageError("--threads", "expected 1..256 threads per search, got " + std::to_string(o.threads));
  }
  if (o.depth == 0) throw UsageError("--depth", "expected at least 1 step per walk");
  check_output_path(o.json_file, "--json");
  check_output_path(o.html_file, "--html");
  // Read before the study: a missing library must not cost the user a whole grid.
  const std::string vega_js = o.html_file.empty() ? std::string() : research_vega_js(o);

  analysis::ResearchOptions options;
  if (!o.config.file.empty()) options.base = io::files::read_config_file(o.config.file);
  options.overrides = o.config.overrides;
  options.threads = o.threads;
  options.max_states = o.max_states;
  if (!o.time_limit.empty()) options.time_limit = parse_duration(o.time_limit, "--time-limit");
  options.max_classes = o.max_classes;
  options.walks = o.walks;
  options.depth = o.depth;
  options.seed = o.seed;
  // The schedule is simulate --stats's (its defaults, --rate KIND=P), checked against
  // the first cell's model: every cell has the same action kinds.
  options.rates = fault_rates(spec::PartitionModel(analysis::matrix_cell_config(options.base, options.overrides,
                                                                                 cells.front())),
                              o.rates);
  std::ostream& out = o.json_file == "-" ? std::cerr : std::cout;
  if (!o.quiet) {
    options.progress = [](size_t i, size_t n, const analysis::ResearchCell& c) {
      std::ostringstream line;
      line << "cell " << i + 1 << " of " << n << " " << c.cell.id() << ": check " << c.verdict;
      if (!c.stop_reason.empty()) line << " (" << c.stop_reason << ")";
      line << ", " << human(static_cast<double>(c.distinct_states)) << " states, " << c.classes.size()
           << " classes, " << fixed(c.check_seconds, 1) << " s";
      for (const auto& r : c.rates) line << "; " << research_rate_line(r);
      std::cerr << line.str() << "\n";
    };
    options.search_progress = [](const checker::BfsProgress& p) {
      std::cerr << "  checking: depth " << p.depth << " | distinct " << human(static_cast<double>(p.distinct_states))
                << " | violated so far: " << p.properties_violated << " properties | " << fixed(p.seconds, 0)
                << " s\n";
    };
  }
  analysis::ResearchResult result;
  {
    InterruptGuard guard;  // SIGINT/SIGTERM: the cells not done are reported as such, exit 3
    options.interrupt = &interrupted();
    result = analysis::run_research(cells, options);
  }
  out << analysis::render_research_text(result);
  if (!o.json_file.empty()) write_json(o.json_file, "--json", analysis::research_to_json(result));
  if (!o.html_file.empty()) write_text(o.html_file, "--html", analysis::render_research_html(result, vega_js));
  set_exit_code(result.interrupted ? 3 : 0);
}

}  // namespace

void add_research_command(CLI::App& app) {
  auto o = std::make_shared<ResearchCommandOptions>();
  CLI::App* research = app.add_subcommand("research", "Reproducible studies over a grid of configurations");
  research->require_subcommand(1);
  CLI::App* command = research->add_subcommand(
      "unclean", "How often, and how, unclean leader election loses acknowledged writes, and what ELR and min "
                 "ISR change: per cell check --continue --classes and simulate --stats (docs/research.md)");
  add_config_options(*command, o->config);
  command->add_option("--cells", o->cells,
                      "Only the cells whose id matches one of these patterns ('*' matches anything; repeat or "
                      "comma-separate), e.g. 'rf3-isr2-*-unclean-noelr-*'; --list-cells lists the ids")
      ->delimiter(',');
  command->add_flag("--list-cells", o->list_cells, "List the grid's cell ids and stop");
  command->add_option("--threads", o->threads, "Threads per search (no figure depends on it)")
      ->capture_default_str();
  command->add_option("--max-states", o->max_states,
                      "Distinct states per cell's check; beyond it the cell is incomplete (0: no limit)")
      ->capture_default_str();
  command->add_option("--time-limit", o->time_limit,
                      "Per cell's check, e.g. 30s or 5m; beyond it the cell is incomplete (which cells finish "
                      "then depends on the machine; --max-states does not)");
  command->add_option("--max-classes", o->max_classes, "Classes kept per property and cell (0: all)")
      ->capture_default_str();
  command->add_option("--walks", o->walks, "Walks per cell under the fault schedule (0: no walks)")
      ->capture_default_str();
  command->add_option("--depth", o->depth, "Steps per walk")->capture_default_str();
  command->add_option("--seed", o->seed, "Seed of every cell's walks")->capture_default_str();
  command->add_option("--rate", o->rates,
                      "KIND=P, the probability per step of a fault of that kind (repeat; simulate --stats's "
                      "defaults: Crash=0.01)");
  command->add_option("--json", o->json_file, "Write every figure as JSON; - for stdout");
  command->add_option("--html", o->html_file,
                      "Write a self-contained HTML report: plots of each cell's rates with their intervals, the "
                      "verdicts and the classes");
  command->add_option("--vega-js", o->vega_js,
                      "The vega.min.js the HTML report embeds (default: $ISRCHECK_VEGA_JS, else the build's copy "
                      "from scripts/fetch-vega.sh)");
  command->add_flag("--quiet", o->quiet, "No progress lines");
  command->callback([o] { run_research_command(*o); });
}

}  // namespace isr::cli
