// Which dynamic-quorum scenarios a real cluster can run (conformance/real_kafka_cluster.cc,
// not_executable_reason): a combined voter restarted after its disk loss runs on a KIP-853
// dynamic quorum (Kafka 3.9.0 and later) and stays not executable on the static one.
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "conformance/real_kafka_cluster.h"
#include "tests/conformance_test_support.h"

namespace isr::conformance {
namespace {

using nlohmann::json;
using conformance_test::suite_scenario;

TEST(DynamicQuorumConform, TheWipedVoterRestartRunsOnlyOnADynamicQuorum) {
  const json dynamic = suite_scenario("m-dynamic-quorum-voter-disk-loss");
  ASSERT_EQ(dynamic["cluster"]["controller"]["quorum"], "dynamic");
  EXPECT_EQ(not_executable_reason(dynamic, "4.4.0"), "");
  // The same steps on the static quorum: the restarted voter would vote on an empty log.
  json static_quorum = dynamic;
  static_quorum["cluster"]["controller"].erase("quorum");
  const std::string why = not_executable_reason(static_quorum, "4.4.0");
  EXPECT_NE(why.find("static quorum"), std::string::npos) << why;
  EXPECT_NE(why.find("controller.quorum=dynamic"), std::string::npos) << why;
}

TEST(DynamicQuorumConform, OlderReleasesHaveNoDynamicQuorum) {
  json scenario = suite_scenario("m-dynamic-quorum-voter-disk-loss");
  // A kip-903 generation trace on 3.5.2 and on 3.9.1: only 3.9 has KIP-853.
  scenario["cluster"]["protocol"]["generation"] = "kip-903";
  const std::string old = not_executable_reason(scenario, "3.5.2");
  EXPECT_NE(old.find("3.9.0 and later"), std::string::npos) << old;
  EXPECT_EQ(not_executable_reason(scenario, "3.9.1").find("dynamic KRaft quorum"), std::string::npos);
}

}  // namespace
}  // namespace isr::conformance
