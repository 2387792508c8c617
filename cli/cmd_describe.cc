// `isrcheck describe [--model partition|kraft]`: prints the resolved configuration as
// JSON, every key present, so that what a run will check is visible before running it.
#include <iostream>
#include <memory>
#include <string_view>

#include "cli/commands.h"
#include "cli/load.h"
#include "cli/model_dispatch.h"

namespace isr::cli {

void add_describe_command(CLI::App& app) {
  auto options = std::make_shared<ConfigOptions>();
  CLI::App* command =
      app.add_subcommand("describe", "Print the resolved configuration (JSON, every key)");
  add_model_option(*command, options->model);
  add_config_options(*command, *options);
  command->callback([options] {
    with_model(*options, [](const auto& model, std::string_view) {
      // A model whose traces omit keys at their defaults (to keep old traces' text) has
      // a describe_json with every key, found by argument-dependent lookup.
      if constexpr (requires { describe_json(model.config()); }) {
        std::cout << describe_json(model.config()).dump(2) << "\n";
      } else {
        std::cout << model.config_json().dump(2) << "\n";
      }
    });
  });
}

}  // namespace isr::cli
