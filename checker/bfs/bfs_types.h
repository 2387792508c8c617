// Options, progress reports and results of the exhaustive BFS engine (checker/bfs/bfs.h).
// See docs/checker.md for the precise meaning of every figure.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "checker/bfs/checkpoint_options.h"
#include "checker/bfs/parallel_profile.h"
#include "checker/counterexample.h"

namespace isr::checker {

enum class Verdict { Holds, Violated, Incomplete };

// Why a search stopped before exploring every reachable state.
enum class StopReason { None, MaxStates, MaxMemory, Interrupted, TimeLimit };

inline std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Holds: return "holds";
    case Verdict::Violated: return "violated";
    case Verdict::Incomplete: return "incomplete";
  }
  return "?";
}

inline std::string_view stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::None: return "none";
    case StopReason::MaxStates: return "max-states";
    case StopReason::MaxMemory: return "max-memory";
    case StopReason::Interrupted: return "interrupted";
    case StopReason::TimeLimit: return "time-limit";
  }
  return "?";
}

// A snapshot of a running search, for progress lines.
struct BfsProgress {
  uint64_t states_generated = 0;
  uint64_t distinct_states = 0;
  uint64_t frontier = 0;         // states of the level being expanded
  int depth = 0;                 // levels completed so far
  double seconds = 0;
  double states_per_second = 0;  // generated states per second since the start
  uint64_t memory_bytes = 0;     // the engine's own structures
  // With BfsOptions::continue_after_violation: what is decided so far.
  uint64_t properties_violated = 0;
  uint64_t violating_states = 0;  // summed over properties
};

// Where the expand phase's successors are looked up in the visited set (checker/bfs/bfs.h).
// States, counts, verdicts and traces never depend on it: only the memory traffic and
// the candidate buffers' size do (docs/checker.md, "Memory").
enum class VisitedLookup {
  Adaptive,  // per level, from the previous level's share of successors already visited
  Expand,    // every successor, at random, while it is generated (prefetched)
  Dedupe,    // once per distinct candidate, in fingerprint order, while deduplicating
};

struct BfsOptions {
  int threads = 1;                 // worker threads, >= 1; results do not depend on it
  bool symmetry = false;           // fingerprint model.canonicalize(copy) instead of the state
  uint64_t max_states = 0;         // 0 = unlimited; stop once this many distinct states exist
  uint64_t max_memory_bytes = 0;   // 0 = unlimited; measured on the engine's structures
  // Non-empty (with max_memory_bytes): instead of stopping at max_memory_bytes, keep under
  // it by moving the visited set and the frontier to files in this directory (check
  // --spill; docs/checker.md, "Larger than memory"). Results never depend on it.
  std::string spill_dir;
  const std::atomic<bool>* interrupt = nullptr;  // set (e.g. by SIGINT) to stop early
  std::function<void(const BfsProgress&)> progress;  // called from the calling thread
  std::chrono::milliseconds progress_interval{1000};
  // Frontier states expanded per wave (0: the default, 2^18). Smaller waves bound the
  // memory of candidate successors more tightly; results never depend on it.
  uint64_t wave_states = 0;
  std::chrono::nanoseconds time_limit{0};  // 0 = none; else stop (Incomplete) after this long
  // 64 or 128: the width of the fingerprints in the visited set and the candidates.
  // Results do not depend on it unless a collision happens (see the estimate). 128 by
  // default: the 64-bit estimate passes 1e-6 already at ~6M states (the default Kafka
  // model), and 128 bits cost ~10 more bytes per state and a few percent of time.
  int fingerprint_bits = 128;
  // false: store each frontier state against the reference state only, not against the
  // previous state (checker/store/state_store.h); for measuring what the delta saves.
  bool frontier_delta = true;
  // true: deduplicate candidates with std::sort instead of the bucket sort (bfs.h); for
  // measuring what the bucket sort saves. Results never depend on it.
  bool comparison_sort = false;
  // See VisitedLookup; Expand and Dedupe are for measuring what Adaptive saves.
  VisitedLookup visited_lookup = VisitedLookup::Adaptive;
  // Partial-order reduction (checker/por.h): expand only an ample subset of the enabled
  // actions where the model's optional hooks allow it. No effect on models without them.
  // Results stay independent of the thread count; with a stubborn-set model they may
  // depend on wave_states (the cycle proviso reads the visited set, which holds the
  // earlier waves' new states).
  bool por = false;
  // `check --continue` (docs/checker.md, "Every property decided"): the search goes on
  // after a violation, to the end or to a limit, and the result gives each property its
  // own verdict (BfsResult::outcomes). Without it the search stops at the end of the
  // first level with a violation.
  bool continue_after_violation = false;
  // With continue_after_violation and a PathLabeler: at most this many classes per
  // property keep a rebuilt counterexample in BfsResult::classes (0: all of them); the
  // others are still counted.
  size_t max_classes = 0;
  // `check --checkpoint DIR` / `--resume DIR` (checker/bfs/checkpoint.h): the search
  // written at level boundaries and on a stop, and resumed with the same result.
  CheckpointOptions checkpoint;
  // true: fill BfsResult::parallel_profile (thread CPU time per parallel phase and per
  // serial section of the coordinator: checker/bfs/parallel_profile.h). Off, the engine
  // reads no clock for it; results never depend on it.
  bool profile = false;
};

// One property's verdict after a --continue search.
template <class M>
struct PropertyOutcome {
  std::string property;
  Verdict verdict = Verdict::Holds;   // Incomplete: not violated, but the search stopped early
  uint64_t violating_states = 0;      // distinct (up to symmetry) states violating it
  Counterexample<M> counterexample;   // the shortest: the first violating state in BFS order
  size_t classes = 0;                 // distinct classes (with a PathLabeler)
  uint64_t classes_left_out = 0;      // of those, not in BfsResult::classes (max_classes)
};

// Violating states of one property whose BFS-tree paths have equal class keys
// (checker/path_labeler.h).
template <class M>
struct ViolationClass {
  std::string property;
  std::string key;                    // PathLabeler::class_key of the signature
  std::vector<uint32_t> signature;    // the tokens on the path to the class's first state
  uint64_t violating_states = 0;
  uint32_t measure_first = 0;         // PathLabeler::measure of the class's first state
  uint32_t measure_max = 0;           // and its largest over the class
  Counterexample<M> counterexample;   // a shortest path to the class's first state
};

template <class M>
struct BfsResult {
  Verdict verdict = Verdict::Holds;
  StopReason stop_reason = StopReason::None;  // set when verdict is Incomplete
  std::string property;                       // the violated property, when Violated
  Counterexample<M> counterexample;           // when Violated

  uint64_t distinct_states = 0;   // distinct (up to symmetry) states discovered and checked
  uint64_t states_generated = 0;  // initial states + successors computed
  int depth = 0;                  // last BFS level completely explored (0 = initial states)
  std::vector<uint64_t> level_sizes;  // new distinct states per level, level 0 first

  double seconds = 0;
  double states_per_second = 0;    // states_generated / seconds
  double distinct_per_second = 0;  // distinct_states / seconds

  uint64_t peak_memory_bytes = 0;  // engine structures: visited set, parent log, frontiers, buffers
  uint64_t visited_set_bytes = 0;  // at the end
  uint64_t parent_log_bytes = 0;   // at the end
  double bytes_per_state = 0;      // (visited set + parent log) / distinct states

  // Probability that a fingerprint collision made the search skip a state:
  // states_generated * distinct_states / 2^fingerprint_bits (union bound; see
  // docs/checker.md), and what it would be with 64-bit fingerprints.
  double collision_probability = 0;
  double collision_probability_64 = 0;
  int fingerprint_bits = 64;

  // Per-structure memory (see docs/checker.md, "Reach").
  uint64_t visited_set_fingerprints = 0;  // held by the visited set at the end
  uint64_t frontier_peak_bytes = 0;       // both frontier stores, at the widest two levels
  double frontier_bytes_per_state = 0;    // encoded bytes per stored state, over all levels
  uint64_t state_bytes = 0;               // sizeof(State): what a state costs uncompressed
  uint64_t candidate_bytes = 0;           // candidate buffers at their largest (capacity kept)
  uint64_t candidate_record_bytes = 0;    // bytes per candidate successor
  // BfsOptions::spill_dir: the visited set's file at the end, how often its memory part
  // moved there, and the frontier bytes written to disk over every level.
  uint64_t spill_visited_bytes = 0;
  uint64_t visited_spills = 0;
  uint64_t spill_frontier_bytes = 0;

  // Wall-clock time per phase of the levels (see checker/bfs/bfs.h), for tuning.
  struct Phases {
    double expand = 0;
    double dedupe = 0;
    double order = 0;        // merging survivors and writing the parent log
    double materialize = 0;  // recomputing new states, checking properties
  } phase_seconds;

  // CPU time on the critical path: per phase the busiest worker's CPU time, plus the
  // coordinator's sequential work. What `seconds` would be with one idle core per
  // thread; the ratio for 1 and N threads estimates the speed-up on a shared machine.
  double critical_path_seconds = 0;
  // With BfsOptions::profile: the critical path taken apart (threads == 0 without it).
  ParallelProfile parallel_profile;

  uint32_t bounds_mask = 0;                 // OR of bounds_hit over every distinct state
  std::vector<std::string> bounds_reached;  // names of the bits in bounds_mask
  // OR of usage_seen over every distinct state (checker/hooks.h, HasUsage); meaningful
  // when usage_recorded (the model has the hook and this engine records it).
  uint32_t usage_mask = 0;
  bool usage_recorded = false;

  int threads = 1;
  bool symmetry = false;
  bool por = false;             // partial-order reduction was on (and the model has hooks)
  uint64_t por_reduced = 0;     // states expanded with fewer actions than enabled
  uint64_t por_proviso = 0;     // states fully expanded by the cycle proviso (C3)

  // continue_after_violation: one entry per model.properties(), in that order, and the
  // classes per property (in property order, each property's in BFS order of their
  // first state). `property` and `counterexample` above are then the first violation in
  // BFS order, the one a search without it reports.
  bool continued = false;
  std::vector<PropertyOutcome<M>> outcomes;
  std::vector<ViolationClass<M>> classes;

  CheckpointReport checkpoint;  // with BfsOptions::checkpoint
};

}  // namespace isr::checker
