// The factory generated scenario tests (isrcheck export --format gtest) call, defined so
// that they run against real Kafka: link a generated test with the isrcheck_kafka_cut
// library instead of the model adapter, and every test of the binary shares one driver
// and, where the scenarios allow, one cluster (real_kafka_cluster.h, shared_session).
#include <memory>

#include <nlohmann/json.hpp>

#include "conformance/real_kafka_cluster.h"
#include "counterexamples/scenario/cluster_under_test.h"

namespace isr::cut {

std::unique_ptr<ClusterUnderTest> make_cluster_under_test(const ClusterSetup& setup) {
  return std::make_unique<conformance::RealKafkaCluster>(conformance::shared_session(),
                                                         nlohmann::json::parse(setup.scenario_json));
}

}  // namespace isr::cut
