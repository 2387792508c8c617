// Rendering traces of the composed cluster model (`--model cluster`, docs/cluster.md) for
// people: the partition part as the partition model's rendering shows it, the KRaft
// quorum as a table of voters in KRaft terms (render_kraft.h), and the metadata records
// the controllers append: which decision, appended by which controller, committed or
// not. Changes read in protocol words: "controller N2: appended AlterPartition record
// PartitionChange(ISR [0,1] -> [0], partition epoch 0 -> 1) at offset 1", "quorum:
// committed offset 1 (AlterPartition record): brokers may now see partition epoch 1".
// Reads the JSON of spec/cluster/cluster_describe.cc only.
#include <algorithm>
#include <string>
#include <vector>

#include "counterexamples/render/render_kraft.h"
#include "counterexamples/render/render_model.h"
#include "counterexamples/render/render_words.h"
#include "counterexamples/trace/json_diff.h"
#include "spec/cluster/cluster_properties.h"

namespace isr::counterexamples {

using nlohmann::json;

namespace {

// --- metadata records --------------------------------------------------------------

const json* record_by_id(const json& state, const json& id) {
  const json& records = field(field(state, "metadata"), "records");
  if (!records.is_array() || id.is_null()) return nullptr;
  for (const json& record : records) {
    if (field(record, "id") == id) return &record;
  }
  return nullptr;
}

// A record's identity across steps: its ids are renumbered as logs change.
bool same_record(const json& a, const json& b) {
  return field(a, "decision") == field(b, "decision") && field(a, "image") == field(b, "image");
}

void changed(const char* label, const json& before, const json& after, std::vector<std::string>& parts) {
  if (before == after) return;
  const bool nodes = std::string(label) == "leader";
  const auto text = [&](const json& v) { return nodes ? node_name(v) : v.is_array() ? node_set_text(v) : compact(v); };
  parts.push_back(std::string(label) + " " + text(before) + " -> " + text(after));
}

// What a record changes in the controller image, in the words of the Kafka records
// that carry it: PartitionChangeRecord, RegisterBrokerRecord,
// BrokerRegistrationChangeRecord. Without the image before it, the image after.
std::string image_change_words(const json* base, const json& image) {
  if (base == nullptr) {
    return "PartitionChange(leader " + node_name(field(image, "leader")) + ", leader epoch " +
           compact(field(image, "leader_epoch")) + ", ISR " + node_set_text(field(image, "isr")) +
           ", partition epoch " + compact(field(image, "partition_epoch")) + ")";
  }
  std::vector<std::string> records;
  std::vector<std::string> partition;
  changed("leader", field(*base, "leader"), field(image, "leader"), partition);
  changed("leader epoch", field(*base, "leader_epoch"), field(image, "leader_epoch"), partition);
  changed("ISR", field(*base, "isr"), field(image, "isr"), partition);
  changed("ELR", field(*base, "elr"), field(image, "elr"), partition);
  changed("LastKnownELR", field(*base, "last_known_elr"), field(image, "last_known_elr"), partition);
  changed("partition epoch", field(*base, "partition_epoch"), field(image, "partition_epoch"), partition);
  if (field(image, "unclean_elected") == true && field(*base, "unclean_elected") != true) {
    partition.push_back("unclean election");
  }
  if (!partition.empty()) records.push_back("PartitionChange(" + join(partition, ", ") + ")");
  const std::vector<json> old_epochs = set_members(field(*base, "registered_epochs"));
  const std::vector<json> new_epochs = set_members(field(image, "registered_epochs"));
  for (size_t n = 0; n < new_epochs.size(); ++n) {
    if (n < old_epochs.size() && old_epochs[n] == new_epochs[n]) continue;
    records.push_back("RegisterBroker(N" + std::to_string(n) + ", broker epoch " +
                      (n < old_epochs.size() ? compact(old_epochs[n]) + " -> " : "") + compact(new_epochs[n]) + ")");
  }
  const std::vector<json> old_fenced = set_members(field(*base, "fenced"));
  const std::vector<json> new_fenced = set_members(field(image, "fenced"));
  for (const json& n : new_fenced) {
    if (std::find(old_fenced.begin(), old_fenced.end(), n) == old_fenced.end()) {
      records.push_back("BrokerRegistrationChange(" + node_name(n) + " fenced)");
    }
  }
  for (const json& n : old_fenced) {
    if (std::find(new_fenced.begin(), new_fenced.end(), n) == new_fenced.end()) {
      records.push_back("BrokerRegistrationChange(" + node_name(n) + " unfenced)");
    }
  }
  return records.empty() ? "no change to the image" : join(records, " + ");
}

// The image a record at `offset` of this voter's log was decided against: the image of
// the record before it in the same log, else (only LeaderChange records before it) the
// committed image when nothing at or after `offset` is committed yet; null if unknown.
const json* base_image(const json& state, const json& voter, size_t offset) {
  const std::vector<json> ids = set_members(field(voter, "records"));
  for (size_t o = offset; o-- > 0;) {
    if (o < ids.size() && !ids[o].is_null()) {
      const json* record = record_by_id(state, ids[o]);
      return record != nullptr ? &field(*record, "image") : nullptr;
    }
  }
  const json& metadata = field(state, "metadata");
  if (properties::integer_or(field(metadata, "committed_offset"), 0) <= static_cast<long long>(offset)) {
    return &field(metadata, "committed");
  }
  return nullptr;
}

// The entry at `offset` of a voter's log as the metadata it carries.
std::string entry_words(const json& state, const json& voter, size_t offset) {
  const std::vector<json> ids = set_members(field(voter, "records"));
  const std::vector<json> log = set_members(field(voter, "log"));
  const json epoch = offset < log.size() && log[offset].is_array() ? log[offset][0] : json();
  if (offset >= ids.size() || ids[offset].is_null()) return "LeaderChange of epoch " + compact(epoch);
  const json* record = record_by_id(state, ids[offset]);
  if (record == nullptr) return "record " + compact(ids[offset]);
  return scalar_text(field(*record, "decision")) + " record " +
         image_change_words(base_image(state, voter, offset), field(*record, "image"));
}

// --- the quorum in node names --------------------------------------------------------

json node_of(const std::vector<json>& nodes, const json& voter) {
  if (!voter.is_number_integer()) return voter;
  const long long v = voter.get<long long>();
  return v >= 0 && v < static_cast<long long>(nodes.size()) && !nodes[v].is_null() ? nodes[v] : voter;
}

// The quorum section with every voter named by the node hosting it (voter v is node v
// when placement is combined, node brokers+v when dedicated) and each log entry's
// metadata record in words ("entry_words", one per offset).
json quorum_view(const json& state) {
  json quorum = field(state, "quorum");
  if (!quorum.is_object() || !field(quorum, "nodes").is_array()) return quorum;
  std::vector<json> nodes;
  for (const json& voter : quorum["nodes"]) nodes.push_back(field(voter, "node"));
  for (json& voter : quorum["nodes"]) {
    json words = json::array();
    for (size_t o = 0; o < field(voter, "log").size(); ++o) words.push_back(entry_words(state, voter, o));
    voter["entry_words"] = std::move(words);
    for (const char* key : {"id", "leader", "voted_for"}) {
      if (voter.contains(key)) voter[key] = node_of(nodes, voter[key]);
    }
    if (field(voter, "granted").is_array()) {
      for (json& id : voter["granted"]) id = node_of(nodes, id);
    }
    if (field(voter, "log").is_array()) {
      for (json& entry : voter["log"]) {
        if (entry.is_array() && entry.size() == 2) entry[1] = node_of(nodes, entry[1]);
      }
    }
  }
  json& history = quorum["history"];
  if (field(history, "leaders").is_object()) {
    for (auto& [epoch, ids] : history["leaders"].items()) {
      if (!ids.is_array()) continue;
      for (json& id : ids) id = node_of(nodes, id);
    }
  }
  if (field(history, "committed").is_array()) {
    for (json& entry : history["committed"]) {
      if (entry.is_array() && entry.size() == 2) entry[1] = node_of(nodes, entry[1]);
    }
  }
  return quorum;
}

json voter_rows(const json& state) { return field(quorum_view(state), "nodes"); }

std::vector<Column> voter_columns(const json& steps) {
  std::vector<Column> columns = kraft_columns(steps);
  columns.push_back({"metadata records", [](const json& voter) {
                       std::vector<std::string> parts;
                       const std::vector<json> ids = set_members(field(voter, "records"));
                       const std::vector<json> words = set_members(field(voter, "entry_words"));
                       for (size_t o = 0; o < ids.size(); ++o) {
                         if (ids[o].is_null()) continue;
                         const std::string text = o < words.size() ? scalar_text(words[o]) : compact(ids[o]);
                         parts.push_back(std::to_string(o) + ": " + text.substr(0, text.find(' ')));
                       }
                       const std::string text = parts.empty() ? "-" : join(parts, ", ");
                       return Cell{text, text};
                     }});
  return columns;
}

std::string voter_subject(const json& voter) {
  if (field(voter, "role") == "leader" && field(voter, "alive") != false) {
    return "controller " + node_name(field(voter, "id"));
  }
  return "voter " + compact(field(voter, "id"));
}

std::string voter_entries(const json& voter, size_t from) {
  std::vector<std::string> parts;
  const std::vector<json> words = set_members(field(voter, "entry_words"));
  for (size_t o = from; o < words.size(); ++o) parts.push_back(scalar_text(words[o]));
  return join(parts, ", ");
}

// --- what changed --------------------------------------------------------------------

// The committed records of this step: what brokers may now see, and the answers the
// controller owed until then.
void commit_changes(const json& before, const json& after, std::vector<std::string>& out) {
  // An offset is only ever committed within some voter's log: bound the loop by the
  // longest log in the trace, not by what the trace claims (a hand-edited 2^31 would
  // write a line per offset).
  size_t longest = 0;
  for (const json& voter : set_members(field(field(after, "quorum"), "nodes")))
    longest = std::max(longest, set_members(field(voter, "log")).size());
  const long long limit = static_cast<long long>(longest);
  const long long from = std::clamp(properties::integer_or(field(field(before, "metadata"), "committed_offset"), 0), 0LL, limit);
  const long long to = std::clamp(properties::integer_or(field(field(after, "metadata"), "committed_offset"), 0), 0LL, limit);
  if (to <= from) return;
  // The committed entries are read from a voter whose HW covers them.
  const json* holder = nullptr;
  for (const json& voter : field(field(after, "quorum"), "nodes")) {
    if (properties::integer_or(field(voter, "hw"), 0) >= to && static_cast<long long>(field(voter, "log").size()) >= to) {
      holder = &voter;
      break;
    }
  }
  for (long long o = from; o < to; ++o) {
    const json* record = nullptr;
    if (holder != nullptr) {
      const json& ids = field(*holder, "records");
      if (ids.is_array() && o < static_cast<long long>(ids.size())) record = record_by_id(after, ids[static_cast<size_t>(o)]);
    }
    if (record == nullptr) {
      out.push_back("quorum: committed offset " + std::to_string(o) +
                    (holder != nullptr ? " (" + entry_words(after, *holder, o) + ")" : ""));
      continue;
    }
    const json& image = field(*record, "image");
    out.push_back("quorum: committed offset " + std::to_string(o) + " (" + scalar_text(field(*record, "decision")) +
                  " record): brokers may now see partition epoch " + compact(field(image, "partition_epoch")) +
                  " (leader " + node_name(field(image, "leader")) + ", leader epoch " +
                  compact(field(image, "leader_epoch")) + ", ISR " + node_set_text(field(image, "isr")) + ")");
  }
}

// Records that gained or lost an answer owed, and records no log holds any more.
void record_changes(const json& before, const json& after, std::vector<std::string>& out) {
  const std::vector<json> old_records = set_members(field(field(before, "metadata"), "records"));
  const std::vector<json> new_records = set_members(field(field(after, "metadata"), "records"));
  for (const json& old_record : old_records) {
    const json* now = nullptr;
    for (const json& record : new_records) {
      if (same_record(record, old_record)) now = &record;
    }
    const json& owed = field(old_record, "awaiting_commit");
    const std::string what = scalar_text(field(old_record, "decision")) + " record (partition epoch " +
                             compact(field(field(old_record, "image"), "partition_epoch")) + ")";
    if (now == nullptr) {
      out.push_back("metadata: the " + what + " is in no log any more: it never takes effect" +
                    (owed.is_object() ? ", its answer to " + node_name(field(owed, "node")) + " is dropped" : ""));
    } else if (owed.is_object() && !field(*now, "awaiting_commit").is_object()) {
      out.push_back("metadata: " + node_name(field(owed, "node")) + " gets its " + scalar_text(field(owed, "answer")) +
                    " answer (" + what + ")");
    }
  }
  for (const json& record : new_records) {
    const json& owed = field(record, "awaiting_commit");
    if (!owed.is_object()) continue;
    bool was_owed = false;
    for (const json& old_record : old_records) {
      if (same_record(record, old_record) && field(old_record, "awaiting_commit").is_object()) was_owed = true;
    }
    if (!was_owed) {
      out.push_back("metadata: the " + scalar_text(field(owed, "answer")) + " answer to " +
                    node_name(field(owed, "node")) + " waits until the " + scalar_text(field(record, "decision")) +
                    " record commits");
    }
  }
}

json without(const json& value, std::initializer_list<const char*> keys) {
  json rest = value.is_object() ? value : json::object();
  for (const char* key : keys) rest.erase(key);
  return rest;
}

std::vector<std::string> cluster_changes(const json& before, const json& after) {
  std::vector<std::string> out;
  static const KraftVoterWords words = {voter_subject, voter_entries, {"node", "records", "entry_words"}};
  const json old_quorum = quorum_view(before);
  const json new_quorum = quorum_view(after);
  kraft_voter_changes(field(old_quorum, "nodes"), field(new_quorum, "nodes"), words, out);
  kraft_election_changes(field(old_quorum, "history"), field(new_quorum, "history"), out);
  commit_changes(before, after, out);
  record_changes(before, after, out);
  for (const std::string& phrase :
       describe_changes(without(before, {"quorum", "metadata"}), without(after, {"quorum", "metadata"}))) {
    out.push_back(phrase);
  }
  // Fields of the two sections no rule above knows, generically.
  const json old_rest = {{"quorum", without(old_quorum, {"nodes", "history", "faults"})},
                         {"metadata", without(field(before, "metadata"),
                                              {"records", "committed_offset", "committed", "committed_partition_epochs"})}};
  const json new_rest = {{"quorum", without(new_quorum, {"nodes", "history", "faults"})},
                         {"metadata", without(field(after, "metadata"),
                                              {"records", "committed_offset", "committed", "committed_partition_epochs"})}};
  for (const JsonChange& change : json_diff(old_rest, new_rest)) {
    out.push_back(change.path + " " + compact(change.before) + " -> " + compact(change.after));
  }
  return out;
}

// --- sections, boxes, violation ------------------------------------------------------

// Where a record sits: "at offset 1 of N2 (uncommitted)".
std::string metadata_text(const json& state) {
  const json& metadata = field(state, "metadata");
  const json& image = field(metadata, "committed");
  std::string text = "committed below offset " + compact(field(metadata, "committed_offset")) + " (image: leader " +
                     node_name(field(image, "leader")) + ", leader epoch " + compact(field(image, "leader_epoch")) +
                     ", ISR " + node_set_text(field(image, "isr")) + ", partition epoch " +
                     compact(field(image, "partition_epoch")) + ")";
  std::vector<std::string> records;
  for (const json& record : set_members(field(metadata, "records"))) {
    std::string line = scalar_text(field(record, "decision")) + " record " + properties::metadata_record_places(state, record);
    const json& owed = field(record, "awaiting_commit");
    if (owed.is_object()) line += ", owes " + node_name(field(owed, "node")) + " its " + scalar_text(field(owed, "answer")) + " answer";
    const json& image = field(record, "image");
    line += " (-> partition epoch " + compact(field(image, "partition_epoch")) + ", leader " +
            node_name(field(image, "leader")) + ", ISR " + node_set_text(field(image, "isr")) + ")";
    records.push_back(line);
  }
  return text + "; records: " + (records.empty() ? std::string("none") : join(records, "; "));
}

std::string cluster_section(const std::string& key, const json& /*value*/, const json& state) {
  if (key == "quorum") return kraft_history_text(field(quorum_view(state), "history"));
  if (key == "metadata") return metadata_text(state);
  return {};
}

std::string cluster_node_lines(const json& state) {
  std::string out = partition_node_lines(without(state, {"quorum", "metadata"}));
  const json quorum = quorum_view(state);
  if (quorum.is_object()) out += "quorum:\n" + kraft_node_lines(quorum);
  if (field(state, "metadata").is_object()) out += "metadata: " + metadata_text(state) + "\n";
  return out;
}

std::string cluster_violation(const json& trace) {
  const std::string property = scalar_text(field(trace, "property"));
  const json& steps = trace.at("steps");
  const json& state = steps.back().at("state");
  // The composed model's own properties explain themselves (spec/cluster/cluster_properties.h); the
  // rest are the quorum's or the partition's.
  std::string reason = properties::find_cluster(property) != nullptr ? properties::explain_cluster(property, state)
                                                                     : kraft_violation_reason(property, quorum_view(state));
  if (reason.empty()) return violation_sentence(trace);  // a partition property
  return "Property " + property + " is violated at step " + std::to_string(steps.size() - 1) + ": " + reason + ".";
}

}  // namespace

const ModelRendering& cluster_rendering() {
  static const ModelRendering rendering = {
      partition_columns,
      cluster_changes,
      cluster_violation,
      entry_text,
      cluster_node_lines,
      cluster_section,
      "log entries are epoch:record (KRaft voters: epoch:writer), | marks the high watermark",
      /*client_lanes=*/true,
      "Controller",
      {{"KRaft voters", "quorum", "nodes", voter_rows, voter_columns}}};
  return rendering;
}

}  // namespace isr::counterexamples
