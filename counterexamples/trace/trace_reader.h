// Reading a trace file and checking that it has the shape docs/trace-format.md describes.
//
// Render and replay both refuse a malformed trace up front with an error naming the
// field at fault, so that their own code can index the document without re-checking.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace isr::counterexamples {

inline constexpr const char* kTraceFormatName = "isrcheck-trace";
inline constexpr int kTraceFormatVersion = 1;

// A trace file that cannot be read or does not follow the format; `field` is the path of
// the field at fault ("steps[3].state"), or the file name when it cannot be read.
struct TraceFormatError : std::runtime_error {
  TraceFormatError(std::string field, std::string message)
      : std::runtime_error(field + ": " + message), field(std::move(field)),
        message(std::move(message)) {}
  std::string field;
  std::string message;  // without the field
};

// Reads and parses a JSON file; throws TraceFormatError when unreadable or not JSON.
nlohmann::json read_trace_file(const std::string& path);

// Throws TraceFormatError unless `trace` has every field of format v1 with the right
// type: format, version, model, config, property, steps (non-empty; step 0 with a null
// action; every step an index equal to its position, an action object and a state).
void check_trace(const nlohmann::json& trace);

// The people-facing name of step `i`: its action_name, or one built from the action JSON
// ("Crash(node=2, mode=kill)") when the trace has none.
std::string step_action_name(const nlohmann::json& step);

}  // namespace isr::counterexamples
