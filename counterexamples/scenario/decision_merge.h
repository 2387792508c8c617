// Merging the KRaft controller's committed decisions (read from `__cluster_metadata` at the
// end of a run) into a recording's one ordered event log (docs/recording.md, "Decisions").
//
// A decision's place among the harness's own events is known only in part: the metadata
// offsets order the decisions among themselves, and an observation orders a decision
// before it when it shows the partition state after that decision (or after a later one);
// the model equates an observation's top-level partition state with the controller's
// committed state (counterexamples::observable_state), so an observation that can only be
// an earlier state orders the decision after it. Nothing else is known (the harness sees
// no commit), and nothing else is assumed: a decision and the harness events it may
// interleave with share a `group`, in which the decisions keep their offset order and the
// harness events their file order; a decision bounded by one of the group's own events
// names it (`after_seq`, `before_seq`).
//
// A harness that groups events itself (`isrcheck campaign`: a timed-out send and its
// timeout, any order) gives events whose order is unknown already; a decision group holds
// its harness events in file order, so joining them would add an order nobody saw. A
// decision whose window holds a grouped event is left out instead (counted): the model
// then need not make it, fewer constraints, which can only explain more; the others keep
// their windows (computed with every decision, so none moves on a state the left-out one
// showed). Observations bound the windows and a harness never groups one, so a window
// either holds a whole harness group or none of it.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

namespace isr::counterexamples {

struct MergedRecording {
  std::vector<nlohmann::json> events;  // seq renumbered 1, 2, ...
  int groups = 0;                      // groups written (decisions interleaving harness events)
  int left_out = 0;                    // decisions left out: their window holds a grouped harness event
};

// `events`: the harness's recorded events, in its order; those with a `group` keep it.
// `decisions`: the driver's `metadata_log` answer (op, record_type, metadata_offset, and the
// partition state or the broker's fencing), in offset order. `first_group`: the group
// number to start from (raised above the events' own groups).
MergedRecording merge_decisions(const std::vector<nlohmann::json>& events, const std::vector<nlohmann::json>& decisions,
                                int first_group = 1);

}  // namespace isr::counterexamples
