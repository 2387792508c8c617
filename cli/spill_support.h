// check --spill (a search larger than memory, docs/checker.md): the checks on its
// directory and the budget it defaults to.
#pragma once

#include <cstdint>
#include <string>

namespace isr::cli {

// An existing directory this process can create files in; UsageError naming --spill
// otherwise (exit 2).
void check_spill_directory(const std::string& dir);

// The budget of `--spill` without `--max-memory`: three quarters of the memory the
// machine has available now (MemAvailable), leaving the rest to the process's other
// memory and the page cache that the spill files' reads go through.
uint64_t spill_budget_from_free_memory();

}  // namespace isr::cli
