// Fuzz target: a corpus manifest (docs/corpus.md). `corpus verify` parses the whole
// manifest and resolves every entry's configurations before it checks any; --only with
// a name no entry has stops it right after (exit 2), so each input costs a parse, not
// the corpus's minutes of exhaustive checks.
#include "fuzz/harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string file = isr::fuzz::input_file(data, size, "manifest.json");
  isr::fuzz::run({"corpus", "verify", "--manifest", file, "--only", "no-such-entry-fuzz", "--threads", "1"});
  return 0;
}
