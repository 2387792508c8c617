// What a configuration switches on and a search may never use: the partition model's
// side of checker/hooks.h's HasUsage (issue 29 point 2).
//
// `check --set unclean_leader_election=true` held with exactly the states of the default,
// because with one crash no unclean election can happen, and nothing said so. Each bit
// here is a feature that has acted on the path to a state (an unclean election, a
// replica entering the ELR, a fault of one kind, a retry, a preferred election); the
// engine ORs them over all states, and after a complete search unused_switches names
// every configured switch or budget whose bit never appeared, with the change that
// would let it act. The engines know none of these words: they see the bits only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spec/common/unused_switch.h"
#include "spec/partition/config.h"
#include "spec/partition/state.h"

namespace isr::spec {

// The names of the bits, in bit order (for JSON and messages).
std::vector<std::string_view> usage_names();

// The bits of the features that have acted on the path to `s` (as far as the state
// records it: counters of faults and retries, the controller's unclean-election flag,
// the ELR).
uint32_t usage_seen(const State& s);

// For a search over every reachable state (complete), whose states' usage bits ORed to
// `used`: every switch of `c` that is on, or budget above 0, whose feature never acted.
std::vector<UnusedSwitch> unused_switches(const Config& c, uint32_t used);

}  // namespace isr::spec
