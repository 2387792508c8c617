// The command line's side of choosing a model: subcommands are templates over the
// model type (checker::Model) and call with_model / with_trace_model with a generic
// callable, which receives the model built from the configuration and its name. The
// models themselves are the rows of spec/models.h: adding a model needs no edit here.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/load.h"
#include "counterexamples/trace/trace_reader.h"
#include "io/files.h"
#include "spec/models.h"

namespace isr::cli {

using spec::kPartitionModelName;
using spec::model_names;

// Calls `f(model, name)` with the model --model names, built from --config / --set.
template <class F>
decltype(auto) with_model(const ConfigOptions& options, F&& f) {
  const nlohmann::json document = options.file.empty() ? nlohmann::json(nullptr) : io::files::read_config_file(options.file);
  return spec::with_model(options.model, document.is_null() ? nullptr : &document, options.overrides,
                          std::forward<F>(f));
}

// Calls `f(model, name)` with the model a trace names in its "model" field, rebuilt from
// its "config". Throws counterexamples::TraceFormatError naming the field at fault.
template <class F>
decltype(auto) with_trace_model(const nlohmann::json& trace, F&& f) {
  using counterexamples::TraceFormatError;
  const std::string name = trace.at("model").get<std::string>();
  const nlohmann::json& config = trace.at("config");
  if (!spec::is_model_name(name)) {
    throw TraceFormatError("model", "unsupported model \"" + name + "\"; allowed: " + spec::model_names_text());
  }
  // A configuration error inside the trace names the field under "config.".
  auto rebuilt = [](auto load) {
    try {
      return load();
    } catch (const spec::ConfigError& e) {
      const std::string what = e.what();
      throw TraceFormatError("config." + e.field, what.substr(std::min(what.size(), e.field.size() + 2)));
    }
  };
  return spec::with_model(name, &config, {}, std::forward<F>(f), rebuilt);
}

}  // namespace isr::cli
