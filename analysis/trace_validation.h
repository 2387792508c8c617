// Trace validation of a recorded Kafka execution (docs/recording.md, docs/validation.md):
// is what a real cluster did a behaviour of the partition model?
//
// This file is the Kafka-specific half; the search is the generic engine of
// checker/bfs/constrained_search.h. Here: which model actions are internal (the cluster's
// own: fetches, ISR changes, elections, metadata, flushes) and which external (what a
// harness does: the kinds of counterexamples::is_harness_action); how each recorded
// event maps to a model action (a fault to the Crash/Restart/Cut/Heal/Pause/Resume/
// PreferredElection of that node, side and kind; a produce to the Produce of that record
// to that broker, then its outcome as an observation; a consume to the Consume from that
// broker at that offset reading that record); and what an observation means (the
// observable projection of counterexamples::observable_state, compared field by field on
// the fields the recording holds, as a scenario's `until`); a committed decision of the
// KRaft controller is an observation of the model's controller state after it, and a
// group holding decisions is two ordered chains (docs/validation.md, "Decisions").
#pragma once

#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "counterexamples/scenario/recording.h"
#include "spec/partition/config.h"

namespace isr::analysis {

struct ValidateOptions {
  int max_internal = 8;               // internal model actions allowed between two recorded events
  std::size_t max_states = 1'000'000;  // model states kept before giving up (incomplete)
  const std::atomic<bool>* stop = nullptr;
};

inline constexpr int kMinMaxInternal = 0;
inline constexpr int kMaxMaxInternal = 64;

struct ValidationResult {
  enum class Verdict { Explained, Unexplained, Incomplete };
  Verdict verdict = Verdict::Incomplete;
  std::size_t events = 0;       // events validated (faults, client operations, observations)
  std::size_t explained = 0;    // of them, explained before the verdict
  int event_seq = 0;            // unexplained / incomplete: the event's seq (line seq + 1 of the file)
  std::string event;            // that event, for people
  std::string why;              // unexplained: what no state reached could do or show
  std::size_t nearest_count = 0;            // model states reached just before that event
  std::vector<std::string> differences;     // the nearest of them: each observable that differed
  std::vector<std::string> enabled_external;  // a Take that failed: what the harness could have done there
  nlohmann::json trace;         // explained: the model's trace (format v1, engine "validate")
  std::size_t states_kept = 0;
  // Committed decisions not validated because their group was too large for the engine
  // (more than 63 constraints: docs/validation.md, "Decisions"); never counted in `events`.
  std::size_t decisions_left_out = 0;
  // Per engine constraint met (an event, or a client call's outcome): the states that
  // explained everything before it and the states their internal closure reached.
  std::vector<std::pair<std::size_t, std::size_t>> rounds;
  nlohmann::json to_json() const;
};

const char* verdict_name(ValidationResult::Verdict v);

// Searches the partition model of `config` for a behaviour whose external actions are the
// recording's faults and client operations, in the recorded order (any order within a
// `group`), with at most `options.max_internal` internal actions between two events, and
// whose observable projection equals every recorded observation.
ValidationResult validate_recording(const counterexamples::Recording& recording, const spec::Config& config,
                                    const ValidateOptions& options);

}  // namespace isr::analysis
