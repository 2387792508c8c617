// Exporting a trace of the partition model as an implementation-neutral scenario: the
// cluster and topic to set up, the client operations and faults to perform, the
// observable conditions to wait for between them, and what a client must observe
// (docs/scenarios.md). A harness driving a real Kafka cluster, or our own model through
// counterexamples/export/model_cluster.h, runs the same scenario.
//
// Model-internal steps (fetches, HW advances, AlterPartition, controller decisions,
// metadata propagation, flushes) are not operations a harness can perform: each run of
// them becomes one `wait` on the observable state it leads to.
//
// Only the translation is here: the format itself (its schema, writer, reader and
// validation) is counterexamples/scenario/.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace isr::counterexamples {

// Whether an action kind of the partition model is something a harness does (a client
// request, a fault, an admin command) rather than something the cluster does by itself.
bool is_harness_action(std::string_view kind);

// The Kafka name of a producer outcome of the trace format ("not-enough-replicas" ->
// "NOT_ENOUGH_REPLICAS", "acked" -> "acked", "in-flight" -> "pending").
std::string kafka_send_result(std::string_view outcome);

// The part of a partition-model state (trace format) a harness can observe on a real
// cluster: leader, leader epoch, ISR, ELR, fenced brokers, the leader's HW, each
// replica's log and metadata view, and the send results (docs/scenarios.md).
nlohmann::ordered_json observable_state(const nlohmann::json& state, const nlohmann::json& config);

// A short digest of a state JSON (hex of XXH3-64 of its dump): lets the model adapter
// pick exactly the state the trace went through among those with the same observables.
std::string state_digest(const nlohmann::json& state);

// The scenario of a trace that passed check_trace. Throws TraceFormatError (naming the
// field) when the trace is not of the partition model or names an unknown action kind.
// `name` is a short identifier for the scenario (used by the gtest exporter). The client
// settings beyond the trace are scenario_writer.h's (set_records_per_send, ...).
nlohmann::ordered_json trace_to_scenario(const nlohmann::json& trace, std::string_view name);

}  // namespace isr::counterexamples
