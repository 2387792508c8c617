// What the long-running subcommands (check, simulate) share: Ctrl-C handling, size and
// duration options, number formatting for summaries, and writing JSON results.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace isr::cli {

// Set by SIGINT or SIGTERM (Ctrl-C, `timeout`, CI cancellation, `docker stop`) while an
// InterruptGuard is alive; engines poll it and stop, and the command reports what it
// verified so far, writes its --json with verdict "incomplete" and exits 3.
std::atomic<bool>& interrupted();

// Installs the SIGINT and SIGTERM handlers (and clears the flag); restores the previous
// ones on exit.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  void (*previous_)(int);
  void (*previous_term_)(int);
};

// "4G", "512M", "100k", "1.5GiB", "1000000" -> bytes (binary units); UsageError naming
// `option` otherwise.
uint64_t parse_size(const std::string& text, const std::string& option);

// "90", "90s", "1.5m", "2h", "500ms" -> a duration; UsageError naming `option` otherwise.
std::chrono::nanoseconds parse_duration(const std::string& text, const std::string& option);

std::string fixed(double value, int digits);  // fixed(1.234, 2) == "1.23"
std::string human(double value);              // 1234567 -> "1.23M"
std::string bytes_text(uint64_t bytes);       // "12.3 MiB", "1.50 GiB"

// Writes `document` to `path` ("-" = stdout); UsageError naming `option` when it cannot.
// Files are written atomically (io/files.h): never half a file, even on a signal.
void write_json(const std::string& path, const std::string& option, const nlohmann::json& document);

// The same for text; every file a subcommand writes goes through here.
void write_text(const std::string& path, const std::string& option, const std::string& text);

// UsageError naming `option` unless `path` ("-" = stdout, empty = not given) can be
// written. Called before a search starts, so that a typo does not lose its result.
void check_output_path(const std::string& path, const std::string& option);

// A trace that passed counterexamples::check_trace can still hold a value of the wrong
// type deep in a state (a node that is a number): the renderers, exporters and replay
// then fail inside nlohmann::json. That is bad input, not a bug: UsageError naming the
// file (exit 2). The field is not named: nlohmann reports no path without
// JSON_DIAGNOSTICS.
[[noreturn]] void throw_malformed_trace(const std::string& file, const std::exception& e);

// The same for a directory the command creates if needed (--trace-dir, --out DIR).
void check_output_directory(const std::string& path, const std::string& option);

}  // namespace isr::cli
