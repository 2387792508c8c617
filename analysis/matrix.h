// The configuration matrix: durability and availability over a sweep of configurations.
//
// Operators ask "with RF r, min ISR m, acks a, ... and f nodes failing, can I lose an
// acknowledged write, and can I still write?". The matrix answers it for every
// combination of the swept dimensions: per cell, an exhaustive check of no-acked-loss
// under a fault budget of f failures (analysis::verify; a violation comes with its
// shortest trace) and the availability verdict after f failures. A cell that reaches the
// state limit is "incomplete", never guessed. Results are cached on disk by a hash of
// the cell's resolved configuration and a salt that changes with the model, so that a
// re-run only computes what changed.
//
// Output (text, markdown, JSON, HTML) lives in matrix_report.cc; the command line in
// cli/cmd_matrix.cc; docs/matrix.md explains the sweep and its bounds.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "spec/config.h"

namespace isr::analysis {

// One point of the sweep. Brokers = replication factor (the smallest cluster that hosts
// the partition, so every failure hits a replica or, dedicated, a voter).
struct MatrixCell {
  int replication_factor = 3;
  int min_isr = 2;
  spec::Acks acks = spec::Acks::All;
  bool unclean = false;
  bool elr = true;
  spec::Placement placement = spec::Placement::Combined;
  int failures = 0;     // the crash budget: at most this many node stops in a run
  bool lossy = false;   // failures may be power losses dropping the unflushed suffix

  // "rf3-isr2-acksall-clean-elr-combined-f2-lossy": stable, usable as an HTML anchor.
  std::string id() const;
  // "RF 3, min ISR 2, acks=all, unclean off, ELR on, combined, 2 lossy failures".
  std::string label() const;
};

// The values of each swept dimension. min ISR and failures depend on the replication
// factor: the values above it are skipped, and an empty list means "all" (1..RF for
// min ISR, 0..RF for failures). Lossy only varies where failures > 0 (with no failure
// both settings give the same configuration).
struct MatrixDimensions {
  std::vector<int> replication_factors;
  std::vector<int> min_isr;   // empty: 1..RF
  std::vector<spec::Acks> acks;
  std::vector<bool> unclean;
  std::vector<bool> elr;
  std::vector<spec::Placement> placements;
  std::vector<int> failures;  // empty: 0..RF
  std::vector<bool> lossy;
};

// The sweep `isrcheck matrix` runs without dimension flags; docs/matrix.md says why it
// is this one (it finishes in minutes on 2 cores).
MatrixDimensions default_matrix_dimensions();

// Every cell of the sweep, in a fixed order (the order of the output).
std::vector<MatrixCell> expand_matrix(const MatrixDimensions& dimensions);

// The configuration a cell checks: the `base` document (--config) with the cell's
// dimensions written over it, then the `overrides` (--set key=value): brokers = RF,
// faults.max_crashes = f, max_lossy_crashes = f or 0, no disk losses, clean shutdowns
// or cuts; property no-acked-loss; no consumer (it cannot change whether an acked write
// is lost, only multiply states). The protocol is the base's (kip-966 by default; ELR
// on needs it). Throws spec::ConfigError when the cell is not a valid configuration or
// an override sets a key the matrix controls.
spec::Config matrix_cell_config(const nlohmann::json& base, const std::vector<std::string>& overrides,
                                const MatrixCell& cell);

// The configuration keys the matrix sets per cell (an override of one is an error).
const std::vector<std::string>& matrix_controlled_keys();

// DataGone: no leader ever served without an acked write (no-acked-loss holds), yet some
// reachable state has it on no replica at all (no-committed-loss-globally fails): the
// data is physically gone, for instance RF 1 after a power loss while the partition
// stays offline. The grid must not call that "ok".
enum class Durability { NoAckedLoss, AckedLoss, Incomplete, DataGone };
// "no-acked-loss", "acked-loss", "incomplete", "data-gone"
std::string_view durability_name(Durability d);

struct CellResult {
  MatrixCell cell;
  nlohmann::json config;        // the resolved configuration checked (spec::to_json)
  std::string key;              // the cache key (hex)

  Durability durability = Durability::Incomplete;
  nlohmann::json trace;         // the shortest acked-loss (or data-gone) trace (trace v1)
  int trace_steps = 0;
  uint64_t durability_states = 0;
  double durability_seconds = 0;
  std::vector<std::string> bounds_reached;

  // Availability after `failures` failures (analysis/availability.h): the verdict name
  // ("available", "not-enough-replicas", ...), or "incomplete", or empty when the
  // availability analysis was not run.
  std::string availability;
  nlohmann::json availability_witness;  // the trace reaching the verdict, when any
  uint64_t availability_states = 0;
  double availability_seconds = 0;

  bool from_cache = false;      // read from the cache rather than computed in this run

  bool red() const { return durability == Durability::AckedLoss; }
  bool gone() const { return durability == Durability::DataGone; }
};

struct MatrixProgress {
  int done = 0;
  int total = 0;
  int red = 0;
  int incomplete = 0;
  int cache_hits = 0;
  double seconds = 0;
};

struct MatrixOptions {
  nlohmann::json base = nlohmann::json::object();  // base configuration document (--config)
  std::vector<std::string> overrides;  // --set key=value, applied after the cell's keys
  int jobs = 1;                  // cells checked in parallel, one thread each
  uint64_t max_states = 1'000'000;  // per cell and per analysis; 0: no limit
  bool availability = true;      // also run the availability analysis per cell
  bool por = false;              // partial-order reduction in the durability searches and availability graphs (checker/por.h)
  std::string cache_dir;         // empty: no cache
  // Mixed into every cache key. Empty: matrix_model_salt().
  std::string salt;
  const std::atomic<bool>* interrupt = nullptr;
  std::function<void(const MatrixProgress&)> progress;  // called under a lock, per cell
};

struct MatrixResult {
  std::vector<CellResult> cells;  // in the order of the cells given
  int computed = 0;               // cells checked in this run
  int cache_hits = 0;             // cells read from the cache
  int red = 0;
  int gone = 0;  // cells whose durability is DataGone
  int incomplete = 0;
  bool interrupted = false;
  double seconds = 0;
  bool availability = true;       // whether availability was analysed
  uint64_t max_states = 0;
};

// Checks every cell (in parallel with options.jobs), reading and writing the cache.
// A cell whose configuration is invalid throws spec::ConfigError before any work.
MatrixResult run_matrix(const std::vector<MatrixCell>& cells, const MatrixOptions& options);

// The default cache salt: a format version plus a fingerprint of the running
// executable, so that any rebuild (in particular any change to the model) invalidates
// what an older build cached.
std::string matrix_model_salt();

// ---- reports (matrix_report.cc) -------------------------------------------------------

enum class MatrixFormat { Text, Markdown };
std::string render_matrix_table(const MatrixResult& result, MatrixFormat format);
nlohmann::json matrix_to_json(const MatrixResult& result);
// A self-contained HTML page: the coloured grid; each red cell links to an anchor with
// its counterexample as a mermaid diagram and as text. `mermaid_js` (mermaid.min.js, see
// scripts/fetch-mermaid.sh) is embedded in the page, which then loads nothing from the
// network; empty, the diagrams stay as their mermaid source. Throws std::invalid_argument
// when the script contains "<script" or "</script", which would end it early.
std::string render_matrix_html(const MatrixResult& result, std::string_view mermaid_js = {});

}  // namespace isr::analysis
