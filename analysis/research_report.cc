// The study's reports (see research.h): JSON (every figure), text (a block per cell) and
// a self-contained HTML page whose plots Vega draws offline from the embedded library.
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "analysis/research.h"
#include "counterexamples/render/render.h"

namespace isr::analysis {

using counterexamples::html_escape;

using nlohmann::json;

namespace {

std::string percent(double share) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f%%", 100 * share);
  return buffer;
}

std::string rate_text(const ResearchRate& r) {
  return std::to_string(r.walks) + "/" + std::to_string(r.of) + " = " + percent(r.share()) + " [" + percent(r.low) +
         ", " + percent(r.high) + "]";
}

json rate_json(const ResearchRate& r) {
  json j = {{"property", r.property}, {"walks", r.walks}, {"of", r.of}, {"share", r.share()},
            {"wilson95", {r.low, r.high}}};
  if (!r.signature.empty()) {
    j["signature"] = r.signature;
    j["explanation"] = r.explanation;
  }
  return j;
}

// The properties of the study, in the order of the first checked cell.
std::vector<std::string> property_names(const ResearchResult& result) {
  std::vector<std::string> names;
  for (const ResearchCell& c : result.cells) {
    for (const ResearchVerdict& v : c.verdicts) {
      if (std::find(names.begin(), names.end(), v.property) == names.end()) names.push_back(v.property);
    }
  }
  return names;
}

// A JSON text that is safe inside a <script> element: "</" cannot end it early.
std::string script_safe(const json& j) {
  std::string text = j.dump();
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') {
      out += "<\\/";
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

// A Vega specification: one row per walked cell, a rule from the interval's low to its
// high end and a dot at the share. The marks are named (class "interval" and "share" in
// the SVG) so that a test can count what was drawn.
json rate_plot_spec(const ResearchResult& result, const std::string& property) {
  json values = json::array();
  double top = 0.01;
  for (const ResearchCell& c : result.cells) {
    for (const ResearchRate& r : c.rates) {
      if (r.property != property || r.of == 0) continue;
      values.push_back({{"cell", c.cell.id()}, {"label", c.cell.label()}, {"share", r.share()}, {"low", r.low},
                        {"high", r.high}, {"walks", r.walks}, {"of", r.of}});
      top = std::max(top, r.high);
    }
  }
  const int height = std::max<int>(40, 18 * static_cast<int>(values.size()));
  const json y = {{"scale", "y"}, {"field", "cell"}, {"band", 0.5}};
  return {
      {"description", "share of walks violating " + property + ", 95% Wilson interval, per cell"},
      {"width", 460},
      {"height", height},
      {"padding", 5},
      {"data", json::array({{{"name", "rates"}, {"values", values}}})},
      {"scales", json::array({{{"name", "y"}, {"type", "band"}, {"domain", {{"data", "rates"}, {"field", "cell"}}},
                               {"range", "height"}, {"padding", 0.2}},
                              {{"name", "x"}, {"type", "linear"}, {"domain", {0, top}}, {"range", "width"},
                               {"nice", true}, {"zero", true}}})},
      {"axes", json::array({{{"orient", "bottom"}, {"scale", "x"}, {"format", ".1%"},
                             {"title", "walks violating " + property + " (dot) and 95% Wilson interval (bar)"}},
                            {{"orient", "left"}, {"scale", "y"}, {"labelLimit", 400}}})},
      {"marks",
       json::array(
           {{{"type", "rule"},
             {"name", "interval"},
             {"from", {{"data", "rates"}}},
             {"encode",
              {{"enter", {{"x", {{"scale", "x"}, {"field", "low"}}}, {"x2", {{"scale", "x"}, {"field", "high"}}},
                          {"y", y}, {"stroke", {{"value", "#555"}}}, {"strokeWidth", {{"value", 2}}}}}}}},
            {{"type", "symbol"},
             {"name", "share"},
             {"from", {{"data", "rates"}}},
             {"encode",
              {{"enter", {{"x", {{"scale", "x"}, {"field", "share"}}}, {"y", y}, {"fill", {{"value", "#b03a2e"}}},
                          {"size", {{"value", 50}}},
                          {"tooltip", {{"signal", "datum.label + ': ' + datum.walks + ' of ' + datum.of + ' walks, ' "
                                                  "+ format(datum.share, '.2%') + ' [' + format(datum.low, '.2%') + "
                                                  "', ' + format(datum.high, '.2%') + ']'"}}}}}}}}})}};
}

}  // namespace

json research_to_json(const ResearchResult& result) {
  const ResearchOptions& o = result.options;
  json cells = json::array();
  for (const ResearchCell& c : result.cells) {
    json verdicts = json::array();
    for (const ResearchVerdict& v : c.verdicts) {
      verdicts.push_back({{"property", v.property}, {"verdict", v.verdict}, {"violating_states", v.violating_states},
                          {"steps", v.steps}, {"classes", v.classes}, {"classes_left_out", v.classes_left_out}});
    }
    json classes = json::array();
    for (const ResearchClass& k : c.classes) {
      classes.push_back({{"property", k.property}, {"signature", k.signature}, {"explanation", k.explanation},
                         {"steps", k.steps}, {"violating_states", k.violating_states},
                         {"records_lost", k.lost_first}, {"records_lost_max", k.lost_max}});
    }
    json rates = json::array();
    for (const ResearchRate& r : c.rates) rates.push_back(rate_json(r));
    json class_rates = json::array();
    for (const ResearchRate& r : c.class_rates) class_rates.push_back(rate_json(r));
    json entry = {{"id", c.cell.id()},
                  {"label", c.cell.label()},
                  {"replication_factor", c.cell.replication_factor},
                  {"min_isr", c.cell.min_isr},
                  {"acks", std::string(spec::acks_name(c.cell.acks))},
                  {"unclean", c.cell.unclean},
                  {"elr", c.cell.elr},
                  {"failure", c.cell.lossy ? "power" : "kill"},
                  {"checked", c.checked},
                  {"verdict", c.verdict},
                  {"distinct_states", c.distinct_states},
                  {"depth", c.depth},
                  {"check_seconds", c.check_seconds},
                  {"verdicts", verdicts},
                  {"classes", classes},
                  {"walked", c.walked},
                  {"walks_completed", c.walks_completed},
                  {"walk_seconds", c.walk_seconds},
                  {"rates", rates},
                  {"class_rates", class_rates},
                  {"config", c.config}};
    if (!c.stop_reason.empty()) entry["stop_reason"] = c.stop_reason;
    cells.push_back(std::move(entry));
  }
  return {{"command", "research unclean"},
          {"verdict", result.interrupted ? "incomplete" : "complete"},
          {"cells_done", result.cells_done},
          {"cells_total", result.cells.size()},
          {"seconds", result.seconds},
          {"options",
           {{"threads", o.threads},
            {"max_states", o.max_states},
            {"time_limit_seconds", std::chrono::duration<double>(o.time_limit).count()},
            {"max_classes", o.max_classes},
            {"walks", o.walks},
            {"depth", o.depth},
            {"seed", o.seed},
            {"rates", o.rates},
            {"overrides", o.overrides}}},
          {"cells", cells}};
}

std::string render_research_text(const ResearchResult& result) {
  std::ostringstream out;
  for (const ResearchCell& c : result.cells) {
    out << c.cell.id() << "  (" << c.cell.label() << ")\n";
    if (!c.checked) {
      out << "  not checked (the run was interrupted first)\n";
      continue;
    }
    out << "  check: " << c.verdict;
    if (!c.stop_reason.empty()) out << " (" << c.stop_reason << ": the verdicts below are what was decided)";
    out << ", " << c.distinct_states << " states up to symmetry, depth " << c.depth << "\n";
    for (const ResearchVerdict& v : c.verdicts) {
      out << "    " << v.property << ": " << v.verdict;
      if (v.verdict == "violated") {
        out << ", shortest " << v.steps << " steps, " << v.violating_states << " violating states, " << v.classes
            << " classes";
      }
      out << "\n";
    }
    for (const ResearchClass& k : c.classes) {
      out << "      " << k.property << " class: " << k.signature << "  (" << k.steps << " steps, "
          << k.violating_states << " states, acked lost " << k.lost_first << "/" << k.lost_max << ")\n";
    }
    if (!c.walked) continue;
    out << "  walks: " << c.walks_completed << (c.walks_complete ? "" : " (interrupted)") << "\n";
    for (const ResearchRate& r : c.rates) out << "    " << r.property << ": " << rate_text(r) << "\n";
    for (const ResearchRate& r : c.class_rates) {
      out << "      " << r.property << " class: " << r.signature << "  " << rate_text(r) << "\n";
    }
  }
  out << "cells: " << result.cells_done << " of " << result.cells.size() << " done"
      << (result.interrupted ? " (INCOMPLETE: interrupted)" : "") << "\n";
  return out.str();
}

std::string render_research_html(const ResearchResult& result, std::string_view vega_js) {
  if (vega_js.empty()) throw std::invalid_argument("the plotting library (vega.min.js) is empty");
  std::string lower(vega_js);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return std::tolower(ch); });
  if (lower.find("<script") != std::string::npos || lower.find("</script") != std::string::npos) {
    throw std::invalid_argument("the plotting library contains \"<script\" or \"</script\" and cannot be inlined");
  }
  const std::vector<std::string> properties = property_names(result);
  const ResearchOptions& o = result.options;
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
    << "<title>isrcheck research unclean</title>\n<style>\n"
    << "body{font-family:sans-serif;margin:1.5em;max-width:80em}table{border-collapse:collapse;margin:.5em 0}"
    << "td,th{border:1px solid #bbb;padding:.2em .5em;font-size:90%;text-align:left;vertical-align:top}"
    << "td.violated{background:#f5b7b1}td.holds{background:#d5f5e3}td.incomplete{background:#fcf3cf}"
    << "code{font-size:90%}.plot{margin:1em 0}\n</style>\n</head>\n<body data-plots=\"pending\">\n"
    << "<h1>Unclean leader election: how often, and how, acknowledged writes are lost</h1>\n"
    << "<p>" << result.cells_done << " of " << result.cells.size() << " cells done"
    << (result.interrupted ? " (<strong>incomplete</strong>: interrupted)" : "") << "; per cell an exhaustive "
    << "<code>check --continue --classes</code> (at most " << o.max_states << " states) and " << o.walks
    << " walks of " << o.depth << " steps (<code>simulate --stats</code>, seed " << o.seed << ", rates";
  for (const auto& [kind, rate] : o.rates) h << " " << html_escape(kind) << "=" << rate;
  h << " per step). docs/research.md explains the figures.</p>\n";

  json plots = json::array();
  for (size_t i = 0; i < properties.size(); ++i) {
    const std::string id = "plot-" + properties[i];
    h << "<h2>" << html_escape(properties[i]) << ": share of walks violating it</h2>\n<div class=\"plot\" id=\""
      << id << "\" data-property=\"" << html_escape(properties[i]) << "\"></div>\n";
    plots.push_back({{"id", id}, {"spec", rate_plot_spec(result, properties[i])}});
  }

  h << "<h2>Verdicts and rates per cell</h2>\n<table id=\"verdicts\"><tr><th>cell</th><th>states</th>";
  for (const std::string& p : properties) h << "<th>" << html_escape(p) << " (check)</th><th>(walks)</th>";
  h << "</tr>\n";
  for (const ResearchCell& c : result.cells) {
    h << "<tr data-cell=\"" << c.cell.id() << "\"><td><a href=\"#" << c.cell.id() << "\">"
      << html_escape(c.cell.label()) << "</a></td><td>" << c.distinct_states
      << (c.stop_reason.empty() ? "" : " (" + c.stop_reason + ")") << "</td>";
    for (const std::string& p : properties) {
      const ResearchVerdict* v = nullptr;
      for (const ResearchVerdict& x : c.verdicts) v = x.property == p ? &x : v;
      const std::string verdict = v ? v->verdict : "incomplete";
      h << "<td class=\"" << verdict << "\">" << verdict;
      if (v && v->verdict == "violated") h << ": " << v->classes << " classes, " << v->steps << " steps";
      h << "</td><td>";
      for (const ResearchRate& r : c.rates) {
        if (r.property == p) h << rate_text(r);
      }
      h << "</td>";
    }
    h << "</tr>\n";
  }
  h << "</table>\n<h2>Classes per cell</h2>\n";
  for (const ResearchCell& c : result.cells) {
    if (c.classes.empty() && c.class_rates.empty()) continue;
    h << "<h3 id=\"" << c.cell.id() << "\">" << html_escape(c.cell.label()) << "</h3>\n"
      << "<table class=\"classes\" data-cell=\"" << c.cell.id() << "\"><tr><th>property</th><th>signature</th>"
      << "<th>explanation</th><th>steps</th><th>states</th><th>acked lost (first/max)</th><th>walks</th></tr>\n";
    for (const ResearchClass& k : c.classes) {
      h << "<tr><td>" << html_escape(k.property) << "</td><td><code>" << html_escape(k.signature)
        << "</code></td><td>" << html_escape(k.explanation) << "</td><td>" << k.steps << "</td><td>"
        << k.violating_states << "</td><td>" << k.lost_first << "/" << k.lost_max << "</td><td>";
      for (const ResearchRate& r : c.class_rates) {
        if (r.property == k.property && r.signature == k.signature) h << rate_text(r);
      }
      h << "</td></tr>\n";
    }
    // Classes the walks entered by a path the exhaustive check files elsewhere (a
    // longer path to a state it reached first by a shorter one: docs/research.md).
    for (const ResearchRate& r : c.class_rates) {
      bool in_check = false;
      for (const ResearchClass& k : c.classes) in_check = in_check || (k.property == r.property && k.signature == r.signature);
      if (in_check) continue;
      h << "<tr><td>" << html_escape(r.property) << "</td><td><code>" << html_escape(r.signature)
        << "</code></td><td>" << html_escape(r.explanation) << "</td><td>-</td><td>-</td><td>-</td><td>"
        << rate_text(r) << "</td></tr>\n";
    }
    h << "</table>\n";
  }
  h << "<script>" << vega_js << "</script>\n"
    << "<script type=\"application/json\" id=\"research-plots\">" << script_safe(plots) << "</script>\n"
    << "<script>\n"
    << "(async function () {\n"
    << "  if (typeof vega === 'undefined') { document.body.setAttribute('data-plots', 'no-library'); return; }\n"
    << "  const plots = JSON.parse(document.getElementById('research-plots').textContent);\n"
    << "  for (const p of plots) {\n"
    << "    const view = new vega.View(vega.parse(p.spec), {renderer: 'svg', container: '#' + p.id, hover: true});\n"
    << "    await view.runAsync();\n"
    << "  }\n"
    << "  document.body.setAttribute('data-plots', 'rendered');\n"
    << "})().catch(function (e) { document.body.setAttribute('data-plots', 'error: ' + e); });\n"
    << "</script>\n</body></html>\n";
  return h.str();
}

}  // namespace isr::analysis
