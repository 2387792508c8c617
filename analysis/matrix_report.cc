// Reports of the configuration matrix (see matrix.h): a grid with one row per
// configuration (RF, min ISR, acks, unclean, ELR, placement) and one column per failure
// scenario (f failures, lossy or not), and, when computed, a last column per row: how
// many copies of an acknowledged write must be lost before it can be lost; as text,
// Markdown, JSON and self-contained HTML.
#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <string_view>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "analysis/matrix.h"
#include "counterexamples/render/render.h"

namespace isr::analysis {
namespace {

using counterexamples::html_escape;

using nlohmann::json;

std::string fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

// ---- the grid --------------------------------------------------------------------------

using RowKey = std::tuple<int, int, int, bool, bool, int>;  // rf, min ISR, acks, unclean, ELR, placement
using ColumnKey = std::pair<int, bool>;                     // failures, lossy

RowKey row_of(const MatrixCell& c) {
  return {c.replication_factor, c.min_isr, static_cast<int>(c.acks), c.unclean, c.elr,
          static_cast<int>(c.placement)};
}
ColumnKey column_of(const MatrixCell& c) { return {c.failures, c.lossy}; }

struct Grid {
  std::vector<RowKey> rows;        // in the order of first appearance
  std::vector<ColumnKey> columns;  // sorted: failures, then plain before lossy
  std::map<std::pair<RowKey, ColumnKey>, const CellResult*> at;
};

Grid grid_of(const MatrixResult& result) {
  Grid g;
  std::set<RowKey> seen;
  std::set<ColumnKey> columns;
  for (const CellResult& r : result.cells) {
    const RowKey row = row_of(r.cell);
    if (seen.insert(row).second) g.rows.push_back(row);
    columns.insert(column_of(r.cell));
    g.at[{row, column_of(r.cell)}] = &r;
  }
  g.columns.assign(columns.begin(), columns.end());
  return g;
}

std::string column_title(const ColumnKey& c) {
  if (c.first == 0) return "no failure";
  return std::to_string(c.first) + (c.second ? " lossy" : " kill");
}

// Row headings, one per dimension.
std::vector<std::string> row_titles() { return {"RF", "min ISR", "acks", "unclean", "ELR", "placement"}; }

std::vector<std::string> row_values(const MatrixCell& c) {
  return {std::to_string(c.replication_factor), std::to_string(c.min_isr), std::string(spec::acks_name(c.acks)),
          c.unclean ? "on" : "off", c.elr ? "on" : "off",
          c.placement == spec::Placement::Combined ? "combined" : "dedicated"};
}

std::string availability_code(const std::string& a) {
  if (a == "available") return "avail";
  if (a == "not-enough-replicas") return "NER";
  if (a == "no-eligible-leader") return "NEL";
  if (a == "no-controller-quorum") return "NCQ";
  if (a == "incomplete") return "?";
  return "";
}

// "ok avail", "LOSS/9 NER", "? NCQ".
std::string cell_code(const CellResult& r) {
  std::string s;
  switch (r.durability) {
    case Durability::NoAckedLoss: s = "ok"; break;
    case Durability::AckedLoss: s = "LOSS/" + std::to_string(r.trace_steps); break;
    case Durability::Incomplete: s = "?"; break;
    case Durability::DataGone: s = "GONE/" + std::to_string(r.trace_steps); break;
  }
  const std::string a = availability_code(r.availability);
  if (!a.empty()) s += " " + a;
  return s;
}

// The row of each copies-lost result, by row id.
std::map<std::string, const RowResult*> rows_by_id(const MatrixResult& result) {
  std::map<std::string, const RowResult*> rows;
  for (const RowResult& r : result.rows) rows[r.row.row_id()] = &r;
  return rows;
}

// "3 GONE/8" (3 lost copies can lose it, shortest trace 8 steps, data on no replica),
// "1 LOSS/16" (a leader served without it), "none<=3", ">=2 ?" (1 cannot lose it, the
// search with 2 reached the state limit), "?" (the first search did).
std::string copies_code(const RowResult& r, bool html) {
  switch (r.verdict) {
    case CopiesLost::Found:
      return std::to_string(r.copies) + (r.loss() == durability_name(Durability::AckedLoss) ? " LOSS/" : " GONE/") +
             std::to_string(r.trace_steps);
    case CopiesLost::None:
      return std::string(html ? "none \u2264 " : "none<=") + std::to_string(r.row.replication_factor);
    case CopiesLost::Incomplete:
      if (r.copies <= 1) return "?";
      return std::string(html ? "\u2265" : ">=") + std::to_string(r.copies) + " ?";
  }
  return "?";
}

constexpr const char* kCopiesTitle = "copies lost";

std::string summary_line(const MatrixResult& result) {
  std::string s = std::to_string(result.cells.size()) + " cells: " + std::to_string(result.red) +
                  " red (acked loss), " + (result.gone > 0 ? std::to_string(result.gone) + " data gone, " : "") +
                  std::to_string(result.incomplete) + " incomplete; " +
                  std::to_string(result.computed) + " computed, " + std::to_string(result.cache_hits) +
                  " from the cache; " + fixed(result.seconds, 1) + " s";
  if (result.copies_lost) {
    s += "; copies lost: " + std::to_string(result.rows.size()) + " rows, " +
         std::to_string(result.rows_incomplete) + " incomplete, " + std::to_string(result.rows_computed) +
         " computed, " + std::to_string(result.rows_from_cache) + " from the cache";
  }
  if (result.interrupted) s += "; INTERRUPTED (unfinished cells are incomplete)";
  return s;
}

std::string legend(bool markdown, bool copies_lost) {
  const std::string b = markdown ? "`" : "";
  std::string s;
  s += "Durability (no-acked-loss, exhaustive, at most f node stops with restarts): " + b + "ok" + b +
       " no acked write lost; " + b + "LOSS/n" + b + " an acked write is lost, shortest trace n steps; " + b +
       "GONE/n" + b + " an acked write is on no replica any more (no-committed-loss-globally, trace "
       "n steps) and no search found a leader serving without it: the data is physically gone; " + b + "?" + b +
       " incomplete (state limit).\n";
  s += "Availability of acks=all writes after exactly f failures of brokers, none restarting: " + b +
       "avail" + b + " available; " + b + "NER" + b + " not-enough-replicas; " + b + "NEL" + b +
       " no-eligible-leader; " + b + "NCQ" + b + " no-controller-quorum; " + b + "?" + b + " incomplete.\n";
  s += "Columns: f failures, \"kill\" keeps the page cache (kill -9), \"lossy\" drops the unflushed suffix "
       "(power loss).\n";
  if (copies_lost) {
    s += "Copies lost (per row; a write acknowledged by the full ISR, then only power losses of the unflushed "
         "suffix and disk losses, with restarts): " + b + "k LOSS/n" + b + " or " + b + "k GONE/n" + b +
         " k lost copies can lose it and k-1 cannot (LOSS: a leader serves without it; GONE: it is on no "
         "replica; shortest trace n steps); " + b + "none<=r" + b + " no r copies lose it; " + b + ">=k ?" + b +
         " k-1 cannot, k is incomplete (state limit).\n";
  }
  return s;
}

// The rest of a trace's <section>: the counterexample as a sequence diagram and step by
// step, then the configuration it ran with. A trace that cannot be rendered says so in
// its place rather than failing the whole report.
void write_trace_and_config(std::ostringstream& out, const json& trace, const json& config) {
  try {
    out << "<pre class=\"mermaid\">\n" << html_escape(counterexamples::render_mermaid(trace)) << "</pre>\n";
    out << "<details open><summary>Step by step</summary>\n<pre>" << html_escape(counterexamples::render_text(trace))
        << "</pre></details>\n";
  } catch (const std::exception& e) {
    out << "<pre>the trace could not be rendered: " << html_escape(e.what()) << "</pre>\n";
  }
  out << "<details><summary>Configuration</summary>\n<pre>" << html_escape(config.dump(2))
      << "</pre></details>\n</section>\n";
}

}  // namespace

std::string render_matrix_table(const MatrixResult& result, MatrixFormat format) {
  const Grid g = grid_of(result);
  const auto copies = rows_by_id(result);
  std::vector<std::string> header = row_titles();
  for (const auto& c : g.columns) header.push_back(column_title(c));
  if (result.copies_lost) header.push_back(kCopiesTitle);
  std::vector<std::vector<std::string>> rows;
  for (const RowKey& row : g.rows) {
    std::vector<std::string> line;
    for (const ColumnKey& column : g.columns) {
      const auto it = g.at.find({row, column});
      if (line.empty()) {
        // The row's values from any of its cells.
        for (const ColumnKey& any : g.columns) {
          const auto cell = g.at.find({row, any});
          if (cell != g.at.end()) {
            line = row_values(cell->second->cell);
            break;
          }
        }
      }
      line.push_back(it == g.at.end() ? "-" : cell_code(*it->second));
    }
    if (result.copies_lost) {
      std::string code = "-";
      for (const ColumnKey& any : g.columns) {
        const auto cell = g.at.find({row, any});
        if (cell == g.at.end()) continue;
        const auto r = copies.find(cell->second->cell.row_id());
        if (r != copies.end()) code = copies_code(*r->second, false);
        break;
      }
      line.push_back(code);
    }
    rows.push_back(std::move(line));
  }

  std::ostringstream out;
  if (format == MatrixFormat::Markdown) {
    auto emit = [&](const std::vector<std::string>& cells) {
      out << "|";
      for (const auto& c : cells) out << " " << c << " |";
      out << "\n";
    };
    emit(header);
    out << "|";
    for (size_t i = 0; i < header.size(); ++i) out << (i < row_titles().size() ? "---|" : ":---:|");
    out << "\n";
    for (auto line : rows) {
      for (size_t i = row_titles().size(); i < line.size(); ++i) {
        if (line[i].starts_with("LOSS") || line[i].starts_with("GONE")) line[i] = "**" + line[i] + "**";
      }
      emit(line);
    }
    out << "\n" << legend(true, result.copies_lost) << "\n" << summary_line(result) << "\n";
    return out.str();
  }

  std::vector<size_t> width(header.size(), 0);
  for (size_t i = 0; i < header.size(); ++i) width[i] = header[i].size();
  for (const auto& line : rows) {
    for (size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
  }
  auto emit = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i > 0) line += "  ";
      line += cells[i] + std::string(width[i] - cells[i].size(), ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  };
  emit(header);
  std::vector<std::string> rule;
  for (size_t w : width) rule.emplace_back(w, '-');
  emit(rule);
  for (const auto& line : rows) emit(line);
  out << "\n" << legend(false, result.copies_lost) << summary_line(result) << "\n";
  return out.str();
}

namespace {

// The dimensions a row and each of its cells share, as the JSON report names them.
json row_fields(const MatrixCell& c, const std::string& id) {
  return {{"id", id},
          {"replication_factor", c.replication_factor},
          {"min_insync_replicas", c.min_isr},
          {"acks", spec::acks_name(c.acks)},
          {"unclean_leader_election", c.unclean},
          {"eligible_leader_replicas", c.elr},
          {"placement", c.placement == spec::Placement::Combined ? "combined" : "dedicated"}};
}

}  // namespace

json matrix_to_json(const MatrixResult& result) {
  json cells = json::array();
  for (const CellResult& r : result.cells) {
    const MatrixCell& c = r.cell;
    json cell = row_fields(c, c.id());
    cell.update({{"failures", c.failures},
                 {"lossy", c.lossy},
                 {"config", r.config},
                 {"cache_key", r.key},
                 {"from_cache", r.from_cache},
                 {"durability",
                  {{"verdict", durability_name(r.durability)},
                   {"distinct_states", r.durability_states},
                   {"seconds", r.durability_seconds},
                   {"bounds_reached", r.bounds_reached}}}});
    if (r.red() || r.gone()) {
      cell["durability"]["trace_steps"] = r.trace_steps;
      cell["durability"]["trace"] = r.trace;
    }
    if (!r.availability.empty()) {
      cell["availability"] = {{"verdict", r.availability},
                              {"graph_states", r.availability_states},
                              {"seconds", r.availability_seconds}};
      if (!r.availability_witness.is_null()) cell["availability"]["witness_trace"] = r.availability_witness;
    }
    cells.push_back(std::move(cell));
  }
  json rows = json::array();
  for (const RowResult& r : result.rows) {
    const MatrixCell& c = r.row;
    json searches = json::array();
    for (const CopiesLostSearch& k : r.searches) {
      searches.push_back({{"copies", k.copies},
                          {"verdict", checker::verdict_name(k.verdict)},
                          {"distinct_states", k.distinct_states},
                          {"seconds", k.seconds},
                          {"bounds_reached", k.bounds_reached}});
    }
    json copies = {{"verdict", copies_lost_name(r.verdict)},
                   {"distinct_states", r.distinct_states()},
                   {"seconds", r.seconds()},
                   {"searches", std::move(searches)},
                   {"config", r.config},
                   {"cache_key", r.key},
                   {"from_cache", r.from_cache}};
    switch (r.verdict) {
      case CopiesLost::Found:
        copies["copies"] = r.copies;
        copies["loss"] = r.loss();
        copies["property"] = r.property;
        copies["trace_steps"] = r.trace_steps;
        copies["trace"] = r.trace;
        break;
      case CopiesLost::None: copies["copies"] = nullptr; break;
      case CopiesLost::Incomplete:
        // k - 1 lost copies cannot lose the write; k or more are undecided.
        copies["copies"] = nullptr;
        copies["at_least"] = r.copies;
        break;
    }
    json row = row_fields(c, c.row_id());
    row["copies_lost"] = std::move(copies);
    rows.push_back(std::move(row));
  }
  json document = {{"format", "isrcheck-matrix"},
              {"version", 1},
              {"max_states_per_cell", result.max_states},
              {"availability", result.availability},
              {"copies_lost", result.copies_lost},
              {"summary",
               {{"cells", result.cells.size()},
                {"red", result.red},
                {"gone", result.gone},
                {"incomplete", result.incomplete},
                {"computed", result.computed},
                {"cache_hits", result.cache_hits},
                {"interrupted", result.interrupted},
                {"seconds", result.seconds}}},
              {"cells", std::move(cells)}};
  if (result.copies_lost) {
    document["summary"]["rows"] = result.rows.size();
    document["summary"]["rows_incomplete"] = result.rows_incomplete;
    document["summary"]["rows_computed"] = result.rows_computed;
    document["summary"]["rows_from_cache"] = result.rows_from_cache;
    document["rows"] = std::move(rows);
  }
  return document;
}

std::string render_matrix_html(const MatrixResult& result, std::string_view mermaid_js) {
  // Inside <script> only "</script" (and "<script" after "<!--") ends the script early;
  // the pinned mermaid has neither. Refuse rather than rewrite a third party's code.
  std::string lowered(mermaid_js);
  std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lowered.find("<script") != std::string::npos || lowered.find("</script") != std::string::npos) {
    throw std::invalid_argument("the mermaid script contains \"<script\" or \"</script\" and cannot be embedded");
  }
  const Grid g = grid_of(result);
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<title>isrcheck matrix</title>\n<style>\n"
         "body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }\n"
         "table.grid { border-collapse: collapse; font-size: 0.85em; }\n"
         "table.grid th, table.grid td { border: 1px solid #bbb; padding: 0.25em 0.5em; text-align: center; }\n"
         "table.grid th { background: #eee; }\n"
         "td.ok { background: #c8ecc8; }\n"
         "td.unavailable { background: #fbe7a6; }\n"
         "td.red { background: #f3a3a3; font-weight: bold; }\n"
         "td.red a { color: #700; }\n"
         "td.gone { background: #d9c2f0; font-weight: bold; }\n"
         "td.gone a { color: #4b1a7a; }\n"
         "td.incomplete { background: #ddd; color: #555; }\n"
         "td.copies { border-left: 3px solid #888; }\n"
         "td.copies a { color: inherit; }\n"
         "pre { background: #f6f6f6; border: 1px solid #ddd; padding: 0.6em; overflow-x: auto; font-size: 0.8em; }\n"
         "pre.legend-text { white-space: pre-wrap; }\n"
         "section.trace { border-top: 2px solid #c33; margin-top: 2em; }\n"
         ".legend span { display: inline-block; padding: 0.1em 0.6em; margin-right: 0.5em; border: 1px solid #bbb; }\n"
         "</style>\n</head>\n<body>\n";
  out << "<h1>isrcheck matrix</h1>\n<p>" << html_escape(summary_line(result)) << "</p>\n";
  out << "<p class=\"legend\"><span style=\"background:#c8ecc8\">no acked loss, writable</span>"
         "<span style=\"background:#fbe7a6\">no acked loss, not writable</span>"
         "<span style=\"background:#f3a3a3\">acked write lost (click for the trace)</span>"
         "<span style=\"background:#d9c2f0\">no acked loss seen, but the data is on no replica (click)</span>"
         "<span style=\"background:#ddd\">incomplete (state limit)</span></p>\n";
  out << "<pre class=\"legend-text\">" << html_escape(legend(false, result.copies_lost)) << "</pre>\n";

  if (result.copies_lost) {
    out << "<p class=\"legend\">copies lost: <span style=\"background:#c8ecc8\">all RF copies (or none)</span>"
           "<span style=\"background:#fbe7a6\">fewer than RF, more than one</span>"
           "<span style=\"background:#f3a3a3\">one lost copy loses it</span>"
           "<span style=\"background:#ddd\">incomplete</span> (click a number for the trace)</p>\n";
  }
  const auto copies = rows_by_id(result);
  out << "<table class=\"grid\">\n<tr>";
  for (const auto& t : row_titles()) out << "<th>" << html_escape(t) << "</th>";
  for (const auto& c : g.columns) out << "<th>" << html_escape(column_title(c)) << "</th>";
  if (result.copies_lost) out << "<th>" << kCopiesTitle << "</th>";
  out << "</tr>\n";
  for (const RowKey& row : g.rows) {
    out << "<tr>";
    bool headed = false;
    for (const ColumnKey& column : g.columns) {
      const auto it = g.at.find({row, column});
      if (!headed && it != g.at.end()) {
        headed = true;
        for (const auto& v : row_values(it->second->cell)) out << "<th>" << html_escape(v) << "</th>";
      }
    }
    for (const ColumnKey& column : g.columns) {
      const auto it = g.at.find({row, column});
      if (it == g.at.end()) {
        out << "<td>-</td>";
        continue;
      }
      const CellResult& r = *it->second;
      const std::string code = html_escape(cell_code(r));
      const std::string title = html_escape(r.cell.label());
      if (r.red()) {
        out << "<td class=\"red\" title=\"" << title << "\"><a href=\"#" << r.cell.id() << "\">" << code
            << "</a></td>";
      } else if (r.gone()) {
        out << "<td class=\"gone\" title=\"" << title << "\"><a href=\"#" << r.cell.id() << "\">" << code
            << "</a></td>";
      } else if (r.durability == Durability::Incomplete || r.availability == "incomplete") {
        out << "<td class=\"incomplete\" title=\"" << title << "\">" << code << "</td>";
      } else if (!r.availability.empty() && r.availability != "available") {
        out << "<td class=\"unavailable\" title=\"" << title << "\">" << code << "</td>";
      } else {
        out << "<td class=\"ok\" title=\"" << title << "\">" << code << "</td>";
      }
    }
    if (result.copies_lost) {
      const RowResult* r = nullptr;
      for (const ColumnKey& any : g.columns) {
        const auto cell = g.at.find({row, any});
        if (cell == g.at.end()) continue;
        const auto it = copies.find(cell->second->cell.row_id());
        if (it != copies.end()) r = it->second;
        break;
      }
      if (r == nullptr) {
        out << "<td class=\"copies\">-</td>";
      } else {
        const std::string code = html_escape(copies_code(*r, true));
        const std::string title = html_escape(r->row.row_label() + ": copies lost");
        if (r->verdict == CopiesLost::Found) {
          // By how much of the partition must go: all of it (the most any RF allows, RF 1's
          // single copy included) is green, a single copy of several red.
          const char* cls = r->copies >= r->row.replication_factor ? "ok" : r->copies == 1 ? "red" : "unavailable";
          out << "<td class=\"copies " << cls << "\" title=\"" << title << "\"><a href=\"#" << r->row.row_id()
              << "-copies-lost\">" << code << "</a></td>";
        } else if (r->verdict == CopiesLost::None) {
          out << "<td class=\"copies ok\" title=\"" << title << "\">" << code << "</td>";
        } else {
          out << "<td class=\"copies incomplete\" title=\"" << title << "\">" << code << "</td>";
        }
      }
    }
    out << "</tr>\n";
  }
  out << "</table>\n";

  out << "<h2>Counterexamples</h2>\n";
  int shown = 0;
  for (const CellResult& r : result.cells) {
    if (!r.red() && !r.gone()) continue;
    ++shown;
    out << "<section class=\"trace\" id=\"" << r.cell.id() << "\">\n<h3>" << html_escape(r.cell.label())
        << "</h3>\n";
    if (r.red()) {
      out << "<p>An acknowledged write is lost in " << r.trace_steps
          << " steps (shortest trace, exhaustive search).</p>\n";
    } else {
      out << "<p>No leader serves without an acknowledged write, yet after " << r.trace_steps
          << " steps it is on no replica: the data is physically gone (no-committed-loss-globally; "
             "shortest trace, exhaustive search).</p>\n";
    }
    write_trace_and_config(out, r.trace, r.config);
  }
  if (shown == 0) out << "<p>No cell loses an acknowledged write, and none loses its data.</p>\n";
  if (result.copies_lost) {
    out << "<h2>Copies lost</h2>\n<p>Per row: a write acknowledged by the full ISR, then only power losses "
           "(unflushed suffix dropped) and disk losses, with restarts; the smallest number of lost copies that "
           "can lose it, with its shortest trace.</p>\n";
    for (const RowResult& r : result.rows) {
      if (r.verdict != CopiesLost::Found) continue;
      out << "<section class=\"trace\" id=\"" << r.row.row_id() << "-copies-lost\">\n<h3>"
          << html_escape(r.row.row_label()) << ": " << r.copies << (r.copies == 1 ? " copy" : " copies")
          << " lost</h3>\n<p>" << (r.copies == 1 ? "One lost copy" : std::to_string(r.copies) + " lost copies")
          << " after the acknowledgement " << (r.loss() == durability_name(Durability::AckedLoss)
                                                 ? "let a leader serve without the write (no-acked-loss)"
                                                 : "leave the write on no replica (no-committed-loss-globally)")
          << " in " << r.trace_steps << " steps (shortest trace, exhaustive search); "
          << (r.copies == 1 ? "nothing fewer is possible" : "no search with fewer lost copies loses it")
          << ".</p>\n";
      write_trace_and_config(out, r.trace, r.config);
    }
  }
  if (mermaid_js.empty()) {
    out << "</body>\n</html>\n";
    return out.str();
  }
  // The renderer is in the page (no network, no CDN). When it has drawn every diagram,
  // <body data-diagrams> says "rendered" (or why not): the browser test reads it.
  out << "<script>\n" << mermaid_js << "\n</script>\n"
         "<script>\n"
         "mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });\n"
         "mermaid.run({ querySelector: 'pre.mermaid' })\n"
         "  .then(() => { document.body.dataset.diagrams = 'rendered'; })\n"
         "  .catch((e) => { document.body.dataset.diagrams = 'failed: ' + e; });\n"
         "</script>\n</body>\n</html>\n";
  return out.str();
}

}  // namespace isr::analysis
