// Fuzz target: a witness script (`isrcheck witness --script "produce; kill leader"`),
// searched for in the default configuration with a small state bound.
#include "fuzz/harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  isr::fuzz::run({"witness", "--script", isr::fuzz::argument_text(data, size), "--trace-out",
                  isr::fuzz::scratch_dir() + "/witness.json", "--max-states", "300"});
  return 0;
}
