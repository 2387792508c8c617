// The one trace reader: a trace checked against the model it names (trace_model.h).
#include "counterexamples/trace/trace_model.h"

#include <algorithm>
#include <exception>
#include <string>
#include <vector>

namespace isr::counterexamples {

using nlohmann::json;

namespace {

// What in step 0's state does not fit the states of `model`, "" when it fits: the same
// top-level fields, and each list among them (the nodes, the voters) of the same length.
// Not equality with an initial state: traces written by earlier versions of a model (a
// field added since, epochs counted from 1) still render and export, and replay says
// where they diverge; a state of another model or another cluster size does not fit.
template <class M>
std::string shape_mismatch(const M& model, const json& recorded) {
  const std::vector<typename M::State> initial = model.initial_states();
  if (initial.empty()) return "";
  const json expected = model.state_to_json(initial.front());
  for (const auto& [key, value] : expected.items()) {
    if (!recorded.contains(key)) return "has no field \"" + key + "\"";
    if (value.is_array() && (!recorded[key].is_array() || recorded[key].size() != value.size())) {
      return "field \"" + key + "\" has " +
             (recorded[key].is_array() ? std::to_string(recorded[key].size()) + " entries" : "no list") +
             ", the configuration gives " + std::to_string(value.size());
    }
  }
  for (const auto& [key, value] : recorded.items()) {
    if (!expected.contains(key)) return "has field \"" + key + "\", which the model's states do not have";
  }
  return "";
}


// The named model rebuilt from the trace's configuration; step 0's shape and every
// action's kind checked against it.
void check_against_named_model(const json& trace) {
  with_trace_model(trace, [&](const auto& model, std::string_view name) {
    const json& steps = trace.at("steps");
    const std::string mismatch = shape_mismatch(model, steps[0].at("state"));
    if (!mismatch.empty()) {
      throw TraceFormatError("steps[0].state", mismatch + ": not a state of model \"" + std::string(name) +
                                                   "\" under the trace's configuration (the trace is of another "
                                                   "model or configuration)");
    }
    std::vector<std::string_view> kinds = model.action_kinds();
    std::string allowed;
    for (std::string_view kind : kinds) allowed += (allowed.empty() ? "" : ", ") + std::string(kind);
    for (size_t i = 1; i < steps.size(); ++i) {
      const std::string kind = steps[i].at("action").at("kind").get<std::string>();
      if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) {
        throw TraceFormatError("steps[" + std::to_string(i) + "].action.kind",
                               "unknown action kind \"" + kind + "\" for model \"" + std::string(name) +
                                   "\"; allowed: " + allowed);
      }
    }
  });
}

}  // namespace

void check_trace_of_model(const json& trace, std::string_view expected_model) {
  check_trace(trace);
  const std::string recorded = trace.at("model").get<std::string>();
  if (!expected_model.empty() && recorded != expected_model) {
    throw TraceFormatError("model", "the trace is of model \"" + recorded + "\", not \"" +
                                        std::string(expected_model) + "\" (--model)");
  }
  try {
    check_against_named_model(trace);
  } catch (const TraceFormatError& e) {
    if (!e.field.starts_with("config.")) throw;
    // A configuration another model accepts: the trace is of that model, relabelled
    // (a partition trace named "kraft"); the model field is what is wrong.
    const std::string recorded_model = trace.at("model").get<std::string>();
    std::string fits;
    spec::for_each_model([&](const auto& row) {
      if (!fits.empty() || row.name == recorded_model) return;
      try {
        (void)row.load(&trace.at("config"), {});
        fits = std::string(row.name);
      } catch (const std::exception&) {
        // Not this model's either.
      }
    });
    if (fits.empty()) throw;
    throw TraceFormatError("model", "the trace names model \"" + recorded_model + "\", but its configuration is one of model \"" +
                                        fits + "\" (" + e.field + ": " + e.message + ")");
  }
}

json load_trace(const std::string& path, std::string_view expected_model) {
  json trace = read_trace_file(path);
  check_trace_of_model(trace, expected_model);
  return trace;
}

}  // namespace isr::counterexamples
