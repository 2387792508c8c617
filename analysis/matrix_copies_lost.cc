// The copies-lost column of the matrix (see matrix_copies_lost.h): the searches of one
// row, and what a row's result says.
#include "analysis/matrix_copies_lost.h"

#include <cstdint>
#include <string>

#include "analysis/matrix_cell.h"
#include "analysis/verify.h"

namespace isr::analysis {

std::string_view copies_lost_name(CopiesLost c) {
  switch (c) {
    case CopiesLost::Found: return "found";
    case CopiesLost::None: return "none";
    case CopiesLost::Incomplete: return "incomplete";
  }
  return "incomplete";
}

uint64_t RowResult::distinct_states() const {
  uint64_t n = 0;
  for (const auto& k : searches) n += k.distinct_states;
  return n;
}

double RowResult::seconds() const {
  double t = 0;
  for (const auto& k : searches) t += k.seconds;
  return t;
}

std::string_view RowResult::loss() const {
  if (verdict != CopiesLost::Found) return "";
  return property == kMatrixLossProperty ? durability_name(Durability::AckedLoss)
                                         : durability_name(Durability::DataGone);
}

// k = 1, 2, ... RF lost copies after the acknowledgement, each an exhaustive search of
// both loss properties, up to the first that loses the write.
void search_copies_lost(const MatrixOptions& options, RowResult& r, bool& interrupted) {
  VerifyOptions verify_options;
  verify_options.threads = 1;
  verify_options.max_states = options.max_states;
  verify_options.interrupt = options.interrupt;
  verify_options.por = options.copies_lost_por;
  verify_options.faults_begin = FaultsBegin::AfterAck;
  verify_options.only_copy_losses = true;
  verify_options.first_ack_only = true;
  r.searches.clear();
  for (int k = 1; k <= r.row.replication_factor; ++k) {
    const spec::Config config = copies_lost_config(options.base, options.overrides, r.row, k);
    r.config = spec::to_json(config);
    const VerifyOutcome v = verify(config, verify_options);
    r.searches.push_back(CopiesLostSearch{k, v.verdict, v.distinct_states, v.seconds, v.bounds_reached});
    if (v.stop_reason == checker::StopReason::Interrupted) interrupted = true;
    if (v.verdict == checker::Verdict::Violated) {
      r.verdict = CopiesLost::Found;
      r.copies = k;
      r.property = v.property;
      r.trace = v.trace;
      r.trace_steps = v.trace_steps;
      return;
    }
    if (v.verdict == checker::Verdict::Incomplete) {
      // Fewer copies lost hold; whether k lose the write is not known. Never guessed.
      r.verdict = CopiesLost::Incomplete;
      r.copies = k;
      return;
    }
  }
  r.verdict = CopiesLost::None;
  r.copies = r.row.replication_factor;
}

}  // namespace isr::analysis
