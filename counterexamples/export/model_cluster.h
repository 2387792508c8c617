// Our own adapter for generated scenario tests: a ClusterUnderTest (cluster_under_test.h)
// that drives the partition model instead of a real cluster.
//
// Client operations and faults map to the model's actions of the same kind (a Produce to
// the named broker, a Crash of the named kind, ...). A wait searches, breadth first over
// the model's internal actions only (fetches, ISR changes, elections, metadata updates,
// flushes), for the nearest state that meets the condition; when the condition carries
// the digest of the state the trace reached, the state with that digest is preferred, so
// that the model follows the trace even where observables do not tell states apart.
#pragma once

#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "counterexamples/scenario/cluster_under_test.h"
#include "spec/partition/config.h"
#include "spec/partition/partition_model.h"
#include "spec/partition/state.h"

namespace isr::counterexamples {

class ModelCluster : public cut::ClusterUnderTest {
 public:
  // Starts from the model's first initial state.
  explicit ModelCluster(spec::Config config);

  // The model of a scenario document: its source.model_config, with the overrides of
  // model_overrides_from_environment() applied. Throws spec::ConfigError.
  static std::unique_ptr<ModelCluster> from_scenario(const nlohmann::json& scenario);

  cut::SendResult produce(int record, int broker) override;
  cut::SendResult produce_response_lost(int record, int broker) override;
  cut::SendResult expire_send(int record) override;
  std::optional<int> consume(int offset, int broker) override;
  void crash(int node, cut::CrashKind kind, std::optional<int> leader_after) override;
  void restart(int node) override;
  void cut(int node, cut::NetworkSide side) override;
  void heal(int node, cut::NetworkSide side) override;
  void elect_preferred(int leader) override;
  void pause(int node) override;
  void resume(int node) override;
  void remove_voter(int node) override;
  void add_voter(int node) override;
  cut::PartitionObservation describe_partition() override;
  bool wait_until(const cut::Condition& c, std::string* why) override;

  const spec::State& state() const { return state_; }
  const spec::PartitionModel& model() const { return model_; }

  // Bound on the states one wait may visit.
  static constexpr size_t kMaxWaitStates = 200000;

 private:
  // Takes the enabled action whose JSON has every field of `wanted`; throws
  // std::runtime_error listing the enabled actions when there is none.
  // Takes the first enabled action with the fields of `wanted` and none of `absent`.
  void take(const nlohmann::json& wanted, std::initializer_list<const char*> absent = {});
  cut::SendResult send_result(int record) const;

  spec::PartitionModel model_;
  spec::State state_;
};

// The observation of a partition-model state, as the scenario's observables define it.
cut::PartitionObservation observe(const spec::PartitionModel& model, const spec::State& s);

// ISRCHECK_MODEL_SET, `;`-separated `key=value` overrides of the scenario's model
// configuration (as `--set` takes them): runs a generated test against the model with a
// fix switched on, as an implementation with that fix would behave (a guard then passes
// where the reproduction fails). Empty when unset.
std::vector<std::string> model_overrides_from_environment();

}  // namespace isr::counterexamples
