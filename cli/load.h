// The --model, --config FILE and --set key=value options every model subcommand takes,
// and the configuration they resolve to (defaults, then the file, then each override in
// order): spec/partition/config.h for the partition model, spec/kraft/kraft_config.h for kraft.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "spec/kraft/kraft_config.h"
#include "spec/partition/config.h"

namespace isr::cli {

struct ConfigOptions {
  std::string model = "partition";     // --model: which model the configuration is for
  std::string file;                    // empty: no --config
  std::vector<std::string> overrides;  // each "dotted.key=value", in command-line order
};

// Adds --config and --set (repeatable) to `command`, storing into `options`.
void add_config_options(CLI::App& command, ConfigOptions& options);

// Adds --model partition|kraft (default partition). Only subcommands that dispatch on
// the model (cli/model_dispatch.h) take it.
void add_model_option(CLI::App& command, std::string& model);

// The resolved and validated partition-model configuration. Throws spec::ConfigError
// naming the field (main reports it with exit code 2), also when --model is not
// "partition".
spec::Config load_config(const ConfigOptions& options);

// The same for the KRaft quorum model.
spec::kraft::KraftConfig load_kraft_config(const ConfigOptions& options);

}  // namespace isr::cli
