// Fuzz target: a configuration file (--config FILE) for each model, and the same bytes
// as simulate's --weights file. A configuration that loads is also checked and walked,
// with bounds small enough for a fuzzer, so that whatever the parser accepts is known
// to be safe for the engines, the renderers and the JSON writers.
#include "fuzz/harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using isr::fuzz::run;
  const std::string file = isr::fuzz::input_file(data, size, "config.json");
  const std::string out = isr::fuzz::scratch_dir() + "/out.json";
  for (const char* model : {"partition", "kraft", "cluster"}) {
    if (run({"describe", "--model", model, "--config", file}) != 0) continue;
    run({"check", "--model", model, "--config", file, "--max-states", "300", "--threads", "1", "--json", out});
    run({"simulate", "--model", model, "--config", file, "--walks", "2", "--depth", "12", "--seed", "1",
         "--threads", "1", "--json", out});
  }
  run({"simulate", "--weights", file, "--walks", "1", "--depth", "8", "--seed", "1", "--threads", "1", "--quiet"});
  return 0;
}
