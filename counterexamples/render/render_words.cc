// The vocabulary the renderers share (see render_words.h).
#include "counterexamples/render/render_words.h"

#include <algorithm>
#include <set>

#include "counterexamples/trace/json_diff.h"
#include "spec/partition/properties/catalog.h"

namespace isr::counterexamples {

using nlohmann::json;

namespace {

std::string arrow(const json& before, const json& after) {
  return compact(before) + " -> " + compact(after);
}

}  // namespace

void generic_changes(const std::string& prefix, const json& before, const json& after,
                     const std::set<std::string>& handled, std::vector<std::string>& out) {
  json rest_before = before.is_object() ? before : json::object();
  json rest_after = after.is_object() ? after : json::object();
  for (const std::string& key : handled) {
    rest_before.erase(key);
    rest_after.erase(key);
  }
  for (const JsonChange& change : json_diff(rest_before, rest_after)) {
    std::string what = change.path.empty() ? std::string() : change.path + " ";
    if (change.added) {
      out.push_back(prefix + what + "= " + compact(change.after));
    } else if (change.removed) {
      out.push_back(prefix + what + "removed (was " + compact(change.before) + ")");
    } else {
      out.push_back(prefix + what + arrow(change.before, change.after));
    }
  }
}

namespace {

// "N1,N2" for the members of `a` that `b` lacks.
std::string set_minus_text(const json& a, const json& b) {
  std::vector<std::string> names;
  const std::vector<json> others = set_members(b);
  for (const json& member : set_members(a)) {
    if (std::find(others.begin(), others.end(), member) == others.end()) {
      names.push_back(node_name(member));
    }
  }
  return join(names, ",");
}

std::string log_slice(const json& log, size_t from) {
  std::vector<std::string> parts;
  for (size_t i = from; i < log.size(); ++i) parts.push_back(entry_text(log[i]));
  return join(parts, " ");
}

void describe_log_change(const std::string& who, const json& before, const json& after,
                         std::vector<std::string>& out) {
  if (!before.is_array() || !after.is_array()) {
    out.push_back(who + "log " + arrow(before, after));
    return;
  }
  size_t common = 0;
  while (common < before.size() && common < after.size() && before[common] == after[common]) {
    ++common;
  }
  std::vector<std::string> parts;
  if (common < before.size()) {
    parts.push_back("truncated to offset " + std::to_string(common) + " (dropped " +
                    log_slice(before, common) + ")");
  }
  if (common < after.size()) {
    parts.push_back("appended " + log_slice(after, common) + " at offset " +
                    std::to_string(common));
  }
  out.push_back(who + join(parts, ", "));
}

void describe_view_change(const std::string& who, const json& before, const json& after,
                          bool stopped, std::vector<std::string>& out) {
  if (before == after) return;
  if (after.is_null()) {
    // A stopped broker forgets its metadata: part of the crash, not news.
    if (!stopped) out.push_back(who + "has no metadata view any more");
    return;
  }
  if (before.is_null() && after.is_object()) {
    out.push_back(who + "learned metadata (leader " + node_name(field(after, "leader")) +
                  ", leader epoch " + compact(field(after, "leader_epoch")) + ", partition epoch " +
                  compact(field(after, "partition_epoch")) + ", ISR " +
                  node_set_text(field(after, "isr")) + ")");
    return;
  }
  if (!before.is_object() || !after.is_object()) {
    out.push_back(who + "metadata view " + arrow(before, after));
    return;
  }
  std::vector<std::string> parts;
  if (field(before, "leader") != field(after, "leader")) {
    parts.push_back("leader " + node_name(field(before, "leader")) + " -> " +
                    node_name(field(after, "leader")));
  }
  if (field(before, "leader_epoch") != field(after, "leader_epoch")) {
    parts.push_back("leader epoch " + arrow(field(before, "leader_epoch"), field(after, "leader_epoch")));
  }
  if (field(before, "partition_epoch") != field(after, "partition_epoch")) {
    parts.push_back("partition epoch " +
                    arrow(field(before, "partition_epoch"), field(after, "partition_epoch")));
  }
  if (field(before, "isr") != field(after, "isr")) {
    parts.push_back("ISR " + node_set_text(field(before, "isr")) + " -> " +
                    node_set_text(field(after, "isr")));
  }
  std::vector<std::string> rest;
  generic_changes("", before, after, {"leader", "leader_epoch", "partition_epoch", "isr"}, rest);
  parts.insert(parts.end(), rest.begin(), rest.end());
  if (!parts.empty()) out.push_back(who + "learned metadata (" + join(parts, ", ") + ")");
}

void describe_leader_state_change(const std::string& who, const json& before, const json& after,
                                  std::vector<std::string>& out) {
  if (before == after) return;
  if (!after.is_object()) {
    if (before.is_object()) out.push_back(who + "no longer tracks followers (not leader)");
    return;
  }
  const json empty = json::object();
  const json& old = before.is_object() ? before : empty;
  if (field(old, "epoch_start_offset") != field(after, "epoch_start_offset")) {
    out.push_back(who + "epoch start offset " + compact(field(after, "epoch_start_offset")));
  }
  const json& old_alter = field(old, "alter_partition");
  const json& new_alter = field(after, "alter_partition");
  if (old_alter != new_alter) {
    if (new_alter.is_null()) {
      out.push_back(who + "AlterPartition answered");
    } else {
      out.push_back(who + "sent AlterPartition(ISR " + node_set_text(new_alter) + ")");
    }
  }
  const json& old_followers = field(old, "followers");
  const json& new_followers = field(after, "followers");
  // A new leader's fresh follower table is bookkeeping, not news.
  if (new_followers.is_array() && before.is_object()) {
    for (const json& follower : new_followers) {
      const json* previous = nullptr;
      if (old_followers.is_array()) {
        for (const json& candidate : old_followers) {
          if (field(candidate, "node") == field(follower, "node")) previous = &candidate;
        }
      }
      if (previous != nullptr && *previous == follower) continue;
      std::string phrase = who + "sees follower " + node_name(field(follower, "node"));
      if (!field(follower, "fetch_offset").is_null()) {
        phrase += " at offset " + compact(field(follower, "fetch_offset"));
      }
      out.push_back(phrase);
    }
  }
  generic_changes(who, old, after, {"epoch_start_offset", "alter_partition", "followers"}, out);
}

// `stopped`: the node went down in this step, which explains the loss of its role.
void describe_replica_change(const std::string& who, const json& before, const json& after,
                             bool stopped, std::vector<std::string>& out) {
  if (before == after) return;
  if (!before.is_object() || !after.is_object()) {
    out.push_back(who + (after.is_object() ? "replica created" : "replica removed"));
    return;
  }
  const bool role_changed = field(before, "role") != field(after, "role");
  if (role_changed) {
    const std::string role = scalar_text(field(after, "role"));
    if (role != "none") out.push_back(who + "now " + role);
    else if (!stopped) out.push_back(who + "no longer " + scalar_text(field(before, "role")));
  }
  const bool log_changed = field(before, "log") != field(after, "log");
  if (log_changed) describe_log_change(who, field(before, "log"), field(after, "log"), out);
  if (!log_changed && field(before, "leo") != field(after, "leo")) {
    out.push_back(who + "LEO " + arrow(field(before, "leo"), field(after, "leo")));
  }
  if (field(before, "hw") != field(after, "hw")) {
    out.push_back(who + "HW " + arrow(field(before, "hw"), field(after, "hw")));
  }
  if (field(before, "hw_checkpoint") != field(after, "hw_checkpoint")) {
    out.push_back(who + "HW checkpoint " +
                  arrow(field(before, "hw_checkpoint"), field(after, "hw_checkpoint")));
  }
  if (field(before, "flushed") != field(after, "flushed")) {
    out.push_back(who + "flushed " + arrow(field(before, "flushed"), field(after, "flushed")));
  }
  describe_view_change(who, field(before, "view"), field(after, "view"), stopped, out);
  if (field(before, "needs_truncation") != field(after, "needs_truncation")) {
    out.push_back(who + (field(after, "needs_truncation") == true
                             ? "must reconcile its log with the leader before fetching"
                             : "log reconciled with the leader"));
  }
  // Losing the follower table goes with losing leadership, already said.
  if (!(role_changed && field(after, "leader_state").is_null())) {
    describe_leader_state_change(who, field(before, "leader_state"), field(after, "leader_state"),
                                 out);
  }
  const json& old_response = field(before, "fetch_response");
  const json& new_response = field(after, "fetch_response");
  if (old_response != new_response) {
    if (new_response.is_null()) {
      out.push_back(who + "handled its fetch response");
    } else {
      out.push_back(who + "got " + in_flight_text(after));
    }
  }
  generic_changes(who, before, after,
                  {"role", "log", "leo", "hw", "hw_checkpoint", "flushed", "view",
                   "needs_truncation", "leader_state", "fetch_response"},
                  out);
}

void describe_node_change(const json& before, const json& after, std::vector<std::string>& out) {
  const json& id = after.contains("id") ? after["id"] : before["id"];
  const std::string who = "node " + compact(id) + ": ";
  const json& was_alive = field(before, "alive");
  const json& is_alive = field(after, "alive");
  if (was_alive == true && is_alive == false) {
    out.push_back(who + stop_words(field(after, "last_stop")));
  } else if (was_alive == false && is_alive == true) {
    out.push_back(who + "restarted");
  } else if (field(before, "last_stop") != field(after, "last_stop")) {
    out.push_back(who + "last stop " + arrow(field(before, "last_stop"), field(after, "last_stop")));
  }
  if (field(before, "broker_epoch") != field(after, "broker_epoch")) {
    out.push_back(who + "broker epoch " +
                  arrow(field(before, "broker_epoch"), field(after, "broker_epoch")));
  }
  const json& old_cut = field(before, "cut");
  const json& new_cut = field(after, "cut");
  if (old_cut != new_cut) {
    std::vector<std::string> sides_cut, sides_healed;
    for (const json& side : set_members(new_cut)) {
      if (!old_cut.is_array() || std::find(old_cut.begin(), old_cut.end(), side) == old_cut.end())
        sides_cut.push_back(scalar_text(side));
    }
    for (const json& side : set_members(old_cut)) {
      if (std::find(new_cut.begin(), new_cut.end(), side) == new_cut.end())
        sides_healed.push_back(scalar_text(side));
    }
    if (!sides_cut.empty()) out.push_back(who + "cut off from " + join(sides_cut, ", "));
    if (!sides_healed.empty()) out.push_back(who + "reconnected to " + join(sides_healed, ", "));
  }
  describe_replica_change(who, field(before, "replica"), field(after, "replica"),
                          was_alive == true && is_alive == false, out);
  generic_changes(who, before, after,
                  {"id", "alive", "last_stop", "broker_epoch", "cut", "replica"}, out);
}

void describe_controller_change(const json& before, const json& after,
                                std::vector<std::string>& out) {
  const std::string who = "controller: ";
  if (field(before, "active") != field(after, "active")) {
    out.push_back(who + node_name(field(after, "active")) + " is the active controller");
  }
  if (field(before, "quorum") != field(after, "quorum")) {
    out.push_back(who + (field(after, "quorum") == true ? "quorum regained"
                                                         : "quorum LOST (no metadata change can commit)"));
  }
  const bool leader_changed = field(before, "leader") != field(after, "leader");
  const bool epoch_changed = field(before, "leader_epoch") != field(after, "leader_epoch");
  if (leader_changed) {
    out.push_back(who + "leader " + node_name(field(before, "leader")) + " -> " +
                  node_name(field(after, "leader")) + " (leader epoch " +
                  compact(field(after, "leader_epoch")) + ")");
  } else if (epoch_changed) {
    out.push_back(who + "leader epoch " +
                  arrow(field(before, "leader_epoch"), field(after, "leader_epoch")));
  }
  if (field(before, "partition_epoch") != field(after, "partition_epoch")) {
    out.push_back(who + "partition epoch " +
                  arrow(field(before, "partition_epoch"), field(after, "partition_epoch")));
  }
  for (const char* key : {"isr", "elr", "last_known_elr"}) {
    if (field(before, key) != field(after, key)) {
      std::string label = key == std::string("isr") ? "ISR"
                          : key == std::string("elr") ? "ELR" : "LastKnownELR";
      out.push_back(who + label + " " + node_set_text(field(before, key)) + " -> " +
                    node_set_text(field(after, key)));
    }
  }
  if (field(before, "fenced") != field(after, "fenced")) {
    const std::string fenced = set_minus_text(field(after, "fenced"), field(before, "fenced"));
    const std::string unfenced = set_minus_text(field(before, "fenced"), field(after, "fenced"));
    if (!fenced.empty()) out.push_back(who + "fenced " + fenced);
    if (!unfenced.empty()) out.push_back(who + "unfenced " + unfenced);
  }
  if (field(before, "unclean_elected") != field(after, "unclean_elected") &&
      field(after, "unclean_elected") == true) {
    out.push_back(who + "UNCLEAN election: a replica outside ISR and ELR became leader");
  }
  generic_changes(who, before, after,
                  {"active", "quorum", "leader", "leader_epoch", "partition_epoch", "isr", "elr",
                   "last_known_elr", "fenced", "unclean_elected"},
                  out);
}

void describe_producer_change(const json& before, const json& after,
                              std::vector<std::string>& out) {
  const json& old_outcomes = field(before, "outcomes");
  const json& new_outcomes = field(after, "outcomes");
  bool outcome_changed = false;
  if (new_outcomes.is_object()) {
    for (const auto& [record, outcome] : new_outcomes.items()) {
      const json& previous = field(old_outcomes, record.c_str());
      if (previous == outcome) continue;
      outcome_changed = true;
      out.push_back("record " + record + ": " + outcome_words(scalar_text(outcome)));
    }
  }
  if (field(before, "retries") != field(after, "retries")) {
    out.push_back("producer: retry (retries " + compact(field(after, "retries")) + ")");
  }
  std::set<std::string> handled = {"outcomes", "retries"};
  // The current record follows from the outcome that changed with it.
  if (outcome_changed) handled.insert("current");
  generic_changes("producer: ", before, after, handled, out);
}

void describe_consumer_change(const json& before, const json& after,
                              std::vector<std::string>& out) {
  const json& old_read = field(before, "read");
  const json& new_read = field(after, "read");
  std::set<std::string> handled;
  if (old_read.is_array() && new_read.is_array() && old_read != new_read) {
    handled = {"read", "position"};
    size_t common = 0;
    while (common < old_read.size() && common < new_read.size() &&
           old_read[common] == new_read[common]) {
      ++common;
    }
    for (size_t offset = common; offset < new_read.size(); ++offset) {
      out.push_back("consumer: read record " + compact(new_read[offset]) + " at offset " +
                    std::to_string(offset));
    }
    if (common < old_read.size()) {
      out.push_back("consumer: history " + arrow(old_read, new_read));
    }
  }
  generic_changes("consumer: ", before, after, handled, out);
}



}  // namespace


std::string stop_words(const json& last_stop) {
  const std::string kind = scalar_text(last_stop);
  if (kind == "clean") return "shut down cleanly (controlled shutdown)";
  if (kind == "kill") return "crashed (kill -9: process gone, page cache kept)";
  if (kind == "power") return "crashed (power loss: unflushed suffix lost)";
  if (kind == "disk") return "crashed (disk lost: log and checkpoints gone)";
  return "stopped";
}

std::string cut_text(const json& cut) {
  if (!cut.is_array()) return compact(cut);
  if (cut.empty()) return "-";
  std::vector<std::string> sides;
  for (const json& side : cut) sides.push_back(compact(side));
  return join(sides, ",");
}

std::string in_flight_text(const json& replica) {
  std::vector<std::string> parts;
  const json& response = field(replica, "fetch_response");
  if (response.is_object()) {
    const std::string kind = scalar_text(field(response, "kind"));
    std::string text = "fetch response from " + node_name(field(response, "leader")) + ": ";
    if (kind == "data") {
      const json& entry = field(response, "entry");
      text += entry.is_null() ? "no records" : entry_text(entry) + " @" + compact(field(response, "offset"));
      text += ", leader HW " + compact(field(response, "leader_hw"));
    } else if (kind == "out-of-range") {
      text += "offset out of range (leader LEO " + compact(field(response, "leader_leo")) + ")";
    } else if (kind == "fenced") {
      text += "fenced (epoch " + compact(field(response, "leader_epoch")) + " is stale)";
    } else {
      text += compact(response);
    }
    parts.push_back(text);
  }
  const json& alter = field(field(replica, "leader_state"), "alter_partition");
  if (!alter.is_null()) parts.push_back("AlterPartition(ISR " + node_set_text(alter) + ")");
  return parts.empty() ? "-" : join(parts, "; ");
}

std::string outcome_words(const std::string& outcome) {
  if (outcome == "acked") return "acked";
  if (outcome == "in-flight") return "sent, waiting for acks";
  if (outcome == "not-enough-replicas") return "rejected with NOT_ENOUGH_REPLICAS";
  if (outcome == "not-enough-replicas-after-append")
    return "failed with NOT_ENOUGH_REPLICAS_AFTER_APPEND (but appended)";
  if (outcome == "timed-out") return "timed out (REQUEST_TIMED_OUT: outcome unknown)";
  if (outcome == "not-leader") return "failed with NOT_LEADER_OR_FOLLOWER";
  if (outcome == "retrying") return "retrying inside the client (a retriable error the application does not see)";
  return outcome;
}

std::vector<std::string> describe_changes(const json& before, const json& after) {
  std::vector<std::string> out;
  const json& old_nodes = field(before, "nodes");
  const json& new_nodes = field(after, "nodes");
  std::set<std::string> handled;
  if (old_nodes.is_array() && new_nodes.is_array() && old_nodes.size() == new_nodes.size()) {
    handled.insert("nodes");
    for (size_t i = 0; i < new_nodes.size(); ++i) {
      if (old_nodes[i] != new_nodes[i]) describe_node_change(old_nodes[i], new_nodes[i], out);
    }
  }
  if (field(before, "controller") != field(after, "controller")) {
    describe_controller_change(field(before, "controller"), field(after, "controller"), out);
  }
  if (field(before, "producer") != field(after, "producer")) {
    describe_producer_change(field(before, "producer"), field(after, "producer"), out);
  }
  if (field(before, "consumer") != field(after, "consumer")) {
    describe_consumer_change(field(before, "consumer"), field(after, "consumer"), out);
  }
  // Fault counters follow from the actions themselves: repeating them is noise.
  handled.insert({"controller", "producer", "consumer", "faults"});
  generic_changes("", before, after, handled, out);
  return out;
}

std::vector<std::string> group_changes(const std::vector<std::string>& phrases) {
  std::vector<std::string> groups;
  std::string subject;  // "node 1", "controller", ... of the last group
  for (const std::string& phrase : phrases) {
    const size_t colon = phrase.find(": ");
    const std::string this_subject = colon == std::string::npos ? std::string() : phrase.substr(0, colon);
    if (!groups.empty() && !this_subject.empty() && this_subject == subject) {
      groups.back() += ", " + phrase.substr(colon + 2);
    } else {
      groups.push_back(phrase);
      subject = this_subject;
    }
  }
  return groups;
}

std::string violation_sentence(const json& trace) {
  const std::string property = scalar_text(field(trace, "property"));
  const json& steps = trace.at("steps");
  const json& state = steps.back().at("state");
  // The explanation lives with the property (spec/partition/properties/); the catalog is asked by name.
  std::string reason = properties::explain(property, state);
  std::string sentence = "Property " + property + " is violated at step " +
                         std::to_string(steps.size() - 1) + ": ";
  if (!reason.empty()) return sentence + reason + ".";
  const json& description = field(trace, "property_description");
  if (!description.is_string()) return sentence + "its predicate is false in the last state.";
  return sentence + "the last state breaks \"" + description.get<std::string>() + "\".";
}

std::vector<std::string> config_lines(const json& config) {
  std::vector<std::string> lines;
  std::vector<std::string> key;
  std::set<std::string> shown;
  auto take = [&](const char* name, const std::string& label) {
    if (!config.contains(name)) return;
    shown.insert(name);
    key.push_back(label + " " + scalar_text(config[name]));
  };
  take("replication_factor", "RF");
  take("min_insync_replicas", "min ISR");
  take("acks", "acks");
  take("protocol", "protocol");
  take("unclean_leader_election", "unclean election");
  take("eligible_leader_replicas", "ELR");
  const json& controller = field(config, "controller");
  if (controller.is_object()) {
    shown.insert("controller");
    std::string placement = "placement " + scalar_text(field(controller, "placement"));
    if (controller.contains("voters")) placement += " (" + compact(controller["voters"]) + " voters)";
    key.push_back(placement);
  }
  take("flush", "flush");
  take("brokers", "brokers");
  take("idempotence", "idempotence");
  take("consumer", "consumer");
  if (!key.empty()) lines.push_back("config: " + join(key, ", "));

  auto budget_line = [&](const char* name, const std::string& label) {
    const json& section = field(config, name);
    if (!section.is_object()) return;
    shown.insert(name);
    std::vector<std::string> parts;
    for (const auto& [k, v] : section.items()) {
      std::string words = k.rfind("max_", 0) == 0 ? k.substr(4) : k;
      std::replace(words.begin(), words.end(), '_', ' ');
      parts.push_back(words + " " + compact(v));
    }
    lines.push_back(label + ": " + join(parts, ", "));
  };
  budget_line("faults", "fault budget");
  budget_line("bounds", "bounds");
  budget_line("kraft", "KRaft bounds");  // the cluster model's quorum

  const json& fixes = field(config, "fixes");
  if (fixes.is_object()) {
    shown.insert("fixes");
    std::vector<std::string> off;
    for (const auto& [k, v] : fixes.items()) {
      if (v == false) off.push_back(k);
    }
    if (!off.empty()) lines.push_back("fixes off: " + join(off, ", "));
  }
  if (config.contains("properties")) shown.insert("properties");
  std::vector<std::string> rest;
  for (const auto& [k, v] : config.items()) {
    if (shown.count(k) != 0) continue;
    // Nested settings read as dotted keys, as `--set` takes them, not as JSON.
    if (v.is_object() && !v.empty()) {
      for (const auto& [sub, value] : v.items()) rest.push_back(k + "." + sub + "=" + compact(value));
    } else {
      rest.push_back(k + "=" + compact(v));
    }
  }
  if (!rest.empty()) lines.push_back("other: " + join(rest, ", "));
  return lines;
}

}  // namespace isr::counterexamples
