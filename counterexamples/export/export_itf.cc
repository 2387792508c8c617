// Trace -> Informal Trace Format (see export_itf.h for the format and its source).
#include "counterexamples/export/export_itf.h"

#include <algorithm>
#include <set>
#include <string>
#include <string_view>

#include "counterexamples/trace/trace_reader.h"

namespace isr::counterexamples {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

// Fields of the partition model's state that are sets of node ids (order is meaningless).
bool is_set_field(std::string_view key) {
  return key == "isr" || key == "elr" || key == "last_known_elr" || key == "fenced" || key == "cut" ||
         key == "alter_partition";
}
// Fields that may be null: written as Option variants, so that their type is the same in
// every state.
bool is_optional_field(std::string_view key) {
  return key == "leader" || key == "replica" || key == "view" || key == "leader_state" ||
         key == "fetch_response" || key == "alter_partition" || key == "entry" || key == "leader_after" ||
         key == "action";
}
// Fields that are [a, b] pairs (log entries) rather than lists.
bool is_pair_field(std::string_view key) { return key == "entry"; }

ordered_json none() { return {{"tag", "None"}, {"value", {{"#tup", ordered_json::array()}}}}; }
ordered_json some(ordered_json value) { return {{"tag", "Some"}, {"value", std::move(value)}}; }

ordered_json bigint(const json& number) {
  if (number.is_number_unsigned()) return {{"#bigint", std::to_string(number.get<uint64_t>())}};
  return {{"#bigint", std::to_string(number.get<int64_t>())}};
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

ordered_json convert(const json& value, std::string_view key);

ordered_json tuple(const json& array) {
  ordered_json items = ordered_json::array();
  for (const json& v : array) items.push_back(convert(v, ""));
  return {{"#tup", items}};
}

ordered_json convert_plain(const json& value, std::string_view key) {
  if (value.is_number_integer()) return bigint(value);
  if (value.is_number_float()) return {{"#unserializable", value.dump()}};
  if (value.is_null()) return none();
  if (value.is_array()) {
    if (is_set_field(key)) {
      ordered_json items = ordered_json::array();
      for (const json& v : value) items.push_back(convert(v, ""));
      return {{"#set", items}};
    }
    if (is_pair_field(key)) return tuple(value);
    ordered_json items = ordered_json::array();
    for (const json& v : value) {
      // A log is a list of [epoch, record] pairs: tuples.
      items.push_back(key == "log" && v.is_array() ? tuple(v) : convert(v, ""));
    }
    return items;
  }
  if (value.is_object()) {
    // An object keyed by numbers (producer outcomes by record id) is a map.
    bool numeric_keys = !value.empty();
    for (const auto& [k, v] : value.items()) numeric_keys = numeric_keys && all_digits(k);
    if (numeric_keys) {
      std::vector<std::pair<long long, const json*>> entries;
      for (const auto& [k, v] : value.items()) entries.emplace_back(std::stoll(k), &v);
      std::sort(entries.begin(), entries.end());
      ordered_json pairs = ordered_json::array();
      for (const auto& [k, v] : entries) {
        pairs.push_back(ordered_json::array({{{"#bigint", std::to_string(k)}}, convert(*v, "")}));
      }
      return {{"#map", pairs}};
    }
    ordered_json record = ordered_json::object();
    for (const auto& [k, v] : value.items()) record[k] = convert(v, k);
    return record;
  }
  // Strings and booleans are themselves in ITF.
  return value;
}

ordered_json convert(const json& value, std::string_view key) {
  if (is_optional_field(key)) return value.is_null() ? none() : some(convert_plain(value, key));
  return convert_plain(value, key);
}

}  // namespace

ordered_json trace_to_itf(const json& trace) {
  check_trace(trace);
  const json& steps = trace.at("steps");

  // Variables: the state's top-level fields (every state of a trace has the same ones),
  // then the Quint model-based-testing variables.
  std::vector<std::string> vars;
  const json& first = steps[0].at("state");
  if (first.is_object()) {
    for (const auto& [k, v] : first.items()) vars.push_back(k);
  } else {
    vars.push_back("state");
  }
  // Every parameter any action of the trace has: Quint's nondetPicks is one record type.
  std::set<std::string> parameters;
  for (const json& step : steps) {
    const json& action = step.at("action");
    if (!action.is_object()) continue;
    for (const auto& [k, v] : action.items())
      if (k != "kind") parameters.insert(k);
  }

  ordered_json states = ordered_json::array();
  for (const json& step : steps) {
    ordered_json out;
    out["#meta"] = {{"index", step.at("index")}};
    const json& state = step.at("state");
    if (state.is_object()) {
      for (const std::string& var : vars) out[var] = convert(state.contains(var) ? state[var] : json(), var);
    } else {
      out["state"] = convert(state, "state");
    }
    const json& action = step.at("action");
    out["mbt::actionTaken"] = action.is_object() && action.contains("kind") ? action["kind"] : json("init");
    ordered_json picks = ordered_json::object();
    for (const std::string& p : parameters) {
      picks[p] = action.is_object() && action.contains(p) && !action[p].is_null()
                     ? some(convert_plain(action[p], p))
                     : none();
    }
    out["mbt::nondetPicks"] = picks;
    states.push_back(std::move(out));
  }

  ordered_json itf;
  itf["#meta"] = {{"format", "ITF"},
                  {"format-description", "https://apalache-mc.org/docs/adr/015adr-trace.html"},
                  {"source", "isrcheck " + trace.at("model").get<std::string>() + " model"},
                  {"description", "counterexample to " + trace.at("property").get<std::string>() +
                                      " exported by isrcheck export --format itf"},
                  {"property", trace.at("property")},
                  {"engine", trace.contains("engine") ? trace["engine"] : json()},
                  {"config", trace.at("config")}};
  ordered_json var_names = ordered_json::array();
  for (const std::string& v : vars) var_names.push_back(v);
  var_names.push_back("mbt::actionTaken");
  var_names.push_back("mbt::nondetPicks");
  itf["vars"] = var_names;
  itf["states"] = states;
  return itf;
}

}  // namespace isr::counterexamples
