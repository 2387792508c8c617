// Exporting a trace in the Informal Trace Format (ITF) of Apalache and Quint, so that
// trace viewers and model-based-testing tools of that ecosystem read our traces.
//
// Format: Apalache ADR-015 "Informal Trace Format in JSON"
// (https://apalache-mc.org/docs/adr/015adr-trace.html). A trace is
// {"#meta": {...}, "vars": [...], "states": [{"#meta": {"index": i}, var: value, ...}]};
// integers are written as {"#bigint": "..."} (allowed for every integer, and what Quint
// writes), sets as {"#set": [...]}, maps as {"#map": [[key, value], ...]}, tuples as
// {"#tup": [...]}, records as JSON objects and nullable values as Quint's Option variant
// {"tag": "Some"|"None", "value": ...}. The action taken into each state is the Quint
// model-based-testing variable `mbt::actionTaken`, its parameters `mbt::nondetPicks`.
#pragma once

#include <nlohmann/json.hpp>

namespace isr::counterexamples {

// The ITF document of a trace that passed check_trace (any model: fields it does not
// know keep their JSON shape, with integers as #bigint).
nlohmann::ordered_json trace_to_itf(const nlohmann::json& trace);

}  // namespace isr::counterexamples
