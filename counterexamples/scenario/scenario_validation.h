// Checking a whole scenario document (docs/scenarios.md) before anything runs: the
// format and version, the sections, and every field a harness reads (each `until`,
// `expected.final`, every step's op and its kind, side and expected send result, the
// client settings), so that bad input is refused at once, naming the field.
#pragma once

#include <nlohmann/json.hpp>

namespace isr::counterexamples {

// Throws std::invalid_argument naming the first bad field and what is allowed there.
void validate_scenario(const nlohmann::json& scenario);

}  // namespace isr::counterexamples
