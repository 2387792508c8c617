// The subcommands of `isrcheck`, one per cli/cmd_<name>.cc.
//
// Each file defines add_<name>_command, which adds its subcommand to the application
// with a callback that does the work; main.cc calls every add_* function in order. A
// subcommand reports its exit status with set_exit_code (0 when it never calls it) and
// bad user input by throwing spec::ConfigError or UsageError, which main turns into a
// message on stderr and exit code 2.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

namespace isr::cli {

// Bad input that is not a configuration key: a missing trace file, a flag out of range.
// `field` names the option or file at fault, the message what is allowed.
struct UsageError : std::runtime_error {
  UsageError(std::string field, const std::string& message)
      : std::runtime_error(field + ": " + message), field(std::move(field)) {}
  std::string field;
};

// A count option (--max-states, --threads) as decimal digits. CLI11 reads an unsigned
// option with strtoull, which takes "-1" as the largest value (so `--max-states -1` meant
// "no limit") and "0x10" as 16: a count is checked as text before that.
inline CLI::Validator decimal_count() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        return digits ? "" : "\"" + text + "\" is not a count: decimal digits only (0, 1, 2, ...)";
      },
      "COUNT");
}

// An option whose empty value would otherwise read as "not given" (`--time-limit ''`).
inline CLI::Validator not_empty(const std::string& example) {
  return CLI::Validator(
      [example](std::string& text) -> std::string { return text.empty() ? "empty; give a value such as " + example : ""; },
      "");
}

// Exit status of the subcommand that ran (for instance 1 when `check` finds a violation).
void set_exit_code(int code);
int exit_code();

void add_describe_command(CLI::App& app);  // cmd_describe.cc
void add_list_command(CLI::App& app);      // cmd_list.cc
void add_check_command(CLI::App& app);     // cmd_check.cc
void add_simulate_command(CLI::App& app);  // cmd_simulate.cc
void add_render_command(CLI::App& app);    // cmd_render.cc
void add_replay_command(CLI::App& app);    // cmd_replay.cc
void add_graph_command(CLI::App& app);     // cmd_graph.cc
void add_prove_command(CLI::App& app);     // cmd_prove.cc
void add_export_command(CLI::App& app);    // cmd_export.cc
void add_tests_command(CLI::App& app);     // cmd_tests.cc
void add_corpus_command(CLI::App& app);    // cmd_corpus.cc
void add_matrix_command(CLI::App& app);    // cmd_matrix.cc
void add_converge_command(CLI::App& app);  // cmd_converge.cc
void add_conform_command(CLI::App& app);   // cmd_conform.cc
void add_witness_command(CLI::App& app);   // cmd_witness.cc
void add_explore_command(CLI::App& app);   // cmd_explore.cc
void add_validate_command(CLI::App& app);  // cmd_validate.cc
void add_campaign_command(CLI::App& app);  // cmd_campaign.cc
void add_research_command(CLI::App& app);  // cmd_research.cc

}  // namespace isr::cli
