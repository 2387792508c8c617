// Fuzz target: a recorded execution (docs/recording.md) as `validate` reads it: parsed and
// checked line by line, then validated against the model it names, with bounds small
// enough that any input finishes quickly (exit 0, 1, 2 or 3 are all answers).
#include "fuzz/harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string file = isr::fuzz::input_file(data, size, "run.jsonl");
  isr::fuzz::run({"validate", file, "--max-internal", "2", "--max-states", "20000"});
  return 0;
}
