// The partition model's declarations for partial-order reduction (checker/por.h,
// docs/checker.md "Partial-order reduction"): which actions are irrelevant in a state.
//
// A Flush (log.flush.interval.messages: the fsync of a replica's log, UnifiedLog.flush
// via LogManager's flush scheduler) writes one field, ReplicaState::flushed, and that
// field is read by exactly one rule that reaches anything else: the power loss, which
// truncates the log to it (apply_crash, StopKind::Power; a power loss drops the page
// cache, so only the fsynced prefix survives). Every other use only writes it: a clean
// stop flushes everything (LogManager.shutdown), a disk loss and any truncation clamp it
// to the log end (UnifiedLog.truncateTo), an append under flush=every-append sets it. A
// kill -9 and a restart keep it (log recovery starts from the recovery point; see
// apply_restart). No property, no bound and no guard of another action reads it
// (spec/partition/properties/ never does; bounds_hit does not; symmetry.cc reads it only to order
// nodes, and state_to_json to print it).
//
// So once no power loss can happen on any path from a state, `flushed` is dead: the fault
// counters only grow (FaultCounters are only ever incremented), so when the stop budget
// or the power-loss budget is spent, it stays spent, and a Flush then leads to a state
// that differs from its parent only in a dead field. The engine drops such an edge: the
// states it would reach behave exactly as their parents for every action and property.
// The CheckpointHw action needs no such rule: the model already enables it only while a
// stop can still happen (faults.cc), which is the same argument for hw_checkpoint, read
// at the restart of a stopped node. No other action is ever irrelevant: a ShrinkIsr, of
// one follower or of a set (isr.cc), writes the pending AlterPartition that its commit,
// the HW rule (maximal ISR) and the next shrink's guard read, so sets add no case here.
#include "spec/partition/partition_model.h"

namespace isr::spec {

bool PartitionModel::por_irrelevant(const State& s, const Action& a) const {
  if (a.kind != ActionKind::Flush) return false;
  const FaultBudget& b = config_.faults;
  return s.faults.crashes >= b.max_crashes || s.faults.lossy >= b.max_lossy_crashes;
}

// Where the Flush is irrelevant, every replica's `flushed` is dead (by the argument
// above, which is about the field, not the action): two states that differ only there
// behave alike, so the engine may count them as one. The condition reads only the fault
// counters, which clearing leaves alone, and clearing every replica's field commutes with
// relabelling the nodes.
//
// The HW checkpoint (replication-offset-checkpoint) is read only when a node stops
// (forget_process_state reloads the in-memory HW from it) and when a stopped node
// restarts (apply_restart, log recovery); CheckpointHw is enabled only while a stop can
// still happen. So once the stop budget is spent, the checkpoint of every node that is
// alive is dead: it can no longer stop, hence never restart; a stopped node's checkpoint
// stays live until its restart has read it. The condition reads the fault counters and
// `alive`, which clearing leaves alone.
void PartitionModel::por_clear_dead(State& s) const {
  const FaultBudget& b = config_.faults;
  const bool no_stop = s.faults.crashes >= b.max_crashes;
  if (no_stop || s.faults.lossy >= b.max_lossy_crashes)
    for (ReplicaState& r : s.replicas) r.flushed = 0;
  if (no_stop)
    for (int n = 0; n < kMaxReplicas; ++n)
      if (s.nodes[n].alive) s.replicas[n].hw_checkpoint = 0;
}

}  // namespace isr::spec
