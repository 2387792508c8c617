// The explorer's routes, without a socket: a request in, a response out, so that the
// GoogleTests drive every page as the browser does (explore_server.h puts this on
// 127.0.0.1 with cpp-httplib).
//
//   GET  /             the start: the initial state, or the loaded trace's first step
//   GET  /state?...    a position (explore_path.h); 400 when it does not replay
//   GET  /trace        the form that loads a trace
//   POST /trace        a trace (file "file" or pasted "trace"); 303 to its first step
//   GET  /trace.json?… the path up to a position as a trace file (docs/trace-format.md)
//   GET  /mermaid.js   the diagram renderer, when the explorer has one
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "explorer/explore_page.h"
#include "explorer/explore_path.h"

namespace isr::explorer {

// What a model's session (explore_session.h) offers the routes.
class Explorer {
 public:
  virtual ~Explorer() = default;
  // The view of a position; PathError when it does not replay.
  virtual StateView view(const Position& position) const = 0;
  // The position of a trace's first step, its steps ahead; PathError naming the trace
  // field at fault when the trace is malformed, of another model or configuration, or
  // does not replay.
  virtual Position position_of_trace(const nlohmann::json& trace) const = 0;
  // The path up to a position as a trace (`render`, `export` and `replay` read it); its
  // property is the first one the last state violates, else the model's first.
  virtual nlohmann::json path_trace(const Position& position) const = 0;
};

struct Request {
  std::string method;                         // "GET", "POST"
  std::string path;                           // "/state"
  std::map<std::string, std::string> params;  // query parameters, decoded
  std::string trace_text;                     // POST /trace: the uploaded or pasted trace
};

struct Response {
  int status = 200;
  std::string content_type = "text/html; charset=utf-8";
  std::string body;
  std::string location;  // for 303
};

struct Site {
  const Explorer& explorer;
  Position start;          // where / leads (a --trace's first step)
  std::string mermaid_js;  // empty: no renderer to serve
};

Response handle(const Site& site, const Request& request);

}  // namespace isr::explorer
