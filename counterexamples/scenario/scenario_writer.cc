// Writing a scenario document (see scenario_writer.h).
#include "counterexamples/scenario/scenario_writer.h"

#include <stdexcept>

#include "counterexamples/scenario/scenario_format.h"

namespace isr::counterexamples {

using nlohmann::ordered_json;

ordered_json new_scenario(std::string_view name) {
  ordered_json out;
  out["format"] = kScenarioFormatName;
  out["version"] = kScenarioFormatVersion;
  out["name"] = std::string(name);
  return out;
}

void set_records_per_send(ordered_json& scenario, int k) {
  if (k < kMinRecordsPerSend || k > kMaxRecordsPerSend) {
    throw std::invalid_argument("records per send: " + std::to_string(k) + " is not allowed (" +
                                std::to_string(kMinRecordsPerSend) + " to " + std::to_string(kMaxRecordsPerSend) +
                                ")");
  }
  if (k == 1) return;
  ordered_json& producer = scenario["clients"]["producer"];
  producer["records_per_send"] = k;
  producer["record_value"] = "record-<k>.<i>, i = 1.." + std::to_string(k) + ", one batch per send";
}

void set_producer_request_timeout(ordered_json& scenario, int ms) {
  if (ms < kMinRequestTimeoutMs || ms > kMaxRequestTimeoutMs) {
    throw std::invalid_argument("request timeout: " + std::to_string(ms) + " ms is not allowed (" +
                                std::to_string(kMinRequestTimeoutMs) + " to " + std::to_string(kMaxRequestTimeoutMs) +
                                ")");
  }
  scenario["clients"]["producer"]["request.timeout.ms"] = ms;
}

void set_broker_config(ordered_json& scenario, const std::string& setting) {
  const size_t eq = setting.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == setting.size()) {
    throw std::invalid_argument("broker config: \"" + setting + "\" is not KEY=VALUE (e.g. replica.lag.time.max.ms=30000)");
  }
  scenario["cluster"]["broker_config"][setting.substr(0, eq)] = setting.substr(eq + 1);
}

std::string scenario_text(const ordered_json& scenario) { return scenario.dump(2) + "\n"; }

}  // namespace isr::counterexamples
