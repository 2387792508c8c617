// Fuzz target: a trace file (docs/trace-format.md) through every command that reads
// one: render in each format, replay, export in each format, and conform (which turns a
// trace into a scenario and validates it before it would start any cluster; the driver
// named here does not exist, so a valid input ends with exit 2 before Kafka).
#include "fuzz/harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using isr::fuzz::run;
  const std::string file = isr::fuzz::input_file(data, size, "trace.json");
  const std::string out = isr::fuzz::scratch_dir() + "/out.txt";
  for (const char* format : {"text", "markdown", "mermaid", "dot"}) run({"render", file, "--format", format});
  run({"replay", file});
  for (const char* format : {"scenario", "gtest", "itf"}) run({"export", file, "--format", format, "--out", out});
  run({"conform", file, "--driver", isr::fuzz::scratch_dir() + "/no-driver"});
  return 0;
}
