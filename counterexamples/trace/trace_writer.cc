// The top level of trace JSON (see trace_writer.h and docs/trace-format.md).
#include "counterexamples/trace/trace_writer.h"

#include <utility>

#include "counterexamples/trace/trace_reader.h"

namespace isr::counterexamples {

nlohmann::json make_trace(std::string_view model_name, nlohmann::json config,
                          std::string_view property, std::string_view property_description,
                          std::string_view engine, nlohmann::json steps) {
  nlohmann::json trace = {{"format", kTraceFormatName},
                          {"version", kTraceFormatVersion},
                          {"model", model_name},
                          {"config", std::move(config)},
                          {"property", property}};
  if (!property_description.empty()) trace["property_description"] = property_description;
  trace["engine"] = engine;
  trace["steps"] = std::move(steps);
  return trace;
}

}  // namespace isr::counterexamples
