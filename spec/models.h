// The one table of models: every command and analysis that chooses a model by name (the
// CLI's --model, a trace's "model" field, a corpus entry's "model") looks it up here.
//
// Adding a model is one folder under spec/ (its configuration, state, rules, properties
// and a class satisfying checker::Model) and one row in kModels below; the engines, the
// CLI's subcommands, the corpus and the trace readers need no edit. A row names the model
// and says how to build it from a configuration document (may be null: the defaults)
// and `--set` overrides; each model's loader validates and throws io::ConfigError naming
// the field.
//
// Dispatch is at compile time (a tuple of rows): callers are templates over the model
// type, so nothing on an engine's hot path goes through a function pointer.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/config_error.h"
#include "spec/cluster/cluster_config.h"
#include "spec/cluster/cluster_listing.h"
#include "spec/cluster/cluster_model.h"
#include "spec/kraft/kraft_config.h"
#include "spec/kraft/kraft_listing.h"
#include "spec/kraft/kraft_model.h"
#include "spec/partition/config.h"
#include "spec/partition/listing.h"
#include "spec/partition/partition_model.h"

namespace isr::spec {

// A model's row: its name (stable: traces and corpus entries record it), its loader and
// the names `isrcheck list` prints of it.
template <class M, class Load>
struct ModelRow {
  using Model = M;
  std::string_view name;
  Load load;  // (const nlohmann::json* document, const std::vector<std::string>& overrides) -> M
  std::vector<NameRow> (*listing)(std::string_view what);  // "properties", "protocols", "fixes", "actions"
};

template <class M, class Load>
constexpr ModelRow<M, Load> model_row(std::string_view name, Load load,
                                      std::vector<NameRow> (*listing)(std::string_view)) {
  return {name, load, listing};
}

inline constexpr const char* kPartitionModelName = "partition";

// The models, the default first.
inline constexpr auto kModels = std::make_tuple(
    model_row<PartitionModel>(kPartitionModelName,
                              [](const nlohmann::json* document, const std::vector<std::string>& overrides) {
                                return PartitionModel(load_config(document, overrides));
                              },
                              partition_listing),
    model_row<kraft::KraftModel>(kraft::kKraftModelName,
                                 [](const nlohmann::json* document, const std::vector<std::string>& overrides) {
                                   return kraft::KraftModel(kraft::load_config(document, overrides));
                                 },
                                 kraft::kraft_listing),
    model_row<cluster::ClusterModel>(cluster::kClusterModelName,
                                     [](const nlohmann::json* document, const std::vector<std::string>& overrides) {
                                       return cluster::ClusterModel(cluster::load_config(document, overrides));
                                     },
                                     cluster::cluster_listing));

inline constexpr std::size_t kModelCount = std::tuple_size_v<decltype(kModels)>;

// Every model's name, in the table's order.
inline std::vector<std::string> model_names() {
  return std::apply([](const auto&... row) { return std::vector<std::string>{std::string(row.name)...}; }, kModels);
}

// "partition, kraft, cluster": for error messages.
inline std::string model_names_text() {
  std::string text;
  for (const std::string& name : model_names()) text += (text.empty() ? "" : ", ") + name;
  return text;
}

// The error for a name no row has.
inline io::ConfigError unknown_model(std::string_view name) {
  return io::ConfigError("model", "unknown model \"" + std::string(name) + "\"; allowed: " + model_names_text());
}

inline bool is_model_name(std::string_view name) {
  for (const std::string& n : model_names()) {
    if (n == name) return true;
  }
  return false;
}

// The names `isrcheck list` prints of the model called `name` (an unknown name throws
// io::ConfigError("model", ...)); NotListed when the model has no such names.
inline std::vector<NameRow> listing_of(std::string_view name, std::string_view what) {
  std::vector<NameRow> rows;
  bool found = false;
  std::apply([&](const auto&... row) { ((row.name == name ? (rows = row.listing(what), found = true) : false), ...); },
             kModels);
  if (!found) throw unknown_model(name);
  return rows;
}

// Calls `f(row)` for every row, in order (for tables built over all models).
template <class F>
void for_each_model(F&& f) {
  std::apply([&](const auto&... row) { (f(row), ...); }, kModels);
}

namespace detail {
struct LoadDirectly {
  template <class Thunk>
  auto operator()(Thunk&& load) const { return load(); }
};

template <std::size_t I, class F, class Guard>
decltype(auto) with_model_at(std::string_view name, const nlohmann::json* document,
                             const std::vector<std::string>& overrides, F&& f, const Guard& guard) {
  const auto& row = std::get<I>(kModels);
  if constexpr (I + 1 == kModelCount) {
    if (row.name != name) {
      throw unknown_model(name);
    }
  } else {
    if (row.name != name) return with_model_at<I + 1>(name, document, overrides, std::forward<F>(f), guard);
  }
  const auto model = guard([&] { return row.load(document, overrides); });
  return std::forward<F>(f)(model, row.name);
}
}  // namespace detail

// Builds the model called `name` from `document` (null: defaults) and `overrides`, and
// calls `f(model, name)`; f is generic over the model type, and returns the same type for
// every model. An unknown name throws io::ConfigError("model", ... allowed names).
// `guard(load)` runs the loader: a caller can translate its errors there (a trace
// names a bad field under "config.") without catching f's own.
template <class F, class Guard = detail::LoadDirectly>
decltype(auto) with_model(std::string_view name, const nlohmann::json* document,
                          const std::vector<std::string>& overrides, F&& f, const Guard& guard = {}) {
  return detail::with_model_at<0>(name, document, overrides, std::forward<F>(f), guard);
}

}  // namespace isr::spec
