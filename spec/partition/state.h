// The compact state of one Kafka partition and the cluster around it.
//
// A state is a plain value of fixed size with no padding and no pointers: engines hash
// it as bytes, copy it with memcpy and keep millions of them. Sets of nodes are bit
// masks over node ids. Every field that the model does not use for a configuration
// stays zero, so that it never distinguishes two states.
//
// Node ids: 0..replication_factor-1 host the partition's replicas (brokers), then the
// other brokers, then dedicated controller voters (see Config::nodes()). The assignment
// order of the replicas is not part of the state: elections may pick any eligible
// replica (see docs/model.md, "Elections"), which makes the replicas interchangeable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "spec/partition/config.h"

namespace isr::spec {

using NodeSet = uint16_t;  // bit n set = node n is a member
static_assert(kMaxNodes <= 16);

inline constexpr int kMaxReplicas = 7;
inline constexpr uint8_t kNoNode = 0xFF;  // "no leader" (Kafka's leader -1)

inline constexpr bool contains(NodeSet s, int n) { return (s >> n) & 1u; }
inline constexpr NodeSet bit(int n) { return static_cast<NodeSet>(1u << n); }
inline constexpr int size(NodeSet s) { return __builtin_popcount(s); }

// One record batch of one record: the leader epoch it was appended in and the producer's
// record id (1..max_records; with idempotence the id is also the sequence number).
struct LogEntry {
  uint8_t epoch = 0;
  uint8_t record = 0;  // 0 = empty slot
  bool operator==(const LogEntry&) const = default;
};

// How a node's broker last stopped, and what crashes do to its disk.
enum class StopKind : uint8_t { None, Clean, Kill, Power, Disk };

enum NetworkSide : uint8_t {
  kCutFromQuorum = 1,   // cannot reach the controller quorum (heartbeats, metadata)
  kCutFromBrokers = 2,  // cannot fetch from / serve fetches to other brokers
  kCutFromClients = 4,  // producers and consumers cannot reach it
};

// Per node: process and network facts, and the broker's registration.
struct NodeState {
  uint8_t alive = 1;
  uint8_t last_stop = 0;      // StopKind of the last stop (clean-shutdown marker)
  uint8_t broker_epoch = 0;   // the node's own broker epoch (its last registration)
  uint8_t cut = 0;            // NetworkSide bits
  // The broker epoch the clean-shutdown file (.kafka_cleanshutdown) carries: the epoch
  // of the incarnation that shut down cleanly, 0 (Kafka's -1) when that incarnation never
  // registered, or when the last stop was not clean (the file is deleted at startup).
  uint8_t clean_shutdown_epoch = 0;
  // ZooKeeper mode only (zero under KRaft): the broker's ephemeral /brokers/ids/N znode,
  // alive as long as its ZooKeeper session (zookeeper.session.timeout.ms), and the czxid
  // that KIP-380 uses as its broker epoch; the highest controller epoch the broker has
  // accepted a request from (ReplicaManager.controllerEpoch).
  uint8_t zk_registered = 0;  // the znode exists (its session has not expired)
  uint8_t zk_epoch = 0;       // broker epoch of the latest znode (kept after it is gone)
  uint8_t controller_epoch_seen = 0;
  // The process is frozen (SIGSTOP, a GC pause, a VM freeze: faults.max_pauses): alive,
  // with its memory and disk kept, but it takes no step and answers nothing until Resume.
  uint8_t paused = 0;
};

// What a fetch response carries back to a follower (one batch at most).
enum class FetchReply : uint8_t {
  None,          // no response in flight
  Data,          // records (maybe none) and the leader's HW
  OutOfRange,    // follower's fetch offset beyond the leader's LEO (pre-KIP-101 path)
  Fenced,        // FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH / NOT_LEADER (KIP-320)
};

struct FetchResponse {
  uint8_t kind = 0;          // FetchReply
  uint8_t leader = 0;        // who answered
  uint8_t leader_epoch = 0;  // the epoch the follower fetched in
  uint8_t offset = 0;        // offset of the carried entry (= follower LEO at request)
  LogEntry entry{};          // entry.record == 0: nothing to append
  uint8_t leader_hw = 0;
  uint8_t leader_leo = 0;    // for OutOfRange truncation
};

// A replica of the partition on one broker: its log and its (possibly stale) view.
struct ReplicaState {
  LogEntry log[kMaxLog];
  uint8_t leo = 0;            // log end offset = number of entries
  uint8_t hw = 0;             // local high watermark (in memory)
  uint8_t hw_checkpoint = 0;  // replication-offset-checkpoint on disk (may be stale)
  uint8_t flushed = 0;        // entries fsynced (tracked only when a lossy crash can happen)

  // The broker's view of the partition metadata, from the metadata log (may lag).
  uint8_t view_leader = kNoNode;
  uint8_t view_leader_epoch = 0;
  uint8_t view_partition_epoch = 0;
  uint8_t needs_truncation = 0;  // follower in a new epoch, log not yet reconciled (KIP-101)
  NodeSet view_isr = 0;

  // Leader side (meaningful while view_leader == this node).
  uint8_t epoch_start_offset = 0;  // LEO when it became leader (KIP-320 ISR join rule)
  uint8_t alter_pending = 0;       // an AlterPartition is in flight
  NodeSet alter_isr = 0;           // the ISR it proposes
  uint8_t alter_broker_epoch = 0;  // broker epoch of the replica it adds, as last fetched (KIP-903)
  // KIP-858: the broker's log directory was formatted anew (a disk loss: a new directory
  // id in meta.properties) and no registration has told the controller yet. Survives
  // crashes (it is on the disk); RegisterBroker moves it to the controller's
  // `directory_offline`. Only with fixes.directory_assignment (zero otherwise).
  uint8_t new_directory = 0;
  uint8_t fetch_offset[kMaxReplicas] = {};        // follower LEO as of its last fetch
  uint8_t fetch_broker_epoch[kMaxReplicas] = {};  // follower broker epoch (KIP-903)
  uint8_t pad_ = 0;  // always 0: keeps the struct free of padding (engines hash its bytes)
  uint8_t view_valid = 0;  // 0 after a restart, until the broker replays the metadata

  // Follower side: the response to its one outstanding fetch.
  FetchResponse response{};
  // The assignment (replicas) of the broker's view; only with reassignment
  // (bounds.max_reassignments), zero otherwise. The leader serves fetches from, and
  // lets into the ISR, only the replicas of its view (Partition.updateAssignmentAndIsr).
  NodeSet view_replicas = 0;
};

// The controller's committed partition metadata and broker registrations.
struct ControllerState {
  uint8_t leader = kNoNode;
  uint8_t leader_epoch = 0;
  uint8_t partition_epoch = 0;
  uint8_t active = 0;             // node id of the active controller
  uint8_t controller_epoch = 1;
  uint8_t unclean_elected = 0;    // an unclean election happened (data may be gone)
  NodeSet isr = 0;
  NodeSet elr = 0;                // KIP-966 eligible leader replicas
  NodeSet last_known_elr = 0;     // KIP-966
  NodeSet fenced = 0;             // brokers fenced (session expired, shut down, not registered)
  uint8_t registered_epoch[kMaxNodes] = {};      // broker epoch per registered broker
  // ZooKeeper mode only (zero under KRaft). `fenced` is then the complement of the
  // controller's live brokers (ControllerContext.liveBrokerIds), `registered_epoch` their
  // epochs as it knows them, `partition_epoch` the zkVersion of the partition state znode.
  uint8_t state_controller_epoch = 0;  // controller_epoch field of the partition state znode
  uint8_t deposed = 0;                 // 1 + node id of a deposed controller with a queued write, 0 = none
  uint8_t deposed_epoch = 0;           // its controller epoch
  uint8_t deposed_wrote = 0;           // the partition state is the deposed controller's write
  uint8_t controller_vacant = 0;       // /controller is gone (its holder's session ended)
  uint8_t controller_stopped = 0;      // the process holding /controller has stopped
  // KIP-858 (JBOD in KRaft, 3.7, metadata.version >= 3.7-IV2): the replicas whose
  // assigned log directory (PartitionRegistration.directories) is not among their
  // broker's registered online directories. A disk that was lost and formatted again has
  // a new directory id, so the restarted broker's registration no longer lists the one
  // the partition names, until the broker's AssignReplicasToDirs moves the replica to
  // its new directory. Only with fixes.directory_assignment (zero otherwise).
  NodeSet directory_offline = 0;
  // ZooKeeper mode only (zero under KRaft): the brokers whose LeaderAndIsr queue at the
  // current controller (ControllerChannelManager: one LinkedBlockingQueue and one
  // RequestSendThread per broker, delivered in order and retried until sent) holds,
  // before its newest request, a leader epoch that makes the broker not leader. The
  // broker's MetadataUpdate replays the whole queue (zookeeper.cc, zk_queue_leader_change).
  NodeSet zk_queued_demotion = 0;
  // ZooKeeper mode only: the brokers for which some request in that queue (or the first
  // one after the queue was created, compared with the broker's view) makes
  // Partition.makeFollower answer true, so that the replay restarts the fetcher and the
  // follower truncates (rules::follower_reconciles; docs/fidelity.md F13).
  NodeSet zk_queued_reconcile = 0;
  // Reassignment (KIP-455, bounds.max_reassignments; zero otherwise):
  // PartitionRegistration.replicas, addingReplicas and removingReplicas. During a
  // reassignment `replicas` is the target plus the replicas being removed.
  NodeSet replicas = 0;
  NodeSet adding = 0;
  NodeSet removing = 0;
  // KIP-853, controller.quorum=dynamic only (zero otherwise). A voter is a replica key
  // (id, directory id) and VoterSet.VoterNode.isVoter matches both: a voter whose disk
  // was lost is formatted again (--no-initial-controllers) with a new directory id, so
  // the voter set's key for it names a directory it no longer has, and while it runs it
  // is an observer (voters.cc). `stale_voters`: those voters; `removed_voters`: those of
  // them whose old key an operator's RemoveVoter took out of the voter set.
  NodeSet stale_voters = 0;
  NodeSet removed_voters = 0;
};

// The outcome of each producer send, as the application sees it.
enum class SendOutcome : uint8_t {
  Unsent,
  InFlight,        // appended (or queued) at a leader, waiting for acks
  Acked,
  NotEnoughReplicas,             // rejected before append (ISR < min ISR)
  NotEnoughReplicasAfterAppend,  // appended, but ISR < min ISR when HW reached it
  TimedOut,                      // REQUEST_TIMED_OUT: may or may not be committed
  NotLeader,                     // NOT_LEADER_OR_FOLLOWER: leadership moved
  // The broker answered a retriable error (one of the three above) and the client
  // re-enqueued the batch instead of completing the send: the application has seen
  // nothing yet; the send ends acked by a retry or timed out (delivery.timeout.ms).
  Retrying,
};

struct ProducerState {
  uint8_t current = 0;         // record id of the current send (0 = none yet)
  uint8_t inflight_leader = kNoNode;
  uint8_t inflight_offset = 0; // HW that acknowledges it (offset + 1)
  uint8_t retries = 0;         // retries used
  uint8_t outcome[kMaxRecords] = {};  // SendOutcome per record id - 1
};

struct ConsumerState {
  uint8_t position = 0;          // next offset to read
  uint8_t read[kMaxLog] = {};    // record id read at each offset < position
  uint8_t pad_ = 0;
};

// History the properties need, maintained by next_state.
struct HistoryState {
  uint8_t hw_regressed = 0;      // a leader's HW went backwards within its epoch
  uint8_t last_leader = kNoNode; // active leader after the previous step
  uint8_t last_leader_epoch = 0;
  uint8_t last_leader_hw = 0;
};

struct FaultCounters {
  uint8_t crashes = 0;
  uint8_t lossy = 0;
  uint8_t disk_losses = 0;
  uint8_t clean_shutdowns = 0;
  uint8_t cuts = 0;
  uint8_t leader_moves = 0;  // preferred-replica elections so far
  uint8_t lost_produce_responses = 0;
  uint8_t pauses = 0;        // process pauses so far (faults.max_pauses)
  uint8_t reassignments = 0; // AlterPartitionReassignments so far (bounds.max_reassignments)
  uint8_t pad_ = 0;          // always 0: keeps the struct free of padding
};

// The slots come last, replicas after nodes: a configuration with R replica slots uses
// only the bytes before replicas[R] (used_state_bytes), and the engines hash and
// compare only those (checker/hooks.h, HasStatePrefix). The default model's three
// brokers use 340 of the 572 bytes.
struct State {
  ControllerState controller;
  ProducerState producer;
  ConsumerState consumer;
  HistoryState history;
  FaultCounters faults;
  NodeState nodes[kMaxNodes];
  ReplicaState replicas[kMaxReplicas];
};

static_assert(std::is_trivially_copyable_v<State>);
static_assert(std::has_unique_object_representations_v<State>,
              "State must have no padding: engines hash its bytes");

// The bytes of a state that a configuration with `replica_slots` replica slots can make
// non-zero: everything before the first replica slot it never uses.
inline constexpr std::size_t used_state_bytes(int replica_slots) {
  return offsetof(State, replicas) + static_cast<std::size_t>(replica_slots) * sizeof(ReplicaState);
}

}  // namespace isr::spec
