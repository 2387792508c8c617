// Reading a trace file and checking its shape (see trace_reader.h).
#include "counterexamples/trace/trace_reader.h"

#include <algorithm>

#include "io/files.h"
#include "spec/partition/config.h"

namespace isr::counterexamples {

using nlohmann::json;

json read_trace_file(const std::string& path) {
  try {
    return io::files::read_json_file(path);
  } catch (const io::files::InputError& e) {
    throw TraceFormatError(path, e.what());
  }
}

namespace {

const json& require(const json& object, const std::string& parent, const char* key) {
  const std::string field = parent.empty() ? key : parent + "." + key;
  if (!object.contains(key)) throw TraceFormatError(field, "missing");
  return object.at(key);
}

std::string type_of(const json& value) { return value.type_name(); }

void require_type(const json& value, const std::string& field, bool ok, const char* expected) {
  if (!ok) {
    throw TraceFormatError(field, std::string("expected ") + expected + ", found " +
                                      type_of(value));
  }
}

// The producer's outcomes are keyed by record id, and the exporters sort them as numbers:
// a key that is not one of the model's record ids (1..spec::kMaxRecords) is refused here
// rather than crashing a conversion or being written out as something else.
void check_outcomes(const json& state, const std::string& at) {
  if (!state.contains("producer") || !state["producer"].is_object()) return;
  const json& producer = state["producer"];
  if (!producer.contains("outcomes")) return;
  const std::string field = at + ".producer.outcomes";
  const json& outcomes = producer["outcomes"];
  require_type(outcomes, field, outcomes.is_object(), "an object keyed by record id");
  for (const auto& [key, outcome] : outcomes.items()) {
    const bool digits = !key.empty() && key.size() <= 3 &&
                        std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
    const int id = digits ? std::stoi(key) : -1;
    if (id < 1 || id > spec::kMaxRecords) {
      throw TraceFormatError(field + "." + key, "not a record id: keys are the records' ids 1.." +
                                                    std::to_string(spec::kMaxRecords));
    }
    require_type(outcome, field + "." + key, outcome.is_string(), "a string (the record's outcome)");
  }
}

}  // namespace

void check_trace(const json& trace) {
  require_type(trace, "(document)", trace.is_object(), "an object");

  const json& format = require(trace, "", "format");
  if (format != kTraceFormatName) {
    throw TraceFormatError("format", std::string("expected \"") + kTraceFormatName +
                                         "\", found " + format.dump());
  }
  const json& version = require(trace, "", "version");
  if (version != kTraceFormatVersion) {
    throw TraceFormatError("version", "unsupported version " + version.dump() +
                                          "; allowed: " + std::to_string(kTraceFormatVersion));
  }
  const json& model = require(trace, "", "model");
  require_type(model, "model", model.is_string(), "a string");
  const json& config = require(trace, "", "config");
  require_type(config, "config", config.is_object(), "an object");
  const json& property = require(trace, "", "property");
  require_type(property, "property", property.is_string(), "a string");
  if (trace.contains("property_description")) {
    require_type(trace["property_description"], "property_description",
                 trace["property_description"].is_string(), "a string");
  }

  const json& steps = require(trace, "", "steps");
  require_type(steps, "steps", steps.is_array(), "an array");
  if (steps.empty()) throw TraceFormatError("steps", "empty: a trace has at least its initial state");

  for (size_t i = 0; i < steps.size(); ++i) {
    const std::string at = "steps[" + std::to_string(i) + "]";
    const json& step = steps[i];
    require_type(step, at, step.is_object(), "an object");
    const json& index = require(step, at, "index");
    if (!index.is_number_integer() || index.get<long long>() != static_cast<long long>(i)) {
      throw TraceFormatError(at + ".index", "expected " + std::to_string(i) + ", found " +
                                                index.dump());
    }
    const json& action = require(step, at, "action");
    if (i == 0) {
      require_type(action, at + ".action", action.is_null(), "null (the initial state)");
    } else {
      require_type(action, at + ".action", action.is_object(), "an object");
      require_type(action, at + ".action", action.contains("kind") && action["kind"].is_string(),
                   "an object with a string \"kind\"");
    }
    if (step.contains("action_name")) {
      require_type(step["action_name"], at + ".action_name", step["action_name"].is_string(),
                   "a string");
    }
    const json& state = require(step, at, "state");
    require_type(state, at + ".state", state.is_object(), "an object");
    check_outcomes(state, at + ".state");
  }
}

std::string step_action_name(const json& step) {
  if (step.contains("action_name") && step["action_name"].is_string()) {
    return step["action_name"].get<std::string>();
  }
  const json& action = step.at("action");
  if (action.is_null()) return "Init";
  std::string name = action.value("kind", std::string("?")) + "(";
  bool first = true;
  for (const auto& [key, value] : action.items()) {
    if (key == "kind") continue;
    if (!first) name += ", ";
    first = false;
    name += key + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
  }
  return name + ")";
}

}  // namespace isr::counterexamples
