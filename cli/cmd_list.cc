// `isrcheck list properties|protocols|fixes|actions [--model M]`: the names the
// configuration of a model accepts, each with a one-line description, and the model's
// action kinds with what each stands for in Kafka (each model's listing, spec/models.h).
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "spec/models.h"

namespace isr::cli {
namespace {

// Name and description; fixes also the Kafka release that shipped each ("-" for a fix
// of no release), in a column between them (docs/model.md has the survey behind it).
void print_rows(const std::vector<spec::NameRow>& rows) {
  const bool versions = std::any_of(rows.begin(), rows.end(), [](const spec::NameRow& r) { return !r.kafka_version.empty(); });
  std::size_t name_width = 0, version_width = std::string_view("version").size();
  for (const auto& r : rows) {
    name_width = std::max(name_width, r.name.size());
    version_width = std::max(version_width, r.kafka_version.size());
  }
  for (const auto& r : rows) {
    std::cout << r.name << std::string(name_width - r.name.size() + 2, ' ');
    if (versions) std::cout << r.kafka_version << std::string(version_width - r.kafka_version.size() + 2, ' ');
    std::cout << r.description << "\n";
  }
}

void list(const std::string& what, const std::string& model) {
  try {
    print_rows(spec::listing_of(model, what));
  } catch (const spec::NotListed& e) {
    throw UsageError("list " + what, e.what());
  }
}

}  // namespace

void add_list_command(CLI::App& app) {
  auto what = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand(
      "list", "List the property, protocol, fix or action names with descriptions");
  command->add_option("what", *what, "properties, protocols, fixes or actions (each action kind in Kafka's terms)")
      ->required()
      ->check(CLI::IsMember({"properties", "protocols", "fixes", "actions"}));
  auto model = std::make_shared<std::string>(spec::kPartitionModelName);
  command->add_option("--model", *model, "Which model's names: " + spec::model_names_text() + " (the first is the default)")
      ->check(CLI::IsMember(spec::model_names()));
  command->callback([what, model] { list(*what, *model); });
}

}  // namespace isr::cli
