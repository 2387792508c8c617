// `isrcheck describe`: prints the resolved configuration as JSON, every key present,
// so that what a run will check is visible before running it.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/load.h"

namespace isr::cli {

void add_describe_command(CLI::App& app) {
  auto options = std::make_shared<ConfigOptions>();
  CLI::App* command =
      app.add_subcommand("describe", "Print the resolved configuration (JSON, every key)");
  add_config_options(*command, *options);
  command->callback([options] {
    const spec::Config config = load_config(*options);
    std::cout << spec::to_json(config).dump(2) << "\n";
  });
}

}  // namespace isr::cli
