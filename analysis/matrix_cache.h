// The matrix's on-disk cache: one JSON file per cell and per copies-lost row, named by
// a hash of what was computed (the resolved configuration, the options that change the
// result, a salt that changes with the model), so that a re-run only computes what
// changed. Internal to analysis/matrix*.cc; the public interface is analysis/matrix.h
// (matrix_model_salt is the default salt).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "analysis/matrix.h"

namespace isr::analysis {

// The key of a cell's entry (hex): the cache format, the salt, the state limit, whether
// availability is analysed, the reduction, and the cell's resolved configuration.
std::string matrix_cell_key(const nlohmann::json& config, const MatrixOptions& options, const std::string& salt);
// The key of a row's copies-lost entry: the analysis and its definition, the salt, the
// state limit, the reduction, and the configuration of its first search (the row's
// resolved configuration; the k-th search differs only in its fault budget).
std::string copies_lost_key(const nlohmann::json& first_config, const MatrixOptions& options,
                            const std::string& salt);

// Fills the computed part of `r` from the entry under r.key in `dir`. False when there is
// none, or it is damaged or of another format or key (then it is recomputed).
bool read_cached(const std::string& dir, CellResult& r);
bool read_cached(const std::string& dir, RowResult& r);
// Stores the computed part under r.key; a cache that cannot be written only costs
// recomputation (no error). Atomic: a concurrent reader never sees half a file.
void write_cached(const std::string& dir, const CellResult& r);
void write_cached(const std::string& dir, const RowResult& r);

}  // namespace isr::analysis
