// The models the counterexample corpus can check, by the name an entry gives in "model"
// (and its trace records): how to resolve a configuration document of that model, run
// the exhaustive search of it, and replay a trace against it.
//
// The corpus itself (corpus.cc) never names a model type: it looks the entry's model up
// here, and this table has a row for every row of the model registry (spec/models.h), so
// adding a model there adds it to the corpus too.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/corpus.h"
#include "counterexamples/trace/replay.h"

namespace isr::analysis {

struct CorpusModel {
  std::string name;  // "partition", "kraft", ...
  // The resolved configuration of a document, as the model's traces record it
  // (model.config_json()). Throws spec::ConfigError naming the field at fault.
  std::function<nlohmann::json(const nlohmann::json& document)> resolve;
  // The exhaustive BFS (symmetry on) of a resolved configuration: verdict, the violated
  // property and its shortest trace (already replayed), the distinct states.
  std::function<SideResult(const nlohmann::json& resolved, const RunOptions& options)> search;
  // Replays `trace` against the model built from a resolved configuration.
  std::function<counterexamples::ReplayResult(const nlohmann::json& resolved, const nlohmann::json& trace,
                                              counterexamples::ReplayEnd end)>
      replay;
};

const std::vector<CorpusModel>& corpus_models();
// nullptr when the corpus does not know the model.
const CorpusModel* find_corpus_model(std::string_view name);
// "\"partition\", \"kraft\"": for error messages.
std::string corpus_model_names();

}  // namespace isr::analysis
