// check --spill: see spill_support.h.
#include "cli/spill_support.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "cli/commands.h"
#include "cli/run_support.h"

namespace isr::cli {

void check_spill_directory(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw UsageError("--spill", "expected an existing directory for the spill files, got \"" + dir + "\"");
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw UsageError("--spill", "cannot create files in \"" + dir + "\" (expected a writable directory)");
  }
}

uint64_t spill_budget_from_free_memory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream in(line);
    std::string key;
    uint64_t kib = 0;
    if (in >> key >> kib && key == "MemAvailable:") return kib * 1024 / 4 * 3;
  }
  const long pages = ::sysconf(_SC_AVPHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 4 * 3 : uint64_t{1} << 30;
}

}  // namespace isr::cli
