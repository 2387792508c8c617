// The ZooKeeper-mode controller (spec/partition/zookeeper.cc, docs/model.md "ZooKeeper-mode
// controller"): controller.mode per generation, sessions that outlive a crash, bounced
// brokers before and after KIP-380, the leader's own ISR writes with a zkVersion
// compare-and-set, and a deposed controller's queued write before and after KAFKA-6082.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "checker/bfs/bfs.h"
#include "tests/model_test_util.h"

namespace isr::spec {
namespace {

using namespace modeltest;

// --- configuration --------------------------------------------------------------------

TEST(ControllerMode, DefaultsByGeneration) {
  for (const char* p : {"hw-truncation", "kip-101", "kip-279", "kip-320", "kip-497"})
    EXPECT_EQ(load_config(nullptr, {std::string("protocol=") + p}).controller.mode, ControllerMode::Zookeeper) << p;
  for (const char* p : {"kip-903", "kip-966"})
    EXPECT_EQ(load_config(nullptr, {std::string("protocol=") + p}).controller.mode, ControllerMode::Kraft) << p;
  EXPECT_EQ(default_config().controller.mode, ControllerMode::Kraft);
}

TEST(ControllerMode, SelectableWhereBothExisted) {
  EXPECT_EQ(load_config(nullptr, {"protocol=kip-497", "controller.mode=kraft"}).controller.mode, ControllerMode::Kraft);
  const Config zk903 = load_config(nullptr, {"protocol=kip-903", "controller.mode=zookeeper"});
  EXPECT_EQ(zk903.controller.mode, ControllerMode::Zookeeper);
  // The ZooKeeper controller never checked AlterPartition's broker epochs (KIP-903).
  EXPECT_FALSE(zk903.fixes.alter_partition_broker_epochs);
  EXPECT_TRUE(load_config(nullptr, {"protocol=kip-903", "controller.mode=zookeeper",
                                    "fixes.alter_partition_broker_epochs=true"})
                  .fixes.alter_partition_broker_epochs);
}

TEST(ControllerMode, InvalidCombinationsNameTheFieldAndTheAllowedValues) {
  auto message = [](const std::vector<std::string>& overrides) -> std::string {
    try {
      load_config(nullptr, overrides);
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.field, "controller.mode");
      return e.what();
    }
    ADD_FAILURE() << "no error";
    return "";
  };
  EXPECT_NE(message({"protocol=kip-320", "controller.mode=kraft"}).find("allowed: \"zookeeper\""), std::string::npos);
  EXPECT_NE(message({"protocol=kip-966", "controller.mode=zookeeper"}).find("allowed: \"kraft\""), std::string::npos);
  EXPECT_NE(message({"protocol=kip-497", "controller.mode=zk"}).find("\"zookeeper\", \"kraft\""), std::string::npos);
}

TEST(ControllerMode, DescribedAndRoundTripped) {
  const Config c = load_config(nullptr, {"protocol=kip-497"});
  const nlohmann::json j = to_json(c);
  EXPECT_EQ(j["controller"]["mode"], "zookeeper");
  EXPECT_EQ(load_config(&j, {}).controller.mode, ControllerMode::Zookeeper);
  EXPECT_EQ(to_json(default_config())["controller"]["mode"], "kraft");
}

TEST(ControllerMode, FixesOfTheZooKeeperEraByGeneration) {
  EXPECT_FALSE(fixes_for(Protocol::Kip279).controller_epoch_zk_version);
  EXPECT_TRUE(fixes_for(Protocol::Kip320).controller_epoch_zk_version);  // KAFKA-6082, 2.1
  EXPECT_FALSE(fixes_for(Protocol::Kip320).bounced_broker_epochs);
  EXPECT_TRUE(fixes_for(Protocol::Kip497).bounced_broker_epochs);  // KIP-380, 2.2
}

// --- sessions ---------------------------------------------------------------------------

TEST(ZookeeperSessions, ARestartFasterThanTheSessionKeepsTheBrokerInTheIsr) {
  Scenario zk({"protocol=kip-497", "controller.placement=dedicated"});
  ASSERT_TRUE(zk.run({crash(1, StopKind::Kill), restart(1)}));
  // The session of the killed process is still alive: the controller sees nothing,
  // and the new process cannot register /brokers/ids/1 (NODEEXISTS) until it expires.
  EXPECT_FALSE(zk.can(Step{ActionKind::FenceBroker, 1}));
  EXPECT_FALSE(zk.can(Step{ActionKind::RegisterBroker, 1}));
  EXPECT_EQ(zk.controller().isr, nodes({0, 1, 2}));
  EXPECT_EQ(zk.controller().fenced, 0);
  ASSERT_TRUE(zk.run({session_expiry(1), register_broker(1, kAny)}));
  EXPECT_EQ(zk.state().nodes[1].broker_epoch, 2) << "the new znode's czxid";

  // KRaft: the restarted incarnation can only register after the controller fenced the
  // old one (broker.session.timeout.ms), which takes it out of the ISR.
  Scenario kraft({"protocol=kip-497", "controller.mode=kraft", "controller.placement=dedicated"});
  ASSERT_TRUE(kraft.run({crash(1, StopKind::Kill), restart(1)}));
  EXPECT_FALSE(kraft.can(Step{ActionKind::RegisterBroker, 1}));
  ASSERT_TRUE(kraft.run({fence_broker(1, 0), register_broker(1, 0)}));
  EXPECT_EQ(kraft.controller().isr, nodes({0, 2}));
}

// Leadership moves to 2 (the controller stays broker 0); record 1 is acked by ISR
// [0,1,2]; follower 1 loses it in a power loss, restarts, its session expires and it
// registers again before the controller looked.
Scenario bounced_follower(const std::vector<std::string>& overrides) {
  std::vector<std::string> all = {"controller.placement=dedicated", "faults.max_crashes=2",
                                  "faults.max_lossy_crashes=1", "bounds.max_records=1", "bounds.max_leader_moves=1"};
  all.insert(all.end(), overrides.begin(), overrides.end());
  Scenario s(all);
  EXPECT_TRUE(s.run({preferred_election(2), metadata_update(2), metadata_update(0), metadata_update(1), produce(2, 1),
                     fetch(1, 2), fetch_response(1), fetch(0, 2), fetch_response(0), fetch(1, 2), fetch_response(1),
                     fetch(0, 2), fetch_response(0)}));
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::Acked);
  EXPECT_TRUE(s.run({crash(1, StopKind::Power), restart(1), session_expiry(1), register_broker(1, kAny)}));
  EXPECT_TRUE(records(s.state(), 1).empty());
  return s;
}

TEST(ZookeeperSessions, BeforeKip380ABouncedBrokerGoesUnnoticedAndIsElected) {
  for (const auto& overrides : {std::vector<std::string>{"protocol=kip-320"},
                                std::vector<std::string>{"protocol=kip-497", "fixes.bounced_broker_epochs=false"}}) {
    Scenario s = bounced_follower(overrides);
    // processBrokerChange before 2.2: broker 1 is in both the old and the new set.
    EXPECT_EQ(s.count(ActionKind::BrokerBounce), 0) << overrides.front();
    EXPECT_FALSE(s.can(Step{ActionKind::FenceBroker, 1})) << overrides.front();
    EXPECT_TRUE(contains(s.controller().isr, 1)) << overrides.front();
    EXPECT_TRUE(s.violated("leader-completeness")) << overrides.front();
    // The leader dies; the controller elects the empty replica from the ISR.
    ASSERT_TRUE(s.run({crash(2, StopKind::Kill), session_expiry(2), fence_broker(2, 1), metadata_update(1)}))
        << overrides.front();
    EXPECT_EQ(rules::active_leader(s.state()), 1);
    EXPECT_TRUE(s.violated("no-acked-loss")) << overrides.front();
  }
}

TEST(ZookeeperSessions, Kip380HandlesTheBounceBeforeTheDeadLeader) {
  Scenario s = bounced_follower({"protocol=kip-497"});
  EXPECT_TRUE(s.holds("leader-completeness")) << "not electable until the controller handled the bounce";
  ASSERT_TRUE(s.run({crash(2, StopKind::Kill), session_expiry(2)}));
  // The same BrokerChange event sees 2 gone and 1 bounced: the bounce comes first.
  EXPECT_FALSE(s.can(Step{ActionKind::FenceBroker, 2}));
  ASSERT_TRUE(s.run({broker_bounce(1, 2)}));
  EXPECT_FALSE(contains(s.controller().isr, 1)) << "onBrokerFailure took it out of the ISR";
  EXPECT_EQ(s.controller().registered_epoch[1], 2);
  EXPECT_FALSE(s.can(fence_broker(2, 1)));
  ASSERT_TRUE(s.run({fence_broker(2, 0), metadata_update(0)}));
  EXPECT_EQ(rules::active_leader(s.state()), 0);
  EXPECT_TRUE(s.holds("no-acked-loss"));
}

// --- the leader's ISR writes (before KIP-497) -------------------------------------------

TEST(ZookeeperIsr, TheLeaderWritesTheIsrWithAZkVersionCompareAndSet) {
  Scenario s({"protocol=kip-320", "controller.placement=dedicated", "acks=1"});
  ASSERT_TRUE(s.run({produce(0, 1), shrink_isr(0, 2)}));
  // Partition.updateIsr: written at once, no AlterPartition in flight.
  EXPECT_EQ(s.controller().isr, nodes({0, 1}));
  EXPECT_EQ(s.controller().partition_epoch, 1);
  EXPECT_EQ(s.replica(0).view_partition_epoch, 1);
  EXPECT_EQ(s.count(ActionKind::AlterPartition), 0);
  // The controller writes the znode behind the leader's back (follower 1's session
  // expired): the leader's cached zkVersion is stale, so its next write fails and it
  // keeps its ISR ("Cached zkVersion ... skip updating ISR").
  ASSERT_TRUE(s.run({crash(1, StopKind::Kill), session_expiry(1), fence_broker(1, 0)}));
  EXPECT_EQ(s.controller().partition_epoch, 2);
  EXPECT_EQ(s.replica(0).view_isr, nodes({0, 1})) << "no LeaderAndIsr for the same leader epoch";
  EXPECT_FALSE(s.can(shrink_isr(0, 1)));
}

// KafkaController.processAlterPartition (ZooKeeper mode, 3.9) writes the leader's own
// leader epoch: a shrink the leader asks for keeps it, also in the kip-903 generation,
// where the KRaft controller of 3.5 bumps it (KAFKA-15021 came in 3.6); the controller's
// own removal of a dead replica (doRemoveReplicasFromIsr) bumps it in both.
TEST(ZookeeperIsr, TheLeadersOwnShrinkKeepsTheLeaderEpochInEveryGeneration) {
  Scenario zk({"protocol=kip-903", "controller.mode=zookeeper", "controller.placement=dedicated"});
  ASSERT_TRUE(zk.run({produce(0, 1), shrink_isr(0, 2), alter_partition(0)}));
  EXPECT_EQ(zk.controller().isr, nodes({0, 1}));
  EXPECT_EQ(zk.controller().leader_epoch, 0);
  ASSERT_TRUE(zk.run({crash(1, StopKind::Kill), session_expiry(1), fence_broker(1, 0)}));
  EXPECT_EQ(zk.controller().isr, nodes({0}));
  EXPECT_EQ(zk.controller().leader_epoch, 1) << "the controller's own removal bumps";

  Scenario kraft({"protocol=kip-903", "controller.mode=kraft", "controller.placement=dedicated"});
  ASSERT_TRUE(kraft.run({produce(0, 1), shrink_isr(0, 2), alter_partition(0)}));
  EXPECT_EQ(kraft.controller().leader_epoch, 1) << "KRaft 3.5: every shrink bumps";
}

// A follower's Metadata answer is its ZkMetadataCache, which the controller's
// UpdateMetadata refreshes after the leader's own ISR change (processAlterPartition ->
// sendUpdateMetadataRequest to every live broker), at the same leader epoch; the
// leader's view (its Partition state, its cached zkVersion) is left to its own writes.
TEST(ZookeeperMetadataCache, FollowersSeeEveryIsrChangeAtTheSameLeaderEpoch) {
  Scenario s({"protocol=kip-903", "controller.mode=zookeeper", "controller.placement=dedicated"});
  ASSERT_TRUE(s.run({produce(0, 1), shrink_isr(0, 2), alter_partition(0)}));
  ASSERT_EQ(s.controller().leader_epoch, 0);
  ASSERT_EQ(s.controller().isr, nodes({0, 1}));
  EXPECT_FALSE(s.can(metadata_update(0))) << "the leader's view is already the committed ISR";
  for (int b : {1, 2}) {
    EXPECT_EQ(s.replica(b).view_isr, nodes({0, 1, 2}));
    ASSERT_TRUE(s.apply(metadata_update(b))) << "UpdateMetadata to every live broker: " << b;
    EXPECT_EQ(s.replica(b).view_isr, nodes({0, 1}));
    EXPECT_EQ(s.replica(b).view_leader_epoch, 0);
    EXPECT_EQ(s.replica(b).view_partition_epoch, 1);
    EXPECT_FALSE(s.can(metadata_update(b))) << "nothing more to send";
  }

  // Before KIP-497 the leader writes the znode and the controller propagates it
  // (processIsrChangeNotification -> sendUpdateMetadataRequest).
  Scenario old({"protocol=kip-320", "controller.placement=dedicated", "acks=1"});
  ASSERT_TRUE(old.run({produce(0, 1), shrink_isr(0, 2), metadata_update(1)}));
  EXPECT_EQ(old.replica(1).view_isr, nodes({0, 1}));
}

// --- LeaderAndIsr delivery -------------------------------------------------------------

// The controller's per-broker queue (ControllerChannelManager) delivers every election to
// a live replica in order: leader 0 moved to 1 and back to 0 while broker 0 lagged, so
// broker 0 replays becoming follower of 1 first. Its makeLeader then sees isNewLeader
// and forgets follower 1's offset, and its parked produce was answered on the demotion.
// Jumping from its own view (leader at epoch 0) to epoch 2 would keep both.
TEST(ZookeeperLeaderAndIsr, ALiveBrokerReplaysEveryQueuedElection) {
  Scenario s({"protocol=kip-497", "controller.placement=dedicated", "bounds.max_leader_moves=2",
              "bounds.max_records=1"});
  ASSERT_TRUE(s.run({produce(0, 1), fetch(1, 0), fetch_response(1), fetch(1, 0)}));
  ASSERT_EQ(s.replica(0).fetch_offset[1], 1);
  ASSERT_EQ(outcome(s.state(), 1), SendOutcome::InFlight);
  ASSERT_TRUE(s.run({preferred_election(1), preferred_election(0)}));
  // 0 and 2 still hold the election of 1 before the newest request; 1 led in it.
  EXPECT_EQ(s.controller().zk_queued_demotion, nodes({0, 2}));
  ASSERT_TRUE(s.run({metadata_update(0)}));
  EXPECT_EQ(s.controller().leader_epoch, 2);
  EXPECT_EQ(s.replica(0).view_leader_epoch, 2);
  EXPECT_EQ(s.replica(0).fetch_offset[1], 0) << "makeLeader with isNewLeader: resetReplicaState";
  EXPECT_NE(outcome(s.state(), 1), SendOutcome::InFlight) << "answered when it became follower of 1";
  EXPECT_EQ(s.controller().zk_queued_demotion, nodes({2}));
}

// A broker that the controller dropped (onBrokerFailure: removeBroker) gets a new queue
// that starts with the state of its return; one that applied each election as it came
// has nothing to replay.
TEST(ZookeeperLeaderAndIsr, OnlyQueuedDemotionsAreReplayed) {
  Scenario s({"protocol=kip-497", "controller.placement=dedicated", "bounds.max_leader_moves=2",
              "bounds.max_records=1"});
  ASSERT_TRUE(s.run({produce(0, 1), fetch(1, 0), fetch_response(1), fetch(1, 0), preferred_election(1),
                     metadata_update(0), preferred_election(0)}));
  EXPECT_EQ(s.controller().zk_queued_demotion, nodes({2})) << "only 2 still holds the election of 1";
  ASSERT_TRUE(s.run({metadata_update(0)}));
  EXPECT_EQ(s.replica(0).fetch_offset[1], 0) << "it was follower of 1 in its own view";
  ASSERT_TRUE(s.run({crash(2, StopKind::Kill), session_expiry(2), fence_broker(2, 0)}));
  EXPECT_FALSE(contains(s.controller().zk_queued_demotion, 2)) << "removeBroker drops 2's queue";
}

// A skip Kafka does have: controller 0 loses its session before it delivered broker 1's
// demotion (epoch 2) and re-election (epoch 3); it resigns and its queues go
// (onControllerResignation), and the new controller sends broker 1 the state it reads, in
// which 1 leads. Broker 1 goes from leader at epoch 1 to leader at epoch 4 in its own
// view: makeLeader with isNewLeader false keeps follower 0's offset (F12's loss).
TEST(ZookeeperLeaderAndIsr, AControllerFailoverDropsTheQueue) {
  Scenario s({"protocol=kip-497", "controller.placement=dedicated", "bounds.max_leader_moves=3",
              "bounds.max_records=1", "faults.max_network_cuts=1", "bounds.max_leader_epoch=4"});
  ASSERT_TRUE(s.run({preferred_election(1), metadata_update(0), metadata_update(1), metadata_update(2), produce(1, 1),
                     fetch(0, 1), fetch_response(0), fetch(0, 1)}));
  ASSERT_EQ(s.replica(1).fetch_offset[0], 1);
  ASSERT_TRUE(s.run({preferred_election(2), preferred_election(1)}));
  EXPECT_TRUE(contains(s.controller().zk_queued_demotion, 1));
  // The failover removes 0 from the ISR (epoch 4, leader 1 kept): the new queues start
  // with the state it read, in which 1 leads.
  ASSERT_TRUE(s.run({cut(0, kCutFromQuorum), session_expiry(0), controller_failover(2)}));
  EXPECT_FALSE(contains(s.controller().zk_queued_demotion, 1));
  ASSERT_TRUE(s.run({metadata_update(1)}));
  EXPECT_EQ(s.replica(1).view_leader_epoch, 4);
  EXPECT_EQ(s.replica(1).fetch_offset[0], 1) << "kept: it led at epoch 1 in its own view";
  EXPECT_EQ(outcome(s.state(), 1), SendOutcome::InFlight) << "still parked at the same leader";
}

// --- the deposed controller -------------------------------------------------------------

// Broker 0 is controller and leader. It is cut off from ZooKeeper, its session expires,
// broker 1 becomes controller (epoch 2); 0 reconnects with a queued election.
Scenario deposed_controller(const std::string& protocol) {
  Scenario s({"protocol=" + protocol, "controller.placement=dedicated", "faults.max_network_cuts=1"});
  EXPECT_TRUE(s.run({cut(0, kCutFromQuorum), session_expiry(0), controller_failover(1)}));
  EXPECT_EQ(s.controller().controller_epoch, 2);
  EXPECT_EQ(s.controller().deposed, 1) << "node 0 + 1";
  EXPECT_TRUE(s.run({heal(0, kCutFromQuorum)}));
  return s;
}

TEST(DeposedController, BeforeKafka6082ItsQueuedWriteLands) {
  for (const char* protocol : {"kip-279"}) {
    Scenario s = deposed_controller(protocol);
    ASSERT_TRUE(s.apply(deposed_write(0, 2))) << protocol;
    // The partition state now says leader 2, epoch 1, written by controller epoch 1
    // although the controller is at epoch 2 and knows nothing of it.
    EXPECT_EQ(s.controller().leader, 2);
    EXPECT_EQ(s.controller().leader_epoch, 1);
    EXPECT_EQ(s.controller().state_controller_epoch, 1);
    EXPECT_EQ(s.controller().deposed_wrote, 1);
    // Broker 2 has not heard from controller 2 yet: it accepts the stale LeaderAndIsr.
    ASSERT_TRUE(s.apply(stale_leader_and_isr(2)));
    EXPECT_TRUE(rules::believes_leader(s.state(), 2));
    EXPECT_TRUE(rules::believes_leader(s.state(), 0)) << "0 still leads epoch 0: two brokers act as leader";
    // The current controller's requests carry what it knows, which predates the write.
    EXPECT_FALSE(s.can(stale_leader_and_isr(1)) && s.can(metadata_update(1)) &&
                 s.controller().leader != 2);
  }
}

TEST(DeposedController, BrokersThatHeardFromTheNewControllerRefuseIt) {
  Scenario s = deposed_controller("kip-279");
  ASSERT_TRUE(s.run({metadata_update(2), deposed_write(0, 2)}));
  EXPECT_EQ(s.state().nodes[2].controller_epoch_seen, 2);
  EXPECT_FALSE(s.can(stale_leader_and_isr(2))) << "STALE_CONTROLLER_EPOCH";
  // The znode names 2 as leader, 2 never learns it: nobody leads epoch 1.
  EXPECT_EQ(s.controller().leader, 2);
  EXPECT_EQ(rules::active_leader(s.state()), -1);
  EXPECT_FALSE(s.can(metadata_update(2)));
}

TEST(DeposedController, Kafka6082FencesTheWriteOnTheControllerEpochZkVersion) {
  for (const auto& overrides : {std::vector<std::string>{"kip-320"}}) {
    Scenario s = deposed_controller(overrides.front());
    EXPECT_FALSE(s.can(deposed_write(0, 2)));
    EXPECT_FALSE(s.can(deposed_write(0, 1)));
    const ControllerState before = s.controller();
    ASSERT_TRUE(s.apply(deposed_write(0, kNoNode)));  // BADVERSION: it resigns
    EXPECT_EQ(s.controller().leader, before.leader);
    EXPECT_EQ(s.controller().partition_epoch, before.partition_epoch);
    EXPECT_EQ(s.controller().deposed, 0);
  }
  Scenario off({"protocol=kip-320", "fixes.controller_epoch_zk_version=false", "controller.placement=dedicated",
                "faults.max_network_cuts=1"});
  ASSERT_TRUE(off.run({cut(0, kCutFromQuorum), session_expiry(0), controller_failover(1), heal(0, kCutFromQuorum)}));
  EXPECT_TRUE(off.can(deposed_write(0, 2))) << "the toggle alone reopens the window";
}

TEST(DeposedController, AWriteOfTheNewControllerAbortsTheQueuedElection) {
  Scenario s = deposed_controller("kip-279");
  // The new controller handles 0's session expiry first: the znode carries epoch 2.
  ASSERT_TRUE(s.apply(fence_broker(0, 1)));
  EXPECT_EQ(s.controller().state_controller_epoch, 2);
  EXPECT_FALSE(s.can(deposed_write(0, 2))) << "aborted: the controller epoch in ZK is newer";
  EXPECT_TRUE(s.can(deposed_write(0, kNoNode)));
}

// --- exhaustive checks per generation ----------------------------------------------------

struct Figures {
  uint64_t distinct;
  bool holds;
  std::string property;
};

Figures check(const std::vector<std::string>& overrides) {
  const PartitionModel m(load_config(nullptr, overrides));
  checker::BfsOptions options;
  options.symmetry = true;
  options.threads = 2;
  const auto r = checker::bfs(m, options);
  return {r.distinct_states, r.verdict == checker::Verdict::Holds, r.property};
}

// The leader is also the controller and dies: the new controller's onControllerFailover
// removes it from the ISR with leader -1 (ZkReplicaStateMachine.startup -> OfflineReplica,
// epoch 1) and then elects (ZkPartitionStateMachine.startup, epoch 2), as Kafka 3.9.1 did
// (docs/conformance.md, z-zk-acks1-controller-failover). A dead follower is removed the
// same way, without an election. Before KAFKA-3143 (2.3; kip-320 here) the startup left
// the dead brokers to the next BrokerChange: one write, one bump.
TEST(ZookeeperController, AFailoverRemovesTheDeadBrokersThenElects) {
  Scenario s({"protocol=kip-903", "controller.mode=zookeeper", "controller.placement=dedicated", "acks=1",
              "faults.max_crashes=2"});
  ASSERT_TRUE(s.run({produce(0, 1), crash(0, StopKind::Kill), session_expiry(0)}));
  // Either live ISR member may be elected (the model's elections pick any eligible one).
  EXPECT_TRUE(s.can(controller_failover(1, 2)));
  ASSERT_TRUE(s.apply(controller_failover(1, 1)));
  EXPECT_EQ(s.controller().leader, 1);
  EXPECT_EQ(s.controller().leader_epoch, 2) << "removal (leader -1) and election: two bumps";
  EXPECT_EQ(s.controller().partition_epoch, 2);
  EXPECT_EQ(s.controller().isr, nodes({1, 2}));
  EXPECT_TRUE(contains(s.controller().fenced, 0));
  EXPECT_EQ(s.count(ActionKind::FenceBroker), 0) << "handled by the failover itself";
  // Broker 1 replays the leaderless epoch 1 first (queued), then leads at epoch 2.
  EXPECT_TRUE(contains(s.controller().zk_queued_demotion, 1));

  // Not modelled: two dead ISR members (Kafka removes them in its Map's order and keeps
  // the last one); the failover leaves them to FenceBroker, as before 2.3.
  Scenario two_dead({"protocol=kip-497", "controller.placement=dedicated", "faults.max_crashes=2",
                     "faults.max_network_cuts=1"});
  ASSERT_TRUE(two_dead.run({crash(2, StopKind::Kill), session_expiry(2), cut(0, kCutFromQuorum), session_expiry(0),
                            controller_failover(1)}));
  EXPECT_EQ(two_dead.controller().leader_epoch, 0);
  EXPECT_TRUE(two_dead.can(fence_broker(0, 1)));

  Scenario before({"protocol=kip-320", "controller.placement=dedicated", "acks=1"});
  ASSERT_TRUE(before.run({produce(0, 1), crash(0, StopKind::Kill), session_expiry(0), controller_failover(1)}));
  EXPECT_EQ(before.controller().leader, 0) << "nothing written at the failover before 2.3";
  EXPECT_EQ(before.controller().leader_epoch, 0);
  ASSERT_TRUE(before.run({fence_broker(0, 1)}));
  EXPECT_EQ(before.controller().leader_epoch, 1);
}

// The ZooKeeper controller elects uncleanly in the write that handles the failure:
// KafkaController.onReplicasBecomeOffline -> PartitionStateMachine
// .triggerOnlinePartitionStateChange with OfflinePartitionLeaderElectionStrategy, whose
// collectUncleanLeaderElectionState reads the topic's unclean.leader.election.enable
// (3.9 branch): one leader-epoch bump, no leaderless write in between.
TEST(ZookeeperController, AnUncleanElectionIsPartOfTheFailureHandling) {
  Scenario s({"protocol=kip-497", "controller.placement=dedicated", "faults.max_crashes=2",
              "unclean_leader_election=true"});
  ASSERT_TRUE(s.run({produce(0, 1), fetch(1, 0), fetch_response(1), fetch(1, 0), fetch_response(1), shrink_isr(0, 2),
                     alter_partition(0)}));
  ASSERT_EQ(s.controller().isr, nodes({0, 1}));
  // Broker 0 is also the controller: broker 2 takes over.
  // The failover's own writes remove 0 and elect 1 (ZkReplicaStateMachine.startup).
  ASSERT_TRUE(s.run({crash(0, StopKind::Kill), session_expiry(0), controller_failover(2, 1), crash(1, StopKind::Kill),
                     session_expiry(1)}));
  ASSERT_EQ(s.controller().leader, 1);
  const int epoch = s.controller().leader_epoch;
  EXPECT_FALSE(s.can(fence_broker(1, kNoNode)));
  ASSERT_TRUE(s.apply(fence_broker(1, 2)));
  EXPECT_EQ(s.controller().leader, 2);
  EXPECT_EQ(s.controller().leader_epoch, epoch + 1);
  EXPECT_EQ(s.controller().unclean_elected, 1);
}

TEST(ZookeeperGenerations, DefaultModelWithKillCrashesPerGeneration) {
  // The default model (3 nodes combined, RF 3, min ISR 2, acks=all, one crash) with
  // kill -9 only, every default property. The ZooKeeper-era generations now run with the
  // ZooKeeper controller; kip-497 runs in both modes.
  struct Row {
    std::vector<std::string> overrides;
    bool holds;
    uint64_t distinct;  // up to symmetry; for a violation, when the search stopped
  };
  const Row rows[] = {
      {{"protocol=hw-truncation"}, false, 103373},  // strong-isr: truncation to the HW (12 steps)
      {{"protocol=kip-320"}, true, 1063883},
      {{"protocol=kip-497"}, true, 2237729},
      {{"protocol=kip-497", "controller.mode=kraft"}, true, 620713},
  };
  // Before a ShrinkIsr could remove several followers in one change (one znode write
  // before KIP-497, one AlterPartition after it: docs/model.md, "A shrink of several
  // followers"): 109848, 728293, 1346841, 554708; no verdict changed (hw-truncation's
  // violation is found after fewer states). kip-497 under KRaft: 792278 with the set
  // shrink alone, 476499 with the leader's own shrink bumping the leader epoch alone (as
  // the KRaft controller of 3.4.1 does: docs/conformance.md divergence 18), 620713 with both.
  // Before the followers' metadata cache (UpdateMetadata after every ISR change) and the
  // failover's own removal writes and election (KAFKA-3143, kip-497 on): 28950, 147281,
  // 297089. A follower's view now also differs by the ISR changes it has or has not yet
  // been told of at the same leader epoch; no verdict changed.
  // Before Partition.makeLeader's isNewLeader rule (issue 24 item 1): 3713, 148915,
  // 299232, 558501. A broker that becomes leader from a follower view now forgets its
  // followers' offsets and broker epochs from an earlier term instead of keeping them
  // (with the epoch they were fetched in), which merges states; no verdict changed.
  // hw-truncation was 3642 before the follower's truncation decision followed 0.10's
  // Partition.makeFollower (issue 24 item 5): a follower truncates to its HW only when
  // its leader changes, not on the controller's same-leader epoch bump after a crash, so
  // the shortest strong-isr violation is longer (12 steps) and found later.
  for (const Row& row : rows) {
    std::vector<std::string> overrides = row.overrides;
    overrides.push_back("faults.max_lossy_crashes=0");
    const Figures f = check(overrides);
    EXPECT_EQ(f.holds, row.holds) << row.overrides.front() << " " << f.property;
    EXPECT_EQ(f.distinct, row.distinct) << row.overrides.back();
  }
}

TEST(ZookeeperGenerations, AFailoverHidesABounceFromKip380) {
  // With a power loss the ZooKeeper-mode kip-497 model loses an acked write in 11
  // steps: the leader, which is also the controller, loses its log, its session expires
  // and it registers again before another broker takes /controller; it wins the
  // election itself, and a new controller has no earlier epoch to compare with, so
  // it finds the partition's leader live and sends it LeaderAndIsr.
  const PartitionModel m(load_config(nullptr, {"protocol=kip-497", "properties=no-acked-loss"}));
  checker::BfsOptions options;
  options.symmetry = true;
  const auto r = checker::bfs(m, options);
  ASSERT_EQ(r.verdict, checker::Verdict::Violated);
  EXPECT_EQ(r.counterexample.actions.size(), 11u);
  EXPECT_EQ(m.action_kind(r.counterexample.actions[9]), "ControllerFailover");
}

}  // namespace
}  // namespace isr::spec
