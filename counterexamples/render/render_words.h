// The vocabulary the renderers share: how a state field, a change and a violation read
// in protocol terms ("node 2: crashed (kill -9)", "controller: ISR [0,1,2] -> [0,1]").
//
// Everything works on the trace JSON alone. Fields the partition model's state does not
// have fall back to a generic "path: before -> after", so that traces of other models, or
// of later versions of this one, still render.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "spec/common/state_words.h"

namespace isr::counterexamples {

// The JSON text helpers (spec/common/state_words.h), shared with the properties'
// explanations.
using properties::compact;
using properties::entry_text;
using properties::field;
using properties::join;
using properties::log_text;
using properties::node_name;
using properties::node_set_text;
using properties::scalar_text;
using properties::set_members;

// How a node stopped, from its last_stop: "crashed (kill -9)", "shut down cleanly", ...
std::string stop_words(const nlohmann::json& last_stop);
// The network sides a node is cut from: "quorum,clients", "-" when none.
std::string cut_text(const nlohmann::json& cut);
// What a replica has in flight: its fetch response, or its AlterPartition as leader.
std::string in_flight_text(const nlohmann::json& replica);
// A producer outcome for people: "acked", "failed NOT_ENOUGH_REPLICAS", ...
std::string outcome_words(const std::string& outcome);

// Generic phrases for the fields of two objects that no specific rule handled (the keys
// in `handled` are left out): `prefix` then "path a -> b", "path = v" (a field only
// `after` has) or "path removed (was v)".
void generic_changes(const std::string& prefix, const nlohmann::json& before, const nlohmann::json& after,
                     const std::set<std::string>& handled, std::vector<std::string>& out);

// What changed from one state to the next, one phrase per change, in protocol terms.
std::vector<std::string> describe_changes(const nlohmann::json& before,
                                          const nlohmann::json& after);

// The same phrases with consecutive ones about the same subject merged:
// "controller: leader N0 -> N1, ISR [0,1,2] -> [1,2]".
std::vector<std::string> group_changes(const std::vector<std::string>& phrases);

// One sentence saying how the last state violates the trace's property.
std::string violation_sentence(const nlohmann::json& trace);

// Lines describing the configuration: key settings, fault budgets, bounds, the rest.
std::vector<std::string> config_lines(const nlohmann::json& config);

}  // namespace isr::counterexamples
