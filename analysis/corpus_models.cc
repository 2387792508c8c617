// The corpus's table of models (see corpus_models.h), one row per row of the model
// registry (spec/models.h); everything else is generic over checker::Model.
#include "analysis/corpus_models.h"

#include <stdexcept>
#include <type_traits>
#include <utility>

#include "analysis/verify.h"
#include "checker/bfs/bfs.h"
#include "counterexamples/trace/trace_writer.h"
#include "spec/models.h"

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

// The corpus's row of a registry row: resolve, search and replay through its loader.
// The partition model goes through analysis::verify (partition_side); every other
// model through the exhaustive BFS.
template <class Row>
CorpusModel corpus_row(const Row& registry_row) {
  using M = typename Row::Model;
  auto build = [load = registry_row.load](const json& c) { return load(&c, {}); };
  const std::string name(registry_row.name);
  CorpusModel m;
  m.name = name;
  m.resolve = [build](const json& document) { return build(document).config_json(); };
  if constexpr (std::is_same_v<M, spec::PartitionModel>) {
    m.search = partition_side;
  } else {
    m.search = [build, name](const json& resolved, const RunOptions& options) {
      return bfs_side<M>(build(resolved), name, options);
    };
  }
  m.replay = [build](const json& resolved, const json& trace, counterexamples::ReplayEnd end) {
    return counterexamples::replay_trace(build(resolved), trace, end);
  };
  return m;
}

std::vector<CorpusModel> make_models() {
  std::vector<CorpusModel> rows;
  spec::for_each_model([&](const auto& registry_row) { rows.push_back(corpus_row(registry_row)); });
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
