// The predicates behind the named properties (catalog.cc gives them names). Each takes
// the configuration and one state and says whether the property holds in it; the ones
// about history read what next_state keeps in the state (acked records, consumer
// reads, the leader's last HW).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "spec/partition/config.h"
#include "spec/partition/properties/catalog.h"
#include "spec/partition/state.h"

namespace isr::properties {

// durability.cc
bool no_acked_loss(const spec::Config& c, const spec::State& s);
bool no_committed_loss_globally(const spec::Config& c, const spec::State& s);
bool strong_isr(const spec::Config& c, const spec::State& s);
bool leader_completeness(const spec::Config& c, const spec::State& s);

// consistency.cc
bool consistent_read(const spec::Config& c, const spec::State& s);
bool log_matching(const spec::Config& c, const spec::State& s);
bool single_leader_per_epoch(const spec::Config& c, const spec::State& s);
bool no_duplicates(const spec::Config& c, const spec::State& s);
bool hw_monotonic(const spec::Config& c, const spec::State& s);

// quorum.cc
bool replication_quorum_superset(const spec::Config& c, const spec::State& s);
bool min_isr_recovery_quorum(const spec::Config& c, const spec::State& s);

// The explanations beside them (same files): one sentence, in Kafka terms, saying how a
// trace's last state (its state_to_json) violates the property; empty when the state
// does not show it in a way these words can say.
std::string explain_no_acked_loss(const nlohmann::json& state);
std::string explain_no_committed_loss_globally(const nlohmann::json& state);
std::string explain_strong_isr(const nlohmann::json& state);
std::string explain_leader_completeness(const nlohmann::json& state);
std::string explain_consistent_read(const nlohmann::json& state);
std::string explain_log_matching(const nlohmann::json& state);
std::string explain_single_leader_per_epoch(const nlohmann::json& state);
std::string explain_no_duplicates(const nlohmann::json& state);
std::string explain_hw_monotonic(const nlohmann::json& state);
std::string explain_replication_quorum_superset(const nlohmann::json& state);
std::string explain_min_isr_recovery_quorum(const nlohmann::json& state);

// How a client sees the violation (catalog.h, ClientFacts), for the properties a client
// can see directly; empty when the facts do not show it.
std::string observed_no_acked_loss(const ClientFacts& facts);
std::string observed_no_committed_loss_globally(const ClientFacts& facts);
std::string observed_consistent_read(const ClientFacts& facts);

}  // namespace isr::properties
