// The counterexample corpus: a manifest of known Kafka hazards, each a pair of
// configurations (one that exhibits the hazard, one with the fix that removes it), and
// one stored trace per entry (counterexamples/corpus/<name>.json, trace format v1).
//
// The corpus is a regression suite for the model: every stored trace must still replay,
// the unsafe configuration must still be violated with a trace no longer than the entry
// says, and the fixed configuration must still hold within the same bounds. Traces are
// produced by `regenerate`, never written by hand: BFS is deterministic, so regenerating
// an up-to-date corpus rewrites the same bytes. docs/corpus.md describes the manifest.
#pragma once

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace isr::analysis {

inline constexpr const char* kCorpusFormatName = "isrcheck-corpus";
inline constexpr int kCorpusFormatVersion = 1;

// Bad manifest input; `field` is the path at fault ("entries[3].fix.config.acks").
struct CorpusError : std::runtime_error {
  CorpusError(std::string field, const std::string& message)
      : std::runtime_error(field + ": " + message), field(std::move(field)) {}
  std::string field;
};

enum class EntryKind { Safety, Availability };

struct CorpusEntry {
  std::string name;                // kebab-case; the trace file is <name>.json
  std::string model = "partition";  // a model of corpus_models.h: "partition", "kraft"
  EntryKind kind = EntryKind::Safety;
  nlohmann::json config;           // the configuration document that shows the hazard
  nlohmann::json fix;              // the delta (JSON merge patch) that removes it
  // Safety: the property, expected "violated" / fix expected "holds". Availability: the
  // worst write-availability class after `failures` failures, for each configuration.
  std::string property;
  std::string expected;
  std::string fix_expected;
  int failures = 0;                // availability only: node failures
  bool lossy = false;              // availability only: failures are power losses
  std::string failing_nodes = "any";  // availability only: "any" node, or "brokers" only
  int max_steps = 0;               // the shortest trace may not be longer than this
  bool slow = false;               // its fix check takes long: run by the slow test only
  std::string why;                 // one sentence, in Kafka terms

  // Resolved from the documents above by the entry's model (safety: checking only
  // `property`): every key, as the model's traces record their "config".
  nlohmann::json unsafe_config;
  nlohmann::json fixed_config;
};

struct Manifest {
  std::string path;       // the file it was read from ("" when parsed from memory)
  std::string directory;  // the manifest's directory: where the traces live
  std::vector<CorpusEntry> entries;
};

// Parses and validates a manifest document; every configuration is resolved, so a bad
// key or value anywhere is reported up front. Throws CorpusError naming the field.
Manifest parse_manifest(const nlohmann::json& document);
// Reads `path` and parses it; the traces live next to it. Throws CorpusError.
Manifest load_manifest(const std::string& path);

// The entry called `name`; throws CorpusError("--only", ...) listing the names.
const CorpusEntry& find_entry(const Manifest& manifest, const std::string& name);

std::string trace_file_name(const CorpusEntry& entry);  // "<name>.json"
// The bytes a trace is stored as (stable: keys sorted, two-space indent, final newline).
std::string trace_file_text(const nlohmann::json& trace);

struct RunOptions {
  int threads = 1;  // results do not depend on it
  bool por = false;  // partial-order reduction (checker/por.h) in the exhaustive searches and availability graphs
  const std::atomic<bool>* interrupt = nullptr;  // SIGINT/SIGTERM: searches stop, verdict "incomplete"
};

// One side of an entry's pair, checked now.
struct SideResult {
  std::string verdict;     // "violated", "holds", "incomplete", or an availability class
  std::string property;    // safety: the violated property, when violated
  int steps = 0;           // the length of the trace found (0 when none)
  uint64_t states = 0;     // distinct states (availability: state-graph vertices)
  double seconds = 0;
  nlohmann::json trace;    // the trace found (null when none)
};

SideResult run_unsafe(const CorpusEntry& entry, const RunOptions& options = {});
SideResult run_fix(const CorpusEntry& entry, const RunOptions& options = {});

// What is wrong with a side's result against the entry's expectation ("" when nothing).
std::string unsafe_problem(const CorpusEntry& entry, const SideResult& result);
std::string fix_problem(const CorpusEntry& entry, const SideResult& result);

// Re-executes a stored trace: its configuration must be the entry's, every step must
// replay (counterexamples::replay_trace), and a safety trace must end in a violation of
// the entry's property. Returns "" when it does, otherwise what went wrong.
std::string replay_problem(const CorpusEntry& entry, const nlohmann::json& trace);

// Regenerating one entry: checks the unsafe side and writes its trace to
// `out_dir`/<name>.json (only when the check meets the expectation).
struct RegenerateResult {
  SideResult unsafe;
  std::string file;
  bool written = false;
  bool changed = false;  // the file did not exist or held other bytes
  std::string problem;   // "" when the entry met its expectation
};
RegenerateResult regenerate_entry(const CorpusEntry& entry, const std::string& out_dir,
                                  const RunOptions& options = {});

// Verifying one entry: the stored trace replays and equals a fresh one, the unsafe side
// is violated as expected and (unless skipped) the fix side holds.
struct EntryVerification {
  SideResult unsafe;
  SideResult fix;
  bool fix_checked = false;
  std::vector<std::string> problems;
  bool ok() const { return problems.empty(); }
};
EntryVerification verify_entry(const CorpusEntry& entry, const std::string& trace_dir,
                               const RunOptions& options = {}, bool check_fix = true);

}  // namespace isr::analysis
