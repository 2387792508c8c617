// The one trace reader: a trace checked against the model it names (trace_model.h).
#include "counterexamples/trace/trace_model.h"

#include <vector>

namespace isr::counterexamples {

using nlohmann::json;

namespace {

// Step 0 as one of the model's initial states, exactly or as its orbit representative
// (engines with symmetry reduction record representatives; replay accepts both).
template <class M>
bool is_initial_state(const M& model, const json& recorded) {
  for (auto state : model.initial_states()) {
    if (model.state_to_json(state) == recorded) return true;
    model.canonicalize(state);
    if (model.state_to_json(state) == recorded) return true;
  }
  return false;
}

}  // namespace

void check_trace_of_model(const json& trace, std::string_view expected_model) {
  check_trace(trace);
  const std::string recorded = trace.at("model").get<std::string>();
  if (!expected_model.empty() && recorded != expected_model) {
    throw TraceFormatError("model", "the trace is of model \"" + recorded + "\", not \"" +
                                        std::string(expected_model) + "\" (--model)");
  }
  with_trace_model(trace, [&](const auto& model, std::string_view name) {
    const json& steps = trace.at("steps");
    if (!is_initial_state(model, steps[0].at("state"))) {
      throw TraceFormatError("steps[0].state", "not an initial state of model \"" + std::string(name) +
                                                   "\" under the trace's configuration: the trace is of "
                                                   "another model or configuration");
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

json load_trace(const std::string& path, std::string_view expected_model) {
  json trace = read_trace_file(path);
  check_trace_of_model(trace, expected_model);
  return trace;
}

}  // namespace isr::counterexamples
