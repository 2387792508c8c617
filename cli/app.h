// The isrcheck command line as a function: builds the application with every
// subcommand, runs one command line and maps failures to exit codes (see app.cc). main.cc
// calls it once; the fuzz targets (fuzz/) call it once per input, in-process, so that
// they reach exactly the code paths and exit codes a user's command line reaches.
#pragma once

namespace isr::cli {

// Runs `isrcheck argv[1] ...` and returns its exit code: 0 success, 1 the subcommand's
// failure status, 2 bad usage or input, 3 incomplete, 4 an internal error (a bug).
// Reentrant: each call builds a fresh application and starts from exit code 0.
int run_app(int argc, const char* const* argv);

}  // namespace isr::cli
