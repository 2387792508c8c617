// The tool's file input and output: strict JSON parsing and atomic writes (files.h).
#include "io/files.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
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
  // Read in chunks up to the limit: a device or pipe has no size to ask for beforehand.
  std::string text;
  char chunk[1 << 16];
  while (in) {
    in.read(chunk, sizeof chunk);
    const auto got = static_cast<std::size_t>(in.gcount());
    if (text.size() + got > kMaxInputBytes) {
      throw InputError("\"" + path + "\" is larger than " + std::to_string(kMaxInputBytes >> 20) +
                       " MiB, the most isrcheck reads from one input file");
    }
    text.append(chunk, got);
  }
  if (in.bad()) throw InputError("cannot read \"" + path + "\": " + std::strerror(errno));
  return text;
}

json read_json_file(const std::string& path) {
  const std::string text = read_file(path);
  try {
    return parse_json(text);
  } catch (const InputError& e) {
    throw InputError("\"" + path + "\" is not valid JSON: " + e.what());
  }
}

namespace {

// A target that exists and is no regular file (/dev/null, /dev/full, a FIFO, a terminal)
// is written in place: renaming a temporary file over it would replace the device with
// a file (as root, /dev/full itself). Every write is checked: a full device is an error.
void write_in_place(const std::string& path, std::string_view content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw InputError("cannot write \"" + path + "\": " + std::strerror(errno));
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = n < 0 ? std::strerror(errno) : "nothing written";
      ::close(fd);
      throw InputError("cannot write \"" + path + "\": " + why);
    }
    written += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) throw InputError("cannot write \"" + path + "\": " + std::strerror(errno));
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view content) {
  const std::string problem = output_path_problem(path);
  if (!problem.empty()) throw InputError(problem);
  std::error_code exists_ec;
  const auto status = std::filesystem::status(path, exists_ec);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    write_in_place(path, content);
    return;
  }
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
  // A device or FIFO is written in place (write_file_atomically): it needs no directory.
  const auto status = std::filesystem::status(path, ec);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    if (::access(path.c_str(), W_OK) != 0) return "cannot write \"" + path + "\": " + std::strerror(errno);
    return "";
  }
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
