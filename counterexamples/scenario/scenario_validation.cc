// Checking a whole scenario document (see scenario_validation.h).
#include "counterexamples/scenario/scenario_validation.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "counterexamples/scenario/scenario_format.h"
#include "counterexamples/scenario/scenario_reader.h"
#include "counterexamples/trace/trace_reader.h"

namespace isr::counterexamples {

using nlohmann::json;

namespace {

// "produce, expire_send, ..., wait": the allowed values of a step's op.
std::string allowed_ops() {
  std::string out;
  for (const char* op : kScenarioOps) out += (out.empty() ? "" : ", ") + std::string(op);
  return out;
}

// One step of validate_scenario.
void validate_step(const json& st, const std::string& f) {
  const std::string op = st.value("op", "");
  if (std::find(std::begin(kScenarioOps), std::end(kScenarioOps), op) == std::end(kScenarioOps)) {
    throw std::invalid_argument(f + ".op: unknown op \"" + op + "\"; allowed: " + allowed_ops());
  }
  if (op == "wait") scenario_condition(st.value("until", json()), f + ".until");
  if (op == "crash") scenario_crash_kind(st.value("kind", ""), f + ".kind");
  if (op == "cut" || op == "heal") scenario_side(st.value("side", ""), f + ".side");
  if ((op == "produce" || op == "expire_send") && !scenario_send_result(st.value("expect", ""))) {
    throw std::invalid_argument(f + ".expect: unknown send result " + st.value("expect", json()).dump());
  }
}

// Runs `check`, turning what json's get<> and std::stoi throw on a value of the wrong
// type or out of range (an exit 4 "internal error" before, found by fuzz/) into
// invalid_argument naming `field`, the part of the scenario being validated.
template <class F>
void with_typed_values(const std::string& field, F&& check) {
  auto refuse = [&](const std::string& what) {
    throw std::invalid_argument(field + ": a value has the wrong type or is out of range (" + what +
                                "); see docs/scenarios.md");
  };
  try {
    check();
  } catch (const json::exception& e) {
    const std::string what = e.what();
    const auto end = what.find("] ");
    refuse(end == std::string::npos ? what : what.substr(end + 2));
  } catch (const std::out_of_range&) {
    refuse("a number out of range");
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()) == "stoi") refuse("a key that is not a number");
    throw;
  }
}

void validate_document(const json& s) {
  if (!s.is_object()) throw std::invalid_argument("the document is not a JSON object");
  // Type first, then value: comparing a json with a literal may convert the json
  // implicitly (clang), which throws on a value of another type.
  if (!s.contains("format") || !s["format"].is_string() || s["format"].get<std::string>() != kScenarioFormatName) {
    throw std::invalid_argument(std::string("format: expected \"") + kScenarioFormatName + "\" (or a trace, \"" +
                                kTraceFormatName + "\")");
  }
  if (!s.contains("version") || !s["version"].is_number_integer() ||
      s["version"].get<int64_t>() != kScenarioFormatVersion) {
    throw std::invalid_argument("version: expected " + std::to_string(kScenarioFormatVersion));
  }
  for (const char* f : kScenarioSections) {
    if (!s.contains(f) || !s[f].is_object()) throw std::invalid_argument(std::string(f) + ": missing or not an object");
  }
  if (!s.contains("steps") || !s["steps"].is_array()) throw std::invalid_argument("steps: missing or not an array");
  records_per_send(s);             // clients.producer.records_per_send, when present, is 1..1000
  producer_request_timeout_ms(s);  // clients.producer.request.timeout.ms, when present, is 100..60000
  with_typed_values("initial.until",
                    [&] { scenario_condition(s["initial"].value("until", json()), "initial.until"); });
  with_typed_values("expected.final",
                    [&] { scenario_condition(s["expected"].value("final", json()), "expected.final"); });
  for (size_t i = 0; i < s["steps"].size(); ++i) {
    const json& st = s["steps"][i];
    const std::string f = "steps[" + std::to_string(i) + "]";
    if (!st.is_object()) throw std::invalid_argument(f + ": not an object");
    with_typed_values(f, [&] { validate_step(st, f); });
  }
}

}  // namespace

void validate_scenario(const json& s) {
  with_typed_values("scenario", [&] { validate_document(s); });
}

}  // namespace isr::counterexamples
