// One run of a fault campaign on a real cluster (docs/campaign.md): its schedule
// (fault_schedule.h) executed through the conformance harness (KafkaSession,
// RealKafkaCluster) and recorded in the format of `conform --record` (docs/recording.md),
// then validated with the partition model (analysis/trace_validation.h).
//
// A run: a fresh topic on the (reused) 3-node cluster and a producer with the
// configuration's acks that does not retry; the initial observation; the schedule's
// sends and faults, each after its seeded gap, with a `sample` of the partition after
// each (for the timeline; never validated: the cluster is still moving); the heal phase;
// a quiet period and a bounded wait for a settled partition, observed; then every offset
// read back, and the controller's committed decisions read from the metadata log and
// merged in (docs/campaign.md, "Decisions"). The run's figures: faults injected, records
// acked, acked records not read back (lost).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/trace_validation.h"
#include "conformance/campaign/campaign_config.h"
#include "conformance/campaign/fault_schedule.h"
#include "conformance/kafka_session.h"

namespace isr::conformance::campaign {

struct RunResult {
  int run = 0;
  uint64_t seed = 0;
  std::vector<ScheduledOp> schedule;
  nlohmann::json header;               // the recording's header
  std::vector<nlohmann::json> events;  // the recording's events
  int faults_injected = 0;
  std::vector<int> acked;       // records whose send was acked (at the call or later)
  std::vector<int> read_back;   // records read back at the end, in offset order
  std::vector<int> lost;        // acked and not read back
  bool settled = false;         // the final wait saw a settled partition
  bool complete = false;        // every scheduled operation ran and the read-back finished
  bool interrupted = false;
  std::string error;            // what stopped the run early (a driver error), empty if none
  double run_seconds = 0;
  // Validation (filled by validate_run).
  bool validated = false;
  analysis::ValidationResult validation;
  int max_internal_used = 0;
  nlohmann::json retry;  // the retry at a larger bound, when there was one: its verdict
  double validate_seconds = 0;
  nlohmann::json summary() const;
};

// The model configuration that must explain a run of `c` with `schedule`: the Kafka
// settings, a producer that does not retry, and fault budgets and bounds exactly large
// enough for the schedule (docs/campaign.md). As spec::to_json gives it.
nlohmann::json model_config_for(const CampaignConfig& c, const std::vector<ScheduledOp>& schedule);

// The isrcheck-scenario of a run (cluster, topic, producer, source.model_config; no
// steps: the campaign drives the adapter itself, without steering).
nlohmann::json run_scenario_json(const CampaignConfig& c, const std::vector<ScheduledOp>& schedule,
                                 const std::string& name, const std::string& kafka_version);

// Runs `run` (seeded `seed`) on `session`. Never throws for what the cluster does (a
// driver error ends the run early, recorded in `error`); rethrows Interrupted after
// filling in the result.
RunResult execute_run(KafkaSession& session, const CampaignConfig& c, int run, uint64_t seed, RunResult* partial);

// The controller's committed decisions, from `read` (the driver's `metadata_log`), merged
// into the run's events (counterexamples/scenario/decision_merge.h: a decision whose
// window holds one of the run's own groups is left out), and what was read in the
// header's `decisions`; a driver error is noted there and leaves the events as they were.
// A ZooKeeper-mode scenario has no metadata log: nothing is read. Rethrows Interrupted.
void add_decisions(RunResult& r, const nlohmann::json& scenario,
                   const std::function<std::vector<nlohmann::json>()>& read);

// A run as a recording holds it (a campaign's run-NNNN.jsonl): its figures computed from
// the events as execute_run computes them (faults injected, the final observation's acked
// sends, the records read back, acked and not read back), for re-validating and
// re-drawing a run later (`campaign --timeline`). Not validated yet.
RunResult run_from_recording(const nlohmann::json& header, const std::vector<nlohmann::json>& events);

struct ValidateRunOptions {
  int max_internal = 8;
  int retry_max_internal = 12;  // an unexplained run is retried at this bound (0: never)
  std::size_t max_states = 300'000;
  const std::atomic<bool>* stop = nullptr;
};

// Validates the run's recording against the model configuration its header names.
void validate_run(RunResult& r, const ValidateRunOptions& options);

}  // namespace isr::conformance::campaign
