// What a stop takes with it: per-process state that lives in the broker's memory (a
// produce request parked in the purgatory, the broker lifecycle's RUNNING state and its
// broker epoch) must die with the process, and what a restart recovers from disk must
// be no more durable than it was (docs/fidelity.md ("Faults and restarts") lists every field). Each test
// drives the model by hand; tests/process_state_slow_test.cc checks the issue's
// configurations exhaustively.
#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/model_test_util.h"

#include "tests/counting_allocator.h"  // replaces operator new: this binary only

namespace isr::spec {
namespace {

using namespace modeltest;

// --- the delayed-produce purgatory ----------------------------------------------------

TEST(ProcessState, AParkedProduceRequestDiesWithAKilledLeader) {
  Scenario s({"faults.max_crashes=1"});
  ASSERT_TRUE(s.apply(produce(0, 1)));
  ASSERT_EQ(outcome(s.state(), 1), SendOutcome::InFlight);
  ASSERT_TRUE(s.apply(crash(0, StopKind::Kill)));
  // The client sees a disconnect: the request failed with a retriable error, outcome unknown.
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::TimedOut);
  EXPECT_EQ(s.state().producer.inflight_leader, kNoNode);
  EXPECT_EQ(s.state().producer.inflight_offset, 0);
  EXPECT_FALSE(s.can(produce_timeout(1))) << "nothing is in flight any more";
}

TEST(ProcessState, AControlledShutdownAnswersTheParkedRequestWithNotLeader) {
  // Idempotence off, retries 0: the application sees the broker's answer.
  Scenario s({"faults.max_crashes=1", "faults.max_clean_shutdowns=1", "idempotence=false", "bounds.max_retries=0"});
  ASSERT_TRUE(s.run({produce(0, 1), crash(0, StopKind::Clean, 1)}));
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::NotLeader);
  EXPECT_EQ(s.state().producer.inflight_leader, kNoNode);
  // An idempotent producer retries NOT_LEADER_OR_FOLLOWER inside the client (Sender.canRetry).
  Scenario idem({"faults.max_crashes=1", "faults.max_clean_shutdowns=1", "idempotence=true"});
  ASSERT_TRUE(idem.run({produce(0, 1), crash(0, StopKind::Clean, 1)}));
  EXPECT_EQ(outcome(idem.state(), 1), SendOutcome::Retrying);
  EXPECT_EQ(idem.state().producer.inflight_leader, kNoNode);
}

// The trace, shortened: record 2 waits at N0 for acks; N0 is killed and comes
// back, truncates r2, refetches r1 into offset 0 and leads again. Its HW passing 1 must
// not acknowledge record 2, which is no longer there.
TEST(ProcessState, ARestartedLeaderDoesNotAcknowledgeARequestOfItsPreviousIncarnation) {
  Scenario s(Scenario::Raw{}, {"brokers=2", "replication_factor=2", "min_insync_replicas=1", "faults.max_crashes=1",
                               "faults.max_lossy_crashes=0", "bounds.max_records=2", "bounds.max_retries=0",
                               "controller.placement=dedicated", "controller.voters=1"});
  ASSERT_TRUE(s.run({produce(0, 1), produce_timeout(1), produce(0, 2)}));
  ASSERT_EQ(outcome(s.state(), 2), SendOutcome::InFlight);
  ASSERT_EQ(s.state().producer.inflight_offset, 2);
  ASSERT_TRUE(s.run({crash(0, StopKind::Kill)}));
  EXPECT_NE(outcome(s.state(), 2), SendOutcome::InFlight);
  EXPECT_NE(s.state().producer.inflight_leader, 0);
}

// --- the broker lifecycle ---------------------------------------------------------------

// Two brokers, RF 2, min ISR 2, dedicated voters: the second configuration.
std::vector<std::string> two_brokers_elr() {
  return {"brokers=2", "replication_factor=2", "min_insync_replicas=2", "controller.placement=dedicated",
          "controller.voters=3", "faults.max_crashes=3", "faults.max_lossy_crashes=0", "faults.max_disk_losses=1",
          "faults.max_clean_shutdowns=1"};
}

TEST(ProcessState, AnIncarnationThatNeverRegisteredSkipsControlledShutdown) {
  Scenario s(two_brokers_elr());
  // N1 is killed and back before the controller noticed: the controller still has the
  // old incarnation registered and unfenced, the new one has no broker epoch.
  ASSERT_TRUE(s.run({crash(1, StopKind::Kill), restart(1)}));
  ASSERT_FALSE(contains(s.controller().fenced, 1));
  ASSERT_EQ(s.state().nodes[1].broker_epoch, 0);
  // BrokerLifecycleManager: "Skipping controlled shutdown" outside RUNNING.
  EXPECT_FALSE(s.can(crash(1, StopKind::Clean, 0)));
  EXPECT_FALSE(s.can(crash(1, StopKind::Clean, kNoNode)));
  ASSERT_TRUE(s.apply(crash(1, StopKind::Clean, rules::kWithoutController)));
  EXPECT_EQ(s.controller().isr, nodes({0, 1})) << "the controller took no part";
  EXPECT_EQ(s.state().nodes[1].clean_shutdown_epoch, 0) << "the clean-shutdown file carries epoch -1";
}

// r1 committed on both; N0 killed and fenced (ISR [1], ELR [0]); N0's next incarnation
// stops cleanly before registering, then registers: its shutdown counts as unclean, so
// it leaves the ELR (ClusterControlManager.registerBroker compares the file's epoch
// with the stored one).
TEST(ProcessState, ACleanStopOfAnUnregisteredIncarnationIsUncleanAtTheNextRegistration) {
  Scenario s(two_brokers_elr());
  ASSERT_TRUE(s.apply(produce(0, 1)));
  ASSERT_TRUE(catch_up(s, 1, 0));
  ASSERT_EQ(outcome(s.state(), 1), SendOutcome::Acked);
  ASSERT_TRUE(s.run({crash(0, StopKind::Kill), fence_broker(0, 1)}));
  ASSERT_EQ(s.controller().isr, nodes({1}));
  ASSERT_EQ(s.controller().elr, nodes({0}));
  ASSERT_TRUE(s.run({restart(0), crash(0, StopKind::Clean, rules::kWithoutController), restart(0)}));
  ASSERT_TRUE(s.apply(register_broker(0, 1)));
  EXPECT_FALSE(contains(s.controller().elr, 0)) << "unclean shutdown: out of the ELR";
}

// The same, but the registered incarnation shuts down cleanly: it stays in the ELR
// (4.4.0: handleBrokerShutdown with a clean shutdown only takes the broker out of the ISR).
TEST(ProcessState, ACleanStopOfARegisteredIncarnationKeepsItInTheElr) {
  Scenario s(two_brokers_elr());
  ASSERT_TRUE(s.apply(produce(0, 1)));
  ASSERT_TRUE(catch_up(s, 1, 0));
  ASSERT_TRUE(s.apply(crash(0, StopKind::Clean, 1)));
  ASSERT_EQ(s.controller().elr, nodes({0}));
  EXPECT_EQ(s.state().nodes[0].clean_shutdown_epoch, 1);
  ASSERT_TRUE(s.run({restart(0), register_broker(0, 1)}));
  EXPECT_TRUE(contains(s.controller().elr, 0));
}

// --- what a restart recovers ------------------------------------------------------------

// LogLoader.recoverLog: after kill -9 the log comes back from the page cache, but the
// recovery point stays at the last flush; a power loss after the restart takes the
// unflushed suffix.
TEST(ProcessState, TheSuffixRecoveredAfterAKillIsStillUnflushed) {
  Scenario s({"acks=1", "faults.max_crashes=2", "faults.max_lossy_crashes=1"});
  ASSERT_TRUE(s.apply(produce(0, 1)));
  ASSERT_EQ(s.replica(0).flushed, 0);
  ASSERT_TRUE(s.run({crash(0, StopKind::Kill), restart(0)}));
  EXPECT_EQ(records(s.state(), 0), (std::vector<int>{1}));
  EXPECT_EQ(s.replica(0).flushed, 0);
  EXPECT_TRUE(s.can(flush(0)));
  ASSERT_TRUE(s.run({crash(0, StopKind::Power)}));
  EXPECT_TRUE(records(s.state(), 0).empty()) << "the power loss took the recovered, unflushed record";
}

TEST(ProcessState, ACleanStopFlushesSoARestartedLogIsDurable) {
  Scenario s({"acks=1", "faults.max_crashes=2", "faults.max_lossy_crashes=1", "faults.max_clean_shutdowns=1"});
  ASSERT_TRUE(s.run({produce(0, 1), crash(0, StopKind::Clean, 1), restart(0)}));
  EXPECT_EQ(s.replica(0).flushed, 1);
}

// --- hot path ---------------------------------------------------------------------------

// Every stop kind, lost acks=1 responses and retries: the rules of this file all run.
TEST(ProcessState, SuccessorGenerationDoesNotAllocate) {
  const PartitionModel m = make_model({"acks=1", "faults.max_crashes=3", "faults.max_lossy_crashes=1",
                                       "faults.max_disk_losses=1", "faults.max_clean_shutdowns=1",
                                       "faults.max_lost_produce_responses=1", "bounds.max_retries=1",
                                       "bounds.max_records=2", "controller.placement=dedicated"});
  std::vector<State> states;
  explore(
      m, m.initial_states().at(0), [](const Action&) { return true; },
      [&](const State& s) { states.push_back(s); }, 20000);
  ASSERT_GT(states.size(), 10000u);
  uint64_t checks = 0;
  g_allocations = 0;
  g_count_allocations = true;
  for (const State& s : states) {
    m.for_each_action(s, [&](const Action& a) {
      State t = m.next_state(s, a);
      m.canonicalize(t);
      for (const auto& p : m.properties()) checks += p.holds(m, t) ? 1 : 0;
    });
  }
  g_count_allocations = false;
  EXPECT_GT(checks, 10000u);
  EXPECT_EQ(g_allocations.load(), 0u);
}

}  // namespace
}  // namespace isr::spec
