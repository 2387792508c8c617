// Facts about a cluster state that rules and properties share: who can talk to whom,
// whether the controller quorum can commit, and which broker is the acting leader.
#pragma once

#include "spec/partition/config.h"
#include "spec/partition/state.h"

namespace isr::spec::rules {

// Whether `node` may hold a replica of the partition (a replica slot: the fixed
// replicas, or with reassignment every broker).
bool is_replica(const Config& c, int node);
// The controller's assignment (PartitionRegistration.replicas): brokers
// 0..replication_factor-1 while it is fixed, else the state's (reassignment, controller.cc).
NodeSet assignment(const Config& c, const ControllerState& ctl);
// The node's process runs: alive and not paused (faults.max_pauses). A paused process
// keeps its memory and its disk but takes no step: it sends no fetch and no heartbeat,
// answers no request (requests to it wait in its socket) and writes nothing.
inline bool runs(const State& s, int node) { return s.nodes[node].alive && !s.nodes[node].paused; }
// The cluster runs the ZooKeeper-mode controller (controller.mode=zookeeper).
inline bool zk_mode(const Config& c) { return c.controller.mode == ControllerMode::Zookeeper; }
// ZooKeeper mode: a majority of the ensemble (the voters) is live, so sessions can be
// created and expired and znodes written.
bool zk_available(const Config& c, const State& s);
// ZooKeeper mode: `node` can talk to ZooKeeper and holds its session (its znode exists).
bool zk_session_live(const State& s, int node);
// ZooKeeper mode with KIP-380: broker `b` re-registered (new broker epoch) and the
// controller has not yet handled the bounce (zookeeper.cc). The controller handles it
// before any dead broker of the same BrokerChange event, so until then the restarted
// incarnation cannot be elected although it is still in the ISR.
bool bounce_pending(const Config& c, const State& s, int b);
// A voter that is alive and can talk to the other voters; on a dynamic quorum (KIP-853)
// not one whose voter key is stale (a disk loss: it runs as an observer).
bool live_voter(const Config& c, const State& s, int node);
// The voters the quorum counts a majority of: controller.voters, less the keys an
// operator's RemoveVoter took out (dynamic quorum, voters.cc).
int voter_set_size(const Config& c, const State& s);
// The controller can commit a metadata change: its active voter is live and a majority
// of voters is live (KRaft commits a record once a majority has it, KIP-595). In
// ZooKeeper mode: the ensemble has a majority and the controller broker holds its session.
bool quorum_available(const Config& c, const State& s);
// Broker `node` can exchange requests with the active controller (heartbeats, metadata
// fetches, AlterPartition).
bool reaches_controller(const State& s, int node);
// Two brokers can exchange fetch requests and responses.
bool brokers_connected(const State& s, int a, int b);
// Broker `node` believes it is the partition leader (in its own, possibly stale, view).
bool believes_leader(const State& s, int node);
// The controller's leader, alive and acting as leader in the controller's leader epoch,
// or -1. This is "the leader" that clients eventually reach and properties judge.
int active_leader(const State& s);

// The ISR the leader uses for the HW and acks=all: its committed view plus what an
// in-flight AlterPartition proposes to add (KIP-497 maximal ISR).
NodeSet maximal_isr(const Config& c, const ReplicaState& leader);

}  // namespace isr::spec::rules
