// The explorer's HTML (explore_page.h). The state itself is the text renderer's step in
// HTML form (counterexamples::render_step_html): this file lays out the page around it.
#include "explorer/explore_page.h"

#include <string>

#include "counterexamples/render/render.h"

namespace isr::explorer {
namespace {

using counterexamples::html_escape;

constexpr const char* kStyle =
    "body { font-family: system-ui, sans-serif; margin: 1em 1.5em; color: #222; }\n"
    "a { color: #0645ad; }\n"
    "nav { margin: 0.5em 0; }\n"
    "nav a, nav span.off { display: inline-block; margin-right: 1em; }\n"
    "nav span.off { color: #999; }\n"
    "ol.path { font-size: 0.85em; padding-left: 2.5em; }\n"
    "ol.path li.current { font-weight: bold; }\n"
    "ol.path li.forward a { color: #888; }\n"
    "div.columns { display: flex; gap: 2em; align-items: flex-start; flex-wrap: wrap; }\n"
    "div.columns > section { min-width: 20em; }\n"
    "table { border-collapse: collapse; font-size: 0.85em; }\n"
    "th, td { border: 1px solid #bbb; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }\n"
    "th { background: #eee; }\n"
    "td.changed, mark { background: #ffe066; }\n"
    "td.violated { background: #f3a3a3; font-weight: bold; }\n"
    "td.holds { background: #c8ecc8; }\n"
    "ul.actions { padding-left: 1.2em; }\n"
    "ul.actions li { margin-bottom: 0.4em; }\n"
    "span.meaning { display: block; font-size: 0.8em; color: #555; }\n"
    "pre { background: #f6f6f6; border: 1px solid #ddd; padding: 0.6em; overflow-x: auto; font-size: 0.8em; }\n"
    "p.changed, p.section { margin: 0.3em 0; font-size: 0.9em; }\n"
    "textarea { width: 100%; height: 8em; font-family: monospace; }\n";

std::string head(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + html_escape(title) +
         "</title>\n<style>\n" + kStyle + "</style>\n</head>\n";
}

std::string link(const std::string& url, const std::string& text, const std::string& attributes = "") {
  return "<a href=\"" + html_escape(url) + "\"" + attributes + ">" + html_escape(text) + "</a>";
}

std::string trace_form() {
  // multipart: a file or pasted JSON, whichever is given (explore_site.cc).
  return "<section id=\"load\">\n<h2>Load a trace</h2>\n"
         "<form method=\"post\" action=\"/trace\" enctype=\"multipart/form-data\">\n"
         "<p><label>Trace file (<code>check --trace-out</code>, <code>simulate</code>): "
         "<input type=\"file\" name=\"file\" accept=\".json,application/json\"></label></p>\n"
         "<p><label>or paste its JSON:<br><textarea name=\"trace\"></textarea></label></p>\n"
         "<p><button type=\"submit\">Step through it</button></p>\n</form>\n</section>\n";
}

// Draws the diagrams with the renderer the explorer serves; <body data-diagrams> says
// "rendered" (or why not) for the browser test.
constexpr const char* kDiagramScript =
    "<script src=\"/mermaid.js\"></script>\n"
    "<script>\n"
    "if (window.mermaid) {\n"
    "  mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });\n"
    "  mermaid.run({ querySelector: 'pre.mermaid' })\n"
    "    .then(() => { document.body.dataset.diagrams = 'rendered'; })\n"
    "    .catch((e) => { document.body.dataset.diagrams = 'error: ' + e; });\n"
    "} else {\n"
    "  document.body.dataset.diagrams = 'no renderer';\n"
    "}\n"
    "</script>\n";

}  // namespace

std::string state_page(const StateView& view, const bool renderer) {
  const Position& p = view.position;
  auto at = [&](std::size_t steps) {
    Position q = p;
    q.at = steps;
    return position_url(q);
  };
  const std::string here = position_url(p);
  std::string out = head("isrcheck explore: " + view.model + ", step " + std::to_string(p.at));
  out += "<body data-step=\"" + std::to_string(p.at) + "\" data-steps=\"" + std::to_string(p.steps.size()) +
         "\" data-url=\"" + html_escape(here) + "\">\n";
  out += "<h1>isrcheck explore: model " + html_escape(view.model) + "</h1>\n";
  out += "<p>Step " + std::to_string(p.at) + " of " + std::to_string(p.steps.size()) +
         " on this path. Link to this state: " + link(here, here, " id=\"permalink\"") + "</p>\n";

  out += "<nav>";
  out += p.at > 0 ? link(at(p.at - 1), "\u2190 back", " id=\"back\"") : "<span class=\"off\">\u2190 back</span>";
  out += p.at < p.steps.size() ? link(at(p.at + 1), "forward \u2192", " id=\"forward\"")
                               : "<span class=\"off\">forward \u2192</span>";
  out += p.at > 0 ? link(at(0), "initial state", " id=\"first\"") : "<span class=\"off\">initial state</span>";
  out += p.at < p.steps.size() ? link(at(p.steps.size()), "end of path", " id=\"last\"")
                               : "<span class=\"off\">end of path</span>";
  out += link("/", "restart", " id=\"restart\"");
  out += "</nav>\n";

  out += "<ol class=\"path\" start=\"0\">\n";
  for (std::size_t i = 0; i <= view.step_names.size(); ++i) {
    const std::string name = i == 0 ? "initial state" : view.step_names[i - 1];
    const char* cls = i == p.at ? "current" : i > p.at ? "forward" : "past";
    out += "<li class=\"" + std::string(cls) + "\">" + (i == p.at ? html_escape(name) : link(at(i), name)) + "</li>\n";
  }
  out += "</ol>\n";

  out += "<div class=\"columns\">\n<section id=\"state\">\n<h2>State</h2>\n" + view.state_html + "</section>\n";
  out += "<section id=\"actions\">\n<h2>Enabled actions (" + std::to_string(view.actions.size()) + ")</h2>\n";
  if (view.actions.empty()) out += "<p>None: no action is enabled in this state (a bound or a dead end).</p>\n";
  out += "<ul class=\"actions\">\n";
  for (const ActionLink& action : view.actions) {
    out += "<li>" + link(action.url, action.name, " class=\"action\" data-kind=\"" + html_escape(action.kind) + "\"") +
           "<span class=\"meaning\">" + html_escape(action.meaning) + "</span></li>\n";
  }
  out += "</ul>\n</section>\n</div>\n";

  out += "<section id=\"properties\">\n<h2>Properties in this state</h2>\n<table>\n"
         "<tr><th>property</th><th>value</th><th>what it says</th></tr>\n";
  for (const PropertyValue& property : view.properties) {
    out += "<tr><td>" + html_escape(property.name) + "</td>" +
           (property.holds ? "<td class=\"holds\">holds</td>" : "<td class=\"violated\">VIOLATED</td>") + "<td>" +
           html_escape(property.description) + "</td></tr>\n";
  }
  out += "</table>\n</section>\n";

  std::string trace_url = here;
  trace_url.replace(0, std::string("/state").size(), "/trace.json");
  out += "<section id=\"diagram\">\n<h2>The path so far</h2>\n<p>" +
         link(trace_url, "Download it as a trace file", " id=\"trace-file\" download=\"path.json\"") +
         " (for <code>isrcheck render</code>, <code>export</code>, <code>replay</code>).</p>\n<pre class=\"mermaid\">\n" +
         html_escape(view.mermaid) + "</pre>\n";
  if (!renderer) out += "<p>(The diagram's source: this explorer has no mermaid.min.js to draw it; see docs/explore.md.)</p>\n";
  out += "</section>\n";
  out += trace_form();
  out += "<details>\n<summary>Configuration</summary>\n<pre>" + html_escape(view.config_json) + "</pre>\n</details>\n";
  out += kDiagramScript;
  out += "</body>\n</html>\n";
  return out;
}

std::string error_page(const int status, const std::string& field, const std::string& message) {
  std::string out = head("isrcheck explore: error " + std::to_string(status));
  out += "<body data-error=\"" + std::to_string(status) + "\">\n<h1>Error " + std::to_string(status) + "</h1>\n";
  out += "<p id=\"error\"><b>" + html_escape(field) + "</b>: " + html_escape(message) + "</p>\n";
  out += "<p>" + link("/", "Back to the start") + "</p>\n" + trace_form() + "</body>\n</html>\n";
  return out;
}

std::string trace_form_page() {
  return head("isrcheck explore: load a trace") + "<body>\n<h1>isrcheck explore</h1>\n<p>" + link("/", "Back to the start") +
         "</p>\n" + trace_form() + "</body>\n</html>\n";
}

}  // namespace isr::explorer
