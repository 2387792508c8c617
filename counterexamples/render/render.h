// Rendering a trace (docs/trace-format.md) for people: text, markdown, mermaid, dot.
//
// The renderers read the trace JSON only, never the model code, so that a trace stays
// renderable by any later version of isrcheck and for any model: the fields of the
// partition model's state are shown in protocol terms, and fields they do not know are
// shown generically (as "key=value" or as an extra table column).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace isr::counterexamples {

enum class RenderFormat { Text, Markdown, Mermaid, Dot };

// "text", "markdown", "mermaid", "dot".
std::string_view render_format_name(RenderFormat format);
const std::vector<RenderFormat>& all_render_formats();
std::optional<RenderFormat> parse_render_format(std::string_view name);

// Every renderer expects a trace that passed check_trace (trace/trace_reader.h).
std::string render_text(const nlohmann::json& trace);      // plain text, `*` marks changes
// Plain text fitted to `width` columns (render_text: 120): wider node tables fold into
// several, each starting with the node column, and longer lines wrap at a comma or a
// space with a hanging indent. 0: no folding, one line per item.
std::string render_text(const nlohmann::json& trace, size_t width);
std::string render_markdown(const nlohmann::json& trace);  // tables, changes in **bold**
std::string render_mermaid(const nlohmann::json& trace);   // a sequenceDiagram
// The same diagram for a path that need not end in a violation (isrcheck explore): no
// closing "VIOLATED" note when `ends_in_violation` is false.
std::string render_mermaid(const nlohmann::json& trace, bool ends_in_violation);
std::string render_dot(const nlohmann::json& trace);       // a Graphviz digraph of the steps

std::string render_trace(const nlohmann::json& trace, RenderFormat format);

// Step `step` of a trace as an HTML fragment for `isrcheck explore`: the same action line,
// "changed:" summary, tables and section lines the text rendering prints for that step,
// each value that changed since the step before in <mark> (its table cell of class
// "changed"). Every text from the trace is escaped.
std::string render_step_html(const nlohmann::json& trace, size_t step);

// `text` with &, <, >, " and ' replaced by entities, for HTML text and attribute values.
std::string html_escape(std::string_view text);

}  // namespace isr::counterexamples
