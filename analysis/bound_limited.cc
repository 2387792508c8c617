// The states an epoch bound may decide (see bound_limited.h).
#include "analysis/bound_limited.h"

namespace isr::analysis {

std::vector<char> bound_limited_states(const spec::Config& c, const checker::StateBlocks<spec::State>& states,
                                       const checker::Predecessors& edges) {
  std::vector<char> bound_limited(states.size(), 0);
  for (size_t v = 0; v < states.size(); ++v) {
    const spec::ControllerState& ctl = states[v].controller;
    bound_limited[v] = ctl.leader_epoch >= c.bounds.max_leader_epoch ||
                       ctl.partition_epoch >= c.bounds.max_partition_epoch;
  }
  checker::mark_backwards(edges, bound_limited);
  return bound_limited;
}

}  // namespace isr::analysis
