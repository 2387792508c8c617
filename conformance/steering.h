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
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace isr::conformance {

struct SteerAction {
  enum class Kind { Pause, Resume, Cut, Heal, Sleep };
  Kind kind = Kind::Sleep;
  int node = -1;
  int ms = 0;        // Sleep
  std::string why;   // for the report
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
};

// The holds a scenario needs (see the top of this file). Throws std::invalid_argument
// naming the field when the scenario lacks what the plan reads (steps, topic.replicas).
SteeringPlan plan_steering(const nlohmann::json& scenario, const SteeringTimes& times = {});

// One line for a steering action: "pause N1 (hold: ...)".
std::string describe(const SteerAction& a);

}  // namespace isr::conformance
