// Reading the files a user gives the tool and writing the files it makes: the one place
// every JSON input (configuration, trace, claim, corpus manifest, scenario, `--set`
// value) is parsed, and the one way every output file is written.
//
// Input is untrusted: a parse rejects what the engines downstream cannot take (nesting
// deeper than kMaxJsonDepth, which recursive readers would overflow the stack on; a key
// given twice in one object, which would otherwise silently keep the last; text that is
// not UTF-8) with a message that says where. Output is written to a temporary file in
// the same directory and renamed over the target, so that an interrupted or failed run
// never leaves half a file where a complete one was (or is expected).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace isr::io::files {

// No input the tool reads nests deeper than a dozen levels; 256 leaves room and keeps
// every recursive reader (the exporters, json diffs) far from the stack's end.
inline constexpr int kMaxJsonDepth = 256;

// Bad input: what is wrong, with the line and column when the parser knows them.
// Callers wrap it in their own error type, naming the file or the option.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Whether `text` is well-formed UTF-8 (no overlong forms, no surrogates).
bool valid_utf8(std::string_view text);

// `text` as JSON, or InputError: syntax errors (with line and column), nesting deeper
// than kMaxJsonDepth, duplicate keys (naming the key and the object it is in).
nlohmann::json parse_json(std::string_view text);

// No file the tool reads is anywhere near this (the largest, a long cluster trace, is a
// few MiB); reading stops here, so that `--config /dev/zero` or a mistyped multi-GB path
// is refused at once instead of exhausting memory.
inline constexpr std::size_t kMaxInputBytes = std::size_t{64} << 20;

// The whole content of `path`, or InputError: "is a directory", "cannot read: <why>",
// larger than kMaxInputBytes.
std::string read_file(const std::string& path);

// read_file then parse_json.
nlohmann::json read_json_file(const std::string& path);

// read_json_file for a model configuration (--config): ConfigError("--config", ...)
// when unreadable or not JSON.
nlohmann::json read_config_file(const std::string& path);

// Writes `content` to `path` atomically (temporary file in the same directory, then a
// rename over `path`). InputError saying why when it cannot; the target is unchanged.
void write_file_atomically(const std::string& path, std::string_view content);

// Whether `path` can be written: its directory exists and is writable, and `path` is not
// a directory. Empty when so, otherwise why not; checked before long runs so that the
// result of an hour's search is not lost to a typo in an output path.
std::string output_path_problem(const std::string& path);

}  // namespace isr::io::files
