// Writing a scenario document (docs/scenarios.md): its header and the client settings a
// harness may be given beyond what a trace says. The exporter
// (counterexamples/export/export_scenario.h) fills in the sections from a trace.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace isr::counterexamples {

// A new scenario: {"format": "isrcheck-scenario", "version": 1, "name": name}, the keys
// in that order, to which the exporter appends the sections.
nlohmann::ordered_json new_scenario(std::string_view name);

// Makes each model record of `scenario` stand for one producer batch of k Kafka records
// (clients.producer.records_per_send = k, record values record-<m>.1 .. record-<m>.k):
// Kafka appends, replicates, acknowledges and truncates whole batches, so a harness maps
// batches onto model records (docs/conformance.md, "A model record as a batch"). k = 1
// leaves the scenario as it is. Throws std::invalid_argument unless 1 <= k <= 1000.
void set_records_per_send(nlohmann::ordered_json& scenario, int k);

// Sets the producer's request.timeout.ms a harness uses for `scenario`
// (clients.producer["request.timeout.ms"]): the model's timeouts have no duration, and a
// trace that holds followers back across the producer's own retry of a lost answer needs
// that retry sooner than the harness's default 3 s (docs/conformance.md). Throws
// std::invalid_argument unless 100 <= ms <= 60000.
void set_producer_request_timeout(nlohmann::ordered_json& scenario, int ms);
// Sets cluster.broker_config[KEY] = VALUE from "KEY=VALUE": a broker setting of the real
// cluster that the model has no notion of (a timer). Throws std::invalid_argument.
void set_broker_config(nlohmann::ordered_json& scenario, const std::string& setting);

// The text of a scenario file: the document indented by 2, and a final newline.
std::string scenario_text(const nlohmann::ordered_json& scenario);

}  // namespace isr::counterexamples
