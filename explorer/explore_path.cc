// Positions in URLs (explore_path.h).
#include "explorer/explore_path.h"

#include <cctype>
#include <charconv>
#include <limits>

namespace isr::explorer {
namespace {

// A non-negative decimal that fits `max`, else PathError naming `field`.
std::size_t parse_count(const std::string& text, const std::string& field, std::size_t max, const std::string& what) {
  std::size_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value > max) {
    throw PathError(field, "expected " + what + ", got \"" + text + "\"");
  }
  return value;
}

}  // namespace

std::vector<std::string> split_path(std::string_view text) {
  std::vector<std::string> steps;
  if (text.empty()) return steps;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(kStepSeparator, start);
    const std::string_view step = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (step.empty()) {
      throw PathError("path", "step " + std::to_string(steps.size() + 1) +
                                  " is empty: steps are action names or indices separated by \"" +
                                  std::string(1, kStepSeparator) + "\"");
    }
    steps.emplace_back(step);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return steps;
}

std::string join_path(const std::vector<std::string>& steps) {
  std::string text;
  for (const std::string& step : steps) {
    if (!text.empty()) text += kStepSeparator;
    text += step;
  }
  return text;
}

Position parse_position(const std::map<std::string, std::string>& params) {
  Position position;
  if (const auto it = params.find("path"); it != params.end()) position.steps = split_path(it->second);
  position.at = position.steps.size();
  if (const auto it = params.find("at"); it != params.end()) {
    position.at = parse_count(it->second, "at", position.steps.size(),
                              "the number of steps taken, 0 to " + std::to_string(position.steps.size()));
  }
  if (const auto it = params.find("init"); it != params.end()) {
    position.initial = static_cast<int>(parse_count(it->second, "init", std::numeric_limits<int>::max(),
                                                    "the index of an initial state (0 for the first)"));
  }
  return position;
}

std::string url_encode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_' || c == '.' || c == '~' || c == '(' || c == ')') {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

std::string position_url(const Position& position) {
  std::string url = "/state?path=" + url_encode(join_path(position.steps));
  if (position.at != position.steps.size()) url += "&at=" + std::to_string(position.at);
  if (position.initial != 0) url += "&init=" + std::to_string(position.initial);
  return url;
}

bool is_index_step(std::string_view step) {
  if (step.empty()) return false;
  for (const char c : step) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::string step_for(const std::string& name, std::size_t index, bool unique) {
  const bool usable = unique && !name.empty() && !is_index_step(name) && name.find(kStepSeparator) == std::string::npos;
  return usable ? name : std::to_string(index);
}

}  // namespace isr::explorer
