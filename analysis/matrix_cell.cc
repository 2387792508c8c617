// Checking one cell of the configuration matrix (see matrix_cell.h): the durability
// search, telling an acked loss from data that is only gone, and the availability verdict.
#include "analysis/matrix_cell.h"

#include <cstdint>
#include <string>
#include <utility>

#include "analysis/availability.h"
#include "analysis/verify.h"

namespace isr::analysis {

std::string_view durability_name(Durability d) {
  switch (d) {
    case Durability::NoAckedLoss: return "no-acked-loss";
    case Durability::AckedLoss: return "acked-loss";
    case Durability::Incomplete: return "incomplete";
    case Durability::DataGone: return "data-gone";
  }
  return "incomplete";
}

void check_matrix_cell(const spec::Config& config, const MatrixCell& cell, const MatrixOptions& options,
                       CellResult& r, bool& interrupted) {
  VerifyOptions verify_options;
  verify_options.threads = 1;
  verify_options.max_states = options.max_states;
  verify_options.interrupt = options.interrupt;
  verify_options.por = options.por;
  // One search for both properties (matrix_cell_config): a state where an acked write is on
  // no replica is usually reached before any leader serves without it. When that comes
  // first, a search for no-acked-loss alone tells an acked loss from data that is only
  // gone (no leader served without it within the bounds).
  VerifyOutcome v = verify(config, verify_options);
  Durability found = Durability::AckedLoss;
  if (v.verdict == checker::Verdict::Violated && v.property == kMatrixGoneProperty) {
    spec::Config acked_only = config;
    acked_only.properties = {std::string(kMatrixLossProperty)};
    VerifyOutcome loss = verify(acked_only, verify_options);
    if (loss.verdict == checker::Verdict::Violated) {
      v = std::move(loss);
    } else {
      if (loss.stop_reason == checker::StopReason::Interrupted) interrupted = true;
      found = Durability::DataGone;  // certain, whatever the second search concluded
    }
  }
  r.durability_states = v.distinct_states;
  r.durability_seconds = v.seconds;
  r.bounds_reached = v.bounds_reached;
  if (v.stop_reason == checker::StopReason::Interrupted) interrupted = true;
  switch (v.verdict) {
    case checker::Verdict::Holds: r.durability = Durability::NoAckedLoss; break;
    case checker::Verdict::Violated:
      r.durability = found;
      r.trace = v.trace;
      r.trace_steps = v.trace_steps;
      break;
    case checker::Verdict::Incomplete: r.durability = Durability::Incomplete; break;
  }

  if (!options.availability || interrupted) return;
  if (options.interrupt != nullptr && options.interrupt->load()) {
    interrupted = true;
    return;
  }
  AvailabilityOptions availability_options;
  availability_options.failures = cell.failures;
  availability_options.lossy = cell.lossy;
  availability_options.max_states = options.max_states == 0 ? UINT64_MAX : options.max_states;
  availability_options.failing_nodes = kMatrixFailingNodes;
  availability_options.por = options.por;  // one thread: the cells run in parallel
  availability_options.interrupt = options.interrupt;
  const AvailabilityReport a = analyze_availability(config, availability_options);
  if (a.interrupted) interrupted = true;  // not cached: the cell is unfinished
  r.availability_states = a.graph_states;
  r.availability_seconds = a.seconds;
  if (!a.complete) {
    // The graph hit the state limit: the verdict would be a guess.
    r.availability = "incomplete";
  } else {
    r.availability = std::string(availability_name(a.verdict));
    r.availability_witness = a.witness_trace;
  }
}

}  // namespace isr::analysis
