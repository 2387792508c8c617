// Graphviz rendering of a trace: one box per state with a short summary, one edge per
// step labelled by its action; the violating state is drawn in red.
#include <string>
#include <vector>

#include "counterexamples/render/render.h"
#include "counterexamples/render/render_model.h"
#include "counterexamples/render/render_words.h"
#include "counterexamples/trace/trace_reader.h"

namespace isr::counterexamples {

using nlohmann::json;

namespace {

// A DOT double-quoted string body; "\l" ends a left-justified line.
std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\l";
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

// The partition model's box: controller, replicas, clients.
std::string partition_node_lines(const json& state) {
  std::string label;
  const json& controller = field(state, "controller");
  if (controller.is_object()) {
    label += "controller: leader " + node_name(field(controller, "leader")) + " epoch " +
             compact(field(controller, "leader_epoch")) + " ISR " +
             node_set_text(field(controller, "isr"));
    if (!field(controller, "elr").is_null()) label += " ELR " + node_set_text(field(controller, "elr"));
    if (field(controller, "quorum") == false) label += " NO QUORUM";
    label += "\n";
  }
  const json& nodes = field(state, "nodes");
  if (nodes.is_array()) {
    for (const json& node : nodes) {
      std::string line = node_name(field(node, "id")) + " " + (field(node, "alive") == false ? "down" : "up");
      const json& replica = field(node, "replica");
      if (replica.is_object()) {
        line += " " + scalar_text(field(replica, "role")) + " " + log_text(replica);
      }
      label += line + "\n";
    }
  }
  const json& outcomes = field(field(state, "producer"), "outcomes");
  if (outcomes.is_object()) {
    std::string line = "producer:";
    for (const auto& [record, outcome] : outcomes.items()) line += " r" + record + "=" + compact(outcome);
    label += line + "\n";
  }
  const json& read = field(field(state, "consumer"), "read");
  if (read.is_array()) label += "consumer read " + node_set_text(read) + "\n";
  if (!nodes.is_array() && !controller.is_object()) {
    label += compact(state).substr(0, 200) + "\n";  // a model this renderer does not know
  }
  return label;
}

std::string render_dot(const json& trace) {
  const ModelRendering& rendering = rendering_for(trace);
  const json& steps = trace.at("steps");
  std::string out = "digraph trace {\n";
  out += "  label=\"" + escape("counterexample: " + scalar_text(field(trace, "property"))) + "\";\n";
  out += "  labelloc=t;\n  rankdir=TB;\n";
  out += "  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
  out += "  edge [fontname=\"monospace\", fontsize=10];\n";
  for (size_t i = 0; i < steps.size(); ++i) {
    std::string label = "step " + std::to_string(i) + "\n" + rendering.node_lines(steps[i].at("state"));
    std::string attributes;
    if (i + 1 == steps.size()) {
      label += "VIOLATED: " + rendering.violation(trace) + "\n";
      attributes = ", color=red, penwidth=2";
    }
    out += "  s" + std::to_string(i) + " [label=\"" + escape(label) + "\"" + attributes + "];\n";
  }
  for (size_t i = 1; i < steps.size(); ++i) {
    std::string changes;
    for (const std::string& phrase : rendering.changes(steps[i - 1].at("state"), steps[i].at("state"))) {
      changes += (changes.empty() ? "" : "; ") + phrase;
    }
    out += "  s" + std::to_string(i - 1) + " -> s" + std::to_string(i) + " [label=\"" +
           escape(step_action_name(steps[i])) + "\", tooltip=\"" + escape(changes) + "\"];\n";
  }
  out += "}\n";
  return out;
}

}  // namespace isr::counterexamples
