// What `isrcheck check` says before and after its figures, for a person who has just
// run it: the configuration in Kafka's terms (brokers, replication factor, min ISR,
// acks, unclean election, ELR, controller placement, protocol, faults, bounds), the
// properties with their one-line descriptions, what a HOLDS verdict covers (only these
// bounds) and, with --explain, what each figure means. Built from the model's resolved
// configuration JSON (what `describe` prints), so it serves every --model alike.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace isr::cli {

// Lines starting "checked: ...": the configuration of `config` (a model's config_json())
// in Kafka terms. Keys the model does not have are left out.
std::string kafka_terms_summary(const nlohmann::json& config, std::string_view model_name);

// "properties checked: a, b, c" and then one indented "name  description" line each.
std::string properties_summary(const std::vector<std::pair<std::string, std::string>>& properties);

// What "bounds reached" means for the verdict, after the list of bound names.
std::string bounds_reached_summary(const std::vector<std::string>& bounds_reached, bool holds);

// --explain: what generated and distinct states, depth, the memory figures and the
// fingerprint collision estimate mean (docs/checker.md has the long version).
std::string figures_explained();

}  // namespace isr::cli
