// The explorer's routes (explore_site.h).
#include "explorer/explore_site.h"

#include <utility>

#include "counterexamples/render/render.h"
#include "explorer/explore_page.h"

namespace isr::explorer {
namespace {

Response page(int status, std::string body) { return {status, "text/html; charset=utf-8", std::move(body), {}}; }

Response see_other(const std::string& location) {
  return {303, "text/html; charset=utf-8", "<!DOCTYPE html>\n<p>See <a href=\"" + counterexamples::html_escape(location) + "\">here</a>.</p>\n",
          location};
}

Response load_trace(const Site& site, const Request& request) {
  if (request.trace_text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return page(400, error_page(400, "trace", "no trace given: choose a trace file or paste its JSON"));
  }
  nlohmann::json trace;
  try {
    trace = nlohmann::json::parse(request.trace_text);
  } catch (const nlohmann::json::parse_error& e) {
    return page(400, error_page(400, "trace", std::string("not JSON: ") + e.what()));
  }
  try {
    return see_other(position_url(site.explorer.position_of_trace(trace)));
  } catch (const PathError& e) {
    return page(400, error_page(400, "trace: " + e.field, e.message));
  }
}

}  // namespace

Response handle(const Site& site, const Request& request) {
  if (request.path == "/trace" && request.method == "POST") return load_trace(site, request);
  if (request.method != "GET" && request.method != "HEAD") {
    return page(405, error_page(405, request.method, "only GET, and POST to /trace, are served"));
  }
  if (request.path == "/") return see_other(position_url(site.start));
  if (request.path == "/trace") return page(200, trace_form_page());
  if (request.path == "/mermaid.js") {
    if (site.mermaid_js.empty()) return page(404, error_page(404, "/mermaid.js", "this explorer has no diagram renderer"));
    return {200, "text/javascript; charset=utf-8", site.mermaid_js, {}};
  }
  if (request.path == "/trace.json") {
    try {
      return {200, "application/json", site.explorer.path_trace(parse_position(request.params)).dump(2) + "\n", {}};
    } catch (const PathError& e) {
      return page(400, error_page(400, e.field, e.message));
    }
  }
  if (request.path == "/state") {
    try {
      return page(200, state_page(site.explorer.view(parse_position(request.params)), !site.mermaid_js.empty()));
    } catch (const PathError& e) {
      return page(400, error_page(400, e.field, e.message));
    }
  }
  return page(404, error_page(404, request.path, "no such page; the explorer serves /, /state, /trace, /trace.json and /mermaid.js"));
}

}  // namespace isr::explorer
