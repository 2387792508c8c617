// The corpus's table of models (see corpus_models.h). Each row binds a model class to
// its configuration loader; everything else is generic over checker::Model.
#include "analysis/corpus_models.h"

#include <stdexcept>
#include <utility>

#include "analysis/verify.h"
#include "checker/bfs.h"
#include "counterexamples/trace/trace_writer.h"
#include "spec/cluster/cluster_config.h"
#include "spec/cluster/cluster_model.h"
#include "spec/kraft/kraft_config.h"
#include "spec/kraft/kraft_model.h"
#include "spec/partition_model.h"

namespace isr::analysis {
namespace {

using nlohmann::json;

// The exhaustive search of any model, packaged as the corpus compares it: the same
// options as `isrcheck check` (symmetry on), and a trace that must replay.
template <class M>
SideResult bfs_side(const M& model, const std::string& model_name, const RunOptions& options) {
  checker::BfsOptions bfs;
  bfs.threads = options.threads < 1 ? 1 : options.threads;
  bfs.symmetry = true;
  bfs.por = options.por;
  bfs.interrupt = options.interrupt;
  const checker::BfsResult<M> r = checker::bfs(model, bfs);
  SideResult side;
  side.verdict = std::string(checker::verdict_name(r.verdict));
  side.states = r.distinct_states;
  side.seconds = r.seconds;
  if (r.verdict == checker::Verdict::Violated) {
    side.property = r.property;
    side.steps = static_cast<int>(r.counterexample.actions.size());
    side.trace = counterexamples::trace_to_json(model, r.counterexample, "bfs", model_name);
    const auto replayed = counterexamples::replay_trace(model, side.trace);
    if (!replayed.reproduced) throw std::logic_error("the BFS trace does not replay: " + replayed.summary());
  }
  return side;
}

// The partition model goes through analysis::verify, the search every partition
// analysis shares (same options, same trace).
SideResult partition_side(const json& resolved, const RunOptions& options) {
  VerifyOptions verify_options;
  verify_options.threads = options.threads;
  verify_options.interrupt = options.interrupt;
  verify_options.por = options.por;
  const VerifyOutcome outcome = verify(spec::load_config(&resolved, {}), verify_options);
  SideResult side;
  side.verdict = std::string(checker::verdict_name(outcome.verdict));
  side.property = outcome.property;
  side.steps = outcome.trace_steps;
  side.states = outcome.distinct_states;
  side.seconds = outcome.seconds;
  side.trace = outcome.trace;
  return side;
}

// One row: `build` makes the model from a configuration document (resolved or not);
// `search` is its exhaustive search (bfs_search<M> unless the model has a shared one).
template <class M, class Build>
CorpusModel row(std::string name, Build build,
                std::function<SideResult(const json&, const RunOptions&)> search = nullptr) {
  CorpusModel m;
  m.name = name;
  m.resolve = [build](const json& document) { return build(document).config_json(); };
  m.search = search;
  m.replay = [build](const json& resolved, const json& trace, counterexamples::ReplayEnd end) {
    return counterexamples::replay_trace(build(resolved), trace, end);
  };
  return m;
}

template <class M, class Build>
std::function<SideResult(const json&, const RunOptions&)> bfs_search(std::string name, Build build) {
  return [build, name](const json& resolved, const RunOptions& options) {
    return bfs_side<M>(build(resolved), name, options);
  };
}

// Adding a model: its include, and three lines like the KRaft model's.
std::vector<CorpusModel> make_models() {
  std::vector<CorpusModel> rows;
  auto partition = [](const json& c) { return spec::PartitionModel(spec::load_config(&c, {})); };
  rows.push_back(row<spec::PartitionModel>("partition", partition, partition_side));
  auto kraft = [](const json& c) { return spec::kraft::KraftModel(spec::kraft::load_config(&c, {})); };
  rows.push_back(row<spec::kraft::KraftModel>(
      spec::kraft::kKraftModelName, kraft,
      bfs_search<spec::kraft::KraftModel>(spec::kraft::kKraftModelName, kraft)));
  auto cluster = [](const json& c) { return spec::cluster::ClusterModel(spec::cluster::load_config(&c, {})); };
  rows.push_back(row<spec::cluster::ClusterModel>(
      spec::cluster::kClusterModelName, cluster,
      bfs_search<spec::cluster::ClusterModel>(spec::cluster::kClusterModelName, cluster)));
  return rows;
}

}  // namespace

const std::vector<CorpusModel>& corpus_models() {
  static const std::vector<CorpusModel> models = make_models();
  return models;
}

const CorpusModel* find_corpus_model(std::string_view name) {
  for (const CorpusModel& m : corpus_models()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

std::string corpus_model_names() {
  std::string names;
  for (const CorpusModel& m : corpus_models()) names += (names.empty() ? "\"" : ", \"") + m.name + "\"";
  return names;
}

}  // namespace isr::analysis
