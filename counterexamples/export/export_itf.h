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
// Every variable has one type for the whole trace (typed readers require it; a field
// null or absent in some state is an Option in every state, {} is an empty #map), and
// the types are in #meta.varTypes in Apalache's type syntax (ADR-002: Int, Str,
// Set(Int), Seq(..), <<Int, Int>>, (Int -> ..), { field: .. }, Some(..) | None(UNIT)).
// #meta's other fields are strings (the configuration is its JSON text).
#pragma once

#include <nlohmann/json.hpp>

namespace isr::counterexamples {

// The ITF document of a trace that passed check_trace (any model: fields it does not
// know keep their JSON shape, with integers as #bigint). Throws TraceFormatError naming
// the field when a value's type changes between states in a way no one type covers.
nlohmann::ordered_json trace_to_itf(const nlohmann::json& trace);

}  // namespace isr::counterexamples
