// Fetch from follower (KIP-392, consumer_fetch_from=any-replica; spec/partition/consumer.cc):
// the consumer may read from a follower, never past that follower's own high watermark,
// and the switch is validated and recorded only when set.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/verify.h"
#include "tests/model_test_util.h"

namespace isr::spec {
namespace {

using namespace modeltest;

const std::vector<std::string> kFollowerReads = {"consumer_fetch_from=any-replica"};

// Record 1 appended by leader 0 and fetched by both followers; the leader's HW has passed
// it, follower 1 has not yet heard so (its HW is the one of its previous response).
Scenario committed_but_follower_hw_behind(const std::vector<std::string>& overrides) {
  Scenario s(overrides);
  EXPECT_TRUE(s.run({produce(0, 1), fetch(1, 0), fetch_response(1), fetch(2, 0), fetch_response(2)}));
  EXPECT_TRUE(s.run({fetch(1, 0), fetch(2, 0)}));
  EXPECT_EQ(s.replica(0).hw, 1);
  return s;
}

TEST(FetchFromFollower, AFollowerServesUpToItsOwnHighWatermark) {
  Scenario s = committed_but_follower_hw_behind(kFollowerReads);
  ASSERT_TRUE(s.apply(fetch_response(1)));
  EXPECT_EQ(s.replica(1).hw, 0) << "that response carried the HW from before the fetch (Partition.readRecords)";
  EXPECT_FALSE(s.can(consume(1))) << "offset 0 is at or past follower 1's HW";
  EXPECT_TRUE(s.can(consume(0)));
  ASSERT_TRUE(s.run({fetch(1, 0), fetch_response(1)}));
  EXPECT_EQ(s.replica(1).hw, 1);
  ASSERT_TRUE(s.apply(consume(1)));
  EXPECT_EQ(s.state().consumer.position, 1);
  EXPECT_EQ(s.state().consumer.read[0], 1);
  EXPECT_TRUE(s.holds("consistent-read"));
}

TEST(FetchFromFollower, OffByDefaultAFollowerServesNoConsumer) {
  Scenario s = committed_but_follower_hw_behind({});
  ASSERT_TRUE(s.run({fetch_response(1), fetch(1, 0), fetch_response(1)}));
  EXPECT_EQ(s.replica(1).hw, 1);
  EXPECT_FALSE(s.can(consume(1)));
  EXPECT_TRUE(s.can(consume(0)));
}

// A broker that does not know the partition's leader, or no longer holds a replica,
// serves nothing: a restarted follower before its metadata replay.
TEST(FetchFromFollower, ABrokerWithoutAViewServesNothing) {
  Scenario s = committed_but_follower_hw_behind(kFollowerReads);
  ASSERT_TRUE(s.run({fetch_response(1), fetch(1, 0), fetch_response(1)}));
  ASSERT_TRUE(s.can(consume(1)));
  ASSERT_TRUE(s.run({crash(1, StopKind::Kill), restart(1)}));
  EXPECT_FALSE(s.replica(1).view_valid);
  EXPECT_FALSE(s.can(consume(1)));
}

// Follower reads reach no state leader reads do not (docs/fidelity.md, Consumer: a
// follower serves only what a leader served below its HW when it answered the fetch),
// so consistent-read has the same verdict over the same states. A rule that let a
// follower serve past what a leader committed would add states here.
TEST(FetchFromFollower, ReachesTheSameStatesAsLeaderReads) {
  const std::vector<std::string> base = {"properties=consistent-read", "faults.max_lossy_crashes=0",
                                         "bounds.max_leader_epoch=2", "bounds.max_partition_epoch=3"};
  std::vector<std::string> follower = base;
  follower.push_back("consumer_fetch_from=any-replica");
  analysis::VerifyOptions options;
  options.por = true;
  const analysis::VerifyOutcome leader_reads = analysis::verify(load_config(nullptr, base), options);
  const analysis::VerifyOutcome follower_reads = analysis::verify(load_config(nullptr, follower), options);
  EXPECT_EQ(leader_reads.verdict, checker::Verdict::Holds);
  EXPECT_EQ(follower_reads.verdict, leader_reads.verdict);
  EXPECT_EQ(follower_reads.distinct_states, leader_reads.distinct_states);
}

TEST(FetchFromFollower, ConfigurationIsCheckedAndRecordedOnlyWhenSet) {
  EXPECT_THROW(load_config(nullptr, {"consumer_fetch_from=nearest"}), ConfigError);
  try {
    load_config(nullptr, {"consumer_fetch_from=any-replica", "consumer=false"});
    ADD_FAILURE() << "accepted without a consumer";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field, "consumer_fetch_from") << e.what();
  }
  try {
    load_config(nullptr, {"consumer_fetch_from=any-replica", "protocol=kip-279"});
    ADD_FAILURE() << "accepted before Kafka 2.4";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("KIP-392"), std::string::npos) << e.what();
  }
  const Config plain = load_config(nullptr, {});
  EXPECT_FALSE(to_json(plain).contains("consumer_fetch_from"));
  EXPECT_EQ(describe_json(plain)["consumer_fetch_from"], "leader");
  const Config set = load_config(nullptr, kFollowerReads);
  EXPECT_EQ(to_json(set)["consumer_fetch_from"], "any-replica");
  const nlohmann::json recorded = to_json(set);
  EXPECT_EQ(load_config(&recorded, {}).consumer_fetch_from, ConsumerFetchFrom::AnyReplica);
}

}  // namespace
}  // namespace isr::spec
