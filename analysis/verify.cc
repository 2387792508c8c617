// The exhaustive search of one configuration, packaged for the analyses (see verify.h).
#include "analysis/verify.h"

#include <stdexcept>
#include <utility>

#include "checker/bfs.h"
#include "counterexamples/replay.h"
#include "counterexamples/trace.h"
#include "spec/partition_model.h"

namespace isr::analysis {

VerifyOutcome verify(const spec::Config& config, const VerifyOptions& options) {
  const spec::PartitionModel model(config);
  checker::BfsOptions bfs;
  bfs.threads = options.threads < 1 ? 1 : options.threads;
  bfs.symmetry = options.symmetry;
  bfs.max_states = options.max_states;
  bfs.max_memory_bytes = options.max_memory_bytes;
  bfs.interrupt = options.interrupt;
  const checker::BfsResult<spec::PartitionModel> r = checker::bfs(model, bfs);

  VerifyOutcome out;
  out.verdict = r.verdict;
  out.stop_reason = r.stop_reason;
  out.distinct_states = r.distinct_states;
  out.states_generated = r.states_generated;
  out.depth = r.depth;
  out.seconds = r.seconds;
  out.bounds_reached = r.bounds_reached;
  if (r.verdict == checker::Verdict::Violated) {
    out.property = r.property;
    for (const auto& p : model.properties()) {
      if (p.name == r.property) out.property_description = std::string(p.description);
    }
    out.trace = counterexamples::trace_to_json(model, r.counterexample, "bfs");
    out.trace_steps = static_cast<int>(r.counterexample.actions.size());
    // A trace is only worth returning if it stands on its own.
    const auto replayed = counterexamples::replay_trace(model, out.trace);
    if (!replayed.reproduced) {
      throw std::logic_error("the BFS trace does not replay: " + replayed.summary());
    }
  }
  return out;
}

}  // namespace isr::analysis
