// The command line's side of choosing a model: subcommands are templates over the
// model type (checker::Model) and call with_model / with_trace_model with a generic
// callable, which receives the model built from the configuration and its name. The
// models themselves are the rows of spec/models.h: adding a model needs no edit here.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/load.h"
#include "counterexamples/trace/trace_model.h"
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

// The model a trace names, rebuilt from its configuration: one reader for every command
// (counterexamples/trace/trace_model.h).
using counterexamples::with_trace_model;

}  // namespace isr::cli
