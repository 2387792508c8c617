// `check --checkpoint DIR [--checkpoint-every 10m]` and `check --resume DIR`: the command
// line's side of checker/bfs/checkpoint.h. What a checkpoint must match to be resumed
// (model, configuration, the options that shape the search, the binary), the refusal
// naming what differs, and the lines and JSON saying what was written or resumed.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "checker/bfs/checkpoint_file.h"
#include "checker/bfs/checkpoint_options.h"

namespace isr::cli {

// The identity a checkpoint records (checker::CheckpointOptions::identity): the model
// name, its resolved configuration, symmetry, partial-order reduction and fingerprint
// width (the options that change which states are explored or how they are stored), and
// the version and git revision of the binary (the file is in its own native layout).
// Threads and limits are left out: they may differ between the runs.
std::string checkpoint_identity_text(std::string_view model, const nlohmann::json& config, bool symmetry, bool por,
                                     int fingerprint_bits);

// UsageError("--resume", ...) unless DIR holds a readable checkpoint of `identity`: the
// message names every field that differs (config.acks: 1 in the checkpoint, all here).
// `file`: the file of DIR that records the identity (the distributed engine's manifest).
void check_resumable(const std::string& dir, const std::string& identity,
                     const std::string& file = checker::kCheckpointFile);

// --distributed: UsageError("--resume", ...) naming both counts unless DIR's checkpoint
// was written by `ranks` ranks (each rank resumes its own file).
void check_resumable_ranks(const std::string& dir, int ranks);

// After the search: what was resumed and written, for the summary and --json
// ("checkpoint"); with `incomplete`, how to go on from it. `file`: as for check_resumable.
void report_checkpoint(const checker::CheckpointOptions& options, const checker::CheckpointReport& report,
                       bool incomplete, std::ostream& out, nlohmann::json& json,
                       const std::string& file = checker::kCheckpointFile);

}  // namespace isr::cli
