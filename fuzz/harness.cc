// The fuzz targets' shared runner (harness.h).
#include "fuzz/harness.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <streambuf>

#include "cli/app.h"

namespace isr::fuzz {
namespace {

// Swallows everything: the commands' stdout (rendered traces, tables) is not checked.
class NullBuffer : public std::streambuf {
 protected:
  int overflow(int c) override { return traits_type::not_eof(c); }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

void remove_scratch() {
  std::error_code ec;
  std::filesystem::remove_all(scratch_dir(), ec);
}

}  // namespace

const std::string& scratch_dir() {
  // Never destroyed: remove_scratch runs at exit, after static destructors would have.
  static const std::string* const dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::filesystem::path path = std::filesystem::path(tmp && *tmp ? tmp : "/tmp") /
                                 ("isrcheck-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path);
    return new std::string(path.string());
  }();
  static const bool registered = std::atexit(remove_scratch) == 0;
  (void)registered;
  return *dir;
}

std::string input_file(const uint8_t* data, size_t size, const std::string& name) {
  const std::string path = scratch_dir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) {
    std::fprintf(stderr, "fuzz: cannot write %s\n", path.c_str());
    std::abort();
  }
  return path;
}

std::string argument_text(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  return text.substr(0, text.find('\0'));
}

int run(const std::vector<std::string>& args) {
  static NullBuffer null_buffer;
  std::vector<const char*> argv = {"isrcheck"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  argv.push_back(nullptr);

  std::ostringstream captured;
  std::streambuf* const out = std::cout.rdbuf(&null_buffer);
  std::streambuf* const err = std::cerr.rdbuf(captured.rdbuf());
  const int code = cli::run_app(static_cast<int>(argv.size()) - 1, argv.data());
  std::cout.flush();
  std::cout.rdbuf(out);
  std::cerr.rdbuf(err);
  std::string command = "isrcheck";
  for (const std::string& a : args) command += " '" + a + "'";
  // ISRCHECK_FUZZ_VERBOSE=1: every command and its exit code, to see what a target reaches.
  static const bool verbose = std::getenv("ISRCHECK_FUZZ_VERBOSE") != nullptr;
  if (verbose) {
    const std::string first_line = captured.str().substr(0, captured.str().find('\n'));
    std::fprintf(stderr, "fuzz: exit %d: %.300s\n      %.300s\n", code, command.c_str(), first_line.c_str());
  }
  if (code >= 0 && code <= 3) return code;

  std::fprintf(stderr, "fuzz: exit %d (%s) from: %s\n--- its stderr ---\n%s\n", code,
               code == 4 ? "internal error" : "an exit code isrcheck never uses", command.c_str(),
               captured.str().c_str());
  std::abort();
}

}  // namespace isr::fuzz
