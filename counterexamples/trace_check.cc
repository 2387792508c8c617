// Reading a trace file and checking its shape (see trace_check.h).
#include "counterexamples/trace_check.h"

#include <fstream>
#include <sstream>

namespace isr::counterexamples {

using nlohmann::json;

json read_trace_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw TraceFormatError(path, "cannot open the trace file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  try {
    return json::parse(buffer.str());
  } catch (const json::parse_error& e) {
    throw TraceFormatError(path, std::string("not valid JSON: ") + e.what());
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
