// What the renderers know about one model's states, chosen by the trace's "model" field:
// the node table's columns, the words for what changed and for the violation, and how a
// log entry and a state summary read. The renderers (text, markdown, mermaid, dot) are
// written once over this; a model is one more ModelRendering (partition: render_text.cc,
// render_words.cc, render_dot.cc; kraft: render_kraft.cc). An unknown model gets the
// partition rendering, whose fallbacks show unknown fields generically. The composed
// cluster model (render_cluster.cc) is the partition rendering plus a voter table and the
// KRaft and metadata-record words.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace isr::counterexamples {

// One table cell: what is shown, and what decides whether it changed (the underlying
// fields, so that the HW bar moving inside the log does not mark the log as changed).
struct Cell {
  std::string text;
  std::string signature;
};

struct Column {
  std::string title;
  std::function<Cell(const nlohmann::json& node)> cell;
};

// A table drawn below the node table, one row per element of `rows(state)` (the cluster
// model's KRaft voters), with the same change marks. `section` names the state section
// the rows come from: the text renderers leave the rows out of that section's line.
struct SubTable {
  const char* title;
  const char* section;
  const char* rows_key;
  nlohmann::json (*rows)(const nlohmann::json& state);
  std::vector<Column> (*columns)(const nlohmann::json& steps);
};

struct ModelRendering {
  // The node table's columns for the states of these steps.
  std::vector<Column> (*columns)(const nlohmann::json& steps);
  // What changed between two states, one "subject: phrase" per change.
  std::vector<std::string> (*changes)(const nlohmann::json& before, const nlohmann::json& after);
  // One sentence saying how the last state violates the trace's property.
  std::string (*violation)(const nlohmann::json& trace);
  // One log entry ("1:r2" for a partition record, "3:N0" for a KRaft batch).
  std::string (*entry)(const nlohmann::json& entry);
  // A few lines summarizing the nodes of a state (the dot renderer's boxes).
  std::string (*node_lines)(const nlohmann::json& state);
  // A state section other than "nodes" in the model's terms ("history: ..."), or "" to
  // show it generically. Bookkeeping sections are shown only at steps that change them.
  std::string (*section)(const std::string& key, const nlohmann::json& value, const nlohmann::json& state);
  // The header's legend for the node table.
  const char* legend;
  // Mermaid: whether producer/consumer lanes exist, and the lane of the control plane.
  bool client_lanes;
  const char* system_lane;
  // Further tables (text and markdown only).
  std::vector<SubTable> tables;
};

const ModelRendering& rendering_for(const nlohmann::json& trace);

// The rows of each model (render_text.cc / render_dot.cc and render_kraft.cc).
std::vector<Column> partition_columns(const nlohmann::json& steps);
std::string partition_node_lines(const nlohmann::json& state);
const ModelRendering& kraft_rendering();
const ModelRendering& cluster_rendering();

}  // namespace isr::counterexamples
