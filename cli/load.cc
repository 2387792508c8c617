// Shared --model / --config / --set handling for the subcommands (see load.h).
#include "cli/load.h"

#include <nlohmann/json.hpp>

#include "cli/model_dispatch.h"
#include "io/files.h"

namespace isr::cli {
namespace {

// The --config document, or null without --config.
nlohmann::json config_document(const ConfigOptions& options) {
  if (options.file.empty()) return nullptr;
  return io::files::read_config_file(options.file);
}

}  // namespace

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

void add_model_option(CLI::App& command, std::string& model) {
  command.add_option("--model", model,
                     "Which model: partition (one Kafka partition, default), kraft (the KRaft "
                     "controller quorum, KIP-595) or cluster (the partition with its controller in "
                     "the KRaft quorum)")
      ->check(CLI::IsMember(model_names()))
      ->capture_default_str();
}

spec::Config load_config(const ConfigOptions& options) {
  if (options.model != kPartitionModelName) {
    throw spec::ConfigError("--model", "this subcommand checks the partition model only, got \"" +
                                           options.model + "\"");
  }
  const nlohmann::json document = config_document(options);
  return spec::load_config(document.is_null() ? nullptr : &document, options.overrides);
}

spec::kraft::KraftConfig load_kraft_config(const ConfigOptions& options) {
  const nlohmann::json document = config_document(options);
  return spec::kraft::load_config(document.is_null() ? nullptr : &document, options.overrides);
}

}  // namespace isr::cli
