// Trace -> Informal Trace Format (see export_itf.h for the format and its source).
//
// ITF readers are typed (Apalache, Quint, the Rust crate `itf`): a variable has one type
// for the whole trace. Our trace JSON is not typed (a leader is null or a number, a map
// is {} before its first key, a field is absent in some states), so the export is two
// passes: infer each variable's type as the join of its values over every state, then
// encode every value at that type. The types are also written as #meta.varTypes.
#include "counterexamples/export/export_itf.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "counterexamples/trace/trace_reader.h"

namespace isr::counterexamples {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

// Fields of the models' states that are sets of node ids (order is meaningless); under
// `leaders` (KRaft's history) a map from epoch to the set of nodes that led in it.
bool is_set_field(std::string_view key) {
  return key == "isr" || key == "elr" || key == "last_known_elr" || key == "fenced" || key == "cut" ||
         key == "alter_partition" || key == "leaders";
}
// Fields that may be null in some model's states: always Option variants, so that their
// type is the same in every trace of a model, not only within one trace. Any other field
// that is null or absent in some state of a trace is an Option in that trace's export.
bool is_optional_field(std::string_view key) {
  return key == "leader" || key == "replica" || key == "view" || key == "leader_state" ||
         key == "fetch_response" || key == "alter_partition" || key == "entry" || key == "leader_after" ||
         key == "action" || key == "voted_for" || key == "granted" || key == "awaiting_commit" || key == "active";
}
// Fields whose value is a node id or a word ("leader_after": an id, null, or "no
// quorum"): a variant tagged by the kind of value, Int(..) | Str(..), in every trace.
bool is_variant_field(std::string_view key) { return key == "leader_after"; }
// Fields that are [a, b] pairs (log entries) rather than lists; the elements of a `log`.
bool is_pair_field(std::string_view key) { return key == "entry"; }

struct Field;

// An ITF type: what every value of one variable (or part of one) is, over the trace.
struct Type {
  enum Kind { Unknown, Bool, Int, Str, Float, Seq, Set, Tup, Map, Rec, Opt, Var } kind = Unknown;
  std::vector<Type> items;                          // Seq, Set, Map, Opt: [element]; Tup: each
  std::vector<Field> fields;  // Rec: by name; Var: by tag (Int, Str, Bool)
  bool empty_object = false;  // Map: only {} seen so far (a Map or a Rec)
};

// A record's field or a variant's alternative (a class, not std::pair: Type is
// incomplete inside its own definition, which std::pair does not allow).
struct Field {
  Field(std::string name, Type type) : first(std::move(name)), second(std::move(type)) {}
  std::string first;
  Type second;
};

Type element_of(Type::Kind kind, Type element) {
  Type t;
  t.kind = kind;
  t.items.push_back(std::move(element));
  return t;
}

const char* kind_name(Type::Kind k) {
  switch (k) {
    case Type::Unknown: return "nothing";
    case Type::Bool: return "a boolean";
    case Type::Int: return "an integer";
    case Type::Str: return "a string";
    case Type::Float: return "a non-integer number";
    case Type::Seq: return "a list";
    case Type::Set: return "a set";
    case Type::Tup: return "a pair";
    case Type::Map: return "an object keyed by numbers";
    case Type::Rec: return "an object";
    case Type::Opt: return "null";
    case Type::Var: return "a number or a word";
  }
  return "?";
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The least type of both, or TraceFormatError at `where` when there is none.
Type join(Type a, Type b, const std::string& where);

// A variant field's scalars of different kinds join into a variant tagged by kind.
const char* scalar_tag(Type::Kind k) {
  return k == Type::Int ? "Int" : k == Type::Str ? "Str" : k == Type::Bool ? "Bool" : nullptr;
}
Type variant_of(const Type& t) {
  if (t.kind == Type::Var) return t;
  Type v;
  v.kind = Type::Var;
  v.fields.emplace_back(scalar_tag(t.kind), t);
  return v;
}
bool variant_able(const Type& t) { return t.kind == Type::Var || scalar_tag(t.kind) != nullptr; }
Type join_variants(const Type& a, const Type& b) {
  Type r = variant_of(a);
  for (const auto& alt : variant_of(b).fields) {
    if (std::none_of(r.fields.begin(), r.fields.end(), [&](const auto& x) { return x.first == alt.first; }))
      r.fields.push_back(alt);
  }
  std::sort(r.fields.begin(), r.fields.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  return r;
}

Type join_fields(Type a, const Type& b, const std::string& where) {
  // A field missing on one side is an Option (absent = None).
  std::map<std::string, Type> merged;
  for (auto& [k, t] : a.fields) merged.emplace(k, std::move(t));
  std::map<std::string, bool> in_b;
  for (const auto& [k, t] : b.fields) {
    in_b[k] = true;
    auto it = merged.find(k);
    if (it == merged.end()) {
      merged.emplace(k, join(element_of(Type::Opt, Type{}), t, where + "." + k));
    } else {
      it->second = join(std::move(it->second), t, where + "." + k);
    }
  }
  for (auto& [k, t] : merged)
    if (!in_b.count(k)) t = join(element_of(Type::Opt, Type{}), std::move(t), where + "." + k);
  Type r;
  r.kind = Type::Rec;
  for (auto& [k, t] : merged) r.fields.emplace_back(k, std::move(t));
  return r;
}

Type join(Type a, Type b, const std::string& where) {
  if (a.kind == Type::Unknown) return b;
  if (b.kind == Type::Unknown) return a;
  if (a.kind == Type::Opt || b.kind == Type::Opt) {
    Type inner_a = a.kind == Type::Opt ? std::move(a.items[0]) : std::move(a);
    Type inner_b = b.kind == Type::Opt ? std::move(b.items[0]) : std::move(b);
    return element_of(Type::Opt, join(std::move(inner_a), std::move(inner_b), where));
  }
  // {} is an empty map or a record with no fields: whichever the other side is.
  if (a.kind == Type::Map && a.empty_object && b.kind == Type::Rec) return join_fields(Type{Type::Rec, {}, {}, false}, b, where);
  if (b.kind == Type::Map && b.empty_object && a.kind == Type::Rec) return join_fields(std::move(a), Type{Type::Rec, {}, {}, false}, where);
  // Only fields that are variants by nature (is_variant_field) mix kinds: elsewhere a
  // number in one state and a word in another is a malformed trace, refused below.
  if ((a.kind == Type::Var || b.kind == Type::Var) && variant_able(a) && variant_able(b)) return join_variants(a, b);
  if (a.kind != b.kind) {
    throw TraceFormatError(where, std::string("is ") + kind_name(b.kind) + " here but " + kind_name(a.kind) +
                                      " in an earlier state; ITF needs one type per variable for the whole trace");
  }
  switch (a.kind) {
    case Type::Seq:
    case Type::Set:
    case Type::Opt:
      a.items[0] = join(std::move(a.items[0]), std::move(b.items[0]), where + "[]");
      return a;
    case Type::Map:
      a.items[0] = join(std::move(a.items[0]), std::move(b.items[0]), where + "[]");
      a.empty_object = a.empty_object && b.empty_object;
      return a;
    case Type::Tup:
      if (a.items.size() != b.items.size()) {
        throw TraceFormatError(where, "a pair of " + std::to_string(b.items.size()) + " here but of " +
                                          std::to_string(a.items.size()) + " in an earlier state");
      }
      for (size_t i = 0; i < a.items.size(); ++i) {
        a.items[i] = join(std::move(a.items[i]), std::move(b.items[i]), where + "[" + std::to_string(i) + "]");
      }
      return a;
    case Type::Rec: return join_fields(std::move(a), b, where);
    default: return a;
  }
}

// The type of one value; `key` is the field it is under (for the hints above), `where`
// its path for messages.
Type infer(const json& value, std::string_view key, const std::string& where);

Type infer_plain(const json& value, std::string_view key, const std::string& where) {
  if (value.is_null()) return element_of(Type::Opt, Type{});
  if (value.is_boolean()) return Type{Type::Bool, {}, {}, false};
  if (value.is_number_integer()) return Type{Type::Int, {}, {}, false};
  if (value.is_number_float()) return Type{Type::Float, {}, {}, false};
  if (value.is_string()) return Type{Type::Str, {}, {}, false};
  if (value.is_array()) {
    const bool pair = is_pair_field(key) || key == "log entry";
    if (pair) {
      Type t;
      t.kind = Type::Tup;
      for (size_t i = 0; i < value.size(); ++i) t.items.push_back(infer(value[i], "", where + "[" + std::to_string(i) + "]"));
      return t;
    }
    Type element;
    for (size_t i = 0; i < value.size(); ++i) {
      // A log is a list of [epoch, record] pairs.
      element = join(std::move(element), infer(value[i], key == "log" ? "log entry" : "", where + "[" + std::to_string(i) + "]"),
                     where + "[]");
    }
    return element_of(is_set_field(key) ? Type::Set : Type::Seq, std::move(element));
  }
  // An object keyed by numbers (outcomes by record id, leaders by epoch) is a map; {} is
  // an empty map until another state says it is a record.
  bool numeric_keys = true;
  for (const auto& [k, v] : value.items()) numeric_keys = numeric_keys && all_digits(k);
  if (numeric_keys) {
    Type element;
    for (const auto& [k, v] : value.items()) {
      element = join(std::move(element), infer(v, is_set_field(key) ? key : "", where + "." + k), where + "[]");
    }
    Type t = element_of(Type::Map, std::move(element));
    t.empty_object = value.empty();
    return t;
  }
  Type t;
  t.kind = Type::Rec;
  for (const auto& [k, v] : value.items()) t.fields.emplace_back(k, infer(v, k, where + "." + k));
  std::sort(t.fields.begin(), t.fields.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  return t;
}

Type infer(const json& value, std::string_view key, const std::string& where) {
  Type t = infer_plain(value, key, where);
  if (is_variant_field(key) && variant_able(t)) t = variant_of(t);
  if (is_optional_field(key) && t.kind != Type::Opt) return element_of(Type::Opt, std::move(t));
  return t;
}

// Types no state pins down (an always-empty list's elements) are written as Apalache
// type variables a, b, ...: the type is polymorphic there, as Apalache types `<<>>`.
std::string type_text(const Type& t, int& next_variable) {
  switch (t.kind) {
    case Type::Unknown: {
      const int v = next_variable++;
      return v < 26 ? std::string(1, static_cast<char>('a' + v)) : "t" + std::to_string(v);
    }
    case Type::Bool: return "Bool";
    case Type::Int: return "Int";
    case Type::Str: return "Str";
    case Type::Float: return "Str";  // written as its text
    case Type::Seq: return "Seq(" + type_text(t.items[0], next_variable) + ")";
    case Type::Set: return "Set(" + type_text(t.items[0], next_variable) + ")";
    case Type::Map: return "(Int -> " + type_text(t.items[0], next_variable) + ")";
    case Type::Opt: return "Some(" + type_text(t.items[0], next_variable) + ") | None(UNIT)";
    case Type::Var: {
      std::string s = "(";
      for (size_t i = 0; i < t.fields.size(); ++i) {
        s += (i ? " | " : "") + t.fields[i].first + "(" + type_text(t.fields[i].second, next_variable) + ")";
      }
      return s + ")";
    }
    case Type::Tup: {
      std::string s = "<<";
      for (size_t i = 0; i < t.items.size(); ++i) s += (i ? ", " : "") + type_text(t.items[i], next_variable);
      return s + ">>";
    }
    case Type::Rec: {
      std::string s = "{ ";
      for (size_t i = 0; i < t.fields.size(); ++i) {
        const Type& f = t.fields[i].second;
        std::string inner = type_text(f, next_variable);
        if (f.kind == Type::Opt) inner = "(" + inner + ")";
        s += (i ? ", " : "") + t.fields[i].first + ": " + inner;
      }
      return s + (t.fields.empty() ? "}" : " }");
    }
  }
  return "?";
}

ordered_json none() { return {{"tag", "None"}, {"value", {{"#tup", ordered_json::array()}}}}; }

ordered_json bigint(const json& number) {
  if (number.is_number_unsigned()) return {{"#bigint", std::to_string(number.get<uint64_t>())}};
  return {{"#bigint", std::to_string(number.get<int64_t>())}};
}

// `value` (null when absent) at type `t`, which the inference made it fit.
ordered_json encode(const json& value, const Type& t) {
  switch (t.kind) {
    case Type::Opt:
      if (value.is_null()) return none();
      return {{"tag", "Some"}, {"value", encode(value, t.items[0])}};
    case Type::Unknown: return none();  // only ever null here
    case Type::Var: {
      const Type::Kind kind = value.is_boolean() ? Type::Bool : value.is_string() ? Type::Str : Type::Int;
      const char* tag = scalar_tag(kind);
      for (const auto& [name, alt] : t.fields)
        if (name == tag) return {{"tag", name}, {"value", encode(value, alt)}};
      return {{"tag", tag}, {"value", value}};  // unreachable: the inference saw this kind
    }
    case Type::Int: return bigint(value);
    case Type::Float: return value.dump();  // ITF has no fractions: the number's text
    case Type::Bool:
    case Type::Str: return value;
    case Type::Seq:
    case Type::Set: {
      ordered_json items = ordered_json::array();
      for (const json& v : value) items.push_back(encode(v, t.items[0]));
      if (t.kind == Type::Seq) return items;
      return {{"#set", items}};
    }
    case Type::Tup: {
      ordered_json items = ordered_json::array();
      for (size_t i = 0; i < t.items.size(); ++i) items.push_back(encode(value[i], t.items[i]));
      return {{"#tup", items}};
    }
    case Type::Map: {
      std::vector<std::pair<unsigned long long, const json*>> entries;
      for (const auto& [k, v] : value.items()) entries.emplace_back(std::stoull(k), &v);
      std::sort(entries.begin(), entries.end());
      ordered_json pairs = ordered_json::array();
      for (const auto& [k, v] : entries) {
        pairs.push_back(ordered_json::array({{{"#bigint", std::to_string(k)}}, encode(*v, t.items[0])}));
      }
      return {{"#map", pairs}};
    }
    case Type::Rec: {
      ordered_json record = ordered_json::object();
      for (const auto& [k, ft] : t.fields) {
        record[k] = encode(value.is_object() && value.contains(k) ? value[k] : json(), ft);
      }
      return record;
    }
  }
  return value;
}

// Map keys must be numbers ITF can carry (check_trace vets producer outcomes; any other
// map is vetted here, before std::stoull could throw).
void check_map_keys(const json& value, const std::string& where) {
  if (value.is_object()) {
    bool numeric = !value.empty();
    for (const auto& [k, v] : value.items()) numeric = numeric && all_digits(k);
    for (const auto& [k, v] : value.items()) {
      if (numeric && (k.size() > 19 || (k.size() == 19 && k > "9223372036854775807"))) {
        throw TraceFormatError(where + "." + k, "not a number ITF can carry: keys of this object are numbers below 2^63");
      }
      check_map_keys(v, where + "." + k);
    }
  } else if (value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i) check_map_keys(value[i], where + "[" + std::to_string(i) + "]");
  }
}

}  // namespace

ordered_json trace_to_itf(const json& trace) {
  check_trace(trace);
  const json& steps = trace.at("steps");

  // Variables: every top-level field of any state (a state that is not an object is the
  // one variable `state`), then the Quint model-based-testing variables.
  bool object_states = true;
  for (const json& step : steps) object_states = object_states && step.at("state").is_object();
  std::map<std::string, Type> types;
  Type picks_type;
  picks_type.kind = Type::Rec;
  for (size_t i = 0; i < steps.size(); ++i) {
    const std::string where = "steps[" + std::to_string(i) + "]";
    const json& state = steps[i].at("state");
    check_map_keys(state, where + ".state");
    const json as_object = object_states ? state : json{{"state", state}};
    const Type state_type = infer(as_object, "", where + ".state");
    Type all = Type{Type::Rec, {}, {}, false};
    for (auto& [k, t] : types) all.fields.emplace_back(k, t);
    const Type joined = i == 0 ? state_type : join(std::move(all), state_type, where + ".state");
    types.clear();
    for (const auto& [k, t] : joined.fields) types.emplace(k, t);

    // Every parameter any action of the trace has: Quint's nondetPicks is one record type
    // whose fields are Options (None where an action has no such parameter).
    const json& action = steps[i].at("action");
    Type step_picks;
    step_picks.kind = Type::Rec;
    if (action.is_object()) {
      check_map_keys(action, where + ".action");
      for (const auto& [k, v] : action.items()) {
        if (k == "kind") continue;
        // Some(value) where the action has the parameter, None where it has not; a
        // parameter that may itself be null (leader_after) is an Option inside.
        // The state's Option hints do not apply (an action's leader is never null).
        Type p = infer_plain(v, k, where + ".action." + k);
        if (is_variant_field(k) && variant_able(p)) p = variant_of(p);
        if (k == "leader_after" && p.kind != Type::Opt) p = element_of(Type::Opt, std::move(p));  // null: no leader
        step_picks.fields.emplace_back(k, element_of(Type::Opt, std::move(p)));
      }
      std::sort(step_picks.fields.begin(), step_picks.fields.end(),
                [](const auto& x, const auto& y) { return x.first < y.first; });
    }
    picks_type = join(std::move(picks_type), step_picks, where + ".action");
  }

  ordered_json states = ordered_json::array();
  for (const json& step : steps) {
    ordered_json out;
    out["#meta"] = {{"index", step.at("index")}};
    const json& state = step.at("state");
    for (const auto& [var, t] : types) {
      const json* value = nullptr;
      if (!object_states) value = &state;
      else if (state.contains(var)) value = &state[var];
      out[var] = encode(value ? *value : json(), t);
    }
    const json& action = step.at("action");
    out["mbt::actionTaken"] =
        action.is_object() && action.contains("kind") && action["kind"].is_string() ? action["kind"] : json("init");
    ordered_json picks = ordered_json::object();
    for (const auto& [k, t] : picks_type.fields) {
      const bool has = action.is_object() && action.contains(k);
      picks[k] = has ? ordered_json{{"tag", "Some"}, {"value", encode(action[k], t.items[0])}} : none();
    }
    out["mbt::nondetPicks"] = picks;
    states.push_back(std::move(out));
  }

  int next_variable = 0;
  ordered_json var_types = ordered_json::object();
  ordered_json var_names = ordered_json::array();
  for (const auto& [var, t] : types) {
    var_names.push_back(var);
    var_types[var] = type_text(t, next_variable);
  }
  var_names.push_back("mbt::actionTaken");
  var_types["mbt::actionTaken"] = "Str";
  var_names.push_back("mbt::nondetPicks");
  var_types["mbt::nondetPicks"] = type_text(picks_type, next_variable);

  // #meta's own fields are strings (the ITF readers type them so): the configuration is
  // its JSON text.
  ordered_json itf;
  itf["#meta"] = {{"format", "ITF"},
                  {"format-description", "https://apalache-mc.org/docs/adr/015adr-trace.html"},
                  {"source", "isrcheck " + trace.at("model").get<std::string>() + " model"},
                  {"description", "counterexample to " + trace.at("property").get<std::string>() +
                                      " exported by isrcheck export --format itf"},
                  {"varTypes", var_types},
                  {"property", trace.at("property")},
                  {"engine", trace.contains("engine") && trace["engine"].is_string() ? trace["engine"] : json("")},
                  {"config", trace.at("config").dump()}};
  itf["vars"] = var_names;
  itf["states"] = states;
  return itf;
}

}  // namespace isr::counterexamples
