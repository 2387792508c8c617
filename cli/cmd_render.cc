// `isrcheck render TRACE --format text|markdown|mermaid|dot [--out FILE]`: shows a trace
// file for people. Works from the trace JSON alone (counterexamples/render/render.h), for any
// model; the trace is read as every command reads one (counterexamples/trace/trace_model.h):
// of the model it names (and of --model, when given), with its configuration's initial
// state and the model's action kinds.
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/model_dispatch.h"
#include "cli/run_support.h"
#include "counterexamples/render/render.h"
#include "counterexamples/trace/trace_model.h"

namespace isr::cli {
namespace {

struct RenderOptions {
  std::string trace_file;
  std::string format = "text";
  std::string out;  // empty: stdout
  std::string model;  // empty: any
};

void render(const RenderOptions& options) {
  using namespace counterexamples;
  const std::optional<RenderFormat> format = parse_render_format(options.format);
  if (!format) {
    throw UsageError("--format", "unknown format \"" + options.format +
                                     "\"; allowed: text, markdown, mermaid, dot");
  }
  nlohmann::json trace;
  try {
    trace = load_trace(options.trace_file, options.model);
  } catch (const TraceFormatError& e) {
    throw UsageError(e.field == options.trace_file ? e.field : options.trace_file + ": " + e.field,
                     e.message);
  }
  std::string text;
  try {
    text = render_trace(trace, *format);
  } catch (const nlohmann::json::exception& e) {
    throw_malformed_trace(options.trace_file, e);
  }
  write_text(options.out.empty() ? "-" : options.out, "--out", text);
}

}  // namespace

void add_render_command(CLI::App& app) {
  auto options = std::make_shared<RenderOptions>();
  CLI::App* command = app.add_subcommand(
      "render", "Show a trace file as text, markdown, a mermaid sequence diagram or a dot graph");
  command->add_option("trace", options->trace_file, "Trace JSON file (docs/trace-format.md)")
      ->required();
  std::vector<std::string> formats;
  for (auto f : counterexamples::all_render_formats()) {
    formats.emplace_back(counterexamples::render_format_name(f));
  }
  command->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember(formats))
      ->capture_default_str();
  command->add_option("--out", options->out, "Write to this file instead of stdout");
  command->add_option("--model", options->model,
                      "Expect a trace of this model (default: any; the trace names its model)")
      ->check(CLI::IsMember(model_names()));
  command->callback([options] { render(*options); });
}

}  // namespace isr::cli
