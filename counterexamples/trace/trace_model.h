// The one reader of trace files for every command that takes one (render, export,
// replay, conform): the shape of the format (trace_reader.h) and, beyond it, that the
// trace belongs to the model it names and to its own configuration.
//
// A trace is only worth showing, exporting or running against Kafka if the model can
// have produced it: before issue 29 `render` and `export --format itf` accepted an
// action kind no model has, and a partition trace relabelled "model": "kraft", which
// `replay` refused. Every reader now goes through load_trace, so they accept and refuse
// the same files with the same message.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "counterexamples/trace/trace_reader.h"
#include "io/config_error.h"
#include "spec/models.h"

namespace isr::counterexamples {

// Calls `f(model, name)` with the model a trace names in its "model" field, rebuilt from
// its "config". Throws TraceFormatError naming the field at fault ("model", "config.acks").
template <class F>
decltype(auto) with_trace_model(const nlohmann::json& trace, F&& f) {
  const std::string name = trace.at("model").get<std::string>();
  const nlohmann::json& config = trace.at("config");
  if (!spec::is_model_name(name)) {
    throw TraceFormatError("model", "unsupported model \"" + name + "\"; allowed: " + spec::model_names_text());
  }
  // A configuration error inside the trace names the field under "config.".
  auto rebuilt = [&name](auto load) {
    try {
      return load();
    } catch (const io::ConfigError& e) {
      const std::string what = e.what();
      throw TraceFormatError("config." + e.field, what.substr(std::min(what.size(), e.field.size() + 2)) +
                                                      " (the configuration is not one of model \"" + name + "\")");
    }
  };
  return spec::with_model(name, &config, {}, std::forward<F>(f), rebuilt);
}

// check_trace, then: the trace is of `expected_model` (when not empty), its "config"
// builds the model it names, its step 0 has the shape of that model's states under that
// configuration (the same fields, lists of the nodes of the same length), and every
// step's action is of a kind the model has. Throws TraceFormatError naming the field.
void check_trace_of_model(const nlohmann::json& trace, std::string_view expected_model = {});

// read_trace_file then check_trace_of_model: what every command that reads a trace calls.
nlohmann::json load_trace(const std::string& path, std::string_view expected_model = {});

}  // namespace isr::counterexamples
