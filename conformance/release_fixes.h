// Whether a real Kafka release can run a trace whose model turns a fix off: a KRaft trace
// of the release's own generation that switches off a fix the generation has (`list
// fixes`, with the release that first had it) asks Kafka for a behaviour its code no
// longer has, so running it could only diverge. `conform` reports it as not executable,
// naming the fix and the releases before it.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace isr::conformance {

// "" when the release has no fix the trace's model turns off (fixes a KRaft cluster can
// still switch off through its metadata.version, as export does, excepted); otherwise
// the reason. `scenario` is an exported scenario (its source.model_config).
std::string fix_off_not_executable(const nlohmann::json& scenario, const std::string& kafka_version);

// "3.8.0 (ELR usable from 4.0.0)" or "4.4.0" → {3, 8, 0}; a part that is not a number
// ends the list. Compares as a version.
std::vector<int> version_numbers(const std::string& text);

}  // namespace isr::conformance
