// HTML timelines of a campaign's runs and of the campaign (see campaign_timeline.h).
#include "analysis/campaign_timeline.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "counterexamples/render/render.h"

namespace isr::analysis {

using nlohmann::json;
using counterexamples::html_escape;

namespace {

constexpr const char* kStyle = R"(<style>
body{font-family:sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;font-size:13px}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}
th{background:#f0f0f0}
td.changed{background:#fff3b0}
code{word-break:break-all}
tr.parted td{background:#ffd6d6}
tr.sample td{color:#666}
tr.fault td.op{color:#a00;font-weight:bold}
.verdict-explained{color:#070}.verdict-unexplained{color:#b00}.verdict-incomplete{color:#a60}
.lost{color:#b00;font-weight:bold}
svg text{font-size:11px;font-family:sans-serif}
</style>)";

std::string text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "none";
  return v.dump();
}

std::string list_text(const json& v) {
  if (!v.is_array()) return "?";
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + text(v[i]);
  return out + "]";
}

// What an event did, in one line.
std::string describe(const json& e) {
  const std::string kind = e.value("kind", "");
  const std::string op = e.value("op", "");
  if (kind == "fault") {
    std::string s = op + " N" + text(e.value("node", json()));
    if (e.contains("crash_kind")) s += " (" + text(e["crash_kind"]) + ")";
    if (e.contains("side")) s += " from " + text(e["side"]);
    return s;
  }
  if (kind == "client" && op == "produce") {
    std::string s = "send record " + text(e.value("record", json())) + ": " + text(e.value("outcome", json()));
    if (e.value("answer", "") != e.value("outcome", "")) s += " (Kafka: " + text(e.value("answer", json())) + ")";
    return s;
  }
  if (kind == "client" && op == "expire_send")
    return "record " + text(e.value("record", json())) + " ends " + text(e.value("outcome", json()));
  if (kind == "client" && op == "consume")
    return "read offset " + text(e.value("offset", json())) + ": " +
           (e.value("read", json()).is_null() ? std::string("nothing") : "record " + text(e["read"]));
  if (kind == "observe") return std::string("observation") + (e.value("condition_met", true) ? "" : " (not settled)");
  if (kind == "sample") return "sample";
  if (kind == "note") return "note: " + e.value("text", "");
  if (kind == "decision") {
    // The controller's committed decision (docs/campaign.md, "Decisions"): its record and
    // the partition after it; its row's time is none (the harness saw no commit).
    std::string s = "decision " + e.value("record_type", "") + " at metadata offset " +
                    text(e.value("metadata_offset", json()));
    if (op == "partition")
      s += ": leader " + text(e.value("leader", json())) + ", ISR " + text(e.value("isr", json()));
    else if (e.contains("broker"))
      s += ": broker " + text(e["broker"]);
    return s;
  }
  return kind;
}

// The cells the table shows for a state: partition, then per node.
std::vector<std::string> state_cells(const json& state, int nodes) {
  std::vector<std::string> cells;
  cells.push_back("L " + text(state.value("leader", json())) + " e" + text(state.value("leader_epoch", json("?"))));
  cells.push_back(list_text(state.value("isr", json())));
  cells.push_back(list_text(state.value("elr", json::array())));
  cells.push_back(text(state.value("hw", json())));
  const json replicas = state.value("replicas", json::object());
  for (int n = 0; n < nodes; ++n) {
    const json r = replicas.value(std::to_string(n), json());
    if (!r.is_object()) {
      cells.push_back("?");
      continue;
    }
    std::string c = r.value("alive", false) ? "" : "down ";
    c += "leo " + text(r.value("leo", json("?")));
    const json view = r.value("view", json());
    if (view.is_object()) c += " view L" + text(view.value("leader", json())) + "e" + text(view.value("leader_epoch", json()));
    cells.push_back(c);
  }
  return cells;
}

struct Interval {
  long long from, to;
  std::string what;
};

}  // namespace

std::string render_run_timeline(const json& header, const std::vector<json>& events, const json& summary) {
  const int nodes = 3;
  const json campaign = header.value("campaign", json::object());
  const json validation = summary.value("validation", json());
  const std::string verdict = validation.is_object() ? validation.value("verdict", "?") : "not validated";
  const int parted = verdict == "unexplained" || verdict == "incomplete" ? validation.value("event_seq", 0) : 0;
  std::ostringstream out;
  out << "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>campaign run "
      << html_escape(text(campaign.value("run", json()))) << "</title>" << kStyle << "</head><body>\n";
  out << "<h1>Campaign run " << html_escape(text(campaign.value("run", json()))) << "</h1>\n<p>Seed "
      << html_escape(text(campaign.value("seed", json()))) << ", Kafka " << html_escape(text(header.value("kafka_version", json())))
      << ", configuration <code>" << html_escape(campaign.value("config", json::object()).dump()) << "</code></p>\n";
  out << "<p>Faults injected: " << summary.value("faults_injected", 0) << "; records acked: "
      << html_escape(list_text(summary.value("acked", json::array()))) << "; read back: "
      << html_escape(list_text(summary.value("read_back", json::array()))) << "; <span class=\""
      << (summary.value("lost", json::array()).empty() ? "" : "lost") << "\">acked records lost: "
      << html_escape(list_text(summary.value("lost", json::array()))) << "</span>"
      << (summary.value("settled", false) ? "" : "; the partition did not settle within the final wait")
      << (summary.value("error", "").empty() ? "" : "; ended early: " + html_escape(summary.value("error", ""))) << "</p>\n";
  out << "<p>Model: <b class=\"verdict-" << html_escape(verdict) << "\">" << html_escape(verdict) << "</b>";
  if (parted > 0) {
    out << " at event " << parted << ": " << html_escape(validation.value("event", "")) << " &mdash; "
        << html_escape(validation.value("why", ""));
    const json diffs = validation.value("differences", json::array());
    if (!diffs.empty()) {
      out << "<ul>";
      for (const json& d : diffs) out << "<li>" << html_escape(text(d)) << "</li>";
      out << "</ul>";
    }
  } else if (verdict == "explained") {
    out << " (" << validation.value("events", 0) << " events, at most " << summary.value("max_internal", 0)
        << " internal model actions between two)";
  }
  out << "</p>\n";

  // The lane chart: faults as intervals per node, sends on the producer lane, samples'
  // leader and ISR as marks.
  long long end_ms = 1;
  for (const json& e : events) end_ms = std::max(end_ms, e.value("t_end_ms", 0LL));
  std::map<int, std::vector<Interval>> lanes;
  std::map<std::pair<int, std::string>, long long> open;
  auto start = [&](int node, const std::string& what, long long t) { open[{node, what}] = t; };
  auto stop = [&](int node, const std::string& what, long long t) {
    auto it = open.find({node, what});
    if (it == open.end()) return;
    lanes[node].push_back({it->second, t, what});
    open.erase(it);
  };
  for (const json& e : events) {
    if (e.value("kind", "") != "fault") continue;
    const int node = e.value("node", -1);
    const long long t = e.value("t_end_ms", 0LL);
    const std::string op = e.value("op", "");
    if (op == "crash") start(node, "down", t);
    else if (op == "restart") stop(node, "down", t);
    else if (op == "pause") start(node, "paused", t);
    else if (op == "resume") stop(node, "paused", t);
    else if (op == "cut") start(node, "cut " + e.value("side", ""), t);
    else if (op == "heal") stop(node, "cut " + e.value("side", ""), t);
  }
  for (const auto& [key, t] : open) lanes[key.first].push_back({t, end_ms, key.second});
  const int width = 1000, lane_h = 28, left = 80;
  const int height = lane_h * (nodes + 1) + 30;
  auto x = [&](long long t) { return left + static_cast<int>((width - left - 10) * t / end_ms); };
  out << "<h2>Lanes</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" role=\"img\" aria-label=\"run timeline\">\n";
  for (int n = 0; n < nodes; ++n) {
    const int y = 10 + n * lane_h;
    out << "<text x=\"4\" y=\"" << y + 16 << "\">N" << n << "</text><line x1=\"" << left << "\" x2=\"" << width - 10
        << "\" y1=\"" << y + 12 << "\" y2=\"" << y + 12 << "\" stroke=\"#ddd\"/>\n";
    for (const Interval& iv : lanes[n]) {
      const std::string colour = iv.what == "down" ? "#e55" : iv.what == "paused" ? "#f0a030" : "#a070e0";
      out << "<rect x=\"" << x(iv.from) << "\" y=\"" << y + 2 << "\" width=\"" << std::max(2, x(iv.to) - x(iv.from))
          << "\" height=\"20\" fill=\"" << colour << "\" opacity=\"0.6\"><title>N" << n << " " << html_escape(iv.what)
          << " " << iv.from << "-" << iv.to << " ms</title></rect>\n";
    }
  }
  const int py = 10 + nodes * lane_h;
  out << "<text x=\"4\" y=\"" << py + 16 << "\">producer</text>\n";
  for (const json& e : events) {
    const std::string kind = e.value("kind", "");
    const long long t = e.value("t_end_ms", 0LL);
    if (kind == "client" && (e.value("op", "") == "produce" || e.value("op", "") == "expire_send")) {
      const std::string o = e.value("outcome", "");
      const std::string colour = o == "acked" ? "#2a2" : o == "pending" ? "#999" : "#d33";
      out << "<circle cx=\"" << x(t) << "\" cy=\"" << py + 12 << "\" r=\"6\" fill=\"" << colour << "\"><title>"
          << html_escape(describe(e)) << "</title></circle><text x=\"" << x(t) - 3 << "\" y=\"" << py + 30 << "\">"
          << html_escape(text(e.value("record", json()))) << "</text>\n";
    } else if (kind == "sample" || kind == "observe") {
      const json s = e.value("state", json::object());
      const json isr = s.value("isr", json::array());
      const json elr = s.value("elr", json::array());
      for (int n = 0; n < nodes; ++n) {
        const int y = 10 + n * lane_h + 12;
        const bool in_isr = isr.is_array() && std::find(isr.begin(), isr.end(), json(n)) != isr.end();
        const bool in_elr = elr.is_array() && std::find(elr.begin(), elr.end(), json(n)) != elr.end();
        if (s.value("leader", json()) == json(n)) {
          out << "<text x=\"" << x(t) - 3 << "\" y=\"" << y + 4 << "\" font-weight=\"bold\">L</text>\n";
        } else if (in_isr || in_elr) {
          out << "<circle cx=\"" << x(t) << "\" cy=\"" << y << "\" r=\"3\" fill=\"" << (in_isr ? "#36c" : "none")
              << "\" stroke=\"#36c\"><title>" << (in_isr ? "in ISR" : "in ELR") << "</title></circle>\n";
        }
      }
    }
    if (parted > 0 && e.value("seq", 0) == parted) {
      out << "<line x1=\"" << x(t) << "\" x2=\"" << x(t) << "\" y1=\"0\" y2=\"" << height
          << "\" stroke=\"#b00\" stroke-width=\"2\"><title>the model and Kafka part here</title></line>\n";
    }
  }
  out << "<text x=\"" << left << "\" y=\"" << height - 2 << "\">0 ms</text><text x=\"" << width - 80 << "\" y=\""
      << height - 2 << "\">" << end_ms << " ms</text>\n</svg>\n";
  out << "<p>Red: down; orange: paused; purple: cut; L: the partition's leader at a sample or observation; filled dot: in "
         "the ISR; open dot: in the ELR. Producer: green acked, red an error, grey pending.</p>\n";

  // The event table.
  out << "<h2>Events</h2>\n<table><tr><th>seq</th><th>ms</th><th>event</th><th>leader</th><th>ISR</th><th>ELR</th>"
         "<th>HW</th>";
  for (int n = 0; n < nodes; ++n) out << "<th>N" << n << "</th>";
  out << "</tr>\n";
  std::vector<std::string> previous;
  for (const json& e : events) {
    const std::string kind = e.value("kind", "");
    const int seq = e.value("seq", 0);
    std::string cls = kind;
    if (seq == parted) cls += " parted";
    out << "<tr class=\"" << html_escape(cls) << "\"" << (seq == parted ? " id=\"parted\"" : "") << "><td>" << seq
        << "</td><td>" << (e.contains("t_start_ms") ? std::to_string(e.value("t_start_ms", 0LL)) : std::string())
        << "</td><td class=\"op\">" << html_escape(describe(e)) << "</td>";
    if (kind == "sample" || kind == "observe") {
      const std::vector<std::string> cells = state_cells(e.value("state", json::object()), nodes);
      for (std::size_t i = 0; i < cells.size(); ++i) {
        const bool changed = !previous.empty() && previous[i] != cells[i];
        out << "<td" << (changed ? " class=\"changed\"" : "") << ">" << html_escape(cells[i]) << "</td>";
      }
      previous = cells;
    } else {
      out << "<td colspan=\"" << 4 + nodes << "\"></td>";
    }
    out << "</tr>\n";
  }
  out << "</table>\n<p>Samples are not validated (the cluster moves while a describe runs, one request per broker); "
         "observations are.</p>\n</body></html>\n";
  return out.str();
}

std::string render_campaign_page(const json& campaign) {
  std::ostringstream out;
  out << "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>isrcheck campaign</title>" << kStyle
      << "</head><body>\n<h1>Fault campaign</h1>\n<p>Seed " << html_escape(text(campaign.value("seed", json())))
      << ", Kafka " << html_escape(text(campaign.value("kafka_version", json()))) << ", configuration <code>"
      << html_escape(campaign.value("config", json::object()).dump()) << "</code></p>\n";
  const json totals = campaign.value("totals", json::object());
  out << "<p>Runs: " << totals.value("runs", 0) << " (" << totals.value("explained", 0) << " explained, "
      << totals.value("unexplained", 0) << " unexplained, " << totals.value("incomplete", 0)
      << " incomplete or not validated); faults injected: " << totals.value("faults_injected", 0)
      << "; acked records checked: " << totals.value("acked", 0) << "; acked records lost: <span class=\""
      << (totals.value("lost", 0) > 0 ? "lost" : "") << "\">" << totals.value("lost", 0) << "</span>; wall time "
      << html_escape(text(totals.value("wall_seconds", json(0)))) << " s</p>\n";
  out << "<table><tr><th>run</th><th>seed</th><th>faults</th><th>acked</th><th>lost</th><th>settled</th>"
         "<th>model</th><th>where</th></tr>\n";
  // Runs the model cannot explain first, then runs that lost acked records, then the rest.
  const json all_runs = campaign.value("runs", json::array());
  std::vector<json> runs(all_runs.begin(), all_runs.end());
  auto rank = [](const json& r) {
    const std::string v = r.value("validation", json::object()).value("verdict", "");
    if (v == "unexplained") return 0;
    if (!r.value("lost", json::array()).empty()) return 1;
    return 2;
  };
  std::stable_sort(runs.begin(), runs.end(), [&](const json& a, const json& b) { return rank(a) < rank(b); });
  for (const json& r : runs) {
    const json v = r.value("validation", json::object());
    const std::string verdict = v.value("verdict", "not validated");
    const std::string page = r.value("page", "");
    out << "<tr><td><a href=\"" << html_escape(page) << "\">" << r.value("run", 0) << "</a></td><td>"
        << html_escape(text(r.value("seed", json()))) << "</td><td>" << r.value("faults_injected", 0) << "</td><td>"
        << html_escape(list_text(r.value("acked", json::array()))) << "</td><td class=\""
        << (r.value("lost", json::array()).empty() ? "" : "lost") << "\">"
        << html_escape(list_text(r.value("lost", json::array()))) << "</td><td>"
        << (r.value("settled", false) ? "yes" : "no") << "</td><td class=\"verdict-" << html_escape(verdict) << "\">"
        << html_escape(verdict) << "</td><td>"
        << (verdict == "unexplained" ? "event " + std::to_string(v.value("event_seq", 0)) + ": " +
                                           html_escape(v.value("event", ""))
                                     : html_escape(r.value("error", "")))
        << "</td></tr>\n";
  }
  out << "</table>\n</body></html>\n";
  return out.str();
}

}  // namespace isr::analysis
