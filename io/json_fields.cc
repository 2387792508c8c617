// The strict JSON field readers shared by the models' configuration parsers (see
// json_fields.h).
#include "io/json_fields.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "io/config_error.h"
#include "io/files.h"

namespace isr::io::json_fields {

using nlohmann::json;

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

std::string shown(const json& value) {
  std::string text = value.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

std::string type_of(const json& value) {
  if (value.is_null()) return "null";
  if (value.is_boolean()) return "a boolean";
  if (value.is_number_integer()) return "an integer";
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_array()) return "a list";
  return "an object";
}

std::string dotted(std::string_view prefix, std::string_view key) {
  return prefix.empty() ? std::string(key) : std::string(prefix) + "." + std::string(key);
}

std::optional<FieldProblem> find_key_problem(const json& object, std::string_view prefix,
                                             const std::vector<std::string>& allowed) {
  if (!object.is_object()) {
    return FieldProblem{prefix.empty() ? "config" : std::string(prefix),
                        "expected an object, got " + type_of(object) + " " + shown(object)};
  }
  for (const auto& [key, value] : object.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      return FieldProblem{dotted(prefix, key), "unknown key; allowed keys: " + join(allowed)};
    }
  }
  return std::nullopt;
}

void check_keys(const json& object, std::string_view prefix,
                const std::vector<std::string>& allowed) {
  if (auto problem = find_key_problem(object, prefix, allowed)) {
    throw ConfigError(std::move(problem->field), problem->message);
  }
}

int read_int(const json& value, const std::string& field) {
  if (!value.is_number_integer()) {
    throw ConfigError(field, "expected an integer, got " + type_of(value) + " " + shown(value));
  }
  const bool too_big = value.is_number_unsigned() ? value.get<uint64_t>() > INT_MAX
                                                  : value.get<int64_t>() > INT_MAX;
  const bool too_small = !value.is_number_unsigned() && value.get<int64_t>() < INT_MIN;
  if (too_big || too_small) throw ConfigError(field, shown(value) + " is out of range");
  return static_cast<int>(value.get<int64_t>());
}

bool read_bool(const json& value, const std::string& field) {
  if (!value.is_boolean()) {
    throw ConfigError(field, "expected true or false, got " + type_of(value) + " " + shown(value));
  }
  return value.get<bool>();
}

void require_range(int value, const std::string& field, int lo, int hi, const std::string& why) {
  if (value >= lo && value <= hi) return;
  std::string message = "must be between " + std::to_string(lo) + " and " + std::to_string(hi);
  if (!why.empty()) message += " (" + why + ")";
  throw ConfigError(field, message + ", got " + std::to_string(value));
}

std::vector<std::string> read_property_names(const json& value) {
  std::vector<std::string> names;
  auto add = [&](std::string name) {
    const auto first = name.find_first_not_of(" \t");
    const auto last = name.find_last_not_of(" \t");
    name = first == std::string::npos ? "" : name.substr(first, last - first + 1);
    if (name.empty()) return;
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  // An empty selection used to mean "all" silently; a user who wrote [] or "" meant
  // something else (a typo, a variable that expanded to nothing), so say so.
  const auto nonempty = [&]() -> std::vector<std::string> {
    if (names.empty()) {
      throw ConfigError("properties", "names no property (got " + shown(value) +
                                          "); allowed: one or more property names as listed by `isrcheck list`, "
                                          "or leave `properties` out to check every property that applies");
    }
    return names;
  };
  if (value.is_string()) {
    std::stringstream in(value.get<std::string>());
    std::string item;
    while (std::getline(in, item, ',')) add(item);
    return nonempty();
  }
  if (value.is_array()) {
    for (const auto& item : value) {
      if (!item.is_string()) {
        throw ConfigError("properties", "expected property names (strings), got " +
                                            type_of(item) + " " + shown(item));
      }
      add(item.get<std::string>());
    }
    return nonempty();
  }
  throw ConfigError("properties", "expected a list of property names or a comma-separated "
                                  "string, got " + type_of(value) + " " + shown(value));
}

void apply_override(json& document, const std::string& override_text, std::string_view example) {
  const auto eq = override_text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw ConfigError("--set", "expected key=value (for example " + std::string(example) +
                                   "), got '" + override_text + "'");
  }
  const std::string key = override_text.substr(0, eq);
  const std::string text = override_text.substr(eq + 1);
  // Every string in a configuration is printed back (describe, traces, reports), and
  // JSON can only carry UTF-8.
  if (!io::files::valid_utf8(key)) throw ConfigError("--set", "the key is not valid UTF-8 text");
  if (!io::files::valid_utf8(text)) throw ConfigError(key, "the value given with --set is not valid UTF-8 text");
  json value = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) {
    value = text;
  } else {
    try {
      value = io::files::parse_json(text);  // the limits every JSON input has: depth, duplicate keys
    } catch (const io::files::InputError& e) {
      throw ConfigError(key, std::string("the value given with --set: ") + e.what());
    }
  }

  json* node = &document;
  std::string path;
  std::size_t start = 0;
  while (true) {
    const auto dot = key.find('.', start);
    const std::string part = key.substr(start, dot == std::string::npos ? dot : dot - start);
    if (part.empty()) {
      throw ConfigError("--set", "empty component in key '" + key + "'");
    }
    path = dotted(path, part);
    if (!node->is_object()) {
      throw ConfigError(path.substr(0, path.rfind('.')),
                        "is not an object, so '" + key + "' cannot be set");
    }
    if (dot == std::string::npos) {
      (*node)[part] = std::move(value);
      return;
    }
    if (!node->contains(part)) (*node)[part] = json::object();
    node = &(*node)[part];
    start = dot + 1;
  }
}

std::vector<int> sorted_ints(const json& value) {
  std::vector<int> out;
  if (value.is_array())
    for (const json& x : value)
      if (x.is_number_integer()) out.push_back(x.get<int>());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace isr::io::json_fields
