// The named properties of the KRaft controller quorum model (spec/kraft/): Raft's
// safety properties for the metadata log, with stable kebab-case names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "spec/kraft/kraft_config.h"
#include "spec/kraft/kraft_state.h"

namespace isr::properties {

struct KraftPropertyInfo {
  std::string_view name;
  std::string_view description;
  bool (*holds)(const spec::kraft::KraftConfig& c, const spec::kraft::KraftState& s);
  // How a counterexample's last state (its quorum part as state_to_json) breaks it;
  // empty when that state does not show it.
  std::string (*explain)(const nlohmann::json& last_state);
};

// Every KRaft property, in the order they are checked and reported.
const std::vector<KraftPropertyInfo>& kraft_catalog();

// nullptr when unknown.
const KraftPropertyInfo* find_kraft(std::string_view name);

// The named KRaft property's explanation of a last state; empty when unknown or unshown.
std::string explain_kraft(std::string_view property, const nlohmann::json& last_state);

// The predicates (kraft.cc).
bool single_controller_per_epoch(const spec::kraft::KraftConfig& c, const spec::kraft::KraftState& s);
bool metadata_log_matching(const spec::kraft::KraftConfig& c, const spec::kraft::KraftState& s);
bool committed_metadata_durable(const spec::kraft::KraftConfig& c, const spec::kraft::KraftState& s);
bool metadata_leader_completeness(const spec::kraft::KraftConfig& c, const spec::kraft::KraftState& s);

}  // namespace isr::properties
