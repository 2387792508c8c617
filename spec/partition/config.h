// The configuration of one model: the cluster, the topic, the protocol generation with
// its per-fix toggles, the fault budgets and the exploration bounds.
//
// The JSON key names are stable: scripts and claim files use them. `describe` prints
// the resolved configuration (every key, defaults filled). Parsing and validation live
// in config.cc; invalid input raises ConfigError naming the field and what is allowed.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/config_error.h"

namespace isr::spec {

// Hard capacity of the compact state (see state.h); configurations beyond it are
// rejected by validation with a message naming the limit.
inline constexpr int kMaxNodes = 10;
inline constexpr int kMaxLog = 8;        // entries per replica log
inline constexpr int kMaxRecords = 6;    // records the producer may send
inline constexpr int kMaxEpoch = 15;     // leader / partition / broker epochs

enum class Acks : uint8_t { Zero, One, All };
enum class FlushPolicy : uint8_t { None, EveryAppend };
enum class Placement : uint8_t { Combined, Dedicated };
// Which controller runs the cluster (MODEL.md section 1, docs/model.md "ZooKeeper-mode
// controller"): a broker elected through ZooKeeper (Kafka up to 3.x), or the KRaft quorum
// (2.8+, the only mode from 4.0).
enum class ControllerMode : uint8_t { Kraft, Zookeeper };
// How the KRaft voter set is defined (Kafka's operations docs, "Static versus Dynamic
// KRaft Quorums"; KIP-853). Static: `controller.quorum.voters`, kraft.version 0, voters
// known by id alone. Dynamic: formatted with `--standalone` / `--initial-controllers`,
// configured with `controller.quorum.bootstrap.servers`, kraft.version 1: a voter is a
// replica key (id, directory id), changed only by AddRaftVoter / RemoveRaftVoter.
enum class QuorumKind : uint8_t { Static, Dynamic };

// Protocol generations, oldest first; each includes the fixes of those before it.
enum class Protocol : uint8_t { HwTruncation, Kip101, Kip279, Kip320, Kip497, Kip903, Kip966 };

// One toggle per fix. A generation sets every fix it includes; the `fixes` object in the
// configuration overrides individual toggles (for instance kip-966 without KIP-903).
struct Fixes {
  bool leader_epoch_truncation = true;     // KIP-101: truncate via OffsetsForLeaderEpoch, not HW
  bool largest_epoch_lookup = true;        // KIP-279: answer the largest epoch <= requested, iterate
  bool fetch_epoch_fencing = true;         // KIP-320: fetches carry the leader epoch; stale ones fenced
  bool reelected_leader_keeps_followers = true;  // KAFKA-2721 (0.9.0.0): makeLeader resets followers only if not leader before
  bool isr_join_epoch_start = true;        // KAFKA-7128: ISR join needs LEO >= leader's epoch start offset
  bool maximal_isr = true;                 // KIP-497: HW/acks over ISR + pending adds; removals on commit
  bool alter_partition_broker_epochs = true;  // KIP-903: AlterPartition carries broker epochs
  bool hw_frozen_below_min_isr = true;     // KAFKA-15583 (KIP-966): no HW advance while ISR < min ISR
  bool unclean_restart_leaves_elr = true;  // KAFKA-15586 (KIP-966): an unclean restart leaves ISR and ELR
  bool last_known_elr = true;              // KIP-966: LastKnownELR keeps the last leader; elected when ISR+ELR empty
  // Added by the survey of Kafka's replication fixes (docs/model.md, "Kafka's replication
  // fixes"); kept after the original ten so that the table order stays stable.
  bool isr_join_unfenced_only = true;         // KIP-841: fenced / shutting-down replicas cannot join the ISR
  bool isr_shrink_keeps_leader_epoch = true;  // KAFKA-15021: an ISR shrink does not bump the leader epoch
  bool last_known_leader_unfenced = true;     // KAFKA-19522: the last known leader is elected only unfenced
  bool directory_assignment = true;           // KIP-858 (3.7, MV 3.7-IV2): a leader's assigned log directory must be online
  // ZooKeeper-mode controller fixes (no effect under controller.mode=kraft).
  bool controller_epoch_zk_version = true;  // KAFKA-6082 (2.1): controller writes check /controller_epoch's zkVersion
  bool bounced_broker_epochs = true;        // KIP-380 / KAFKA-7235 (2.2): a re-registration with a new broker epoch is a bounce
  // The follower's truncation decision between 0.11 and 2.1 (docs/fidelity.md F13).
  bool reconcile_on_epoch_gap = true;          // KAFKA-7164 (2.0.1): a follower also reconciles after a missed leader epoch
  bool reconcile_on_every_epoch = true;        // KAFKA-7395 (KIP-320, 2.1.0): a follower reconciles on every new leader epoch
  bool leader_epoch_cached_on_election = true; // KAFKA-7415 (2.0.1): makeLeader caches its epoch's start offset
};

struct ControllerConfig {
  Placement placement = Placement::Combined;
  int voters = 3;  // combined: the first `voters` nodes are also voters
  // resolved: zookeeper for generations up to kip-497, kraft from kip-903. Under
  // zookeeper the voters are the ZooKeeper ensemble and the controller is a broker.
  ControllerMode mode = ControllerMode::Kraft;
  // KRaft only. Static keeps every count of the model before the key existed; a combined
  // voter that lost its disk then comes back as the same voter. Dynamic: it comes back
  // as an observer until an operator's RemoveVoter and AddVoter (queries.h, voters.cc).
  QuorumKind quorum = QuorumKind::Static;
};

struct FaultBudget {
  int max_crashes = 1;        // node stops of any kind (kill -9, power loss, disk loss, clean stop)
  int max_lossy_crashes = 1;  // of which: power loss dropping the unflushed suffix
  int max_disk_losses = 0;    // of which: the whole log and checkpoints gone
  int max_clean_shutdowns = 0;  // of which: controlled shutdowns
  int max_network_cuts = 0;   // a node cut off from the quorum, the brokers or the clients
  int max_lost_produce_responses = 0;  // acks=1 produce responses lost after the append
  int max_pauses = 0;         // process pauses (SIGSTOP/SIGCONT: GC pause, VM freeze)
};

struct Bounds {
  // Defaults keep the default model's exhaustive check well under a minute on 2 cores.
  int max_records = 1;          // records the producer sends (ids 1..max_records)
  int max_leader_epoch = 3;     // no election beyond this leader epoch
  int max_partition_epoch = 4;  // no partition change (ISR change, election) beyond this
  int max_retries = 0;          // producer retries over the whole run
  int max_leader_moves = 0;     // preferred-replica elections (leadership moved without a failure)
  // AlterPartitionReassignments an operator submits (KIP-455; ReplicationControlManager
  // .changePartitionReassignment): each moves the partition to any non-empty set of brokers.
  // 0 keeps the assignment fixed at brokers 0..replication_factor-1.
  int max_reassignments = 0;
};

// Which replicas the consumer fetches from. KIP-392 (Kafka 2.4): with client.rack and a
// broker replica.selector.class, the leader names a preferred read replica and the
// consumer fetches from that follower, up to the follower's own high watermark.
enum class ConsumerFetchFrom : uint8_t { Leader, AnyReplica };

struct Config {
  int brokers = 3;
  int replication_factor = 3;
  int min_insync_replicas = 2;
  Acks acks = Acks::All;
  bool unclean_leader_election = false;
  // An operator's Admin.electLeaders(ElectionType.UNCLEAN) (kafka-leader-election.sh
  // --election-type unclean) on a leaderless partition, whatever the topic's
  // unclean.leader.election.enable says (ReplicationControlManager.electLeader).
  bool admin_unclean_election = false;
  bool eligible_leader_replicas = true;  // resolved: default is protocol >= kip-966
  // enable.idempotence. Resolved: Kafka's producer default since 3.0 (KIP-679) is on, and
  // ProducerConfig.postProcessAndValidateIdempotenceConfigs turns it off when acks is
  // not all and idempotence was not set explicitly; so the default is acks == all.
  bool idempotence = true;
  // delivery.timeout.ms also for a batch that never left the client: the producer may give
  // up on the next record while it still waits in the accumulator (RecordAccumulator.
  // expiredBatches -> Sender.failBatch, TimeoutException), e.g. while no broker it could
  // send to is reachable. Off by default (every state count stays); trace validation turns
  // it on (docs/validation.md, finding 8).
  bool expire_unsent_batches = false;
  bool consumer = true;                  // one consumer reading from the leader
  ConsumerFetchFrom consumer_fetch_from = ConsumerFetchFrom::Leader;  // KIP-392
  // false: a fetch is one step (request, leader handling, response applied); true: the
  // response is a separate step, so views and leaders can change while it is in flight.
  bool async_fetch_responses = false;
  FlushPolicy flush = FlushPolicy::None;
  Protocol protocol = Protocol::Kip966;
  Fixes fixes{};
  ControllerConfig controller{};
  FaultBudget faults{};
  Bounds bounds{};
  std::vector<std::string> properties;   // resolved: never empty after resolution

  // Nodes in the cluster: brokers, plus dedicated controller voters when placement is
  // dedicated. Node ids 0..brokers-1 are brokers; dedicated voters follow.
  int nodes() const {
    return brokers + (controller.placement == Placement::Dedicated ? controller.voters : 0);
  }
  bool is_voter(int node) const {
    return controller.placement == Placement::Combined ? node < controller.voters
                                                       : node >= brokers;
  }
  bool is_broker(int node) const { return node < brokers; }
  // Reassignment can move the partition (bounds.max_reassignments > 0).
  bool reassignment() const { return bounds.max_reassignments > 0; }
  // The nodes that may hold a replica: brokers 0..replication_factor-1 while the
  // assignment is fixed, every broker when reassignment can move it.
  int replica_slots() const { return reassignment() ? brokers : replication_factor; }
};

// Raised for any invalid configuration input (io/config_error.h).
using io::ConfigError;

// The fixes each generation includes (every fix of earlier generations too).
Fixes fixes_for(Protocol p);

// One fix: its key under "fixes", a one-line description, the generation that brought
// it, its toggle in Fixes and the Kafka release that shipped it (`list fixes` prints it;
// the generation is the first one at or after that release). For parsing, `list fixes`
// and messages.
struct FixInfo {
  std::string_view name;
  std::string_view description;
  Protocol introduced_in;
  bool Fixes::*toggle;
  std::string_view kafka_version;
};
const std::vector<FixInfo>& all_fixes();

// Names and descriptions, for parsing, `list protocols` and messages.
std::string_view protocol_name(Protocol p);
// The `acks` value as the configuration spells it: "0", "1" or "all".
std::string_view acks_name(Acks a);
std::string_view protocol_description(Protocol p);
// The controller modes a generation's Kafka releases offer, the default first.
std::vector<ControllerMode> controller_modes_for(Protocol p);
std::string_view controller_mode_name(ControllerMode m);
// The `controller.quorum` value as the configuration spells it: "static" or "dynamic".
std::string_view quorum_kind_name(QuorumKind q);
const std::vector<Protocol>& all_protocols();

// The built-in default model (no --config).
Config default_config();

// Builds a configuration: defaults, then the JSON document (may be null), then each
// `key=value` override with dotted keys. Validates and resolves (generation fixes,
// ELR default, default property list). Throws ConfigError.
Config load_config(const nlohmann::json* document,
                   const std::vector<std::string>& overrides);

// The resolved configuration as traces and scenarios record it: every key, except the
// two that joined later (admin_unclean_election, faults.max_pauses), which appear only
// when set so that the recorded configurations of older traces keep their text.
nlohmann::json to_json(const Config& c);

// to_json with every key present, the later ones at their defaults too: what `describe`
// prints, so that a user sees every switch there is (issue 29 point 8).
nlohmann::json describe_json(const Config& c);

}  // namespace isr::spec
