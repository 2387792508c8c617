// The opening lines of a rendered counterexample: before the step-by-step tables, a
// reader learns in Kafka's terms what was acknowledged, which faults the run took, which
// replicas ended up without the acknowledged record, and why that breaks the property.
// A counterexample is read by people who did not run the search; the tables answer "how",
// these lines answer "what was lost and why" first (issue 12, "the first hour").
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace isr::counterexamples {

// Three to five lines (acknowledged, faults and elections, without it, why), without indentation or bullets. `why` is the model's own sentence
// for the violation (ModelRendering::violation). Models without a producer (the KRaft
// quorum alone) get only the faults and the reason.
std::vector<std::string> opening_lines(const nlohmann::json& trace, const std::string& why);

}  // namespace isr::counterexamples
