// The matrix's copies-lost column: per row of the grid, "how many copies of a write
// acknowledged by the full ISR must be lost before it can be lost?", answered by
// exhaustive searches with k = 1, 2, ... power or disk losses after the acknowledgement,
// up to the first that loses the write (docs/matrix.md, "The copies-lost column").
// Internal to analysis/matrix*.cc; the public interface (RowResult, copies_lost_config)
// is analysis/matrix.h.
#pragma once

#include "analysis/matrix.h"

namespace isr::analysis {

// Decides r.row's column into `r` (r.row and the options give the configurations,
// copies_lost_config); `interrupted` reports a search stopped by the interrupt flag
// (such a result is not cached).
void search_copies_lost(const MatrixOptions& options, RowResult& r, bool& interrupted);

}  // namespace isr::analysis
