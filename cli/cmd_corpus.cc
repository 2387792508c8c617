// `isrcheck corpus regenerate | verify`: the counterexample corpus (analysis/corpus.h,
// docs/corpus.md).
//
//   regenerate  re-runs the unsafe side of every entry and rewrites its trace file; the
//               traces are deterministic, so an up-to-date corpus is left byte-identical.
//   verify      replays every stored trace, re-runs both sides of every pair and prints
//               a table.
// Exit status: 0 every entry met its expectation; 1 some entry did not; 2 bad input (the
// manifest, an option), with the field named.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "analysis/corpus.h"
#include "cli/commands.h"
#include "cli/progress.h"
#include "cli/run_support.h"

namespace isr::cli {
namespace {

using analysis::CorpusEntry;

constexpr const char* kDefaultManifest = "counterexamples/corpus/manifest.json";

struct CorpusOptions {
  std::string manifest = kDefaultManifest;
  std::string dir;   // regenerate: --out; verify: --traces (default: the manifest's directory)
  std::string only;
  unsigned threads = 0;
  bool skip_slow = false;
  std::string por = "on";  // issue 29 point 6: where the model declares reductions
  std::string json_file;  // empty: none; "-": stdout, the table then on stderr
};

nlohmann::json side_json(const analysis::SideResult& side) {
  return {{"verdict", side.verdict}, {"steps", side.steps}, {"states", side.states}, {"seconds", side.seconds}};
}

// The --json document: the command, a verdict, and one object per entry handled.
nlohmann::json corpus_json(const char* command, const std::string& verdict, size_t done, size_t total,
                           nlohmann::json entries) {
  return {{"command", command}, {"verdict", verdict}, {"done", done}, {"total", total}, {"entries", std::move(entries)}};
}

analysis::Manifest load(const CorpusOptions& o) {
  try {
    return analysis::load_manifest(o.manifest);
  } catch (const analysis::CorpusError& e) {
    // Fields inside the manifest are named after the file: "m.json: entries[2].acks".
    const bool option = e.field.starts_with("--");
    const std::string what = e.what();
    throw UsageError(option ? e.field : o.manifest + ": " + e.field, what.substr(e.field.size() + 2));
  }
}

std::vector<const CorpusEntry*> selected(const analysis::Manifest& manifest, const CorpusOptions& o) {
  std::vector<const CorpusEntry*> entries;
  if (!o.only.empty()) {
    try {
      entries.push_back(&analysis::find_entry(manifest, o.only));
    } catch (const analysis::CorpusError& e) {
      const std::string what = e.what();
      throw UsageError(e.field, what.substr(e.field.size() + 2));
    }
    return entries;
  }
  for (const CorpusEntry& entry : manifest.entries) entries.push_back(&entry);
  return entries;
}

analysis::RunOptions run_options(const CorpusOptions& o) {
  analysis::RunOptions options;
  options.threads = static_cast<int>(o.threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : o.threads);
  options.interrupt = &interrupted();
  options.por = o.por == "on";
  return options;
}

std::string seconds(double s) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(s < 10 ? 2 : 1) << s << " s";
  return out.str();
}

std::string subject(const CorpusEntry& entry) {
  if (entry.kind == analysis::EntryKind::Safety) return entry.property;
  return "availability(" + std::to_string(entry.failures) + (entry.lossy ? " lossy" : "") +
         (entry.failing_nodes == "brokers" ? " brokers" : "") + ")";
}

void regenerate(const CorpusOptions& o) {
  const analysis::Manifest manifest = load(o);
  const std::string out_dir = o.dir.empty() ? manifest.directory : o.dir;
  check_output_directory(out_dir, "--out");
  check_output_path(o.json_file, "--json");
  std::ostream& out = o.json_file == "-" ? std::cerr : std::cout;
  nlohmann::json rows = nlohmann::json::array();
  int failures = 0, changed = 0;
  InterruptGuard guard;  // SIGINT/SIGTERM: stop after the entry at hand (its file is not written), exit 3
  size_t done = 0;
  const auto entries = selected(manifest, o);
  ProgressLines progress("corpus regenerate", "entries", true);
  for (const CorpusEntry* entry : entries) {
    if (interrupted().load()) break;
    progress.set(done, entries.size(), "entry " + entry->name);
    const analysis::RegenerateResult r = analysis::regenerate_entry(*entry, out_dir, run_options(o));
    out << std::left << std::setw(30) << entry->name << " " << std::setw(28) << subject(*entry) << " "
              << std::setw(21) << r.unsafe.verdict << std::right << std::setw(3) << r.unsafe.steps << " steps "
              << std::setw(9) << r.unsafe.states << " states " << std::setw(8) << seconds(r.unsafe.seconds) << "  ";
    if (!r.problem.empty()) {
      ++failures;
      out << "FAILED: " << r.problem << "\n";
    } else {
      changed += r.changed ? 1 : 0;
      out << (r.changed ? "written " : "unchanged ") << r.file << "\n";
    }
    rows.push_back({{"name", entry->name}, {"checks", subject(*entry)}, {"unsafe", side_json(r.unsafe)},
                    {"file", r.file}, {"changed", r.changed}, {"ok", r.problem.empty()}, {"problem", r.problem}});
    ++done;
  }
  if (interrupted().load()) {
    out << "INCOMPLETE: interrupted after " << done << " of " << entries.size() << " entries; " << changed
              << " trace file(s) changed\n";
    if (!o.json_file.empty())
      write_json(o.json_file, "--json", corpus_json("corpus regenerate", "incomplete", done, entries.size(), rows));
    set_exit_code(3);
    return;
  }
  out << (failures == 0 ? "regenerated" : "FAILED") << ": " << changed << " trace file(s) changed, "
            << failures << " entr" << (failures == 1 ? "y" : "ies") << " not as expected\n";
  if (!o.json_file.empty()) {
    write_json(o.json_file, "--json",
               corpus_json("corpus regenerate", failures == 0 ? "regenerated" : "failed", done, entries.size(), rows));
  }
  set_exit_code(failures == 0 ? 0 : 1);
}

void verify(const CorpusOptions& o) {
  const analysis::Manifest manifest = load(o);
  const std::string trace_dir = o.dir.empty() ? manifest.directory : o.dir;
  check_output_path(o.json_file, "--json");
  std::ostream& out = o.json_file == "-" ? std::cerr : std::cout;
  nlohmann::json rows = nlohmann::json::array();
  out << std::left << std::setw(30) << "entry" << " " << std::setw(28) << "checks" << " "
            << std::setw(40) << "unsafe: verdict, steps (max), states, time" << " "
            << std::setw(36) << "fix: verdict, states, time" << " result\n";
  int failures = 0;
  const auto entries = selected(manifest, o);
  InterruptGuard guard;  // SIGINT/SIGTERM: report the entries verified so far, exit 3
  size_t done = 0;
  ProgressLines progress("corpus verify", "entries", true);
  for (const CorpusEntry* entry : entries) {
    if (interrupted().load()) break;
    progress.set(done, entries.size(), "entry " + entry->name);
    const bool check_fix = !(o.skip_slow && entry->slow);
    const analysis::EntryVerification v = analysis::verify_entry(*entry, trace_dir, run_options(o), check_fix);
    std::ostringstream unsafe, fix;
    unsafe << v.unsafe.verdict << ", " << v.unsafe.steps << " (" << entry->max_steps << "), " << v.unsafe.states
           << ", " << seconds(v.unsafe.seconds);
    if (v.fix_checked) {
      fix << v.fix.verdict << ", " << v.fix.states << ", " << seconds(v.fix.seconds);
    } else {
      fix << "skipped (slow)";
    }
    out << std::left << std::setw(30) << entry->name << " " << std::setw(28) << subject(*entry) << " "
              << std::setw(40) << unsafe.str() << " " << std::setw(36) << fix.str() << " "
              << (v.ok() ? "ok" : "MISMATCH") << "\n";
    for (const std::string& problem : v.problems) out << "    " << problem << "\n";
    rows.push_back({{"name", entry->name},
                    {"checks", subject(*entry)},
                    {"max_steps", entry->max_steps},
                    {"unsafe", side_json(v.unsafe)},
                    {"fix", v.fix_checked ? side_json(v.fix) : nlohmann::json(nullptr)},
                    {"ok", v.ok()},
                    {"problems", v.problems}});
    if (interrupted().load()) {
      out << "    (interrupted: this entry's searches stopped early)\n";
      break;
    }
    failures += v.ok() ? 0 : 1;
    ++done;
  }
  if (interrupted().load()) {
    out << "INCOMPLETE: interrupted; " << done - failures << " of the " << done << " entries verified of "
              << entries.size() << " were as expected\n";
    if (!o.json_file.empty())
      write_json(o.json_file, "--json", corpus_json("corpus verify", "incomplete", done, entries.size(), rows));
    set_exit_code(3);
    return;
  }
  out << (failures == 0 ? "corpus verified" : "corpus MISMATCH") << ": " << entries.size() - failures
            << " of " << entries.size() << " entries as expected\n";
  if (!o.json_file.empty()) {
    write_json(o.json_file, "--json",
               corpus_json("corpus verify", failures == 0 ? "verified" : "mismatch", done, entries.size(), rows));
  }
  set_exit_code(failures == 0 ? 0 : 1);
}

void add_common(CLI::App& command, CorpusOptions& o) {
  command.add_option("--manifest", o.manifest, std::string("Corpus manifest (default ") + kDefaultManifest + ")");
  command.add_option("--only", o.only, "Only the entry with this name");
  command.add_option("--threads", o.threads, "Worker threads (default 0: one per core); results do not depend on it")
      ->check(decimal_count())
      ->check(CLI::Range(0u, 1024u));
  command.add_option("--por", o.por, "Partial-order reduction in the exhaustive searches and the availability graphs (docs/checker.md, docs/claims.md): on (default) or off (to compare state counts with earlier runs); same verdicts")
      ->check(CLI::IsMember({"on", "off"}));
  command.add_option("--json", o.json_file, "Write the results as JSON; - for stdout (the table then on stderr)");
}

}  // namespace

void add_corpus_command(CLI::App& app) {
  CLI::App* corpus = app.add_subcommand("corpus", "The counterexample corpus: regenerate its traces, verify it");
  corpus->require_subcommand(1);

  auto regen = std::make_shared<CorpusOptions>();
  CLI::App* regenerate_command = corpus->add_subcommand(
      "regenerate", "Re-run every entry's unsafe configuration and rewrite its trace (deterministic)");
  add_common(*regenerate_command, *regen);
  regenerate_command->add_option("--out", regen->dir, "Write the traces here (default: the manifest's directory)");
  regenerate_command->callback([regen] { regenerate(*regen); });

  auto check = std::make_shared<CorpusOptions>();
  CLI::App* verify_command = corpus->add_subcommand(
      "verify", "Replay every stored trace and re-check every pair; exit 1 on a mismatch");
  add_common(*verify_command, *check);
  verify_command->add_option("--traces", check->dir, "Read the traces from here (default: the manifest's directory)");
  verify_command->add_flag("--skip-slow", check->skip_slow, "Do not re-check the fix side of entries marked slow");
  verify_command->callback([check] { verify(*check); });
}

}  // namespace isr::cli
