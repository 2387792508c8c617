// A campaign run's schedule, drawn from a seed (docs/campaign.md): the sends of records
// 1..n with faults started between them at seeded points, each on a seeded node, of a
// seeded kind, lasting a seeded number of sends, then ended (restart, resume, heal);
// every operation preceded by a seeded real-time gap. Whatever is still in force after
// the last send is ended at the end (the heal phase).
//
// The schedule depends on the seed and the configuration only, never on what the cluster
// does, so one seed gives one schedule; the outcome on a real cluster still depends on
// real timings (an election's speed, a fetch that lands before a kill or after it).
// The generator is splitmix64 with integer arithmetic, so the schedule is the same on
// every platform and compiler (no std:: distribution, whose results are unspecified).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "conformance/campaign/campaign_config.h"

namespace isr::conformance::campaign {

struct ScheduledOp {
  // produce, crash, restart, pause, resume, cut, heal (the recording's op names)
  std::string op;
  int record = 0;          // produce
  int node = -1;           // faults
  std::string crash_kind;  // crash: kill or clean
  std::string side;        // cut, heal: brokers, quorum, clients
  int gap_ms = 0;          // real time slept before it
  bool final_heal = false; // part of the heal phase after the last send
  bool operator==(const ScheduledOp&) const = default;
};

struct FaultCounts {
  int crashes = 0, clean = 0, pauses = 0, cuts = 0;
  int total() const { return crashes + pauses + cuts; }
};

// The seed of run `run` (1, 2, ...) of a campaign seeded `campaign_seed`.
uint64_t run_seed(uint64_t campaign_seed, int run);

std::vector<ScheduledOp> make_schedule(const CampaignConfig& c, uint64_t seed);

FaultCounts count_faults(const std::vector<ScheduledOp>& schedule);

nlohmann::json to_json(const ScheduledOp& op);

// "crash node 1 kill", "produce record 3", ...
std::string op_text(const ScheduledOp& op);

}  // namespace isr::conformance::campaign
