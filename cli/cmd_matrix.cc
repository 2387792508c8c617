// `isrcheck matrix`: durability and availability over a sweep of configurations
// (analysis/matrix.h, docs/matrix.md). Every swept dimension is a flag taking a list;
// cells run in parallel with a progress bar on stderr and are cached on disk.
//
// Exit status: 0 the sweep ran (red cells are findings, not failures); 2 bad input;
// 3 interrupted (Ctrl-C): the cells not finished are reported incomplete.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/matrix.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "cli/run_support.h"
#include "cli/version.h"
#include "io/files.h"
#include "spec/partition/state.h"

namespace isr::cli {
namespace {

using nlohmann::json;

struct MatrixCommandOptions {
  ConfigOptions config;
  std::string rf = "1-3";
  std::string min_isr = "all";
  std::string acks = "all,1";
  std::string unclean = "off,on";
  std::string elr = "on,off";
  std::string placement = "combined";
  std::string failures = "0-2";
  std::string por = "on";  // issue 29 point 6: where the model declares reductions
  // The copies-lost column (docs/matrix.md, "The copies-lost column"): on by default,
  // since it adds about a quarter to the default sweep's first run and nothing to a
  // cached re-run (measured there).
  std::string copies_lost = "on";
  std::string lossy = "off,on";
  int jobs = 2;
  uint64_t max_states = 1'000'000;
  bool no_availability = false;
  std::string cache_dir = ".isrcheck-cache/matrix";
  bool no_cache = false;
  std::string format = "text";
  std::string json_file;
  std::string html_file;
  std::string mermaid_js;  // the renderer the HTML report embeds (--mermaid-js)
  bool quiet = false;
  bool allow_incomplete = false;  // exit 0 even when some cell hit --max-states
};


std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto first = item.find_first_not_of(" \t");
    const auto last = item.find_last_not_of(" \t");
    items.push_back(first == std::string::npos ? "" : item.substr(first, last - first + 1));
  }
  return items;
}

bool parse_int(const std::string& text, int& out) {
  if (text.empty() || text.size() > 3) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  out = std::stoi(text);
  return true;
}

// "1-3", "1,3,5", "2-3,5": a sorted list without repeats, every value in [lo, hi].
// `all_allowed`: "all" gives the empty list (the matrix's "every value up to RF").
std::vector<int> parse_int_list(const std::string& flag, const std::string& text, int lo, int hi,
                                bool all_allowed) {
  const std::string allowed = "expected values " + std::to_string(lo) + ".." + std::to_string(hi) +
                              " as a list and/or ranges (e.g. " + std::to_string(lo) + "-" +
                              std::to_string(std::min(hi, lo + 2)) + " or " + std::to_string(lo) + "," +
                              std::to_string(std::min(hi, lo + 2)) + ")" +
                              (all_allowed ? ", or \"all\" (every value up to the replication factor)" : "") +
                              ", got \"" + text + "\"";
  if (all_allowed && text == "all") return {};
  std::vector<int> values;
  for (const std::string& item : split(text)) {
    const auto dash = item.find('-');
    int a = 0;
    int b = 0;
    const bool ok = dash == std::string::npos
                        ? parse_int(item, a) && (b = a, true)
                        : parse_int(item.substr(0, dash), a) && parse_int(item.substr(dash + 1), b);
    if (!ok || a > b || a < lo || b > hi) throw UsageError(flag, allowed);
    for (int v = a; v <= b; ++v) values.push_back(v);
  }
  if (values.empty()) throw UsageError(flag, allowed);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

// A list of names from a closed set, each mapped to a value; repeats dropped.
template <class T>
std::vector<T> parse_choices(const std::string& flag, const std::string& text,
                             const std::vector<std::pair<std::string, T>>& choices) {
  std::string names;
  for (const auto& [name, value] : choices) names += (names.empty() ? "\"" : ", \"") + name + "\"";
  std::vector<T> values;
  for (const std::string& item : split(text)) {
    const auto it = std::find_if(choices.begin(), choices.end(), [&](const auto& c) { return c.first == item; });
    if (it == choices.end()) {
      throw UsageError(flag, "expected a comma-separated list of " + names + ", got \"" + text + "\"");
    }
    if (std::find(values.begin(), values.end(), it->second) == values.end()) values.push_back(it->second);
  }
  if (values.empty()) throw UsageError(flag, "expected a comma-separated list of " + names + ", got \"\"");
  return values;
}

const std::vector<std::pair<std::string, bool>> kOnOff = {
    {"off", false}, {"on", true}, {"false", false}, {"true", true}};

analysis::MatrixDimensions dimensions_from(const MatrixCommandOptions& o) {
  analysis::MatrixDimensions d;
  d.replication_factors = parse_int_list("--rf", o.rf, 1, spec::kMaxReplicas, false);
  d.min_isr = parse_int_list("--min-isr", o.min_isr, 1, spec::kMaxReplicas, true);
  d.acks = parse_choices<spec::Acks>("--acks", o.acks,
                                     {{"all", spec::Acks::All}, {"1", spec::Acks::One}, {"0", spec::Acks::Zero}});
  d.unclean = parse_choices<bool>("--unclean", o.unclean, kOnOff);
  d.elr = parse_choices<bool>("--elr", o.elr, kOnOff);
  d.placements = parse_choices<spec::Placement>(
      "--placement", o.placement,
      {{"combined", spec::Placement::Combined}, {"dedicated", spec::Placement::Dedicated}});
  d.failures = parse_int_list("--failures", o.failures, 0, spec::kMaxReplicas, true);
  d.lossy = parse_choices<bool>("--lossy", o.lossy, kOnOff);
  return d;
}

std::string duration_text(double seconds) {
  const int s = static_cast<int>(seconds);
  char text[32];
  if (s >= 60) {
    std::snprintf(text, sizeof text, "%dm%02ds", s / 60, s % 60);
  } else {
    std::snprintf(text, sizeof text, "%ds", s);
  }
  return text;
}

// One line redrawn in place on a terminal; elsewhere (logs, tests) a line per second.
class ProgressBar {
 public:
  explicit ProgressBar(bool enabled) : enabled_(enabled), tty_(isatty(STDERR_FILENO) != 0) {}

  void update(const analysis::MatrixProgress& p) {
    if (!enabled_ || p.total == 0) return;
    const bool finished = p.done == p.total && p.rows_done == p.rows_total;
    // Off a terminal (logs, CI) at most a line per second, and the last one.
    const auto now = std::chrono::steady_clock::now();
    if (!tty_ && !finished && now - last_line_ < std::chrono::seconds(1)) return;
    last_line_ = now;
    constexpr int kWidth = 30;
    const int filled = p.done * kWidth / p.total;
    std::string bar(static_cast<size_t>(filled), '#');
    bar += std::string(static_cast<size_t>(kWidth - filled), '.');
    std::string line = "[" + bar + "] " + std::to_string(p.done) + "/" + std::to_string(p.total) + " cells | " +
                       std::to_string(p.red) + " red | " + std::to_string(p.incomplete) + " incomplete | " +
                       std::to_string(p.cache_hits) + " cached | " +
                       (p.rows_total > 0 ? std::to_string(p.rows_done) + "/" + std::to_string(p.rows_total) +
                                               " rows (copies lost) | "
                                         : "") +
                       duration_text(p.seconds);
    if (tty_) {
      std::cerr << "\r" << line << "\x1b[K" << std::flush;
      if (finished) std::cerr << "\n";
    } else {
      std::cerr << line << "\n";
    }
  }

 private:
  bool enabled_;
  bool tty_;
  std::chrono::steady_clock::time_point last_line_{};
};

void write_file(const std::string& path, const std::string& option, const std::string& text) {
  write_text(path, option, text);
}

// The diagram renderer the HTML report embeds, so that it draws its diagrams offline:
// mermaid as scripts/fetch-mermaid.sh fetched it (pinned version). --mermaid-js FILE,
// else $ISRCHECK_MERMAID_JS, else the build's copy (CMakeLists.txt).
std::string matrix_mermaid_js(const MatrixCommandOptions& o) {
  std::string path = o.mermaid_js;
  const char* from_env = std::getenv("ISRCHECK_MERMAID_JS");
  if (path.empty() && from_env != nullptr && *from_env != '\0') path = from_env;
  if (path.empty()) path = kMermaidJs;
  std::string text;
  try {
    text = io::files::read_file(path);
  } catch (const io::files::InputError& e) {
    throw UsageError("--mermaid-js", "the HTML report embeds mermaid to draw its diagrams offline: " +
                                         std::string(e.what()) +
                                         "; run scripts/fetch-mermaid.sh (the build does), or give "
                                         "--mermaid-js FILE or ISRCHECK_MERMAID_JS");
  }
  if (text.empty()) throw UsageError("--mermaid-js", path + " is empty; run scripts/fetch-mermaid.sh again");
  return text;
}

void run(const MatrixCommandOptions& o) {
  const analysis::MatrixDimensions dimensions = dimensions_from(o);
  if (o.copies_lost != "on" && o.copies_lost != "off") {
    throw UsageError("--copies-lost", "expected \"on\" or \"off\", got \"" + o.copies_lost + "\"");
  }
  if (o.jobs < 1 || o.jobs > 256) {
    throw UsageError("--jobs", "expected 1..256 cells in parallel, got " + std::to_string(o.jobs));
  }
  check_output_path(o.json_file, "--json");
  check_output_path(o.html_file, "--html");
  // Read before the search: a missing renderer must not cost the user a whole sweep.
  const std::string mermaid_js = o.html_file.empty() ? std::string() : matrix_mermaid_js(o);
  const std::vector<analysis::MatrixCell> cells = analysis::expand_matrix(dimensions);
  if (cells.empty()) {
    // A cell needs min ISR <= RF and failures <= RF: blame the flag that ruled all out.
    const int max_rf = *std::max_element(dimensions.replication_factors.begin(), dimensions.replication_factors.end());
    const bool some_min_isr_fits =
        dimensions.min_isr.empty() ||
        *std::min_element(dimensions.min_isr.begin(), dimensions.min_isr.end()) <= max_rf;
    if (!some_min_isr_fits) {
      throw UsageError("--min-isr", "no cell: every value is above every replication factor in --rf");
    }
    throw UsageError("--failures", "no cell: every value is above every replication factor in --rf (a cell's "
                                   "failures are at most its RF)");
  }

  analysis::MatrixOptions options;
  if (!o.config.file.empty()) options.base = io::files::read_config_file(o.config.file);
  options.overrides = o.config.overrides;
  options.jobs = o.jobs;
  options.max_states = o.max_states;
  options.availability = !o.no_availability;
  options.por = o.por == "on";
  options.copies_lost = o.copies_lost == "on";
  if (!o.no_cache) options.cache_dir = o.cache_dir;
  InterruptGuard guard;  // SIGINT/SIGTERM: unfinished cells are incomplete, exit 3
  options.interrupt = &interrupted();
  auto bar = std::make_shared<ProgressBar>(!o.quiet);
  options.progress = [bar](const analysis::MatrixProgress& p) { bar->update(p); };

  const analysis::MatrixResult result = analysis::run_matrix(cells, options);

  const auto format = o.format == "markdown" ? analysis::MatrixFormat::Markdown : analysis::MatrixFormat::Text;
  if (o.json_file != "-") std::cout << analysis::render_matrix_table(result, format);
  if (o.json_file == "-") std::cerr << analysis::render_matrix_table(result, format);
  if (!o.json_file.empty()) {
    nlohmann::json document = analysis::matrix_to_json(result);
    if (document.is_object()) document["verdict"] = result.interrupted || result.incomplete > 0 ? "incomplete" : "complete";
    write_file(o.json_file, "--json", document.dump(2) + "\n");
  }
  if (!o.html_file.empty()) write_file(o.html_file, "--html", analysis::render_matrix_html(result, mermaid_js));
  // A sweep with cells left undecided is not a complete answer: exit 3, as for any limit
  // reached, unless the user accepts it.
  if (result.incomplete > 0 && !result.interrupted) {
    std::cerr << "isrcheck: " << result.incomplete << " of " << result.cells.size()
              << " cells are incomplete (--max-states " << o.max_states << " reached)"
              << (o.allow_incomplete ? "; exit 0 (--allow-incomplete)" : "; exit 3 (--allow-incomplete: exit 0)") << "\n";
  }
  set_exit_code(result.interrupted || (result.incomplete > 0 && !o.allow_incomplete) ? 3 : 0);
}

}  // namespace

void add_matrix_command(CLI::App& app) {
  auto o = std::make_shared<MatrixCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "matrix", "Durability and availability over a sweep of configurations (RF, min ISR, acks, ...)");
  add_config_options(*command, o->config);
  command->add_option("--rf", o->rf, "Replication factors, list and/or ranges: 1-3, 1,3,5 (1..7)")
      ->capture_default_str();
  command->add_option("--min-isr", o->min_isr,
                      "min.insync.replicas values, or all (1..RF); values above RF are skipped")
      ->capture_default_str();
  command->add_option("--acks", o->acks, "acks values: all, 1, 0")->capture_default_str();
  command->add_option("--unclean", o->unclean, "unclean.leader.election.enable: off, on")->capture_default_str();
  command->add_option("--elr", o->elr, "eligible leader replicas (KIP-966): on, off")->capture_default_str();
  command->add_option("--placement", o->placement, "controller placement: combined, dedicated")
      ->capture_default_str();
  command->add_option("--failures", o->failures,
                      "node failures, list and/or ranges, or all (0..RF); values above RF are skipped")
      ->capture_default_str();
  command->add_option("--lossy", o->lossy,
                      "failures lose the unflushed suffix (power loss): off (kill -9), on")
      ->capture_default_str();
  command->add_option("--jobs", o->jobs, "Cells checked in parallel, one thread each")
      ->check(decimal_count())->capture_default_str();
  command->add_option("--max-states", o->max_states,
                      "Distinct states per cell and analysis; beyond it the cell is incomplete (0: no limit)")
      ->check(decimal_count())
      ->capture_default_str();
  command->add_option("--por", o->por, "Partial-order reduction in the exhaustive searches and the availability graphs (docs/checker.md, docs/claims.md): on (default) or off (to compare state counts with earlier runs); same verdicts")
      ->check(CLI::IsMember({"on", "off"}));
  command->add_option("--copies-lost", o->copies_lost,
                      "The copies-lost column: per row, how many copies of a write acknowledged by the full ISR "
                      "(power or disk losses) can lose it; on or off (its searches always use partial-order reduction)")
      ->capture_default_str();
  command->add_flag("--no-availability", o->no_availability, "Durability only (no availability analysis)");
  command->add_option("--cache", o->cache_dir, "Cache directory (cells keyed by configuration and build)")
      ->capture_default_str();
  command->add_flag("--no-cache", o->no_cache, "Neither read nor write the cache");
  command->add_option("--format", o->format, "Table on stdout: text or markdown")
      ->check(CLI::IsMember({"text", "markdown"}))
      ->capture_default_str();
  command->add_option("--json", o->json_file, "Write every cell (with traces) as JSON; - for stdout");
  command->add_option("--html", o->html_file,
                      "Write a self-contained HTML report: coloured grid, red cells linked to their traces");
  command->add_option("--mermaid-js", o->mermaid_js,
                      "The mermaid.min.js the HTML report embeds (default: $ISRCHECK_MERMAID_JS, else the "
                      "build's copy from scripts/fetch-mermaid.sh)");
  command->add_flag("--quiet", o->quiet, "No progress bar");
  command->add_flag("--allow-incomplete", o->allow_incomplete,
                    "Exit 0 when some cells are incomplete (--max-states reached); without it, exit 3");
  command->callback([o] { run(*o); });
}

}  // namespace isr::cli
