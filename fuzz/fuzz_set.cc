// Fuzz target: `--set key=value` overrides. Each line of the input is one --set value
// (at most eight), given to describe for each model; a set that loads is also checked
// with a small state bound.
#include <sstream>

#include "fuzz/harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using isr::fuzz::run;
  std::istringstream lines(isr::fuzz::argument_text(data, size));
  std::vector<std::string> sets;
  for (std::string line; sets.size() < 8 && std::getline(lines, line);) {
    sets.push_back("--set");
    sets.push_back(line);
  }
  for (const char* model : {"partition", "kraft", "cluster"}) {
    std::vector<std::string> describe = {"describe", "--model", model};
    describe.insert(describe.end(), sets.begin(), sets.end());
    if (run(describe) != 0) continue;
    std::vector<std::string> check = {"check", "--model", model, "--max-states", "300", "--threads", "1"};
    check.insert(check.end(), sets.begin(), sets.end());
    run(check);
  }
  return 0;
}
