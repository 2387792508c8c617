// One cell of the configuration matrix checked: its durability (an exhaustive search of
// the loss properties) and its availability after the cell's failures. Internal to
// analysis/matrix*.cc; the public interface is analysis/matrix.h.
#pragma once

#include "analysis/matrix.h"
#include "spec/partition/config.h"

namespace isr::analysis {

// How failures are placed for the availability analysis: brokers only, so that in
// dedicated placement the voters survive (the point of that placement); in combined
// placement every node is a broker anyway.
inline constexpr const char* kMatrixFailingNodes = "brokers";
// What a cell's durability checks: acked loss (red), and data on no replica (DataGone).
inline constexpr const char* kMatrixLossProperty = "no-acked-loss";
inline constexpr const char* kMatrixGoneProperty = "no-committed-loss-globally";

// Checks one cell (`config` is matrix_cell_config of `cell`) into `r`; `interrupted`
// reports a search stopped by the interrupt flag (such a result is not cached).
void check_matrix_cell(const spec::Config& config, const MatrixCell& cell, const MatrixOptions& options,
                       CellResult& r, bool& interrupted);

}  // namespace isr::analysis
