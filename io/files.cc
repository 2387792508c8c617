// The tool's file input and output: strict JSON parsing and atomic writes (files.h).
#include "io/files.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include "io/config_error.h"

namespace isr::io::files {
namespace {

using nlohmann::json;

// One open object or list while parsing: where it is (for messages) and, for an
// object, the keys seen so far.
struct Frame {
  std::string path;
  bool object = false;
  std::string last_key;
  std::set<std::string> keys;
};

std::string child_path(const Frame& parent) {
  if (!parent.object) return parent.path + "[]";
  return parent.path.empty() ? parent.last_key : parent.path + "." + parent.last_key;
}

// A path for a message: deep ones are cut, they are all brackets past a point.
std::string shortened(const std::string& path) {
  return path.size() <= 60 ? path : path.substr(0, 60) + "...";
}

// "[json.exception.parse_error.101] parse error at line 1, ..." -> "parse error at line 1, ...".
std::string without_prefix(const char* what) {
  std::string text = what;
  if (text.starts_with("[json.exception.")) {
    const auto end = text.find("] ");
    if (end != std::string::npos) text = text.substr(end + 2);
  }
  return text;
}

}  // namespace

bool valid_utf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t length = 0;
    uint32_t code = 0;
    if ((c & 0xE0) == 0xC0) length = 2, code = c & 0x1F;
    else if ((c & 0xF0) == 0xE0) length = 3, code = c & 0x0F;
    else if ((c & 0xF8) == 0xF0) length = 4, code = c & 0x07;
    else return false;
    if (i + length > n) return false;
    for (size_t k = 1; k < length; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return false;
      code = (code << 6) | (s[i + k] & 0x3F);
    }
    static constexpr uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < kSmallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
    i += length;
  }
  return true;
}

json parse_json(std::string_view text) {
  std::vector<Frame> open;
  // Sees each event with the depth of the containers around it: refuses a container
  // opened below kMaxJsonDepth and a key its object already has.
  const json::parser_callback_t check = [&open](int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start: {
        if (depth >= kMaxJsonDepth) {
          throw InputError("nested deeper than " + std::to_string(kMaxJsonDepth) +
                           " levels (at " + (open.empty() ? std::string("the top") : shortened(child_path(open.back()))) +
                           "); no input of isrcheck nests that deep");
        }
        Frame frame;
        frame.path = open.empty() ? "" : child_path(open.back());
        frame.object = event == json::parse_event_t::object_start;
        open.push_back(std::move(frame));
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!open.empty()) open.pop_back();
        break;
      case json::parse_event_t::key: {
        Frame& frame = open.back();
        const std::string& key = parsed.get_ref<const std::string&>();
        if (!frame.keys.insert(key).second) {
          throw InputError("duplicate key \"" + key + "\" in " +
                           (frame.path.empty() ? std::string("the top-level object") : "\"" + frame.path + "\"") +
                           " (JSON keeps only one; remove the other)");
        }
        frame.last_key = key;
        break;
      }
      case json::parse_event_t::value:
        break;
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), check);
  } catch (const json::parse_error& e) {
    throw InputError(without_prefix(e.what()));
  } catch (const json::out_of_range& e) {
    // A number beyond a double's range (1e999): nlohmann's lexer reports it as
    // out_of_range.406, not as a parse error.
    throw InputError(without_prefix(e.what()) + " (beyond the range of a JSON number isrcheck reads)");
  }
}

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError("\"" + path + "\" is a directory, expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot open \"" + path + "\": " + std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError("cannot read \"" + path + "\": " + std::strerror(errno));
  return text.str();
}

json read_json_file(const std::string& path) {
  const std::string text = read_file(path);
  try {
    return parse_json(text);
  } catch (const InputError& e) {
    throw InputError("\"" + path + "\" is not valid JSON: " + e.what());
  }
}

void write_file_atomically(const std::string& path, std::string_view content) {
  const std::string problem = output_path_problem(path);
  if (!problem.empty()) throw InputError(problem);
  static std::atomic<unsigned> counter{0};
  const std::filesystem::path target(path);
  const std::filesystem::path temp =
      target.parent_path() / ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()) + "." +
                              std::to_string(counter.fetch_add(1)));
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.close();
    if (!out) {
      const std::string why = std::strerror(errno);
      std::error_code ec;
      std::filesystem::remove(temp, ec);
      throw InputError("cannot write \"" + path + "\": " + why);
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, target, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw InputError("cannot write \"" + path + "\": " + ec.message());
  }
}

std::string output_path_problem(const std::string& path) {
  if (path.empty()) return "empty output path";
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return "\"" + path + "\" is a directory, expected a file name";
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  const std::string directory = parent.empty() ? "." : parent.string();
  if (!std::filesystem::is_directory(directory, ec)) return "cannot write \"" + path + "\": directory \"" + directory + "\" does not exist";
  if (::access(directory.c_str(), W_OK) != 0)
    return "cannot write \"" + path + "\": directory \"" + directory + "\" is not writable";
  return "";
}

nlohmann::json read_config_file(const std::string& path) {
  try {
    return read_json_file(path);
  } catch (const InputError& e) {
    throw ConfigError("--config", e.what());
  }
}

}  // namespace isr::io::files
