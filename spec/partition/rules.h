// Internal to spec/: the helpers the rule files share, and the per-concern entry
// points that partition_model.cc dispatches to. Not part of the public model API.
//
// Each `*_actions` function appends the actions of its concern enabled in a state, in a
// fixed order; each `apply_*` function performs one action on a state in place.
#pragma once

#include <array>
#include <cstdint>

#include "spec/partition/config.h"
#include "spec/partition/partition_model.h"
#include "spec/partition/queries.h"
#include "spec/partition/state.h"

namespace isr::spec::rules {

// Collects enabled actions into the caller's fixed buffer (no allocation).
using ActionList = spec::ActionList<Action, kMaxEnabledActions>;

// Whether flush state is tracked at all: only a lossy crash can observe it.
bool tracks_flush(const Config& c);

// --- Log operations --------------------------------------------------------------------

void append(const Config& c, ReplicaState& r, LogEntry entry);
void truncate_to(ReplicaState& r, int offset);
// The largest leader epoch in the log, or -1 when the log is empty.
int latest_epoch(const ReplicaState& r);

// --- Leader bookkeeping ---------------------------------------------------------------

// Partition.maybeIncrementLeaderHW, then completes delayed produce requests.
void maybe_increment_hw(const Config& c, State& s, int leader);
// DelayedProduce.tryComplete / Partition.checkEnoughReplicasReachOffset.
void complete_delayed_produce(const Config& c, State& s, int leader);

// --- Producer ------------------------------------------------------------------------

// The client's handling of a retriable error answered to the current send
// (NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS_AFTER_APPEND, NOT_LEADER_OR_FOLLOWER): with
// retries left, Sender re-enqueues the batch and the send stays Retrying; else the
// application gets `error` (produce.cc).
void answer_retriable(const Config& c, State& s, SendOutcome error);

// --- Controller (PartitionChangeBuilder) -----------------------------------------------

// A partition change as PartitionChangeBuilder computes it: a target ISR, replicas to
// treat as restarted after an unclean shutdown (KIP-966), and whether an unclean
// election is allowed if no eligible leader exists.
struct PartitionChange {
  NodeSet target_isr;
  NodeSet unclean_shutdown = 0;
  bool allow_unclean = false;
  bool from_leader = false;  // an AlterPartition from the leader (not the controller's own change)
  // AlterPartitionReassignments (KIP-455): the change sets the assignment (replicas,
  // adding, removing) instead of keeping the controller's (controller.cc).
  bool sets_assignment = false;
  NodeSet replicas = 0, adding = 0, removing = 0;
};
// The leaders the election in `change` may end with: the current leader when it stays
// valid, else every valid candidate (any of them: the assignment order that makes Kafka's
// choice deterministic is left open, docs/model.md), else unclean candidates when
// allowed. 0 means the partition ends up without a leader. `unclean` tells which.
NodeSet leader_options(const Config& c, const State& s, const PartitionChange& change, bool& unclean);
// Applies `change` electing `leader` (one of leader_options, or kNoNode when it is 0);
// bumps the epochs. Returns false, leaving `s` unchanged, when the epochs would exceed
// their bounds.
bool change_partition(const Config& c, State& s, const PartitionChange& change, int leader);

// Adds one `kind` action per way the controller may fence `broker` (other = the leader
// it elects, or kNoNode); none when every way exceeds the epoch bounds.
void add_fencing_actions(const Config& c, const State& s, int broker, ActionKind kind, int arg,
                         ActionList& out);
// Fences `broker` at the controller, electing `new_leader` if leadership must move.
void fence(const Config& c, State& s, int broker, int new_leader);
// The partition change that fences `broker` / unfences it (controller.cc).
PartitionChange fencing_change(const Config& c, const State& s, int broker);
PartitionChange unfencing_change(const Config& c, const State& s, int broker, bool registering);
// Adds one `kind` action per leader `change` may elect in `s` (other = that leader, or
// kNoNode), keeping those within the epoch bounds.
void add_change_variants(const Config& c, const State& s, const PartitionChange& change, ActionKind kind,
                         int node, int arg, ActionList& out);
// Unclean and preferred-replica elections, in either controller mode.
void election_actions(const Config& c, const State& s, ActionList& out);
// Broker `b` takes the controller's partition state as its view (makeLeader/makeFollower).
void adopt_partition_state(const Config& c, State& s, int b);
// Partition.makeFollower's answer for a request making `b` follower of `leader` at
// `epoch` (the leader's own request answers false): whether the fetcher restarts and the
// follower truncates, per fixes.reconcile_on_epoch_gap / reconcile_on_every_epoch; from
// `r`'s view (a restarted broker always reconciles) or from an explicit earlier request.
bool follower_reconciles(const Config& c, const ReplicaState& r, int b, int leader, int epoch);
bool follower_reconciles(const Config& c, int had_leader, int had_epoch, int b, int leader, int epoch);
// Marks a clean stop the controller took no part in (no quorum to shut down through).
inline constexpr uint8_t kWithoutController = 0xFE;

// The history the properties need (the acting leader and its HW), after every step.
void update_history(State& s);

// Relabels every node reference of `s` by `perm` (old id -> new id) into `t`
// (symmetry.cc; the composed model's symmetry reuses it).
void relabel_nodes(const Config& c, const std::array<uint8_t, kMaxNodes>& perm, const State& s, State& t);
// The same for the node references of a controller's partition image (leader, ISR, ELR,
// LastKnownELR, offline directories, fenced brokers, registered epochs), in place; the
// composed model relabels its metadata records' images with it.
void relabel_image(int nodes, const std::array<uint8_t, kMaxNodes>& perm, ControllerState& image);
// A hash of the label-free facts about node n (symmetry.cc): equal for a node and its
// image under any relabelling. `active_is_a_node`: whether controller.active is a node
// reference the relabelling moves.
uint64_t node_signature(const Config& c, const State& s, int n, bool active_is_a_node);

// --- Per-concern actions and transitions ---------------------------------------------

// Produce's `other` when the broker's response to it is lost (faults.max_lost_produce_responses).
inline constexpr uint8_t kResponseLost = 1;
// ProduceTimeout's `other` when the record never left the client (expire_unsent_batches).
inline constexpr uint8_t kUnsent = 1;
void produce_actions(const Config& c, const State& s, ActionList& out);
void apply_produce(const Config& c, State& s, const Action& a);
void apply_produce_timeout(const Config& c, State& s, const Action& a);

void replication_actions(const Config& c, const State& s, ActionList& out);
void apply_fetch(const Config& c, State& s, const Action& a);
void apply_fetch_request(const Config& c, State& s, const Action& a);  // leader side only
void apply_fetch_response(const Config& c, State& s, const Action& a);
void apply_epoch_query(const Config& c, State& s, const Action& a);

void isr_actions(const Config& c, const State& s, ActionList& out);
void apply_shrink_isr(const Config& c, State& s, const Action& a);
void apply_alter_partition(const Config& c, State& s, const Action& a);
// Called while handling a fetch: Partition.maybeExpandIsr.
void maybe_expand_isr(const Config& c, State& s, int leader, int follower);

void controller_actions(const Config& c, const State& s, ActionList& out);
void apply_fence_broker(const Config& c, State& s, const Action& a);
void apply_register_broker(const Config& c, State& s, const Action& a);
void apply_unfence_broker(const Config& c, State& s, const Action& a);
void apply_assign_replicas_to_dirs(const Config& c, State& s, const Action& a);
// RegisterBroker's arg: the broker's directory assignment (KIP-858) committed before its
// unfencing, so the unfencing change may elect it.
inline constexpr int kAssignedFirst = 1;
void apply_unclean_election(const Config& c, State& s, const Action& a);
void apply_preferred_election(const Config& c, State& s, const Action& a);
void apply_metadata_update(const Config& c, State& s, const Action& a);
void apply_controller_failover(const Config& c, State& s, const Action& a);
// Partition reassignment (reassignment.cc, bounds.max_reassignments).
void reassignment_actions(const Config& c, const State& s, ActionList& out);
void apply_reassign(const Config& c, State& s, const Action& a);
// The change that starts a reassignment of the partition to `target`
// (ReplicationControlManager.changePartitionReassignment, PartitionReassignmentReplicas).
PartitionChange reassignment_change(const State& s, NodeSet target);
// AlterPartition's arg when the change it commits moves leadership (a reassignment
// completing without the leader): `other` is the leader elected.
inline constexpr int kAlterElects = 1;
// ReplicaState::alter_pending once the controller answered NEW_LEADER_ELECTED: the change
// committed and removed this leader; the proposal stays pending, not in flight, until the
// broker's metadata update (Partition.handleAlterPartitionError).
inline constexpr uint8_t kAlterAwaitingMetadata = 2;
// The leaders an AlterPartition from `leader` elects when its change takes leadership
// from it, 0 when the leader stays or the controller rejects it (isr.cc).
NodeSet alter_partition_new_leaders(const Config& c, const State& s, int leader);
// A replica leaves broker `b`: the broker replays that it is no longer assigned
// (ReplicaManager.applyDelta -> stopPartitions with deletion): its log and view are gone.
void remove_replica(State& s, int b);

// --- ZooKeeper-mode controller (zookeeper.cc) -------------------------------------------

void zk_controller_actions(const Config& c, const State& s, ActionList& out);
// ControllerFailover's arg when the new controller's startup elects `other` (ZooKeeper
// mode from kip-497: the dead leader's removal leaves the partition leaderless).
inline constexpr int kFailoverElects = 1;
// Session expiries and znode registrations (the brokers' and ZooKeeper's side).
void zk_session_actions(const Config& c, const State& s, ActionList& out);
// After the controller wrote the partition state znode: its controller epoch is recorded,
// and (before KIP-380) the LeaderAndIsr it sends reaches whatever incarnation runs.
void zk_after_controller_write(const Config& c, State& s, bool leader_changed);
// Whether the current controller's LeaderAndIsr (a newer leader epoch) or UpdateMetadata
// (a follower's metadata cache after an ISR change) would change broker `b`'s view.
bool zk_view_update_due(const State& s, int b);
// Before the current controller writes a new leader epoch (led by `new_leader`): records,
// per live replica, whether its LeaderAndIsr queue now holds a demotion before its newest
// request, and whether the new request makes it reconcile (follower_reconciles).
void zk_queue_leader_change(const Config& c, State& s, int new_leader);
// A new queue for broker `b` (addBroker, or every broker at a controller failover): its
// first request carries the controller's current state, which may skip leader epochs.
void zk_start_queue(const Config& c, State& s, int b);
// Broker `b` replays its LeaderAndIsr queue: whether a request before the newest made it
// not leader (and clears the record). False under KRaft.
bool zk_take_queued_demotion(State& s, int b);
// The same for "some queued request made it reconcile" (follower_reconciles).
bool zk_take_queued_reconcile(State& s, int b);
// A broker writes the ISR itself (Partition.updateIsr, before KIP-497): compare-and-set
// on the zkVersion it cached. False, leaving `s` unchanged, when the write fails.
bool zk_leader_writes_isr(const Config& c, State& s, int leader, NodeSet isr);
// Whether ISR changes are the leader's own ZooKeeper writes (ZooKeeper mode before KIP-497).
bool leader_writes_isr(const Config& c);
void zk_apply_register_broker(const Config& c, State& s, const Action& a);
void zk_apply_controller_failover(const Config& c, State& s, const Action& a);
void apply_session_expiry(const Config& c, State& s, const Action& a);
void apply_broker_bounce(const Config& c, State& s, const Action& a);
void apply_deposed_write(const Config& c, State& s, const Action& a);
void apply_stale_leader_and_isr(const Config& c, State& s, const Action& a);

void fault_actions(const Config& c, const State& s, ActionList& out);
void apply_crash(const Config& c, State& s, const Action& a);
void apply_restart(const Config& c, State& s, const Action& a);
void apply_cut(const Config& c, State& s, const Action& a);
void apply_pause(const Config& c, State& s, const Action& a);
void apply_resume(const Config& c, State& s, const Action& a);
void apply_heal(const Config& c, State& s, const Action& a);
void apply_flush(const Config& c, State& s, const Action& a);
void apply_checkpoint_hw(const Config& c, State& s, const Action& a);

// KIP-853 (controller.quorum=dynamic, voters.cc): an operator's RemoveVoter of a stale
// voter key and AddVoter of the node's new one.
void voter_actions(const Config& c, const State& s, ActionList& out);
void apply_remove_voter(const Config& c, State& s, const Action& a);
void apply_add_voter(const Config& c, State& s, const Action& a);

void consumer_actions(const Config& c, const State& s, ActionList& out);
void apply_consume(const Config& c, State& s, const Action& a);

}  // namespace isr::spec::rules
