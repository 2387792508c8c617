// Shared option handling and formatting for check and simulate (see run_support.h).
#include "cli/run_support.h"

#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <cmath>
#include <csignal>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>

#include "cli/commands.h"
#include "io/files.h"

namespace isr::cli {
namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void on_interrupt(int) { g_interrupted.store(true); }

}  // namespace

std::atomic<bool>& interrupted() { return g_interrupted; }

InterruptGuard::InterruptGuard() {
  g_interrupted.store(false);
  previous_ = std::signal(SIGINT, on_interrupt);
  previous_term_ = std::signal(SIGTERM, on_interrupt);
}

InterruptGuard::~InterruptGuard() {
  std::signal(SIGINT, previous_);
  std::signal(SIGTERM, previous_term_);
}

// "512M" -> {512, "M"}: the leading number and what follows it; `error` when there is no
// number. Shared by the size and duration options.
static std::pair<double, std::string> number_and_unit(const std::string& text, const UsageError& error) {
  std::size_t used = 0;
  try {
    const double value = std::stod(text, &used);
    return {value, text.substr(used)};
  } catch (const std::exception&) {
    throw error;
  }
}

uint64_t parse_size(const std::string& text, const std::string& option) {
  const UsageError error(option, "expected bytes or a size with a unit: K, M, G or T, optionally followed by B or "
                                 "iB (e.g. 512M, 4G, 1.5GiB; all binary), got \"" + text + "\"");
  auto [value, unit] = number_and_unit(text, error);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  // "B" alone, or a prefix letter followed by nothing, "B" or "IB": "5IB" names no unit.
  std::string prefix = unit;
  if (unit.size() == 3 && unit.ends_with("IB")) prefix = unit.substr(0, 1);
  else if (unit.size() == 2 && unit.ends_with("B")) prefix = unit.substr(0, 1);
  double scale = 1;
  if (prefix.empty() || prefix == "B") scale = 1;
  else if (prefix == "K") scale = 1024.0;
  else if (prefix == "M") scale = 1024.0 * 1024;
  else if (prefix == "G") scale = 1024.0 * 1024 * 1024;
  else if (prefix == "T") scale = 1024.0 * 1024 * 1024 * 1024;
  else throw error;
  const double bytes = value * scale;
  if (!(bytes >= 1) || bytes > 1e18) throw error;
  return static_cast<uint64_t>(bytes);
}

std::chrono::nanoseconds parse_duration(const std::string& text, const std::string& option) {
  const UsageError error(option, "expected seconds or a number with a unit (500ms, 10s, 5m, 2h), got \"" +
                                     text + "\"");
  const auto [value, unit] = number_and_unit(text, error);
  double seconds_per_unit = 0;
  if (unit.empty() || unit == "s") seconds_per_unit = 1;
  else if (unit == "ms") seconds_per_unit = 1e-3;
  else if (unit == "m") seconds_per_unit = 60;
  else if (unit == "h") seconds_per_unit = 3600;
  else throw error;
  if (!(value > 0) || value * seconds_per_unit > 1e9) throw error;
  // A zero duration means "no limit" to the engines: a limit too small to measure must
  // not turn into none.
  if (value * seconds_per_unit < 1e-3) {
    throw UsageError(option, "must be at least 1ms (a duration with a unit: 500ms, 10s, 5m, 2h), got \"" + text + "\"");
  }
  return std::chrono::nanoseconds(static_cast<int64_t>(value * seconds_per_unit * 1e9));
}

std::string fixed(double value, int digits) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(digits) << value;
  return out.str();
}

std::string human(double value) {
  static const char* const kUnits[] = {"", "K", "M", "G", "T"};
  int unit = 0;
  while (std::fabs(value) >= 1000 && unit < 4) {
    value /= 1000;
    ++unit;
  }
  return fixed(value, unit == 0 ? 0 : 2) + kUnits[unit];
}

std::string bytes_text(uint64_t bytes) {
  const double mib = static_cast<double>(bytes) / (1024.0 * 1024.0);
  if (mib >= 1024) return fixed(mib / 1024, 2) + " GiB";
  return fixed(mib, 1) + " MiB";
}

void write_json(const std::string& path, const std::string& option, const nlohmann::json& document) {
  write_text(path, option, document.dump(2) + "\n");
}

void write_text(const std::string& path, const std::string& option, const std::string& text) {
  if (path == "-") {
    std::cout << text << std::flush;
    // A full disk or a closed pipe behind stdout is an error, not a silent success.
    if (!std::cout) throw UsageError(option, "cannot write to standard output");
    return;
  }
  try {
    io::files::write_file_atomically(path, text);
  } catch (const io::files::InputError& e) {
    throw UsageError(option, e.what());
  }
}

void check_output_path(const std::string& path, const std::string& option) {
  if (path.empty() || path == "-") return;
  const std::string problem = io::files::output_path_problem(path);
  if (!problem.empty()) throw UsageError(option, problem);
}

void throw_malformed_trace(const std::string& file, const std::exception& e) {
  std::string what = e.what();
  if (what.starts_with("[json.exception.")) {
    const auto end = what.find("] ");
    if (end != std::string::npos) what = what.substr(end + 2);
  }
  throw UsageError(file, "a value in the trace's steps has the wrong type or is out of range (" + what +
                             "); the trace does not follow docs/trace-format.md");
}

void check_output_directory(const std::string& path, const std::string& option) {
  if (path.empty()) return;
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_directory(path, ec)) {
    throw UsageError(option, "\"" + path + "\" exists and is not a directory");
  }
  std::filesystem::create_directories(path, ec);
  if (ec) throw UsageError(option, "cannot create \"" + path + "\": " + ec.message());
  if (::access(path.c_str(), W_OK) != 0) throw UsageError(option, "directory \"" + path + "\" is not writable");
  // access() says yes to root everywhere (/proc/self): a file actually created and
  // removed is the proof, before the search rather than after it.
  const std::string probe = (std::filesystem::path(path) / (".isrcheck-probe." + std::to_string(::getpid()))).string();
  try {
    io::files::write_file_atomically(probe, "");
  } catch (const io::files::InputError& e) {
    throw UsageError(option, "directory \"" + path + "\" cannot hold files: " + e.what());
  }
  std::filesystem::remove(probe, ec);
}

}  // namespace isr::cli
