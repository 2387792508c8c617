// Verifying one configuration of the partition model exhaustively, as a library call.
//
// `isrcheck check` prints and reports; the analyses built on top of it (the corpus,
// claims, the matrix, covering tests) need the same search as a value: the verdict, the
// counts, and the shortest counterexample as a trace (format v1) that has already been
// replayed. This is that call, so that every analysis runs the search the same way.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/bfs_types.h"
#include "spec/config.h"

namespace isr::analysis {

struct VerifyOptions {
  int threads = 1;            // the result does not depend on it
  bool symmetry = true;
  uint64_t max_states = 0;    // 0: no limit (verdict Incomplete when reached)
  uint64_t max_memory_bytes = 0;
  const std::atomic<bool>* interrupt = nullptr;  // Ctrl-C: stop with verdict Incomplete
};

struct VerifyOutcome {
  checker::Verdict verdict = checker::Verdict::Holds;
  std::string property;            // the violated property, when Violated
  std::string property_description;
  nlohmann::json trace;            // the shortest counterexample (trace v1), when Violated
  int trace_steps = 0;             // steps after the initial state, when Violated
  uint64_t distinct_states = 0;
  uint64_t states_generated = 0;
  int depth = 0;
  double seconds = 0;
  std::vector<std::string> bounds_reached;  // bounds that cut the search somewhere
  checker::StopReason stop_reason = checker::StopReason::None;
};

// Runs the exhaustive search over the model of `config` (every property the config
// enables). A counterexample is replayed before it is returned; a trace that does not
// replay is a bug and throws std::logic_error.
VerifyOutcome verify(const spec::Config& config, const VerifyOptions& options = {});

}  // namespace isr::analysis
