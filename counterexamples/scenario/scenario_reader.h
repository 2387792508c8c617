// Reading a scenario document (docs/scenarios.md) into what a harness acts on: the
// observable conditions of `until` and `final` as cut::Condition, the operations' crash
// kinds, network sides and send results as the ClusterUnderTest types
// (cluster_under_test.h), and the client settings with their bounds. Each function
// throws std::invalid_argument naming the field and the allowed values on a bad one;
// scenario_validation.h checks a whole document with them before anything runs.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "counterexamples/scenario/cluster_under_test.h"

namespace isr::counterexamples {

// Whether an input document is a trace (format "isrcheck-trace") rather than a scenario:
// commands that take either (isrcheck conform) export a trace to its scenario first.
// Anything else is taken for a scenario, whose validation then says what is wrong.
bool is_trace_document(const nlohmann::json& doc);

// The Condition of an observable-state object (`until`, `final`); `field` names it in
// errors ("steps[2].until").
cut::Condition scenario_condition(const nlohmann::json& until, const std::string& field);

// The send result a scenario spells `name` ("acked", "NOT_ENOUGH_REPLICAS"), or nullopt.
std::optional<cut::SendResult> scenario_send_result(const std::string& name);

// A crash op's "kind" (kill, clean, power, disk) and a cut or heal op's "side" (quorum,
// brokers, clients).
cut::CrashKind scenario_crash_kind(const std::string& kind, const std::string& field);
cut::NetworkSide scenario_side(const std::string& side, const std::string& field);

// The records_per_send of a scenario (1 when absent). Throws std::invalid_argument
// naming clients.producer.records_per_send unless it is an integer from 1 to 1000.
int records_per_send(const nlohmann::json& scenario);

// The producer's request.timeout.ms a scenario asks for (clients.producer, written by
// `export --request-timeout-ms`: a trace that holds followers back across the
// producer's own retry of a lost answer needs that retry sooner than
// replica.lag.time.max.ms), else the harness's 3000. Throws std::invalid_argument naming
// the field unless it is an integer from 100 to 5000 (delivery.timeout.ms is 6000).
int producer_request_timeout_ms(const nlohmann::json& scenario);

}  // namespace isr::counterexamples
