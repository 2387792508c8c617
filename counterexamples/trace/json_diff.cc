// Field-by-field differences between two JSON documents (see json_diff.h).
#include "counterexamples/trace/json_diff.h"

namespace isr::counterexamples {

using nlohmann::json;

std::string json_path_key(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string json_path_index(const std::string& parent, size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

namespace {

void diff_into(const std::string& path, const json& before, const json& after,
               std::vector<JsonChange>& out) {
  if (before == after) return;
  if (before.is_object() && after.is_object()) {
    // Keys of `before`, then keys only `after` has: a stable order.
    for (const auto& [key, value] : before.items()) {
      const std::string child = json_path_key(path, key);
      if (!after.contains(key)) {
        out.push_back({child, value, json(), false, true});
      } else {
        diff_into(child, value, after.at(key), out);
      }
    }
    for (const auto& [key, value] : after.items()) {
      if (!before.contains(key)) out.push_back({json_path_key(path, key), json(), value, true, false});
    }
    return;
  }
  if (before.is_array() && after.is_array() && before.size() == after.size()) {
    // Arrays of scalars ([0,1,2], [1,2]) are values in their own right: one change.
    bool scalars = true;
    for (const auto& element : before) scalars = scalars && element.is_primitive();
    for (const auto& element : after) scalars = scalars && element.is_primitive();
    if (!scalars) {
      for (size_t i = 0; i < before.size(); ++i) {
        diff_into(json_path_index(path, i), before[i], after[i], out);
      }
      return;
    }
  }
  out.push_back({path, before, after, false, false});
}

}  // namespace

std::vector<JsonChange> json_diff(const json& before, const json& after) {
  std::vector<JsonChange> out;
  diff_into("", before, after, out);
  return out;
}

json json_diff_report(const json& expected, const json& found) {
  json report = json::object();
  for (const JsonChange& change : json_diff(expected, found)) {
    json entry = json::object();
    entry["expected"] = change.added ? json("<absent>") : change.before;
    entry["found"] = change.removed ? json("<absent>") : change.after;
    report[change.path.empty() ? std::string("$") : change.path] = std::move(entry);
  }
  return report;
}

}  // namespace isr::counterexamples
