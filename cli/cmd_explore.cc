// `isrcheck explore [--model M] [--config F] [--set k=v ...] [--trace T] [--port P]`: a
// local web UI over the state space (docs/explore.md), like Stateright's `explore`: the
// current state as `render` prints it, the enabled actions as links with their Kafka
// meaning, back and forward, the path in the URL. The pages are explorer/; this file
// picks the model, starts the server on 127.0.0.1 and stops it on SIGINT or SIGTERM.
//
// Exit codes: 0 when stopped by SIGINT or SIGTERM (a server has no end of its own, so
// stopping it leaves nothing incomplete: not 3), 2 for bad input (a flag, a trace, a
// port that cannot be bound).
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>

#include "cli/commands.h"
#include "cli/load.h"
#include "cli/model_dispatch.h"
#include "cli/run_support.h"
#include "cli/version.h"
#include "counterexamples/trace/trace_model.h"
#include "explorer/explore_server.h"
#include "explorer/explore_session.h"
#include "io/files.h"
#include "spec/models.h"

namespace isr::cli {
namespace {

struct ExploreOptions {
  ConfigOptions config;
  std::string trace_file;  // empty: start at the initial state
  int port = 7878;
  std::string mermaid_js;  // empty: $ISRCHECK_MERMAID_JS, else the build's copy
  bool model_given = false;  // --model, --config or --set: else a --trace chooses the model
};

// The diagram renderer /mermaid.js serves: optional (without it the page shows the
// diagram's source), so a missing file is a warning unless --mermaid-js named it.
std::string explore_mermaid_js(const ExploreOptions& o) {
  std::string path = o.mermaid_js;
  const char* from_env = std::getenv("ISRCHECK_MERMAID_JS");
  if (path.empty() && from_env != nullptr && *from_env != '\0') path = from_env;
  if (path.empty()) path = kMermaidJs;
  try {
    return io::files::read_file(path);
  } catch (const io::files::InputError& e) {
    if (!o.mermaid_js.empty()) throw UsageError("--mermaid-js", e.what());
    std::cerr << "isrcheck explore: warning: no diagram renderer (" << e.what()
              << "): the path's diagram is shown as source; scripts/fetch-mermaid.sh fetches it\n";
    return {};
  }
}

template <class M>
void serve_model(const M& model, std::string_view name, const ExploreOptions& o, const nlohmann::json& trace) {
  const explorer::Session<M> session(model, std::string(name), spec::listing_of(name, "actions"));
  explorer::Position start;
  if (!trace.is_null()) {
    try {
      start = session.position_of_trace(trace);
    } catch (const explorer::PathError& e) {
      throw UsageError("--trace", o.trace_file + ": " + e.field + ": " + e.message);
    }
  }
  const explorer::Site site{session, start, explore_mermaid_js(o)};
  InterruptGuard guard;
  std::size_t requests = 0;
  try {
    requests = explorer::serve(
        site, o.port,
        [&](int port) {
          std::cout << "isrcheck explore: model " << name << " at http://" << explorer::kHost << ":" << port
                    << "/ (Ctrl-C stops it)" << std::endl;
        },
        interrupted());
  } catch (const explorer::BindError& e) {
    throw UsageError("--port", e.what());
  }
  std::cout << "isrcheck explore: stopped after " << requests << " request" << (requests == 1 ? "" : "s") << std::endl;
}

void explore(const ExploreOptions& o) {
  nlohmann::json trace;
  if (!o.trace_file.empty()) {
    try {
      // The one trace reader (counterexamples/trace/trace_model.h), as render and replay.
      trace = counterexamples::load_trace(o.trace_file);
    } catch (const counterexamples::TraceFormatError& e) {
      throw UsageError("--trace", e.field == o.trace_file ? e.message : o.trace_file + ": " + e.field + ": " + e.message);
    }
  }
  auto run = [&](const auto& model, std::string_view name) { serve_model(model, name, o, trace); };
  if (!trace.is_null() && !o.model_given) {
    try {
      with_trace_model(trace, run);
    } catch (const counterexamples::TraceFormatError& e) {
      throw UsageError("--trace", o.trace_file + ": " + e.field + ": " + e.message);
    }
  } else {
    with_model(o.config, run);
  }
}

}  // namespace

void add_explore_command(CLI::App& app) {
  auto o = std::make_shared<ExploreOptions>();
  CLI::App* command = app.add_subcommand(
      "explore", "Browse the state space in a local web UI on 127.0.0.1 (docs/explore.md)");
  add_model_option(*command, o->config.model);
  add_config_options(*command, o->config);
  command->add_option("--trace", o->trace_file,
                      "Start at this trace's first step, its steps ahead (without --model, --config or --set: "
                      "explore the trace's own model and configuration)");
  command->add_option("--port", o->port, "TCP port on 127.0.0.1; 0 picks a free one (the URL is printed)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  command->add_option("--mermaid-js", o->mermaid_js,
                      "The mermaid.min.js that draws the path's diagram (default: $ISRCHECK_MERMAID_JS, else the "
                      "build's copy from scripts/fetch-mermaid.sh)");
  command->callback([o, command] {
    o->model_given = command->count("--model") + command->count("--config") + command->count("--set") > 0;
    explore(*o);
  });
}

}  // namespace isr::cli
