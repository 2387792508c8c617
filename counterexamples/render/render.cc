// Choosing a renderer by name (see render.h), and the model vocabulary by the trace's
// "model" (render_model.h).
#include "counterexamples/render/render.h"

#include "counterexamples/render/render_model.h"
#include "counterexamples/render/render_words.h"

namespace isr::counterexamples {

std::string_view render_format_name(RenderFormat format) {
  switch (format) {
    case RenderFormat::Text: return "text";
    case RenderFormat::Markdown: return "markdown";
    case RenderFormat::Mermaid: return "mermaid";
    case RenderFormat::Dot: return "dot";
  }
  return "?";
}

const std::vector<RenderFormat>& all_render_formats() {
  static const std::vector<RenderFormat> formats = {RenderFormat::Text, RenderFormat::Markdown,
                                                    RenderFormat::Mermaid, RenderFormat::Dot};
  return formats;
}

std::optional<RenderFormat> parse_render_format(std::string_view name) {
  for (RenderFormat format : all_render_formats()) {
    if (render_format_name(format) == name) return format;
  }
  return std::nullopt;
}

const ModelRendering& rendering_for(const nlohmann::json& trace) {
  static const ModelRendering partition = {
      partition_columns, describe_changes, violation_sentence, entry_text, partition_node_lines,
      [](const std::string&, const nlohmann::json&, const nlohmann::json&) { return std::string(); },
      "log entries are epoch:record, | marks the high watermark", /*client_lanes=*/true, "Controller", {}};
  const nlohmann::json& model = field(trace, "model");
  if (model == "kraft") return kraft_rendering();
  if (model == "cluster") return cluster_rendering();
  return partition;
}

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string render_trace(const nlohmann::json& trace, RenderFormat format) {
  switch (format) {
    case RenderFormat::Text: return render_text(trace);
    case RenderFormat::Markdown: return render_markdown(trace);
    case RenderFormat::Mermaid: return render_mermaid(trace);
    case RenderFormat::Dot: return render_dot(trace);
  }
  return {};
}

}  // namespace isr::counterexamples
