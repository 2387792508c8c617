// Facts about a cluster state that rules and properties share: who can talk to whom,
// whether the controller quorum can commit, and which broker is the acting leader.
#pragma once

#include "spec/config.h"
#include "spec/state.h"

namespace isr::spec::rules {

bool is_replica(const Config& c, int node);
// A voter that is alive and can talk to the other voters.
bool live_voter(const Config& c, const State& s, int node);
// The controller can commit a metadata change: its active voter is live and a majority
// of voters is live (KRaft commits a record once a majority has it, KIP-595).
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
