// `isrcheck list properties|protocols|fixes [--model partition|kraft]`: the names the
// configuration of a model accepts, each with a one-line description.
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "spec/cluster/cluster_config.h"
#include "spec/cluster/cluster_properties.h"
#include "spec/kraft/kraft_config.h"
#include "spec/kraft/kraft_properties.h"
#include "spec/partition/config.h"
#include "spec/partition/properties/catalog.h"

namespace isr::cli {
namespace {

void print_table(const std::vector<std::pair<std::string_view, std::string_view>>& rows) {
  std::size_t width = 0;
  for (const auto& [name, description] : rows) width = std::max(width, name.size());
  for (const auto& [name, description] : rows) {
    std::cout << name << std::string(width - name.size() + 2, ' ') << description << "\n";
  }
}

// `list fixes` of the partition model: name, the Kafka release that shipped the fix,
// description (docs/model.md has the survey behind the version column).
void print_fixes(const std::vector<spec::FixInfo>& fixes,
                 const std::vector<std::pair<std::string_view, std::string_view>>& more) {
  std::size_t name_width = 0, version_width = std::string_view("version").size();
  for (const auto& f : fixes) {
    name_width = std::max(name_width, f.name.size());
    version_width = std::max(version_width, f.kafka_version.size());
  }
  for (const auto& [name, description] : more) name_width = std::max(name_width, name.size());
  auto row = [&](std::string_view name, std::string_view version, std::string_view description) {
    std::cout << name << std::string(name_width - name.size() + 2, ' ') << version
              << std::string(version_width - version.size() + 2, ' ') << description << "\n";
  };
  for (const auto& f : fixes) row(f.name, f.kafka_version, f.description);
  for (const auto& [name, description] : more) row(name, "-", description);
}

void list(const std::string& what, const std::string& model) {
  std::vector<std::pair<std::string_view, std::string_view>> rows;
  if (model == "cluster") {
    // The composed model checks the partition, KRaft and cluster properties and takes
    // the fixes of both models plus its own (docs/cluster.md).
    if (what == "protocols") {
      for (const auto p : spec::all_protocols()) rows.emplace_back(spec::protocol_name(p), spec::protocol_description(p));
    } else if (what == "properties") {
      for (const auto& p : properties::catalog()) rows.emplace_back(p.name, p.description);
      for (const auto& p : properties::kraft_catalog()) rows.emplace_back(p.name, p.description);
      for (const auto& p : properties::cluster_catalog()) rows.emplace_back(p.name, p.description);
    } else {
      for (const auto& f : spec::cluster::cluster_only_fixes()) rows.emplace_back(f.name, f.description);
      print_fixes(spec::all_fixes(), rows);
      return;
    }
  } else if (model == "kraft") {
    // The quorum model has no protocol generations: its fixes are toggled one by one.
    if (what == "protocols") {
      throw UsageError("list protocols", "the kraft model has no protocol generations; see `list fixes --model kraft`");
    }
    if (what == "properties") {
      for (const auto& p : properties::kraft_catalog()) rows.emplace_back(p.name, p.description);
    } else {
      for (const auto& f : spec::kraft::all_fixes()) rows.emplace_back(f.name, f.description);
    }
  } else if (what == "properties") {
    for (const auto& p : properties::catalog()) rows.emplace_back(p.name, p.description);
  } else if (what == "protocols") {
    for (const auto p : spec::all_protocols()) {
      rows.emplace_back(spec::protocol_name(p), spec::protocol_description(p));
    }
  } else {
    print_fixes(spec::all_fixes(), {});
    return;
  }
  print_table(rows);
}

}  // namespace

void add_list_command(CLI::App& app) {
  auto what = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand(
      "list", "List the property, protocol or fix names with descriptions");
  command->add_option("what", *what, "properties, protocols or fixes")
      ->required()
      ->check(CLI::IsMember({"properties", "protocols", "fixes"}));
  auto model = std::make_shared<std::string>("partition");
  command->add_option("--model", *model, "Which model's names: partition (default), kraft or cluster")
      ->check(CLI::IsMember({"partition", "kraft", "cluster"}));
  command->callback([what, model] { list(*what, *model); });
}

}  // namespace isr::cli
