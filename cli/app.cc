// The isrcheck application (app.h). Each subcommand lives in cli/cmd_<name>.cc; this
// file only registers them and maps failures to exit codes:
//   0  success (and --help)
//   1  the subcommand's own failure status (for instance a property violated)
//   2  bad usage or configuration: the message names the field and what is allowed
//   3  incomplete (a limit, or SIGINT/SIGTERM, stopped a long command before the end:
//      check, simulate, matrix, prove, corpus, tests, graph; --json says "incomplete")
//   4  an internal error (a bug: for instance a counterexample that does not replay)
#include <exception>
#include <iostream>

#include "checker/bfs/worker_pool.h"
#include "cli/app.h"
#include "cli/commands.h"
#include "cli/version.h"
#include "spec/partition/config.h"

namespace isr::cli {
namespace {
int g_exit_code = 0;
}  // namespace

void set_exit_code(int code) { g_exit_code = code; }
int exit_code() { return g_exit_code; }

int run_app(int argc, const char* const* argv) {
  set_exit_code(0);
  CLI::App app{"isrcheck: a model checker for Kafka's partition replication protocol"};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_text(), "Print the version, git revision and build type");

  // One line per subcommand: add yours here when its cmd_<name>.cc lands.
  add_describe_command(app);
  add_list_command(app);
  add_check_command(app);
  add_simulate_command(app);
  add_render_command(app);
  add_replay_command(app);
  add_graph_command(app);
  add_prove_command(app);
  add_export_command(app);
  add_tests_command(app);
  add_corpus_command(app);
  add_matrix_command(app);
  add_converge_command(app);
  add_conform_command(app);
  add_witness_command(app);
  add_validate_command(app);
  add_campaign_command(app);
  add_explore_command(app);
  add_research_command(app);
  // CLI11's own parse errors (an option out of range, an unknown flag) carry the same
  // prefix as every other bad input, so that a script can tell them from output.
  app.failure_message([](const CLI::App* failed, const CLI::Error& e) {
    std::string text = "isrcheck: error: " + std::string(e.what()) + "\n";
    if (failed->get_help_ptr() != nullptr) {
      text += "Run with " + failed->get_help_ptr()->get_name() + " for more information.\n";
    }
    return text;
  });

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::Error& e) {
    const int code = app.exit(e);  // prints CLI11's message naming the option
    // CLI::Success and CLI::RuntimeError carry a status chosen on purpose.
    if (e.get_name() == "Success" || e.get_name() == "RuntimeError") return code;
    return 2;
  } catch (const isr::spec::ConfigError& e) {
    std::cerr << "isrcheck: error: " << e.what() << "\n";
    return 2;
  } catch (const UsageError& e) {
    std::cerr << "isrcheck: error: " << e.what() << "\n";
    return 2;
  } catch (const isr::checker::ThreadStartError& e) {
    std::cerr << "isrcheck: error: --threads: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "isrcheck: internal error: " << e.what() << "\n";
    return 4;
  }
  return exit_code();
}

}  // namespace isr::cli
