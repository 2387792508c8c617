// Strict readers for JSON the user writes (model configurations): the pieces of their
// error messages, and checks that throw io::ConfigError naming the dotted field and
// what is allowed. Shared by the models' configuration parsers so that every model
// words its bad-input errors the same way.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace isr::io::json_fields {

// "a, b, c".
std::string join(const std::vector<std::string>& items, std::string_view separator = ", ");

// A value as the user wrote it, cut short, for "got ..." in messages.
std::string shown(const nlohmann::json& value);

// "an integer", "a list", ...: what kind of value the user gave.
std::string type_of(const nlohmann::json& value);

// "faults.max_crashes" from "faults" and "max_crashes"; just the key at the top level.
std::string dotted(std::string_view prefix, std::string_view key);

// What is wrong with a field: a reader with its own error type (a manifest rather than
// a configuration) can throw that instead of ConfigError.
struct FieldProblem {
  std::string field;
  std::string message;
};

// Not an object, or a key not in `allowed`: the first such problem.
std::optional<FieldProblem> find_key_problem(const nlohmann::json& object, std::string_view prefix,
                                             const std::vector<std::string>& allowed);

// The throwing forms: each throws ConfigError(field, ...).
void check_keys(const nlohmann::json& object, std::string_view prefix,
                const std::vector<std::string>& allowed);
int read_int(const nlohmann::json& value, const std::string& field);
bool read_bool(const nlohmann::json& value, const std::string& field);
void require_range(int value, const std::string& field, int lo, int hi, const std::string& why = "");

// A property list: a JSON list of names, or one string of comma-separated names (what
// `--set properties=a,b` gives). Trimmed, without duplicates, in the order given; an
// empty selection ([] or "") is a ConfigError (leaving the key out means all).
std::vector<std::string> read_property_names(const nlohmann::json& value);

// The integers of a JSON list, sorted: broker ids where order carries no meaning (an
// ISR in a recording, a wait or a controller decision). Lenient, for values our own
// tools wrote: a member that is not an integer, or a value that is not a list, adds
// nothing.
std::vector<int> sorted_ints(const nlohmann::json& value);

// Applies one `--set key=value` to `document`: dotted keys create nested objects, and
// the value is JSON when it parses as JSON (numbers, booleans, lists, quoted strings),
// otherwise the literal text, so `acks=all` needs no quotes. `example` shows a valid
// override in the error for a malformed one.
void apply_override(nlohmann::json& document, const std::string& override_text,
                    std::string_view example);

}  // namespace isr::io::json_fields
