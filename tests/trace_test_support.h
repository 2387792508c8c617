// Helpers shared by the render and replay tests: fixture paths, temporary files, and
// running the built `isrcheck` binary to check its output and exit code.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace isr::trace_test {

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::string fixture_path(const std::string& name) {
  return std::string(ISRCHECK_SOURCE_DIR) + "/tests/data/" + name;
}

inline nlohmann::json load_fixture(const std::string& name) {
  return nlohmann::json::parse(slurp(fixture_path(name)));
}

// A file name no other test process uses (ctest runs tests in parallel).
inline std::string temp_path(const std::string& suffix) {
  static int counter = 0;
  return ::testing::TempDir() + "isrcheck_trace_test_" + std::to_string(getpid()) + "_" +
         std::to_string(counter++) + suffix;
}

inline std::string write_temp(const std::string& text, const std::string& suffix = ".json") {
  const std::string path = temp_path(suffix);
  std::ofstream(path) << text;
  return path;
}

struct Run {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `command` through the shell, capturing stdout and stderr.
inline Run run_shell(const std::string& command) {
  const std::string base = temp_path("");
  const std::string full = command + " >'" + base + ".out' 2>'" + base + ".err' </dev/null";
  const int status = std::system(full.c_str());
  Run r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

#ifdef ISRCHECK_BINARY
// Runs the isrcheck binary with `args` (already shell-quoted where needed).
inline Run run_isrcheck(const std::string& args) {
  return run_shell(std::string("'") + ISRCHECK_BINARY + "' " + args);
}
#endif

}  // namespace isr::trace_test
