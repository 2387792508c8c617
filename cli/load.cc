// Shared --config / --set handling for the subcommands (see load.h).
#include "cli/load.h"

#include <nlohmann/json.hpp>

namespace isr::cli {

void add_config_options(CLI::App& command, ConfigOptions& options) {
  command.add_option("--config", options.file,
                     "JSON configuration file (keys as printed by `isrcheck describe`)");
  // One key=value per occurrence, so that a value never swallows the next argument.
  command
      .add_option("--set", options.overrides,
                  "Override one key, dotted for nested keys: faults.max_crashes=2, "
                  "acks=all, properties=no-acked-loss,log-matching (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

spec::Config load_config(const ConfigOptions& options) {
  if (options.file.empty()) return spec::load_config(nullptr, options.overrides);
  const nlohmann::json document = spec::read_config_file(options.file);
  return spec::load_config(&document, options.overrides);
}

}  // namespace isr::cli
