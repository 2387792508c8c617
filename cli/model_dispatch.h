// The one place the command line chooses a model: subcommands are templates over the
// model type (checker::Model) and call with_model / with_trace_model with a generic
// callable, which receives the model built from the configuration and its name.
//
// Adding a model means one more branch here (and its name in model_names()); the
// engines in checker/ stay unchanged.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/load.h"
#include "counterexamples/trace/trace_reader.h"
#include "spec/cluster/cluster_config.h"
#include "spec/cluster/cluster_model.h"
#include "spec/config.h"
#include "spec/kraft/kraft_config.h"
#include "spec/kraft/kraft_model.h"
#include "spec/partition_model.h"

namespace isr::cli {

inline constexpr const char* kPartitionModelName = "partition";

inline std::vector<std::string> model_names() {
  return {kPartitionModelName, spec::kraft::kKraftModelName, spec::cluster::kClusterModelName};
}

// The composed model's configuration from --config / --set (spec/cluster/cluster_config.h).
inline spec::cluster::ClusterConfig load_cluster_config(const ConfigOptions& options) {
  const nlohmann::json document = options.file.empty() ? nlohmann::json(nullptr) : spec::read_config_file(options.file);
  return spec::cluster::load_config(document.is_null() ? nullptr : &document, options.overrides);
}

// Calls `f(model, name)` with the model --model names, built from --config / --set.
template <class F>
decltype(auto) with_model(const ConfigOptions& options, F&& f) {
  if (options.model == spec::cluster::kClusterModelName) {
    const spec::cluster::ClusterModel model(load_cluster_config(options));
    return std::forward<F>(f)(model, std::string_view(spec::cluster::kClusterModelName));
  }
  if (options.model == spec::kraft::kKraftModelName) {
    const spec::kraft::KraftModel model(load_kraft_config(options));
    return std::forward<F>(f)(model, std::string_view(spec::kraft::kKraftModelName));
  }
  const spec::PartitionModel model(load_config(options));
  return std::forward<F>(f)(model, std::string_view(kPartitionModelName));
}

// Calls `f(model, name)` with the model a trace names in its "model" field, rebuilt from
// its "config". Throws counterexamples::TraceFormatError naming the field at fault.
template <class F>
decltype(auto) with_trace_model(const nlohmann::json& trace, F&& f) {
  using counterexamples::TraceFormatError;
  const std::string name = trace.at("model").get<std::string>();
  const nlohmann::json& config = trace.at("config");
  // A configuration error inside the trace names the field under "config.".
  auto rebuilt = [&](auto load) {
    try {
      return load();
    } catch (const spec::ConfigError& e) {
      const std::string what = e.what();
      throw TraceFormatError("config." + e.field, what.substr(std::min(what.size(), e.field.size() + 2)));
    }
  };
  if (name == spec::kraft::kKraftModelName) {
    const spec::kraft::KraftModel model(rebuilt([&] { return spec::kraft::load_config(&config, {}); }));
    return std::forward<F>(f)(model, std::string_view(spec::kraft::kKraftModelName));
  }
  if (name == spec::cluster::kClusterModelName) {
    const spec::cluster::ClusterModel model(rebuilt([&] { return spec::cluster::load_config(&config, {}); }));
    return std::forward<F>(f)(model, std::string_view(spec::cluster::kClusterModelName));
  }
  if (name == kPartitionModelName) {
    const spec::PartitionModel model(rebuilt([&] { return spec::load_config(&config, {}); }));
    return std::forward<F>(f)(model, std::string_view(kPartitionModelName));
  }
  std::string allowed;
  for (const auto& n : model_names()) allowed += (allowed.empty() ? "" : ", ") + n;
  throw TraceFormatError("model", "unsupported model \"" + name + "\"; allowed: " + allowed);
}

}  // namespace isr::cli
