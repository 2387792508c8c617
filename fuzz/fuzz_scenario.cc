// Fuzz target: a scenario file (docs/scenarios.md) as `conform` reads it: validated in
// full before any cluster starts. The driver named here does not exist, so a valid
// scenario ends with exit 2 (--driver) and no Kafka is ever started.
#include "fuzz/harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string file = isr::fuzz::input_file(data, size, "scenario.json");
  isr::fuzz::run({"conform", file, "--driver", isr::fuzz::scratch_dir() + "/no-driver"});
  return 0;
}
