// Fuzz target: a claim file (docs/claims.md) as `prove` reads it, with --json and
// --trace-dir so that the writers run too. A claim's searches are exhaustive: to keep
// each input cheap, a claim that parses as JSON gets "max_states" of at most 2000 (an
// absent or larger number is lowered; any other value is left for the parser to judge).
#include <string>

#include "fuzz/harness.h"
#include "io/files.h"

namespace {

constexpr unsigned kMaxStates = 2000;

// The input, or the input with its state bound lowered.
std::string bounded_claim(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  nlohmann::json claim;
  try {
    claim = isr::io::files::parse_json(text);
  } catch (const std::exception&) {
    return text;  // not JSON: prove reports it
  }
  if (!claim.is_object()) return text;
  auto it = claim.find("max_states");
  if (it == claim.end() || (it->is_number_unsigned() && it->get<unsigned long long>() > kMaxStates)) {
    claim["max_states"] = kMaxStates;
    return claim.dump();
  }
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = bounded_claim(data, size);
  const std::string file =
      isr::fuzz::input_file(reinterpret_cast<const uint8_t*>(text.data()), text.size(), "claim.json");
  const std::string& dir = isr::fuzz::scratch_dir();
  isr::fuzz::run({"prove", file, "--threads", "1", "--json", dir + "/prove.json", "--trace-dir", dir + "/traces"});
  return 0;
}
