// What a KRaft quorum configuration switches on and a search may never use: the KRaft
// model's side of checker/hooks.h's HasUsage (issue 29 point 2; the partition model's is
// spec/partition/usage.h). Each bit is a feature that has acted on the path to a state
// (a fault of one kind, a metadata record appended, a voter back on a new directory);
// after a complete search unused_switches names every budget above 0, and every fix
// turned off, whose feature never acted, with what would let it act.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "spec/common/unused_switch.h"
#include "spec/kraft/kraft_config.h"
#include "spec/kraft/kraft_state.h"

namespace isr::spec::kraft {

// The names of the bits, in bit order.
std::vector<std::string_view> usage_names();

// The bits of the features that have acted on the path to `s` (the fault counters, the
// appends, a voter's new directory id).
uint32_t usage_seen(const KraftState& s);

// For a complete search whose states' usage bits ORed to `used`.
std::vector<UnusedSwitch> unused_switches(const KraftConfig& c, uint32_t used);

}  // namespace isr::spec::kraft
