// Reading a state as its trace JSON (the model's state_to_json) and naming its parts for
// people: fields that may be missing, node names, logs with the HW marked, the records
// a producer was told are acknowledged. Shared by the properties' explanations (each
// beside its predicate) and the renderers (counterexamples/render/), so that both word
// a state the same way. Never throws on a missing field: traces of other models, or of
// later versions of this one, still read.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace isr::properties {

// `obj[key]` when present, else null (never throws, never inserts).
const nlohmann::json& field(const nlohmann::json& obj, const char* key);
// "a, b, c" with any separator.
std::string join(const std::vector<std::string>& parts, const std::string& separator);
// A scalar for people: strings unquoted, null as "-", true/false as yes/no.
std::string scalar_text(const nlohmann::json& value);
// A compact JSON dump ("[0,1,2]") for anything, strings unquoted.
std::string compact(const nlohmann::json& value);
std::string node_name(const nlohmann::json& id);          // 2 -> "N2", null -> "none"
std::string node_set_text(const nlohmann::json& nodes);   // [0,1,2] -> "[0,1,2]"
// One log entry [epoch, record] as "1:r2"; anything else as compact JSON.
std::string entry_text(const nlohmann::json& entry);
// A replica's log with the HW marked: "1:r1 1:r2 | 2:r3"; "(empty)" when empty.
std::string log_text(const nlohmann::json& replica);

// An integer field's value, or `otherwise` when it is missing or not an integer.
long long integer_or(const nlohmann::json& value, long long otherwise);
// The members of a JSON list (empty when it is not one).
std::vector<nlohmann::json> set_members(const nlohmann::json& nodes);
// The records in a replica's log, in offset order.
std::vector<nlohmann::json> records_of(const nlohmann::json& replica);
// The node with this id in state.nodes, or nullptr.
const nlohmann::json* node_by_id(const nlohmann::json& state, const nlohmann::json& id);
// The records the producer was told are acknowledged, as their text ("1", "2").
std::vector<std::string> acked_records(const nlohmann::json& state);
bool holds_record(const nlohmann::json& replica, const std::string& record);

// The KRaft model's metadata log entry [epoch, writer] as "2:N1", and a voter's log with
// its HW marked.
std::string kraft_entry(const nlohmann::json& entry);
std::string kraft_log(const nlohmann::json& voter);

}  // namespace isr::properties
