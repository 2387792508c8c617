// Field-by-field differences between two JSON documents.
//
// Used by the renderer (what changed from one step to the next) and by replay (what the
// recorded state says vs what the model produced). Paths are JSON-Pointer-like but
// readable: "nodes[2].replica.hw", "producer.outcomes.1".
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace isr::counterexamples {

struct JsonChange {
  std::string path;        // "" for the document root
  nlohmann::json before;   // null when the field is absent before
  nlohmann::json after;    // null when the field is absent after
  bool added = false;      // absent before
  bool removed = false;    // absent after
};

// Differences at the leaves: objects are compared key by key, arrays of equal length
// element by element. Arrays that change length are one change (a log growing by one
// entry reads better as "log a b -> a b c" than as "log[2] added").
std::vector<JsonChange> json_diff(const nlohmann::json& before, const nlohmann::json& after);

// The differences as a JSON object {"path": {"expected": ..., "found": ...}}, for replay.
nlohmann::json json_diff_report(const nlohmann::json& expected, const nlohmann::json& found);

// Joins a parent path and a key or index the way json_diff names paths.
std::string json_path_key(const std::string& parent, const std::string& key);
std::string json_path_index(const std::string& parent, size_t index);

}  // namespace isr::counterexamples
