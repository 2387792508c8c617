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
// Per row of the grid (a configuration without its failure scenario) the matrix can also
// answer "how many copies of a write acknowledged by the full ISR must be lost before it
// can be lost?" (the "copies lost" column): searches with k = 1, 2, ... power or disk
// losses after the acknowledgement, up to the first that loses the write.
//
// This header is the matrix's public interface. Its implementation, a file per job: the
// sweep and the cells' configurations (matrix.cc), checking a cell (matrix_cell.{h,cc}),
// the copies-lost column (matrix_copies_lost.{h,cc}), the on-disk cache
// (matrix_cache.{h,cc}), the parallel runner (matrix_runner.cc) and the output (text,
// markdown, JSON, HTML: matrix_report.cc). The command line is in cli/cmd_matrix.cc;
// docs/matrix.md explains the sweep and its bounds.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/bfs/bfs_types.h"
#include "spec/partition/config.h"

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
  // The cell's row, without the failure scenario: "rf3-isr2-acksall-clean-elr-combined"
  // and "RF 3, min ISR 2, acks=all, unclean off, ELR on, combined".
  std::string row_id() const;
  std::string row_label() const;
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

// The configuration of the "copies lost" search with `copies` lost copies for the row of
// `row` (its failure scenario is ignored): the row's configuration as a cell's, with the
// fault budget faults.max_crashes = max_lossy_crashes = max_disk_losses = `copies`
// (no clean shutdowns, cuts or pauses). The search runs it with faults_begin=after-ack
// and only_copy_losses (analysis/verify.h): every stop is a power or a disk loss.
spec::Config copies_lost_config(const nlohmann::json& base, const std::vector<std::string>& overrides,
                                const MatrixCell& row, int copies);

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

// "How many copies of an acknowledged write must be lost before it can be lost?" for one
// row (docs/matrix.md, "The copies-lost column").
enum class CopiesLost {
  Found,       // `copies` lost copies can lose it, and fewer cannot
  None,        // no k <= RF loses it
  Incomplete,  // k < `copies` cannot lose it; the search with `copies` reached the state limit
};
// "found", "none", "incomplete"
std::string_view copies_lost_name(CopiesLost c);

// One search of the column: at most `copies` lost copies after the acknowledgement.
struct CopiesLostSearch {
  int copies = 0;
  checker::Verdict verdict = checker::Verdict::Holds;
  uint64_t distinct_states = 0;
  double seconds = 0;
  std::vector<std::string> bounds_reached;
};

struct RowResult {
  MatrixCell row;       // failures = 0: the row's dimensions
  std::string key;      // the cache key (hex)
  nlohmann::json config;  // the resolved configuration of the deciding (last) search
  CopiesLost verdict = CopiesLost::Incomplete;
  int copies = 0;       // Found: the smallest k; Incomplete: the k whose search was cut
  std::string property;  // Found: the property violated (no-acked-loss or no-committed-loss-globally)
  nlohmann::json trace;  // Found: the shortest trace losing the write (trace v1)
  int trace_steps = 0;
  std::vector<CopiesLostSearch> searches;  // k = 1, 2, ... up to the deciding one
  bool from_cache = false;

  uint64_t distinct_states() const;  // over all its searches
  double seconds() const;
  // "acked-loss" (a leader served without it) or "data-gone" (it is on no replica).
  std::string_view loss() const;
};

struct MatrixProgress {
  int done = 0;
  int total = 0;
  int red = 0;
  int incomplete = 0;
  int cache_hits = 0;
  int rows_done = 0;   // rows whose copies-lost column is decided
  int rows_total = 0;  // 0: the column is off
  double seconds = 0;
};

struct MatrixOptions {
  nlohmann::json base = nlohmann::json::object();  // base configuration document (--config)
  std::vector<std::string> overrides;  // --set key=value, applied after the cell's keys
  int jobs = 1;                  // cells checked in parallel, one thread each
  uint64_t max_states = 1'000'000;  // per cell and per analysis; 0: no limit
  bool availability = true;      // also run the availability analysis per cell
  bool por = false;              // partial-order reduction in the durability searches and availability graphs (checker/por.h)
  // The copies-lost column: one RowResult per row. Its searches use partial-order
  // reduction when copies_lost_por (the reduction keeps verdicts and shortest traces of
  // the Kafka models, docs/checker.md); off only to cross-check it.
  bool copies_lost = false;
  bool copies_lost_por = true;
  std::string cache_dir;         // empty: no cache
  // Mixed into every cache key. Empty: matrix_model_salt().
  std::string salt;
  const std::atomic<bool>* interrupt = nullptr;
  std::function<void(const MatrixProgress&)> progress;  // called under a lock, per cell
};

struct MatrixResult {
  std::vector<CellResult> cells;  // in the order of the cells given
  std::vector<RowResult> rows;    // copies lost, one per row in order of first appearance (when on)
  int computed = 0;               // cells checked in this run
  int cache_hits = 0;             // cells read from the cache
  int red = 0;
  int gone = 0;  // cells whose durability is DataGone
  int incomplete = 0;
  bool interrupted = false;
  double seconds = 0;
  bool availability = true;       // whether availability was analysed
  bool copies_lost = false;       // whether the copies-lost column was computed
  int rows_incomplete = 0;        // rows whose copies-lost search reached the state limit
  int rows_computed = 0;
  int rows_from_cache = 0;
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
