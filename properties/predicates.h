// The predicates behind the named properties (catalog.cc gives them names). Each takes
// the configuration and one state and says whether the property holds in it; the ones
// about history read what next_state keeps in the state (acked records, consumer
// reads, the leader's last HW).
#pragma once

#include "spec/config.h"
#include "spec/state.h"

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

}  // namespace isr::properties
