// Reading a state as its trace JSON (see state_words.h).
#include "spec/common/state_words.h"

namespace isr::properties {

using nlohmann::json;

namespace {


const json& null_json() {
  static const json null_value;
  return null_value;
}

}  // namespace

long long integer_or(const json& value, long long otherwise) {
  return value.is_number_integer() ? value.get<long long>() : otherwise;
}

std::vector<json> set_members(const json& nodes) {
  std::vector<json> out;
  if (nodes.is_array()) out.assign(nodes.begin(), nodes.end());
  return out;
}

// Records in a replica's log.
std::vector<json> records_of(const json& replica) {
  std::vector<json> records;
  for (const json& entry : set_members(field(replica, "log"))) {
    records.push_back(entry.is_array() && entry.size() == 2 ? entry[1] : entry);
  }
  return records;
}

const json* node_by_id(const json& state, const json& id) {
  const json& nodes = field(state, "nodes");
  if (!nodes.is_array()) return nullptr;
  for (const json& node : nodes) {
    if (field(node, "id") == id) return &node;
  }
  return nullptr;
}

std::vector<std::string> acked_records(const json& state) {
  std::vector<std::string> acked;
  const json& outcomes = field(field(state, "producer"), "outcomes");
  if (outcomes.is_object()) {
    for (const auto& [record, outcome] : outcomes.items()) {
      if (outcome == "acked") acked.push_back(record);
    }
  }
  return acked;
}

bool holds_record(const json& replica, const std::string& record) {
  for (const json& r : records_of(replica)) {
    if (compact(r) == record) return true;
  }
  return false;
}

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += separator;
    out += parts[i];
  }
  return out;
}

const json& field(const json& obj, const char* key) {
  if (!obj.is_object()) return null_json();
  auto it = obj.find(key);
  return it == obj.end() ? null_json() : *it;
}

std::string scalar_text(const json& value) {
  if (value.is_null()) return "-";
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "yes" : "no";
  return value.dump();
}

std::string compact(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "-";
  return value.dump();
}

std::string node_name(const json& id) {
  if (id.is_null()) return "none";
  if (id.is_number_integer()) return "N" + id.dump();
  return compact(id);
}

std::string node_set_text(const json& nodes) {
  if (!nodes.is_array()) return compact(nodes);
  std::vector<std::string> parts;
  for (const json& n : nodes) parts.push_back(compact(n));
  return "[" + join(parts, ",") + "]";
}

std::string entry_text(const json& entry) {
  if (entry.is_array() && entry.size() == 2) {
    return compact(entry[0]) + ":r" + compact(entry[1]);
  }
  return compact(entry);
}

std::string log_text(const json& replica) {
  const json& log = field(replica, "log");
  if (!log.is_array()) return compact(log);
  const json& hw_value = field(replica, "hw");
  const long long hw = hw_value.is_number_integer() ? hw_value.get<long long>() : -1;
  if (log.empty()) return hw == 0 ? "(empty)" : "(empty) hw=" + compact(hw_value);
  std::vector<std::string> parts;
  for (size_t i = 0; i < log.size(); ++i) {
    if (static_cast<long long>(i) == hw) parts.push_back("|");
    parts.push_back(entry_text(log[i]));
  }
  if (hw == static_cast<long long>(log.size())) parts.push_back("|");
  return join(parts, " ");
}

std::string kraft_entry(const json& entry) {
  if (entry.is_array() && entry.size() == 2) return compact(entry[0]) + ":" + node_name(entry[1]);
  return compact(entry);
}

std::string kraft_log(const json& node) {
  const json& log = field(node, "log");
  if (!log.is_array()) return compact(log);
  const json& hw_value = field(node, "hw");
  const long long hw = hw_value.is_number_integer() ? hw_value.get<long long>() : -1;
  if (log.empty()) return "(empty)";
  std::vector<std::string> parts;
  for (size_t i = 0; i < log.size(); ++i) {
    if (hw > 0 && static_cast<long long>(i) == hw) parts.push_back("|");
    parts.push_back(kraft_entry(log[i]));
  }
  if (hw == static_cast<long long>(log.size())) parts.push_back("|");
  return join(parts, " ");
}

}  // namespace isr::properties
