// Steering: making a real cluster follow a trace it would otherwise outrun.
//
// A trace is one interleaving the model chose; a real cluster takes the steps a trace
// leaves out on its own timers: a follower fetches a new record within milliseconds, so a
// trace in which the followers never see a record before its leader dies cannot happen
// unless the harness holds the followers back. The plan below inserts exactly those holds,
// derived from the scenario document alone (the logs each `wait` shows and the effect of
// each operation), never from an expected result:
//
// - For every record the leader appends (a produce whose expected result is not a
//   rejection), every live follower whose log does not show that record at the next point
//   the trace observes it, or that the trace lets the operations after the produce run
//   before it fetches, is *held* from just before the produce until the trace lets it
//   catch up: just before the first `wait` in which its log holds the record, just after
//   the leader's crash (it can no longer fetch the record; unless another live replica
//   holds it, which may lead next), just before its own crash, or at the end.
// - A hold that spans only quick operations (produce, kill, stop, consume) is a pause
//   (SIGSTOP, then SIGCONT): it stays well below `broker.session.timeout.ms`, so the
//   controller does not fence the follower and it stays in the ISR, as in the trace. This
//   is the acks=1 recipe of MODEL.md section 6.
// - A hold that spans a `wait` or a restart (seconds) is a network cut of the follower's
//   `brokers` side instead: the follower keeps heartbeating to the controller (not fenced)
//   but cannot fetch, so the leader shrinks the ISR after `replica.lag.time.max.ms`, as a
//   ShrinkIsr in the trace does.
// - A paused broker answers no client either: a hold in force at the producer's first
//   send is a cut too, unless the producer fetched the topic's metadata beforehand.
// - A follower the scenario itself pauses, or cuts from replication, is not held while it
//   is (it fetches nothing), and a hold's release never undoes the scenario's pause or cut.
// - After a hold starts, the harness sleeps longer than `replica.fetch.wait.max.ms` before
//   the produce: a fetch parked at the leader when the record arrives would otherwise carry
//   it to the follower (its response would sit in the follower's socket or in the cut
//   connection, delivered at the release).
// - A follower held from a record that becomes the leader in a later `wait` no longer
//   fetches, and the others must fetch from it: its cut ends in that wait, once its own
//   view shows it leading (a follower's brokers-side cut also freezes fetches *to* it).
// - Metadata holds: a broker-only node whose view a `wait` shows stale (not the committed
//   leader, epoch and ISR) in a way that changes what it does is held from replaying
//   metadata (the driver's hold_metadata: its raft fetches wait in the controller
//   proxies, its heartbeats flow, so it stays registered and unfenced) from the first
//   operation after the last observation that showed its view current until the `wait`
//   that shows it current again, or its crash. "Changes what it does": it leads in its
//   stale view (a stale leader still completes produces and advances its HW), or the
//   committed leader is another live replica that holds records it lacks (replaying would
//   make it fetch them). Other stale views (an ISR change not yet replayed) stay unheld
//   and uncompared, as before. The release inside a `wait` comes once the controller has
//   made the change the broker replays there: seen by an unheld broker's view reaching
//   the wait's leader epoch, or, when every live broker is held, once the fenced broker's
//   session has surely expired (broker.session.timeout.ms after its crash, plus margin).
//   Combined broker+controller nodes are never metadata-held (their raft client is a
//   voter; when it is the active controller no proxy sees its replay).
// - Registration holds: a restarted broker registers with the controller within a second
//   or two (BrokerLifecycleManager), and a fenced broker that is reachable again is
//   unfenced by its next heartbeat. A trace that restarts (or resumes, or heals from the
//   quorum) a broker and lets further operations run before its RegisterBroker (or
//   UnfenceBroker) holds it: the driver's hold_registration makes the controller proxies
//   hold its BrokerRegistration and BrokerHeartbeat frames (its raft and AlterPartition
//   connections flow, so a combined node's controller stays a voter) from just before the
//   restart until just before the `wait` whose internal steps register it, its crash, or
//   the end. A restarted broker the trace has not registered replays no metadata and
//   fetches nothing in the model (spec/partition/controller.cc: "brokers replay the
//   metadata log once registered"), while Kafka's replays and fetches before it
//   registers, and would truncate under a new leader: its brokers side is cut for as long.
//   An unfencing hold starts only when the last `wait` before the resume or heal showed
//   the broker fenced.
// - A follower cut across the producer's own retry of a record (a lost answer or a
//   timeout the trace retries) stays cut for the producer's request.timeout.ms: with the
//   harness's default (3 s) longer than replica.lag.time.max.ms (2 s), so the leader shrinks
//   the ISR where the trace does not. A scenario that does not set the producer's
//   request.timeout.ms then gets 500 ms (what the export option --request-timeout-ms gave
//   h-corpus-acks-1-lost-response-duplicates by hand).
// - Keep-out cuts (issue 28): a live, unfenced follower that a `wait` shows outside the
//   ISR of a live leader, with its log as the previous observation showed it (no record
//   gained, none lost but to its own power or disk loss), did not fetch in the trace;
//   Kafka's would, within 100 ms, and rejoin the ISR (or truncate). It is cut from
//   replication from the first operation after that previous observation (so a record
//   hold that ended at a leader's crash goes on) through every following `wait` that
//   keeps it out so, released just before the next `wait` (once its own view shows it
//   leading, if it leads there), just after its own crash, or at the end. A follower the `wait` itself shrinks out of
//   the ISR (ShrinkIsr) after it fetched is a case Kafka never produces on its own: the
//   model shrinks a follower whose latest fetch the leader has not seen yet, while the
//   follower fetches again within 100 ms, and Kafka's ReplicaState.isCaughtUp keeps a follower
//   whose last fetch reached the leader's end offset in the ISR however long it is silent.
//   The *fetch-reply cut*: from the produce of the record it fetched, the driver's fetch
//   gate holds the follower's next request once a response carried that record (the
//   follower holds it, the leader never saw it fetch past it), so the leader shrinks it
//   after replica.lag.time.max.ms. Where the trace lets it fetch once between the shrink
//   and the AlterPartition that commits it (the model's way to the ack: the maximal ISR
//   still counts it), the leader's AlterPartition requests are held at the controller
//   proxies from the produce; inside the wait, once the shrink waits there, the gate opens
//   for that fetch (the HW advances, the send is acked; no ISR expansion while an
//   AlterPartition is in flight), the follower is cut, and the AlterPartition is let go.
//   A shrink of several followers in one AlterPartition (ShrinkIsr(..., followers=[1,2]),
//   Partition.maybeShrinkIsr's set) gets a fetch-reply cut for each of them: both are
//   silent past replica.lag.time.max.ms, and the leader's next check removes them together.
//   Not executable when more than one of them fetches again before the commit (the
//   AlterPartition hold lets one fetch through).
//   Not executable: a shrink of a follower that fetched nothing new (Kafka never does it),
//   and a shrink that follows another ISR change of the same wait (two shrinks of one
//   leader that Kafka may merge into one AlterPartition; the proxy does not parse which
//   ISR an AlterPartition proposes).
// - Deferred ISR expansions: where the trace's leader proposes adding a follower (it
//   fetched and caught up, outside the ISR, in a wait whose internal steps send no
//   AlterPartition after that fetch) and its AlterPartition reaches the controller only in
//   a later wait, Kafka's leader would send it at once (Partition.maybeExpandIsr): its
//   AlterPartition requests are held at the controller proxies from the operation before
//   that wait until the later wait, released there once the follower is alive and
//   unfenced (the stale incarnation of KIP-903: the follower lost its disk and registered
//   again in between). The proposing wait ends only once the proposal waits there
//   (AwaitAlterPartition): its state shows the follower caught up, one fetch before the
//   fetch on which the leader proposes.
// - Disk-lost followers kept empty: a broker restarted on an empty disk that the following
//   waits keep in the ISR of another live leader holding records, its log still empty, is
//   cut from replication from just before the restart until the first wait that shows it
//   with records, its crash, or the end (Kafka's new incarnation fetches as soon as it has
//   replayed the partition; the model's fetches only where the trace says so).
// - Not executable: a stale view that changes what a combined broker+controller does
//   (the metadata-hold case above) cannot be held (see hold_metadata); an election of an
//   ISR member other than the first live, unfenced one in assignment order is not what
//   Kafka's controller does (PartitionChangeBuilder.electAnyLeader) whatever is held; a
//   fencing of a broker whose heartbeats stopped later than those of another broker still
//   unfenced is not either: the controller fences a broker once its session expired
//   (BrokerHeartbeatTracker.maybeRemoveExpired, scanned every broker.session.timeout.ms / 8,
//   QuorumController.maybeFenceStaleBrokerPeriodNs, kafka-metadata 4.4), so the broker
//   silent longer goes first, and no hold revives a dead broker's heartbeats (after a
//   failover of the active controller every session restarts and the silent ones are
//   fenced in the new controller's hash order: no hold sets that either). The
//   plan says `not executable: <reason>` rather than run into a divergence that is the
//   harness's.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace isr::conformance {

struct SteerAction {
  enum class Kind {
    Pause, Resume, Cut, Heal, Sleep, HoldMetadata, ReleaseMetadata, HoldRegistration, ReleaseRegistration,
    // The fetch-reply cut (top of this file): arm `node`'s fetch gate with `record`; hold
    // `node`'s AlterPartition requests; their releases; and, inside the wait, the sequence
    // that lets the leader `peer` shrink `node` (see real_kafka_cluster.cc).
    GateFetch, ReleaseGate, HoldAlterPartition, ReleaseAlterPartition, ShrinkAfterFetch,
    // After a wait whose trace has leader `node` propose adding follower `peer` while its
    // AlterPartition requests are held: until that request waits at the controller proxies.
    // The proposal shows in no state Kafka reports (Partition.prepareIsrExpand logs
    // nothing, and the leader's ISR changes only at the commit), and the follower's fetch
    // that catches it up comes one fetch before the fetch that makes the leader propose.
    AwaitAlterPartition
  };
  // When a release inside a `wait` may run: at once, once the node's own view shows it
  // leading at `leader_epoch` (a held follower that became leader), or once the controller
  // made the wait's change (a metadata hold: see the top of this file).
  // Unfenced: once node `peer` is alive and unfenced (a deferred ISR expansion, below).
  enum class When { Now, OwnViewLeads, ControllerDone, Unfenced };
  Kind kind = Kind::Sleep;
  int node = -1;
  int ms = 0;        // Sleep
  std::string why;   // for the report
  When when = When::Now;
  int leader_epoch = -1;  // OwnViewLeads, ControllerDone: the wait's committed leader epoch
  // ControllerDone: the nodes the wait's internal steps fence (FenceBroker), whose session
  // expiry the change waits for when no unheld broker can show it.
  std::vector<int> fenced_in_wait;
  int record = -1;          // GateFetch: the record whose arrival closes the gate
  int peer = -1;  // ShrinkAfterFetch: the leader; When::Unfenced, AwaitAlterPartition: the follower
  bool second_fetch = false;  // ShrinkAfterFetch: one fetch between the shrink and its commit
};

struct StepPlan {
  std::vector<SteerAction> before, after;
};

struct SteeringTimes {
  int fetch_wait_ms = 100;  // replica.fetch.wait.max.ms of the cluster
  // Whether the producer already holds the topic's metadata before its first send. When
  // it does not, the first send asks some broker for it, and a paused one never answers
  // (the send then times out in max.block.ms): a hold in force at the producer's first
  // send is then a brokers-side cut, which leaves the client listener alone.
  bool producer_has_metadata = false;
};

struct SteeringPlan {
  std::map<int, StepPlan> steps;    // by scenario step number (1, 2, ...)
  std::vector<SteerAction> at_end;  // releases after the final observation
  std::vector<std::string> notes;   // one line per hold: which follower, which steps, how
  // Why no steering can keep a real cluster on the trace's path (empty: it can).
  std::string not_executable;
  // The producer's request.timeout.ms the holds need (0: the scenario's or the default).
  int producer_request_timeout_ms = 0;
};

// The holds a scenario needs (see the top of this file). Throws std::invalid_argument
// naming the field when the scenario lacks what the plan reads (steps, topic.replicas).
SteeringPlan plan_steering(const nlohmann::json& scenario, const SteeringTimes& times = {});

// One line for a steering action: "pause N1 (hold: ...)".
std::string describe(const SteerAction& a);

}  // namespace isr::conformance
