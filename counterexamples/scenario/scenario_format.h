// The scenario format's schema (docs/scenarios.md): its name and version, the sections
// and operations a scenario has, and the bounds of the client settings a harness reads.
// The one place these are spelled: the writer (scenario_writer.h), the reader
// (scenario_reader.h), the validation (scenario_validation.h) and the exporter
// (counterexamples/export/export_scenario.h) all take them from here.
#pragma once

namespace isr::counterexamples {

inline constexpr const char* kScenarioFormatName = "isrcheck-scenario";
inline constexpr int kScenarioFormatVersion = 1;

// The top-level sections that are JSON objects (besides "steps", an array).
inline constexpr const char* kScenarioSections[] = {"cluster", "topic", "clients", "initial", "expected"};

// The values of a step's "op": the harness operations, and "wait" for a run of the
// cluster's own steps (docs/scenarios.md, "Steps").
inline constexpr const char* kScenarioOps[] = {"produce", "expire_send", "crash",           "restart",
                                               "cut",     "heal",        "consume",         "elect_preferred",
                                               "pause",   "resume",      "remove_voter",    "add_voter",
                                               "wait"};

// clients.producer.records_per_send: Kafka records per model record, sent as one batch
// (docs/conformance.md, "A model record as a batch"); absent means 1.
inline constexpr int kMinRecordsPerSend = 1;
inline constexpr int kMaxRecordsPerSend = 1000;

// clients.producer["request.timeout.ms"]: the producer's request timeout on a real
// cluster; absent means the harness's default. The harness sets delivery.timeout.ms to
// max(6000, request + linger + 3000), as Kafka requires delivery >= request + linger.
// Long ones are for traces whose produce waits at its leader across several faults
// (a parked acks=all request completed by a later leadership, docs/findings.md).
inline constexpr int kMinRequestTimeoutMs = 100;
inline constexpr int kMaxRequestTimeoutMs = 60000;
inline constexpr int kDefaultRequestTimeoutMs = 3000;

}  // namespace isr::counterexamples
