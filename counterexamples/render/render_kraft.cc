// Rendering KRaft controller quorum traces (`--model kraft`, docs/kraft.md) in KRaft
// terms: per voter its process, role, epoch, vote, known leader, metadata log (entries
// epoch:writer), HW and, as leader, what it knows of the others; changes read as
// elections, votes, fetches and truncations; the violation names the voters at fault.
// Like every renderer it reads the trace JSON only (spec/kraft/kraft_describe.cc writes it).
// The per-voter words are shared with the cluster model's rendering (render_kraft.h).
#include "counterexamples/render/render_kraft.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "counterexamples/render/render_model.h"
#include "counterexamples/render/render_words.h"
#include "counterexamples/trace/json_diff.h"
#include "spec/kraft/kraft_properties.h"

namespace isr::counterexamples {

using nlohmann::json;

namespace {

std::string slice(const json& log, size_t from) {
  std::vector<std::string> parts;
  for (size_t i = from; log.is_array() && i < log.size(); ++i) parts.push_back(kraft_entry(log[i]));
  return join(parts, " ");
}

std::string process_text(const json& n) {
  std::string text = field(n, "alive") == false ? "down" : "up";
  if (field(n, "new_directory") == true) text += ", new disk";
  if (field(n, "voter") == false) text += ", observer";
  if (field(n, "cut") == true) text += ", cut off";
  return text;
}

std::string role_text(const json& n) {
  std::string role = scalar_text(field(n, "role"));
  if (field(n, "granted").is_array()) role += " (votes " + node_set_text(field(n, "granted")) + ")";
  return role;
}

// What a leader knows of the other voters: "start 1; N1@0 N2@1".
std::string leader_state_text(const json& n) {
  const json& state = field(n, "leader_state");
  if (!state.is_object()) return "-";
  std::string text = "start " + compact(field(state, "epoch_start_offset"));
  const json& ends = field(state, "end_offsets");
  std::vector<std::string> parts;
  for (size_t v = 0; ends.is_array() && v < ends.size(); ++v) {
    if (json(v) != field(n, "id")) parts.push_back("N" + std::to_string(v) + "@" + compact(ends[v]));
  }
  return parts.empty() ? text : text + "; " + join(parts, " ");
}

Cell plain(const json& value) { return {scalar_text(value), value.dump()}; }

}  // namespace

std::vector<Column> kraft_columns(const json& /*steps*/) {
  return {
      {"voter", [](const json& n) { return plain(json(node_name(field(n, "id")))); }},
      {"process", [](const json& n) {
         return Cell{process_text(n), field(n, "alive").dump() + field(n, "new_directory").dump() +
                                          field(n, "voter").dump() + field(n, "cut").dump()};
       }},
      {"role", [](const json& n) { return Cell{role_text(n), field(n, "role").dump() + field(n, "granted").dump()}; }},
      {"epoch", [](const json& n) { return plain(field(n, "epoch")); }},
      {"vote", [](const json& n) {
         const json& v = field(n, "voted_for");
         return Cell{v.is_null() ? "-" : node_name(v), v.dump()};
       }},
      {"leader", [](const json& n) {
         const json& l = field(n, "leader");
         return Cell{l.is_null() ? "-" : node_name(l), l.dump()};
       }},
      {"log (epoch:writer, | = HW)", [](const json& n) { return Cell{kraft_log(n), field(n, "log").dump()}; }},
      {"HW", [](const json& n) { return plain(field(n, "hw")); }},
      {"as leader (epoch start; voter@end offset)",
       [](const json& n) { return Cell{leader_state_text(n), field(n, "leader_state").dump()}; }},
  };
}

namespace {

void log_change(const std::string& who, const json& old_voter, const json& new_voter, const KraftVoterWords& words,
                std::vector<std::string>& out) {
  const json& before = field(old_voter, "log");
  const json& after = field(new_voter, "log");
  if (!before.is_array() || !after.is_array()) return;
  size_t common = 0;
  while (common < before.size() && common < after.size() && before[common] == after[common]) ++common;
  std::vector<std::string> parts;
  if (common < before.size()) {
    parts.push_back("truncated to offset " + std::to_string(common) + " (dropped " + words.entries(old_voter, common) + ")");
  }
  if (common < after.size()) {
    parts.push_back("appended " + words.entries(new_voter, common) + " at offset " + std::to_string(common));
  }
  if (!parts.empty()) out.push_back(who + join(parts, ", "));
}

// The role a voter moved to, with what it means in its epoch.
std::string role_words(const json& after) {
  const std::string role = scalar_text(field(after, "role"));
  const std::string epoch = compact(field(after, "epoch"));
  if (role == "candidate") return "candidate in epoch " + epoch + " (votes for itself)";
  if (role == "leader") return "elected leader of epoch " + epoch;
  if (role == "follower") return "follows " + node_name(field(after, "leader")) + " in epoch " + epoch;
  if (role == "voted") return "voted for " + node_name(field(after, "voted_for")) + " in epoch " + epoch;
  if (role == "unattached") return "unattached in epoch " + epoch;
  if (role == "resigned") return "resigned as leader of epoch " + epoch;
  return "now " + role;
}

void voter_change(const json& before, const json& after, const KraftVoterWords& words,
                  std::vector<std::string>& out) {
  const std::string who = words.subject(after) + ": ";
  const bool stopped = field(before, "alive") == true && field(after, "alive") == false;
  const bool started = field(before, "alive") == false && field(after, "alive") == true;
  std::set<std::string> handled = {"id", "alive", "role", "epoch", "voted_for", "leader", "log", "leo", "hw",
                                   "granted", "leader_state", "new_directory", "cut", "voter"};
  handled.insert(words.own_keys.begin(), words.own_keys.end());
  if (stopped) {
    const bool disk = field(after, "log").empty() && !field(before, "log").empty();
    out.push_back(who + (field(after, "new_directory") == true && field(before, "new_directory") != true
                             ? "crashed, disk lost (log and quorum-state file gone, new directory id)"
                         : disk ? "crashed, disk lost (log and quorum-state file gone)"
                                : "crashed (log and quorum-state file kept, in-memory state gone)"));
  } else if (started) {
    out.push_back(who + "restarted as " + role_words(after));
  } else {
    // A new role or a new epoch is said in the role's words ("voted for N1 in epoch 2"),
    // which already give the epoch and the vote or leader it implies.
    const bool role_changed = field(before, "role") != field(after, "role");
    const bool restated = role_changed || field(before, "epoch") != field(after, "epoch");
    if (restated) out.push_back(who + role_words(after));
    const std::string role = scalar_text(field(after, "role"));
    // "unattached" says there is no vote and no known leader in the new epoch.
    const bool implied = restated && role == "unattached";
    if (field(before, "voted_for") != field(after, "voted_for") && !implied &&
        !(restated && (role == "voted" || role == "candidate"))) {
      const json& vote = field(after, "voted_for");
      out.push_back(who + (vote.is_null() ? "has no vote in its epoch" : "vote " + node_name(vote)));
    }
    if (field(before, "leader") != field(after, "leader") && !implied &&
        !(restated && (role == "follower" || role == "leader"))) {
      const json& leader = field(after, "leader");
      out.push_back(who + (leader.is_null() ? "knows no leader" : "learned leader " + node_name(leader)));
    }
    if (field(before, "granted") != field(after, "granted") && field(after, "granted").is_array() &&
        !restated) {
      out.push_back(who + "has votes " + node_set_text(field(after, "granted")));
    }
  }
  if (field(before, "voter") != field(after, "voter")) {
    out.push_back(who + (field(after, "voter") == false ? "is an observer (not the voter whose disk it lost)"
                                                        : "is a voter again"));
  }
  if (field(before, "cut") != field(after, "cut")) {
    out.push_back(who + (field(after, "cut") == true ? "cut off from the other voters" : "reconnected"));
  }
  // A crash with a lost disk says the log is gone.
  if (!(stopped && field(after, "log").empty())) log_change(who, before, after, words, out);
  if (field(before, "hw") != field(after, "hw") && !stopped && !started) {
    out.push_back(who + "HW " + compact(field(before, "hw")) + " -> " + compact(field(after, "hw")));
  }
  const json& old_state = field(before, "leader_state");
  const json& new_state = field(after, "leader_state");
  if (old_state.is_object() && new_state.is_object()) {
    const json& old_ends = field(old_state, "end_offsets");
    const json& new_ends = field(new_state, "end_offsets");
    for (size_t v = 0; new_ends.is_array() && v < new_ends.size(); ++v) {
      if (old_ends.is_array() && v < old_ends.size() && old_ends[v] == new_ends[v]) continue;
      out.push_back(who + "sees N" + std::to_string(v) + " at end offset " + compact(new_ends[v]));
    }
  } else if (new_state.is_object()) {
    out.push_back(who + "epoch start offset " + compact(field(new_state, "epoch_start_offset")));
  }
  generic_changes(who, before, after, handled, out);
}

}  // namespace

void kraft_voter_changes(const json& before_voters, const json& after_voters, const KraftVoterWords& words,
                         std::vector<std::string>& out) {
  if (!before_voters.is_array() || !after_voters.is_array() || before_voters.size() != after_voters.size()) return;
  for (size_t i = 0; i < after_voters.size(); ++i) {
    if (before_voters[i] != after_voters[i]) voter_change(before_voters[i], after_voters[i], words, out);
  }
}

void kraft_election_changes(const json& before, const json& after, std::vector<std::string>& out) {
  const json& old_leaders = field(before, "leaders");
  const json& new_leaders = field(after, "leaders");
  if (new_leaders.is_object()) {
    for (const auto& [epoch, leaders] : new_leaders.items()) {
      if (field(old_leaders, epoch.c_str()) == leaders || !leaders.is_array() || leaders.size() < 2) continue;
      std::vector<std::string> names;
      for (const json& id : leaders) names.push_back(node_name(id));
      out.push_back("quorum: " + std::to_string(leaders.size()) + " leaders elected in epoch " + epoch + " (" +
                    join(names, ", ") + ")");
    }
  }
}

namespace {

void commit_changes(const json& before, const json& after, std::vector<std::string>& out) {
  const json& old_committed = field(before, "committed");
  const json& new_committed = field(after, "committed");
  if (old_committed != new_committed && new_committed.is_array()) {
    size_t common = 0;
    while (old_committed.is_array() && common < old_committed.size() && common < new_committed.size() &&
           old_committed[common] == new_committed[common]) {
      ++common;
    }
    if (common < new_committed.size()) {
      out.push_back("quorum: committed " + slice(new_committed, common) + " from offset " + std::to_string(common));
    }
  }
  if (field(before, "commit_conflict") != true && field(after, "commit_conflict") == true) {
    out.push_back("quorum: a HW now covers an entry different from one committed before");
  }
}

std::vector<std::string> kraft_changes(const json& before, const json& after) {
  std::vector<std::string> out;
  static const KraftVoterWords words = {
      [](const json& voter) { return "voter " + compact(field(voter, "id")); },
      [](const json& voter, size_t from) { return slice(field(voter, "log"), from); }, {}};
  kraft_voter_changes(field(before, "nodes"), field(after, "nodes"), words, out);
  kraft_election_changes(field(before, "history"), field(after, "history"), out);
  commit_changes(field(before, "history"), field(after, "history"), out);
  // Fault counters restate the actions; other sections no rule knows are shown as-is.
  json rest_before = before, rest_after = after;
  for (const char* key : {"nodes", "history", "faults"}) {
    if (rest_before.is_object()) rest_before.erase(key);
    if (rest_after.is_object()) rest_after.erase(key);
  }
  for (const JsonChange& change : json_diff(rest_before, rest_after)) {
    out.push_back(change.path + " " + compact(change.before) + " -> " + compact(change.after));
  }
  return out;
}

}  // namespace

std::string kraft_violation_reason(const std::string& property, const json& state) {
  // The explanation lives with the property (spec/kraft/kraft_properties.cc).
  return properties::explain_kraft(property, state);
}

namespace {

std::string kraft_violation(const json& trace) {
  const std::string property = scalar_text(field(trace, "property"));
  const json& steps = trace.at("steps");
  const std::string reason = kraft_violation_reason(property, steps.back().at("state"));
  const std::string sentence =
      "Property " + property + " is violated at step " + std::to_string(steps.size() - 1) + ": ";
  if (!reason.empty()) return sentence + reason + ".";
  const json& description = field(trace, "property_description");
  if (!description.is_string()) return sentence + "its predicate is false in the last state.";
  return sentence + "the last state breaks \"" + description.get<std::string>() + "\".";
}

}  // namespace

std::string kraft_node_lines(const json& state) {
  std::string out;
  for (const json& node : set_members(field(state, "nodes"))) {
    std::string line = node_name(field(node, "id")) + " " + process_text(node);
    if (field(node, "alive") != false) line += " " + role_text(node);
    line += " e" + compact(field(node, "epoch")) + " vote " + compact(field(node, "voted_for")) + " log " +
            kraft_log(node);
    out += line + "\n";
  }
  const std::vector<json> committed = set_members(field(field(state, "history"), "committed"));
  if (!committed.empty()) out += "committed: " + slice(field(field(state, "history"), "committed"), 0) + "\n";
  return out;
}

// The history the properties judge: who was elected in which epoch, what is committed.
std::string kraft_history_text(const json& value) {
  std::vector<std::string> elected;
  const json& leaders = field(value, "leaders");
  if (leaders.is_object()) {
    for (const auto& [epoch, ids] : leaders.items()) {
      std::vector<std::string> names;
      for (const json& id : set_members(ids)) names.push_back(node_name(id));
      elected.push_back("epoch " + epoch + " " + join(names, "+"));
    }
  }
  std::vector<std::string> committed;
  const std::vector<json> entries = set_members(field(value, "committed"));
  const std::vector<json> epochs = set_members(field(value, "committed_in"));
  for (size_t o = 0; o < entries.size(); ++o) {
    committed.push_back(kraft_entry(entries[o]) + (o < epochs.size() ? " (in epoch " + compact(epochs[o]) + ")" : ""));
  }
  std::string text = "elected " + (elected.empty() ? std::string("none") : join(elected, ", ")) + "; committed " +
                     (committed.empty() ? std::string("nothing") : join(committed, " "));
  if (field(value, "commit_conflict") == true) text += "; a HW covered an entry other than a committed one";
  return text;
}

namespace {

std::string kraft_section(const std::string& key, const json& value, const json& /*state*/) {
  return key == "history" ? kraft_history_text(value) : std::string();
}

}  // namespace

const ModelRendering& kraft_rendering() {
  static const ModelRendering rendering = {
      kraft_columns, kraft_changes, kraft_violation, kraft_entry, kraft_node_lines, kraft_section,
      "log entries are epoch:writer (the leader that wrote the batch), | marks the high watermark",
      /*client_lanes=*/false, "Quorum", {}};
  return rendering;
}

}  // namespace isr::counterexamples
