// `isrcheck prove FILE...`: checks claim files (analysis/claims.h, docs/claims.md) and
// prints a verdict table: per expectation, expected against found, the states explored,
// the time, and the trace backing a refutation.
//
// Every file is parsed before any search runs, so a malformed claim costs nothing.
// Exit status: 0 every expectation met; 1 some expectation not met; 2 a claim file is
// malformed (the message names the file and the field); 3 interrupted (SIGINT or
// SIGTERM): the claims checked so far are reported and --json says verdict "incomplete".
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/claims.h"
#include "cli/commands.h"
#include "cli/progress.h"
#include "cli/run_support.h"

namespace isr::cli {
namespace {

struct ProveCommandOptions {
  std::vector<std::string> files;
  int threads = 1;
  std::string por = "on";  // issue 29 point 6: where the model declares reductions
  std::string json_file;
  std::string trace_dir;
};

std::string seconds_text(double s) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(s < 10 ? 2 : 1) << s << " s";
  return out.str();
}

void write_json_file(const std::string& path, const nlohmann::json& document, const std::string& field) {
  write_json(path, field, document);
}

void prove(const ProveCommandOptions& o) {
  std::vector<analysis::Claim> claims;
  for (const std::string& file : o.files) {
    try {
      claims.push_back(analysis::read_claim_file(file));
    } catch (const analysis::ClaimError& e) {
      // The file names itself when it cannot be read; otherwise prefix it.
      throw UsageError(e.field == file ? file : file + ": " + e.field,
                       std::string(e.what()).substr(e.field.size() + 2));
    }
  }
  check_output_path(o.json_file, "--json");
  check_output_directory(o.trace_dir, "--trace-dir");

  analysis::ProveOptions options;
  options.threads = o.threads;
  options.por = o.por == "on";
  InterruptGuard guard;  // SIGINT/SIGTERM: finish the claim at hand as incomplete, report, exit 3
  options.interrupt = &interrupted();
  size_t proved = 0;
  nlohmann::json report = nlohmann::json::array();
  bool all_met = true;
  std::ostream& out = o.json_file == "-" ? std::cerr : std::cout;
  size_t width = 5;
  for (const auto& claim : claims) width = std::max(width, claim.name.size());
  const int claim_width = static_cast<int>(width) + 2;
  out << std::left << std::setw(claim_width) << "claim" << std::setw(44) << "check" << std::setw(22) << "expected"
      << std::setw(22) << "found" << std::right << std::setw(10) << "states" << std::setw(10) << "time"
      << "  trace / note\n";
  ProgressLines progress("prove", "claims", true);
  for (size_t i = 0; i < claims.size() && !interrupted().load(); ++i) {
    progress.set(i, claims.size(), "claim " + claims[i].name);
    const analysis::ClaimOutcome outcome = analysis::prove_claim(claims[i], options);
    ++proved;
    nlohmann::json checks = nlohmann::json::array();
    for (const analysis::ClaimCheck& c : outcome.checks) {
      std::string trace_path;
      if (!c.met && !c.trace.is_null() && !o.trace_dir.empty()) {
        trace_path = (std::filesystem::path(o.trace_dir) / (outcome.claim + "." + c.slug + ".trace.json")).string();
        write_json_file(trace_path, c.trace, "--trace-dir");
      }
      out << std::left << std::setw(claim_width) << outcome.claim << std::setw(44) << c.check << std::setw(22)
          << c.expected << std::setw(22) << (c.met || c.found == "incomplete" ? c.found : c.found + " (REFUTED)") << std::right
          << std::setw(10) << c.states << std::setw(10) << seconds_text(c.seconds) << "  "
          << (trace_path.empty() ? c.note : trace_path) << "\n";
      checks.push_back({{"check", c.check},
                        {"expected", c.expected},
                        {"found", c.found},
                        {"met", c.met},
                        {"states", c.states},
                        {"seconds", c.seconds},
                        {"note", c.note},
                        {"trace_file", trace_path.empty() ? nlohmann::json(nullptr) : nlohmann::json(trace_path)}});
    }
    all_met = all_met && outcome.met();
    report.push_back({{"claim", outcome.claim},
                      {"file", o.files[i]},
                      {"description", claims[i].description},
                      {"met", outcome.met()},
                      {"checks", checks}});
  }
  const bool stopped = interrupted().load();
  if (stopped) {
    out << "INCOMPLETE: interrupted; " << proved << " of " << claims.size()
        << " claims checked (the one at hand shows its open checks as incomplete)\n";
  } else {
    out << (all_met ? "all " + std::to_string(claims.size()) + " claims hold as expected\n"
                    : std::string("some expectations are NOT met\n"));
  }
  if (!o.json_file.empty()) {
    write_json_file(o.json_file,
                    {{"claims", report},
                     {"all_met", all_met && !stopped},
                     {"verdict", stopped ? "incomplete" : all_met ? "all-met" : "not-met"},
                     {"claims_checked", proved},
                     {"claims_total", claims.size()}},
                    "--json");
  }
  set_exit_code(stopped ? 3 : all_met ? 0 : 1);
}

}  // namespace

void add_prove_command(CLI::App& app) {
  auto o = std::make_shared<ProveCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "prove", "Check claim files: expected properties and availability, exhaustively (docs/claims.md)");
  command->add_option("files", o->files, "Claim files (JSON)")->required();
  command->add_option("--threads", o->threads, "Worker threads for the searches (results do not depend on it)")
      ->check(decimal_count())
      ->check(CLI::Range(1, 1024));
  command->add_option("--por", o->por, "Partial-order reduction in the exhaustive searches and the availability graphs (docs/checker.md, docs/claims.md): on (default) or off (to compare state counts with earlier runs); same verdicts")
      ->check(CLI::IsMember({"on", "off"}));
  command->add_option("--json", o->json_file, "Write the results as JSON; - for stdout (the table goes to stderr)");
  command->add_option("--trace-dir", o->trace_dir, "Write the trace of every refuted expectation into this directory");
  command->callback([o] { prove(*o); });
}

}  // namespace isr::cli
