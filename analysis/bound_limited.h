// Where the partition model's epoch bounds may decide an analysis of its explicit state
// graph: the states from which an election or a partition change beyond the bounds is
// reachable. There the model stops enumerating changes Kafka would make, so what the
// graph says of them may be an artefact of the bounds. Shared by the availability
// (availability.cc) and convergence (convergence.cc) analyses, which set such states
// apart rather than judge them.
#pragma once

#include <vector>

#include "checker/graph/state_graph.h"
#include "checker/store/state_blocks.h"
#include "spec/partition/config.h"
#include "spec/partition/state.h"

namespace isr::analysis {

// Per vertex, whether a path along `edges` (the predecessors of the edges the analysis
// follows) leads from it to a state at the leader-epoch or partition-epoch bound of `c`.
std::vector<char> bound_limited_states(const spec::Config& c, const checker::StateBlocks<spec::State>& states,
                                       const checker::Predecessors& edges);

}  // namespace isr::analysis
