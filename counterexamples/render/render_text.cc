// Text and markdown rendering of a trace: a header, then per step the action, what
// changed in words, a table of nodes and one line each for the controller and clients.
#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "counterexamples/render/opening.h"
#include "counterexamples/render/render.h"
#include "counterexamples/render/render_model.h"
#include "counterexamples/render/render_words.h"
#include "counterexamples/trace/trace_reader.h"

namespace isr::counterexamples {

using nlohmann::json;

namespace {

// Html: one step of a trace for `isrcheck explore` (render_step_html); text is escaped and
// changed values are wrapped in <mark>.
enum class Style { Text, Markdown, Html };

// Text traces fit a terminal: wider tables fold, longer lines wrap (fit_lines).
constexpr size_t kTextWidth = 120;

// Wraps every line longer than `width` at a space (after ", " or "; " when there is one
// far enough along), continuing 4 columns further in than the line starts.
std::string fit_lines(const std::string& text, size_t width) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    const size_t lead = std::min(line.find_first_not_of(' '), line.size());
    const std::string hang(std::min(lead + 4, width / 2), ' ');
    bool first = true;
    while (line.size() > width) {
      const size_t floor = (first ? lead : hang.size()) + 20;
      size_t cut = std::string::npos;
      for (const char* mark : {", ", "; ", " "}) {
        const size_t at = line.rfind(mark, width - 1);
        if (at != std::string::npos && at > floor) {
          cut = at + (mark[0] == ' ' ? 0 : 1);
          break;
        }
      }
      if (cut == std::string::npos) break;  // one unbreakable word: leave it long
      out += line.substr(0, cut) + "\n";
      const size_t rest = line.find_first_not_of(' ', cut);
      line = hang + (rest == std::string::npos ? "" : line.substr(rest));
      first = false;
    }
    out += line;
    if (end < text.size()) out += '\n';
    start = end + 1;
  }
  return out;
}

const std::set<std::string> kNodeKeys = {"id", "broker", "voter", "alive", "last_stop",
                                         "broker_epoch", "cut", "replica"};
const std::set<std::string> kReplicaKeys = {"role", "log", "leo", "hw", "hw_checkpoint",
                                            "flushed", "view", "needs_truncation",
                                            "leader_state", "fetch_response"};
const std::vector<std::string> kControllerPrimary = {"active", "quorum", "leader", "leader_epoch",
                                                     "partition_epoch", "isr", "elr", "fenced"};

// Escapes for HTML only: the text and markdown renderings keep their text as it is.
std::string esc(const std::string& text, Style style) {
  return style == Style::Html ? html_escape(text) : text;
}

std::string mark(const std::string& text, bool changed, Style style) {
  if (style == Style::Html) return changed ? "<mark>" + html_escape(text) + "</mark>" : html_escape(text);
  if (!changed) return text;
  return style == Style::Text ? text + "*" : "**" + text + "**";
}

std::string md_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else out += c;
  }
  return out;
}

const json& replica_field(const json& node, const char* key) {
  return field(field(node, "replica"), key);
}

Cell scalar_cell(const json& value) { return {scalar_text(value), value.dump()}; }

}  // namespace

// The partition model's columns: the known ones, "flushed" only when some replica ever
// had an unflushed suffix, and one column per node or replica field no rule knows.
std::vector<Column> partition_columns(const json& steps) {
  std::vector<Column> columns;
  columns.push_back({"node", [](const json& n) { return scalar_cell(json(node_name(field(n, "id")))); }});
  columns.push_back({"process", [](const json& n) {
    const json& alive = field(n, "alive");
    const std::string stop = scalar_text(field(n, "last_stop"));
    std::string text;
    if (alive == false) text = "down (" + stop + ")";
    else if (stop == "none" || stop == "-") text = "up";
    else text = "up (after " + stop + ")";
    return Cell{text, alive.dump() + field(n, "last_stop").dump()};
  }});
  columns.push_back({"b.epoch", [](const json& n) { return scalar_cell(field(n, "broker_epoch")); }});
  columns.push_back({"role", [](const json& n) {
    const json& replica = field(n, "replica");
    std::string text = replica.is_null() ? "-" : scalar_text(field(replica, "role"));
    if (field(replica, "needs_truncation") == true) text += " (must truncate)";
    return Cell{text, field(replica, "role").dump() + field(replica, "needs_truncation").dump()};
  }});
  columns.push_back({"log (epoch:record, | = HW)", [](const json& n) {
    const json& replica = field(n, "replica");
    return Cell{replica.is_null() ? "-" : log_text(replica), field(replica, "log").dump()};
  }});
  columns.push_back({"LEO", [](const json& n) { return scalar_cell(replica_field(n, "leo")); }});
  columns.push_back({"HW", [](const json& n) { return scalar_cell(replica_field(n, "hw")); }});
  columns.push_back({"HW ckpt", [](const json& n) { return scalar_cell(replica_field(n, "hw_checkpoint")); }});

  bool unflushed_ever = false;
  std::vector<std::string> extra_node_keys, extra_replica_keys;
  for (const json& step : steps) {
    const json& nodes = field(step.at("state"), "nodes");
    if (!nodes.is_array()) continue;
    for (const json& node : nodes) {
      const json& replica = field(node, "replica");
      if (replica.contains("flushed") && field(replica, "flushed") != field(replica, "leo")) {
        unflushed_ever = true;
      }
      if (node.is_object()) {
        for (const auto& [key, value] : node.items()) {
          if (kNodeKeys.count(key) == 0 &&
              std::find(extra_node_keys.begin(), extra_node_keys.end(), key) == extra_node_keys.end())
            extra_node_keys.push_back(key);
        }
      }
      if (replica.is_object()) {
        for (const auto& [key, value] : replica.items()) {
          if (kReplicaKeys.count(key) == 0 &&
              std::find(extra_replica_keys.begin(), extra_replica_keys.end(), key) ==
                  extra_replica_keys.end())
            extra_replica_keys.push_back(key);
        }
      }
    }
  }
  if (unflushed_ever) {
    columns.push_back({"flushed", [](const json& n) { return scalar_cell(replica_field(n, "flushed")); }});
  }
  columns.push_back({"view leader", [](const json& n) {
    const json& leader = field(field(field(n, "replica"), "view"), "leader");
    return Cell{field(n, "replica").is_null() ? "-" : node_name(leader), leader.dump()};
  }});
  columns.push_back({"view epoch", [](const json& n) {
    return scalar_cell(field(field(field(n, "replica"), "view"), "leader_epoch"));
  }});
  columns.push_back({"view ISR", [](const json& n) {
    const json& isr = field(field(field(n, "replica"), "view"), "isr");
    return Cell{isr.is_null() ? "-" : node_set_text(isr), isr.dump()};
  }});
  columns.push_back({"cut from", [](const json& n) {
    const json& cut = field(n, "cut");
    return Cell{cut.is_null() ? "-" : cut_text(cut), cut.dump()};
  }});
  for (const std::string& key : extra_node_keys) {
    columns.push_back({key, [key](const json& n) { return scalar_cell(field(n, key.c_str())); }});
  }
  for (const std::string& key : extra_replica_keys) {
    columns.push_back({key, [key](const json& n) { return scalar_cell(replica_field(n, key.c_str())); }});
  }
  columns.push_back({"in flight", [](const json& n) {
    const json& replica = field(n, "replica");
    return Cell{replica.is_null() ? "-" : in_flight_text(replica),
                field(replica, "fetch_response").dump() +
                    field(field(replica, "leader_state"), "alter_partition").dump()};
  }});
  return columns;
}

namespace {

// The rows of one step's node table, with the cells that changed since `previous`.
struct Table {
  std::vector<std::vector<std::string>> rows;
};

Table node_table(const std::vector<Column>& columns, const json& nodes, const json* old_nodes,
                 Style style) {
  Table table;
  if (!nodes.is_array()) return table;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const json* old_node = nullptr;
    if (old_nodes != nullptr && old_nodes->is_array() && i < old_nodes->size()) {
      old_node = &(*old_nodes)[i];
    }
    std::vector<std::string> row;
    for (const Column& column : columns) {
      const Cell cell = column.cell(nodes[i]);
      // The first column names the node: it never "changes".
      const bool changed = old_node != nullptr && &column != &columns.front() &&
                           column.cell(*old_node).signature != cell.signature;
      row.push_back(mark(style == Style::Markdown ? md_escape(cell.text) : cell.text, changed, style));
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::string format_table(const std::vector<Column>& columns, const Table& table, Style style,
                         const std::string& indent, size_t width) {
  std::vector<std::string> titles;
  for (const Column& column : columns) titles.push_back(column.title);
  std::string out;
  if (style == Style::Html) {
    // Cells are escaped and marked already (node_table); changed cells also get a class.
    out += "<table class=\"nodes\">\n<tr>";
    for (const std::string& title : titles) out += "<th>" + html_escape(title) + "</th>";
    out += "</tr>\n";
    for (const auto& row : table.rows) {
      out += "<tr>";
      for (const std::string& cell : row) {
        out += cell.starts_with("<mark>") ? "<td class=\"changed\">" + cell + "</td>" : "<td>" + cell + "</td>";
      }
      out += "</tr>\n";
    }
    return out + "</table>\n";
  }
  if (style == Style::Markdown) {
    auto line = [&](const std::vector<std::string>& cells) {
      out += "|";
      for (const std::string& cell : cells) out += " " + cell + " |";
      out += "\n";
    };
    std::vector<std::string> escaped_titles;
    for (const std::string& title : titles) escaped_titles.push_back(md_escape(title));
    line(escaped_titles);
    out += "|";
    for (size_t i = 0; i < titles.size(); ++i) out += "---|";
    out += "\n";
    for (const auto& row : table.rows) line(row);
    return out;
  }
  std::vector<size_t> widths(titles.size());
  for (size_t c = 0; c < titles.size(); ++c) {
    widths[c] = titles[c].size();
    for (const auto& row : table.rows) widths[c] = std::max(widths[c], row[c].size());
  }
  // Folded to fit a terminal: when the columns are wider than `width` together, they
  // go in several tables one under the other, each starting with the first column (the
  // node), so that every row is still named.
  std::vector<std::vector<size_t>> groups(1);
  size_t used = indent.size();
  for (size_t c = 0; c < titles.size(); ++c) {
    const size_t need = (groups.back().empty() ? 0 : 2) + widths[c];
    if (width > 0 && c > 0 && groups.back().size() > 1 && used + need > width) {
      groups.push_back({0});
      used = indent.size() + widths[0];
    }
    groups.back().push_back(c);
    used += (groups.back().size() == 1 ? widths[c] : need);
  }
  for (const std::vector<size_t>& group : groups) {
    auto line = [&](const std::vector<std::string>& cells) {
      std::string text = indent;
      for (size_t g = 0; g < group.size(); ++g) {
        const size_t c = group[g];
        text += cells[c];
        if (g + 1 < group.size()) text += std::string(widths[c] - cells[c].size() + 2, ' ');
      }
      out += text + "\n";
    };
    line(titles);
    std::vector<std::string> rule;
    for (size_t w : widths) rule.push_back(std::string(w, '-'));
    line(rule);
    for (const auto& row : table.rows) line(row);
  }
  return out;
}

std::string controller_label(const std::string& key) {
  if (key == "isr") return "ISR";
  if (key == "elr") return "ELR";
  if (key == "last_known_elr") return "LastKnownELR";
  std::string label = key;
  std::replace(label.begin(), label.end(), '_', ' ');
  return label;
}

std::string controller_value(const std::string& key, const json& value) {
  if (key == "active" || key == "leader") return node_name(value);
  if (value.is_array()) return node_set_text(value);
  return scalar_text(value);
}

// One line of controller state; fields beyond the main ones appear at step 0 and when
// they change, so that every value is visible without repeating stable bookkeeping.
std::string controller_line(const json& controller, const json* previous, Style style) {
  std::vector<std::string> parts;
  auto part = [&](const std::string& key, const json& value) {
    const bool changed = previous != nullptr && field(*previous, key.c_str()) != value;
    parts.push_back(esc(controller_label(key), style) + " " + mark(controller_value(key, value), changed, style));
  };
  for (const std::string& key : kControllerPrimary) {
    if (controller.contains(key)) part(key, controller[key]);
  }
  for (const auto& [key, value] : controller.items()) {
    if (std::find(kControllerPrimary.begin(), kControllerPrimary.end(), key) != kControllerPrimary.end())
      continue;
    if (previous == nullptr || field(*previous, key.c_str()) != value) part(key, value);
  }
  return join(parts, ", ");
}

std::string producer_line(const json& producer, const json* previous, Style style) {
  std::vector<std::string> parts;
  const json& outcomes = field(producer, "outcomes");
  const json* old_outcomes = previous != nullptr ? &field(*previous, "outcomes") : nullptr;
  if (outcomes.is_object()) {
    for (const auto& [record, outcome] : outcomes.items()) {
      const bool changed = old_outcomes != nullptr && field(*old_outcomes, record.c_str()) != outcome;
      parts.push_back("record " + esc(record, style) + " " + mark(scalar_text(outcome), changed, style));
    }
  }
  for (const auto& [key, value] : producer.items()) {
    if (key == "outcomes") continue;
    const bool changed = previous != nullptr && field(*previous, key.c_str()) != value;
    std::string label = key;
    std::replace(label.begin(), label.end(), '_', ' ');
    parts.push_back(esc(label, style) + " " + mark(compact(value), changed, style));
  }
  return join(parts, ", ");
}

std::string generic_line(const json& section, const json* previous, Style style) {
  if (!section.is_object()) {
    return mark(compact(section), previous != nullptr && *previous != section, style);
  }
  std::vector<std::string> parts;
  for (const auto& [key, value] : section.items()) {
    const bool changed = previous != nullptr && field(*previous, key.c_str()) != value;
    std::string label = key;
    std::replace(label.begin(), label.end(), '_', ' ');
    parts.push_back(esc(label, style) + " " + mark(compact(value), changed, style));
  }
  return join(parts, ", ");
}

std::string node_kinds(const json& state) {
  const json& nodes = field(state, "nodes");
  if (!nodes.is_array()) return {};
  std::vector<std::string> parts;
  for (const json& node : nodes) {
    std::vector<std::string> kinds;
    if (field(node, "broker") == true) kinds.push_back("broker");
    if (field(node, "voter") == true) kinds.push_back("voter");
    parts.push_back(node_name(field(node, "id")) + (kinds.empty() ? "" : " " + join(kinds, "+")));
  }
  return join(parts, ", ");
}

// The columns of the node table and of the model's further tables, computed over all
// the steps (so that a column some step needs is there in every step).
struct StepTables {
  std::vector<Column> columns;
  std::vector<std::vector<Column>> table_columns;
};

StepTables step_tables(const ModelRendering& rendering, const json& steps) {
  StepTables tables{rendering.columns(steps), {}};
  for (const SubTable& table : rendering.tables) tables.table_columns.push_back(table.columns(steps));
  return tables;
}

// Step i: its action, what changed since step i-1, the tables and one line per section.
std::string render_step(const ModelRendering& rendering, const StepTables& tables, const json& steps, size_t i,
                        Style style, size_t width) {
  const bool md = style == Style::Markdown;
  const bool html = style == Style::Html;
  const std::vector<Column>& columns = tables.columns;
  const std::vector<std::vector<Column>>& table_columns = tables.table_columns;
  std::string out;
  // A section drawn as a table is compared without its rows: its line says the rest.
  auto without_rows = [&](const std::string& key, const json& value) {
    for (const SubTable& table : rendering.tables) {
      if (key == table.section && value.is_object() && value.contains(table.rows_key)) {
        json rest = value;
        rest.erase(table.rows_key);
        return rest;
      }
    }
    return value;
  };
  const std::string indent = md || html ? "" : "  ";
  const json& state = steps[i].at("state");
  const json* previous = i > 0 ? &steps[i - 1].at("state") : nullptr;
  const std::string action = step_action_name(steps[i]);
  out += html ? "<h3>Step " + std::to_string(i) + ": " + html_escape(action) + "</h3>\n"
         : md ? "\n## Step " + std::to_string(i) + ": `" + action + "`\n\n"
              : "\nStep " + std::to_string(i) + ": " + action + "\n";
  if (previous != nullptr) {
    std::vector<std::string> changes = group_changes(rendering.changes(*previous, state));
    const std::string summary = changes.empty() ? "nothing visible" : join(changes, "; ");
    out += html ? "<p class=\"changed\"><b>changed:</b> " + html_escape(summary) + "</p>\n"
           : md ? "**changed:** " + summary + "\n\n"
                : indent + "changed: " + summary + "\n";
  }
  if (field(state, "nodes").is_array()) {
    out += format_table(columns,
                        node_table(columns, field(state, "nodes"),
                                   previous != nullptr ? &field(*previous, "nodes") : nullptr, style),
                        style, indent, width);
    if (md) out += "\n";
  }
  for (size_t t = 0; t < rendering.tables.size(); ++t) {
    const SubTable& table = rendering.tables[t];
    const json rows = table.rows(state);
    if (!rows.is_array()) continue;
    const json old_rows = previous != nullptr ? table.rows(*previous) : json();
    out += html ? "<p>" + html_escape(table.title) + ":</p>\n"
           : md ? std::string(table.title) + ":\n\n"
                : indent + table.title + ":\n";
    out += format_table(table_columns[t],
                        node_table(table_columns[t], rows, previous != nullptr ? &old_rows : nullptr, style),
                        style, indent, width);
    if (md) out += "\n";
  }

  auto section = [&](const char* key) -> const json* {
    return previous != nullptr ? &field(*previous, key) : nullptr;
  };
  auto emit = [&](const std::string& label, const std::string& text) {
    out += html ? "<p class=\"section\"><b>" + html_escape(label) + ":</b> " + text + "</p>\n"
           : md ? "- " + label + ": " + text + "\n"
                : indent + label + ": " + text + "\n";
  };
  if (state.contains("controller")) {
    emit("controller", controller_line(state["controller"], section("controller"), style));
  }
  if (state.contains("producer")) emit("producer", producer_line(state["producer"], section("producer"), style));
  if (state.contains("consumer")) emit("consumer", generic_line(state["consumer"], section("consumer"), style));
  // Fault counters and history restate what the actions did: shown when they change.
  // Sections no rule knows are shown in the initial state too.
  for (const auto& [key, value] : state.items()) {
    if (key == "nodes" || key == "controller" || key == "producer" || key == "consumer") continue;
    const bool bookkeeping = key == "faults" || key == "history";
    if ((previous == nullptr && !bookkeeping) ||
        (previous != nullptr && without_rows(key, field(*previous, key.c_str())) != without_rows(key, value))) {
      const std::string words = rendering.section(key, value, state);
      emit(key, words.empty() ? generic_line(value, section(key.c_str()), style)
                              : (md ? md_escape(words) : esc(words, style)));
    }
  }
  return out;
}

std::string render(const json& trace, Style style, size_t width = 0) {
  const ModelRendering& rendering = rendering_for(trace);
  const json& steps = trace.at("steps");
  const bool md = style == Style::Markdown;
  const std::string property = scalar_text(field(trace, "property"));
  std::string out;

  // Header.
  if (md) {
    out += "# Counterexample: `" + property + "`\n\n";
    if (trace.contains("property_description")) out += "> " + scalar_text(trace["property_description"]) + "\n\n";
  } else {
    out += "Counterexample: " + property + "\n";
    if (trace.contains("property_description")) out += "  " + scalar_text(trace["property_description"]) + "\n";
  }
  // What was lost and why, before how (opening.h).
  const std::vector<std::string> opening = opening_lines(trace, rendering.violation(trace));
  if (md) out += "**What happened**\n\n";
  for (const std::string& line : opening) out += md ? "- " + md_escape(line) + "\n" : "  " + line + "\n";
  if (md) out += "\n";
  std::vector<std::string> header;
  std::string found = "model " + scalar_text(field(trace, "model"));
  if (trace.contains("engine")) found += ", found by " + scalar_text(trace["engine"]);
  found += ", " + std::to_string(steps.size() - 1) + " steps";
  header.push_back(found);
  for (const std::string& line : config_lines(trace.at("config"))) header.push_back(line);
  const std::string kinds = node_kinds(steps[0].at("state"));
  if (!kinds.empty()) header.push_back("nodes: " + kinds);
  std::string legend = md ? "legend: **bold** = changed since the previous step"
                          : "legend: * = changed since the previous step";
  if (!kinds.empty()) {
    std::string words = rendering.legend;
    if (md) {
      const size_t bar = words.find("| marks");
      if (bar != std::string::npos) words.replace(bar, 1, "`|`");
    }
    legend += "; " + words;
  }
  header.push_back(legend);
  for (const std::string& line : header) out += md ? "- " + line + "\n" : line + "\n";

  const StepTables tables = step_tables(rendering, steps);
  for (size_t i = 0; i < steps.size(); ++i) out += render_step(rendering, tables, steps, i, style, width);
  const std::string violation = rendering.violation(trace);
  out += md ? "\n**Violation:** " + violation + "\n" : "\nVIOLATION: " + violation + "\n";
  return out;
}

}  // namespace

std::string render_text(const json& trace) { return render_text(trace, kTextWidth); }
std::string render_text(const json& trace, size_t width) {
  return width == 0 ? render(trace, Style::Text, 0) : fit_lines(render(trace, Style::Text, width), width);
}
std::string render_markdown(const json& trace) { return render(trace, Style::Markdown); }

std::string render_step_html(const json& trace, size_t step) {
  const ModelRendering& rendering = rendering_for(trace);
  const json& steps = trace.at("steps");
  return render_step(rendering, step_tables(rendering, steps), steps, step, Style::Html, 0);
}

}  // namespace isr::counterexamples
