// The recorded-execution format (docs/recording.md): what a harness did to a real cluster
// and what it saw, as JSON lines, for `isrcheck validate` to explain with the model.
//
// Line 1 is a header naming the scenario and the model configuration it was exported
// from (the scenario's source.model_config), so that a recording says which model
// configuration must explain it. Every further line is one event, in the order the
// harness knows: a fault it injected, a client operation with its outcome, an
// observation of the partition, or a note of what the harness did besides (steering).
// Events with the same `group` happened in an order the harness cannot know; a reader
// must accept any order among them (validate does). Written by the conformance harness
// (conformance/conform.cc), read by the validator (analysis/trace_validation.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "counterexamples/scenario/cluster_under_test.h"

namespace isr::counterexamples {

inline constexpr const char* kRecordingFormatName = "isrcheck-recording";
inline constexpr int kRecordingFormatVersion = 1;

// The values of an event's "kind" and, per kind, of its "op".
// `sample` (docs/recording.md): the partition as one describe saw it while the cluster was
// changing, for people (timelines); like a `note`, never validated. `decision`: a record
// the KRaft controller committed to `__cluster_metadata` (docs/recording.md, "Decisions").
inline constexpr const char* kRecordingKinds[] = {"fault", "client", "observe", "note", "sample", "decision"};
inline constexpr const char* kRecordingFaultOps[] = {"crash", "restart", "cut", "heal", "pause", "resume",
                                                     "elect_preferred", "remove_voter", "add_voter"};
inline constexpr const char* kRecordingClientOps[] = {"produce", "expire_send", "consume"};
// `partition`: PartitionRecord / PartitionChangeRecord of the scenario's partition, with
// the partition state after it; the others: broker registrations and their fencing.
inline constexpr const char* kRecordingDecisionOps[] = {"partition", "register_broker", "broker_change",
                                                        "fence_broker", "unfence_broker"};

struct RecordedEvent {
  int seq = 0;                 // 1, 2, ... in file order
  std::string kind;            // fault, client, observe, note, sample
  std::string op;              // fault and client events
  std::optional<int> group;    // events of one group: order unknown among them
  int node = -1;               // crash, restart, cut, heal, pause, resume, remove_voter, add_voter
  std::string crash_kind;      // crash: kill, clean, power, disk
  std::string side;            // cut, heal: quorum, brokers, clients
  int leader = -1;             // elect_preferred
  int record = 0;              // produce, expire_send
  int broker = -1;             // produce, consume: the broker the client sent to; -1: not known to the harness
  bool response_lost = false;  // produce: the harness dropped the broker's answer
  std::optional<cut::SendResult> outcome;  // produce, expire_send: what the client saw when the call returned
  int offset = 0;                          // consume
  std::optional<int> read;                 // consume: the record read, nullopt: nothing readable
  nlohmann::json observed;                 // observe: the observable state (the shape of a scenario's `until`)
  // decision: where in the metadata log, and what the controller committed. `partition`:
  // `leader` (-1: none), the leader epoch and the ISR, ELR and LastKnownELR after it;
  // broker ops: `broker` and `fencing` ("fence", "unfence" or "none": what the record
  // makes of the broker's fenced flag; a RegisterBrokerRecord's `fenced`).
  long long metadata_offset = -1;
  std::string record_type;  // Kafka's record name: PartitionChangeRecord, RegisterBrokerRecord, ...
  int leader_epoch = 0;
  std::vector<int> isr, elr, last_known_elr;
  std::string fencing;
  // decision in a group: the seq of the group's event it is known to follow / precede (0: none).
  int after_seq = 0, before_seq = 0;
  nlohmann::json raw;                      // the whole line, for reports
};

struct Recording {
  nlohmann::json header;
  std::vector<RecordedEvent> events;
};

// The header line of a recording of `scenario` (isrcheck-scenario v1).
nlohmann::json recording_header(const nlohmann::json& scenario, const std::string& kafka_version);

// The observation as a recording stores it: the shape of a scenario's `until`
// (docs/scenarios.md, "Observables"), with every field the harness could not read left
// out (`unknown_value` marks such a value in `o`, as the harness's stand-in).
nlohmann::json recorded_observation(const cut::PartitionObservation& o, int unknown_value);

// Parses a recording (JSON lines). Throws std::invalid_argument naming the line and the
// field, with the allowed values, on anything malformed.
Recording parse_recording(const std::string& text);

// The JSON lines of a recording (header first), each line one compact JSON object.
std::string recording_text(const nlohmann::json& header, const std::vector<nlohmann::json>& events);

// One line describing an event for people ("fault crash node 0 kill", "client produce
// record 1 to broker 0: acked").
std::string event_text(const RecordedEvent& e);

}  // namespace isr::counterexamples
