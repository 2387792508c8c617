// What every fuzz target shares: the input as a file, and the isrcheck command line run
// in-process (cli/app.h) with the verdict a fuzzer needs.
//
// A target turns one input into the command lines a user could run on it and passes
// them to run(). Exit codes 0-3 are the tool's answers (success, a finding, bad input,
// incomplete); exit 4 is an internal error, a bug by the tool's own definition, so run()
// prints the command and its stderr and aborts: libFuzzer records the input as a crash.
// A crash, a sanitizer report, a leak, a timeout or unbounded memory are caught by
// libFuzzer itself (scripts/fuzz.sh sets the limits).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace isr::fuzz {

// A directory of this process's own, removed at exit: input files and outputs go there.
const std::string& scratch_dir();

// Writes the input to scratch_dir()/name and returns the path.
std::string input_file(const uint8_t* data, size_t size, const std::string& name);

// Runs `isrcheck args...` in-process: stdout discarded, stderr kept for the report.
// Returns the exit code, or aborts on exit 4 or a code the tool never uses.
int run(const std::vector<std::string>& args);

// The input as text, cut at the first NUL (a command-line argument ends there).
std::string argument_text(const uint8_t* data, size_t size);

}  // namespace isr::fuzz

// libFuzzer's entry point, defined by each fuzz_<kind>.cc.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
