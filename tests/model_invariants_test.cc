// RapidCheck: random action sequences over several configurations keep the structural
// invariants of the partition state (offsets within logs, ISR/ELR within the replicas,
// the controller's leader in its ISR, budgets and bounds respected), epochs and
// counters never go backwards along a run, and canonicalize is idempotent and keeps
// every property's verdict. Each step picks an index into the enabled actions, so
// RapidCheck shrinks a failure to a short sequence of named actions.
#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "tests/model_test_util.h"

namespace isr::spec {
namespace {

using namespace modeltest;

constexpr int kMaxSteps = 60;

const PartitionModel& model_named(const std::string& name) {
  static std::map<std::string, PartitionModel> models;
  auto it = models.find(name);
  if (it != models.end()) return it->second;
  for (const NamedConfig& nc : walk_configs()) {
    if (nc.name == name) return models.emplace(name, make_model(nc.overrides)).first->second;
  }
  throw std::invalid_argument("no walk configuration " + name);
}

// The checks below collect what is broken into `errors` rather than throwing, so that
// a plain test can show they catch broken states, and a walk reports them all.
using Errors = std::vector<std::string>;

#define CHECK_THAT(cond, what)                                  \
  do {                                                          \
    if (!(cond)) errors.push_back(std::string(what) + " (" #cond ")"); \
  } while (0)

NodeSet all_replicas(const Config& c) { return static_cast<NodeSet>((1u << c.replication_factor) - 1); }

void check_replica(const Config& c, const State& s, int n, Errors& errors) {
  const ReplicaState& r = s.replicas[n];
  const std::string who = "replica " + std::to_string(n) + ": ";
  CHECK_THAT(r.leo <= kMaxLog, who + "LEO within capacity");
  CHECK_THAT(r.hw <= r.leo, who + "HW <= LEO");
  CHECK_THAT(r.hw_checkpoint <= r.leo, who + "HW checkpoint <= LEO");
  CHECK_THAT(r.flushed <= r.leo, who + "flushed <= LEO");
  if (!rules::tracks_flush(c)) CHECK_THAT(r.flushed == 0, who + "flush untracked stays zero");
  for (int i = 0; i < kMaxLog; ++i) {
    const LogEntry& e = r.log[i];
    if (i < r.leo) {
      CHECK_THAT(e.record >= 1 && e.record <= c.bounds.max_records, who + "record ids in range");
      CHECK_THAT(e.epoch <= s.controller.leader_epoch, who + "no entry from a future epoch");
      if (i > 0) CHECK_THAT(r.log[i - 1].epoch <= e.epoch || !c.fixes.largest_epoch_lookup,
                            who + "leader epochs never decrease along a log");
    } else {
      CHECK_THAT(e == LogEntry{}, who + "slots past the LEO are empty");
    }
  }
  if (!s.nodes[n].alive) {
    CHECK_THAT(r.view_valid == 0, who + "a dead broker has no view");
    CHECK_THAT(r.response.kind == static_cast<uint8_t>(FetchReply::None), who + "a dead broker awaits nothing");
    CHECK_THAT(r.alter_pending == 0, who + "a dead broker proposes nothing");
  }
  if (r.response.kind != static_cast<uint8_t>(FetchReply::None)) {
    CHECK_THAT(r.response.leader < c.replication_factor, who + "responses come from replicas");
    CHECK_THAT(r.response.offset == r.leo, who + "a pending response continues the log where the fetch left it");
  }
  if (r.view_valid) {
    // Brokers learn metadata from the controller: their view never runs ahead of it,
    // and a leader epoch names one leader.
    const ControllerState& ctl = s.controller;
    CHECK_THAT(r.view_leader_epoch <= ctl.leader_epoch, who + "view leader epoch <= the controller's");
    CHECK_THAT(r.view_partition_epoch <= ctl.partition_epoch, who + "view partition epoch <= the controller's");
    if (r.view_leader_epoch == ctl.leader_epoch)
      CHECK_THAT(r.view_leader == ctl.leader, who + "the current leader epoch names the controller's leader");
    if (r.view_leader == n) CHECK_THAT(r.epoch_start_offset <= r.leo, who + "the epoch starts within the log");
  }
  if (r.needs_truncation) CHECK_THAT(r.view_leader != n, who + "only followers reconcile");
  CHECK_THAT((r.view_isr & ~all_replicas(c)) == 0, who + "view ISR within the replicas");
  CHECK_THAT((r.alter_isr & ~all_replicas(c)) == 0, who + "proposed ISR within the replicas");
  if (r.alter_pending) CHECK_THAT(contains(r.alter_isr, n), who + "a leader proposes itself");
}

// Facts every reachable state has, whatever the configuration.
void check_structure(const PartitionModel& m, const State& s, Errors& errors) {
  const Config& c = m.config();
  const ControllerState& ctl = s.controller;
  const NodeSet replicas = all_replicas(c);
  for (int n = 0; n < c.replication_factor; ++n) check_replica(c, s, n, errors);
  // Unused slots keep the all-zero bytes of the initial state, so that they never tell
  // two states apart.
  static const std::string kZeroReplica(sizeof(ReplicaState), '\0');
  for (int n = c.replication_factor; n < kMaxReplicas; ++n)
    CHECK_THAT(std::memcmp(&s.replicas[n], kZeroReplica.data(), sizeof(ReplicaState)) == 0, "unused replica slots zero");
  // The engines hash only the bytes before the first unused replica slot (HasStatePrefix).
  const auto* bytes = reinterpret_cast<const uint8_t*>(&s);
  CHECK_THAT(std::all_of(bytes + m.state_prefix_bytes(), bytes + sizeof(State), [](uint8_t b) { return b == 0; }),
             "every byte past the hashed prefix zero");
  for (int n = c.nodes(); n < kMaxNodes; ++n) {
    CHECK_THAT(s.nodes[n].alive == 0 && s.nodes[n].broker_epoch == 0 && s.nodes[n].cut == 0, "unused nodes zero");
    CHECK_THAT(ctl.registered_epoch[n] == 0, "unused nodes unregistered");
  }

  CHECK_THAT((ctl.isr & ~replicas) == 0, "ISR within the replicas");
  CHECK_THAT((ctl.elr & ~replicas) == 0, "ELR within the replicas");
  CHECK_THAT((ctl.last_known_elr & ~replicas) == 0, "LastKnownELR within the replicas");
  CHECK_THAT((ctl.isr & ctl.elr) == 0, "ISR and ELR disjoint");
  // Kafka 4.4 keeps only the last known leader in LastKnownELR
  // (PartitionChangeBuilder.maybeUpdateLastKnownLeader): one broker, while leaderless.
  CHECK_THAT(size(ctl.last_known_elr) <= 1, "LastKnownELR holds at most the last known leader");
  CHECK_THAT(ctl.last_known_elr == 0 || ctl.leader == kNoNode, "LastKnownELR only while leaderless");
  if (!c.eligible_leader_replicas) {
    CHECK_THAT(ctl.elr == 0 && ctl.last_known_elr == 0, "no ELR without KIP-966");
    CHECK_THAT(ctl.isr != 0, "without ELR the ISR is never empty");
  }
  // (ZooKeeper mode before KIP-497: the leader writes ISR expansions itself and may add a
  // follower the controller considers dead; Partition.maybeExpandIsr knows no liveness.)
  if ((ctl.isr & ctl.fenced) != 0 && !rules::leader_writes_isr(c)) {
    // Fencing takes a broker out of the ISR, except the last member when there is no
    // ELR to move it to; the partition then has no leader.
    CHECK_THAT(!c.eligible_leader_replicas && size(ctl.isr) == 1 && ctl.leader == kNoNode,
               "fenced brokers are out of the ISR");
  }
  if (ctl.leader != kNoNode) {
    CHECK_THAT(ctl.leader < c.replication_factor, "the leader is a replica");
    CHECK_THAT(contains(ctl.isr, ctl.leader), "the leader is in the ISR");
    CHECK_THAT(!contains(ctl.fenced, ctl.leader), "the leader is not fenced");
  }
  if (rules::zk_mode(c)) {
    CHECK_THAT(c.is_broker(ctl.active), "the ZooKeeper-mode controller is a broker");
    CHECK_THAT(ctl.deposed == 0 || ctl.deposed_wrote == 0, "a deposed controller writes once");
    CHECK_THAT(ctl.deposed == 0 || ctl.deposed - 1 != ctl.active, "the controller is not its own deposed predecessor");
    CHECK_THAT((ctl.zk_queued_demotion >> c.replication_factor) == 0, "only replicas have a LeaderAndIsr queue");
    CHECK_THAT((ctl.zk_queued_demotion & ctl.fenced) == 0, "a fenced broker has no queue at the controller");
    CHECK_THAT((ctl.zk_queued_reconcile >> c.replication_factor) == 0, "only replicas reconcile");
  } else {
    CHECK_THAT(c.is_voter(ctl.active), "the active controller is a voter");
    CHECK_THAT(ctl.state_controller_epoch == 0 && ctl.deposed == 0 && ctl.deposed_epoch == 0 &&
                   ctl.deposed_wrote == 0 && ctl.controller_vacant == 0 && ctl.controller_stopped == 0 &&
                   ctl.zk_queued_demotion == 0 && ctl.zk_queued_reconcile == 0,
               "ZooKeeper-only controller fields stay zero under KRaft");
    for (int n = 0; n < kMaxNodes; ++n)
      CHECK_THAT(s.nodes[n].zk_registered == 0 && s.nodes[n].zk_epoch == 0 && s.nodes[n].controller_epoch_seen == 0,
                 "ZooKeeper-only node fields stay zero under KRaft");
  }
  CHECK_THAT(ctl.leader_epoch <= c.bounds.max_leader_epoch, "leader epoch within its bound");
  CHECK_THAT(ctl.partition_epoch <= c.bounds.max_partition_epoch, "partition epoch within its bound");
  CHECK_THAT(ctl.controller_epoch >= 1 && ctl.controller_epoch < kMaxEpoch, "controller epoch in range");
  for (int n = 0; n < c.nodes(); ++n) {
    const NodeState& node = s.nodes[n];
    if (c.is_broker(n)) {
      CHECK_THAT(ctl.registered_epoch[n] >= 1 && ctl.registered_epoch[n] < kMaxEpoch, "registered epoch in range");
      if (rules::zk_mode(c)) {
        // ZooKeeper mode: the broker runs under its latest znode; the controller learns
        // that epoch only when it handles the change (or never, before KIP-380).
        CHECK_THAT(node.broker_epoch == 0 || node.broker_epoch == node.zk_epoch,
                   "a broker runs under its latest znode or none");
        CHECK_THAT(ctl.registered_epoch[n] <= node.zk_epoch, "the controller knows no epoch newer than the znode's");
        CHECK_THAT(!node.zk_registered || node.zk_epoch >= 1, "a znode has an epoch");
      } else {
        CHECK_THAT(node.broker_epoch == 0 || node.broker_epoch == ctl.registered_epoch[n],
                   "a broker runs under its last registration or none");
      }
    } else {
      CHECK_THAT(ctl.registered_epoch[n] == 0 && node.broker_epoch == 0, "voters do not register as brokers");
    }
    if (!node.alive) CHECK_THAT(node.broker_epoch == 0, "a dead broker has no live incarnation");
  }

  const ProducerState& p = s.producer;
  CHECK_THAT(p.current <= c.bounds.max_records, "records within the bound");
  CHECK_THAT(p.retries <= c.bounds.max_retries, "retries within the bound");
  for (int k = p.current + 1; k <= kMaxRecords; ++k)
    CHECK_THAT(p.outcome[k - 1] == static_cast<uint8_t>(SendOutcome::Unsent), "records not sent yet are unsent");
  const bool in_flight = p.current != 0 && p.outcome[p.current - 1] == static_cast<uint8_t>(SendOutcome::InFlight);
  if (c.acks == Acks::All) {
    CHECK_THAT(in_flight == (p.inflight_leader != kNoNode), "an in-flight request is parked at one leader");
    if (in_flight) CHECK_THAT(p.inflight_offset >= 1, "a parked request waits for an offset");
  } else {
    CHECK_THAT(!in_flight, "acks=0/1 never park a request");
  }
  for (int k = 1; k <= kMaxRecords; ++k)
    if (k != p.current) CHECK_THAT(p.outcome[k - 1] != static_cast<uint8_t>(SendOutcome::InFlight), "one in flight");

  CHECK_THAT(s.consumer.position <= kMaxLog, "consumer position within capacity");
  for (int i = 0; i < kMaxLog; ++i) {
    if (i < s.consumer.position) CHECK_THAT(s.consumer.read[i] != 0, "the consumer read a record at each offset");
    else CHECK_THAT(s.consumer.read[i] == 0, "nothing read past the position");
  }

  const FaultCounters& f = s.faults;
  CHECK_THAT(f.crashes <= c.faults.max_crashes, "crash budget");
  CHECK_THAT(f.lossy <= c.faults.max_lossy_crashes, "lossy crash budget");
  CHECK_THAT(f.disk_losses <= c.faults.max_disk_losses, "disk loss budget");
  CHECK_THAT(f.clean_shutdowns <= c.faults.max_clean_shutdowns, "clean shutdown budget");
  CHECK_THAT(f.cuts <= c.faults.max_network_cuts, "network cut budget");
  CHECK_THAT(f.leader_moves <= c.bounds.max_leader_moves, "leader move bound");
  CHECK_THAT(f.lossy + f.disk_losses + f.clean_shutdowns <= f.crashes, "crash kinds add up");
}

// What may only grow along a run.
void check_monotonic(const PartitionModel& m, const State& s, const State& t, Errors& errors) {
  const Config& c = m.config();
  CHECK_THAT(t.controller.leader_epoch >= s.controller.leader_epoch, "leader epoch never decreases");
  CHECK_THAT(t.controller.partition_epoch >= s.controller.partition_epoch, "partition epoch never decreases");
  CHECK_THAT(t.controller.controller_epoch >= s.controller.controller_epoch, "controller epoch never decreases");
  for (int n = 0; n < c.nodes(); ++n)
    CHECK_THAT(t.controller.registered_epoch[n] >= s.controller.registered_epoch[n], "broker epochs never decrease");
  if (t.controller.leader != s.controller.leader)
    CHECK_THAT(t.controller.leader_epoch > s.controller.leader_epoch, "a new leader comes with a new epoch");
  CHECK_THAT(t.producer.current >= s.producer.current, "records are sent in order");
  CHECK_THAT(t.producer.retries >= s.producer.retries, "retries are counted");
  for (int k = 1; k <= kMaxRecords; ++k) {
    if (s.producer.outcome[k - 1] == static_cast<uint8_t>(SendOutcome::Acked))
      CHECK_THAT(t.producer.outcome[k - 1] == static_cast<uint8_t>(SendOutcome::Acked), "an ack is final");
  }
  CHECK_THAT(t.consumer.position >= s.consumer.position, "the consumer moves forward");
  for (int i = 0; i < s.consumer.position; ++i)
    CHECK_THAT(t.consumer.read[i] == s.consumer.read[i], "what was read stays read");
  CHECK_THAT(t.faults.crashes >= s.faults.crashes && t.faults.cuts >= s.faults.cuts, "fault counters grow");
  CHECK_THAT(t.history.hw_regressed >= s.history.hw_regressed, "a HW regression is remembered");
}

void check_canonical(const PartitionModel& m, const State& s, Errors& errors) {
  State once = s;
  m.canonicalize(once);
  State twice = once;
  m.canonicalize(twice);
  CHECK_THAT(same_bytes(once, twice), "canonicalize is idempotent");
  CHECK_THAT(verdicts(m, s) == verdicts(m, once), "canonicalize keeps every property's verdict");
  CHECK_THAT(enabled_actions(m, s).size() == enabled_actions(m, once).size(),
             "a canonical form has as many actions as its state");
  check_structure(m, once, errors);
}

void fail_on(const Errors& errors, const PartitionModel& m, const State& s) {
  if (errors.empty()) return;
  std::string text;
  for (const auto& e : std::set<std::string>(errors.begin(), errors.end())) text += e + "\n";
  RC_FAIL(text + m.state_to_json(s).dump());
}

void walk(const std::string& config_name) {
  const PartitionModel& m = model_named(config_name);
  State s = m.initial_states().at(0);
  Errors errors;
  check_structure(m, s, errors);
  check_canonical(m, s, errors);
  fail_on(errors, m, s);
  const int steps = *uniform(0, kMaxSteps + 1);
  for (int i = 0; i < steps; ++i) {
    const std::vector<Action> actions = enabled_actions(m, s);
    if (actions.empty()) break;
    const Action a = actions[*uniform<size_t>(0, actions.size())];
    RC_LOG() << m.action_name(a) << "\n";
    const State t = m.next_state(s, a);
    check_structure(m, t, errors);
    check_monotonic(m, s, t, errors);
    check_canonical(m, t, errors);
    fail_on(errors, m, t);
    s = t;
  }
}

RC_GTEST_PROP(ModelInvariants, Default, ()) { walk("default"); }
RC_GTEST_PROP(ModelInvariants, AsyncFetchResponses, ()) { walk("async-default"); }
RC_GTEST_PROP(ModelInvariants, AtomicFetchesWithEveryFault, ()) { walk("atomic-faults"); }
RC_GTEST_PROP(ModelInvariants, AcksOne, ()) { walk("acks-1"); }
RC_GTEST_PROP(ModelInvariants, UncleanElection, ()) { walk("unclean"); }
RC_GTEST_PROP(ModelInvariants, HwTruncation, ()) { walk("hw-truncation"); }
RC_GTEST_PROP(ModelInvariants, Kip101, ()) { walk("kip-101"); }
RC_GTEST_PROP(ModelInvariants, Kip320WithCuts, ()) { walk("kip-320-cuts"); }
RC_GTEST_PROP(ModelInvariants, Kip497Zookeeper, ()) { walk("kip-497-zk"); }
RC_GTEST_PROP(ModelInvariants, Kip966LossyCrashes, ()) { walk("kip-966-lossy"); }
RC_GTEST_PROP(ModelInvariants, FiveBrokersRf5, ()) { walk("rf5"); }
RC_GTEST_PROP(ModelInvariants, DedicatedControllers, ()) { walk("dedicated"); }
RC_GTEST_PROP(ModelInvariants, Rf2OnFourBrokers, ()) { walk("rf2-of-3"); }

// The invariants are not vacuous: states that break them are caught.
TEST(ModelInvariants, TheChecksCatchBrokenStates) {
  const PartitionModel& m = model_named("default");
  const State init = m.initial_states().at(0);
  Errors none;
  check_structure(m, init, none);
  EXPECT_TRUE(none.empty()) << none.front();
  auto broken = [&](auto&& edit) {
    State s = init;
    edit(s);
    Errors errors;
    check_structure(m, s, errors);
    return errors.size();
  };
  EXPECT_GT(broken([](State& s) { s.replicas[1].hw = 1; }), 0u) << "HW past an empty log";
  EXPECT_GT(broken([](State& s) { s.controller.elr = bit(0); }), 0u) << "in ISR and ELR";
  EXPECT_GT(broken([](State& s) { s.controller.isr = bit(1) | bit(2); }), 0u) << "leader outside the ISR";
  EXPECT_GT(broken([](State& s) { s.replicas[4].leo = 1; }), 0u) << "an unused slot";
  EXPECT_GT(broken([](State& s) { s.producer.outcome[1] = 2; }), 0u) << "an outcome for an unsent record";
  State later = init;
  later.controller.leader_epoch = 1;
  Errors backwards;
  check_monotonic(m, later, init, backwards);
  EXPECT_FALSE(backwards.empty());
}

}  // namespace
}  // namespace isr::spec
