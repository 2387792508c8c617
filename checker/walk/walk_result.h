// The options and the result of a random-walk run (checker/walk/random_walk.h).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/model.h"
#include "checker/walk/shrink.h"

namespace isr::checker {

struct WalkOptions {
  uint64_t walks = 1000;
  uint64_t depth = 100;  // the most steps one walk takes
  uint64_t seed = 0;
  unsigned threads = 1;  // 0 = one per hardware thread
  std::chrono::nanoseconds time_limit{0};  // 0 = none
  // Set from outside (a signal handler) to stop early; the result is then incomplete.
  const std::atomic<bool>* interrupt = nullptr;
  // Action kind -> relative weight; kinds not named weigh 1, weight 0 disables a kind.
  // Unknown names are a usage error (see validate_weights).
  std::map<std::string, double, std::less<>> weights;
  // The distinct-state count keeps at most this many fingerprints (16 bytes each): exact
  // up to it, beyond an estimate with a relative standard error of about
  // 1 / sqrt(capacity) (0.4% for the default). Small enough to stay in cache, since
  // every step's fingerprint goes through it.
  std::size_t distinct_state_capacity = std::size_t{1} << 16;
  ShrinkOptions shrink;
  // Run walks first_walk .. first_walk + walks - 1 (seeded and numbered by these global
  // indices): one rank's share of simulate --distributed (checker/walk/distributed_walks.h).
  uint64_t first_walk = 0;
  // Return the distinct-state sketch's kept fingerprints in WalkResult::distinct_sample,
  // so that runs over disjoint walks can be merged.
  bool keep_distinct_sample = false;
};

// How one action kind was exercised over all counted walks.
struct KindCoverage {
  std::string kind;
  double weight = 1;
  uint64_t taken = 0;    // steps that took an action of this kind
  uint64_t enabled = 0;  // (state, enabled action of this kind) pairs seen by the walks
};

// Walk lengths (steps per walk) in equal-width buckets: bucket b counts lengths in
// [b * width, (b + 1) * width).
struct LengthHistogram {
  uint64_t width = 1;
  std::vector<uint64_t> counts;
  uint64_t min = 0;
  uint64_t max = 0;
};

struct WalkStats {
  uint64_t walks_requested = 0;
  // Walks counted below: always the walks with indices 0 .. walks_completed - 1 (walks
  // finished out of order beyond a gap are not counted), so the figures do not depend
  // on the thread count.
  uint64_t walks_completed = 0;
  uint64_t steps = 0;
  uint64_t states_checked = 0;      // steps + initial states (every one gets all properties)
  uint64_t deadlocks = 0;           // walks that ended with no action enabled
  uint64_t weight_dead_ends = 0;    // walks that ended with only weight-0 actions enabled
  uint64_t depth_limit_hits = 0;    // walks that took `depth` steps
  std::vector<KindCoverage> coverage;   // in model.action_kinds() order
  uint64_t unlisted_kind_steps = 0;     // steps taking a kind missing from action_kinds()
  std::vector<std::string> warnings;    // kinds never enabled, ...
  LengthHistogram lengths;
  uint64_t distinct_states = 0;     // exact when distinct_states_exact, else an estimate
  bool distinct_states_exact = true;
  int distinct_states_sample_level = 0;  // the estimate samples 1 / 2^level of fingerprints
  double seconds = 0;               // the walks, not the shrinking
  double steps_per_second = 0;
};

enum class WalkOutcome {
  kNoViolation,  // every requested walk finished, no property failed
  kViolation,
  kIncomplete,   // interrupted or out of time before every walk finished
};

template <Model M>
struct WalkViolation {
  uint64_t walk_index = 0;
  std::size_t property_index = 0;
  std::string property;
  std::string description;
  // False only after an interrupt: a walk with a smaller index might also have failed.
  bool smallest_walk_index = true;
  ActionTrace<M> found;   // as walked
  ActionTrace<M> shrunk;  // == found when shrinking is disabled
  ShrinkStats shrink;
};

template <Model M>
struct WalkResult {
  WalkOutcome outcome = WalkOutcome::kNoViolation;
  uint64_t seed = 0;
  std::string stop_reason;  // for kIncomplete: "interrupted" or "time limit"
  std::optional<WalkViolation<M>> violation;
  WalkStats stats;
  // With WalkOptions::keep_distinct_sample: the sketch's sample and level.
  std::vector<uint64_t> distinct_sample;
  int distinct_sample_level = 0;
};

inline nlohmann::json shrink_stats_to_json(const ShrinkStats& s) {
  return {{"length_before", s.length_before},
          {"length_after_delta_debugging", s.length_after_delta},
          {"length_after", s.length_after},
          {"candidates_tried", s.candidates_tried},
          {"candidates_accepted", s.candidates_accepted},
          {"bfs_states", s.bfs_states},
          {"bfs_improved", s.bfs_improved},
          {"proven_shortest", s.proven_shortest},
          {"budget_exhausted", s.budget_exhausted},
          {"seconds", s.seconds}};
}

inline nlohmann::json walk_stats_to_json(const WalkStats& s) {
  nlohmann::json coverage = nlohmann::json::array();
  for (const KindCoverage& k : s.coverage) {
    coverage.push_back(
        {{"kind", k.kind}, {"weight", k.weight}, {"taken", k.taken}, {"enabled", k.enabled}});
  }
  nlohmann::json buckets = nlohmann::json::array();
  for (std::size_t b = 0; b < s.lengths.counts.size(); ++b) {
    if (s.lengths.counts[b] == 0) continue;
    buckets.push_back({{"from", b * s.lengths.width},
                       {"to", (b + 1) * s.lengths.width - 1},
                       {"walks", s.lengths.counts[b]}});
  }
  return {{"walks_requested", s.walks_requested},
          {"walks_completed", s.walks_completed},
          {"steps", s.steps},
          {"states_checked", s.states_checked},
          {"deadlocks", s.deadlocks},
          {"weight_dead_ends", s.weight_dead_ends},
          {"depth_limit_hits", s.depth_limit_hits},
          {"coverage", coverage},
          {"unlisted_kind_steps", s.unlisted_kind_steps},
          {"warnings", s.warnings},
          {"walk_lengths", {{"min", s.lengths.min}, {"max", s.lengths.max}, {"buckets", buckets}}},
          {"distinct_states", {{"count", s.distinct_states},
                               {"exact", s.distinct_states_exact},
                               {"sample_level", s.distinct_states_sample_level}}},
          {"seconds", s.seconds},
          {"steps_per_second", s.steps_per_second}};
}

}  // namespace isr::checker
