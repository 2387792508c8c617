// The --config FILE and --set key=value options every model subcommand takes, and the
// configuration they resolve to (spec/config.h: defaults, then the file, then each
// override in order).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "spec/config.h"

namespace isr::cli {

struct ConfigOptions {
  std::string file;                    // empty: no --config
  std::vector<std::string> overrides;  // each "dotted.key=value", in command-line order
};

// Adds --config and --set (repeatable) to `command`, storing into `options`.
void add_config_options(CLI::App& command, ConfigOptions& options);

// The resolved and validated configuration. Throws spec::ConfigError naming the field,
// which main reports with exit code 2.
spec::Config load_config(const ConfigOptions& options);

}  // namespace isr::cli
