// Replaying traces (counterexamples/trace/replay.h, `isrcheck replay`): traces built by driving
// the Kafka partition model by hand reproduce; tampered ones (an action changed, a state
// field changed, steps cut off) fail at the right step with what was expected and what
// was found; malformed files exit 2 naming the field. Replay is model-agnostic: it also
// replays a toy model, including states recorded as symmetry representatives. The CLI
// part runs the built binary (ISRCHECK_BINARY).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <stdexcept>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/counterexample.h"
#include "counterexamples/trace/replay.h"
#include "counterexamples/trace/trace_reader.h"
#include "counterexamples/trace/trace_writer.h"
#include "spec/partition/config.h"
#include "spec/partition/partition_model.h"
#include "tests/toy_models.h"
#include "tests/trace_test_support.h"

namespace isr::counterexamples {
namespace {

using nlohmann::json;
using spec::PartitionModel;

template <class M>
std::string state_key(const typename M::State& s) {
  return std::string(reinterpret_cast<const char*>(&s), sizeof s);
}

template <class M>
const checker::Property<typename M::State, M>& property_named(const M& model, std::string_view name) {
  for (const auto& p : model.properties()) {
    if (p.name == name) return p;
  }
  throw std::logic_error("no property " + std::string(name));
}

// The actions of a shortest path from `start` to a state violating `property`, by a
// plain breadth-first search (the engines in checker/ are tested elsewhere).
template <class M>
std::optional<std::vector<typename M::Action>> shortest_violation(const M& model,
                                                                   const typename M::State& start,
                                                                   std::string_view property,
                                                                   size_t max_states = 200000) {
  using State = typename M::State;
  using Action = typename M::Action;
  const auto& p = property_named(model, property);
  struct Visit {
    std::string parent;
    Action action;
  };
  std::unordered_map<std::string, Visit> visited;
  std::deque<State> queue = {start};
  visited[state_key<M>(start)] = Visit{"", Action{}};
  while (!queue.empty() && visited.size() < max_states) {
    const State s = queue.front();
    queue.pop_front();
    if (!p.holds(model, s)) {
      std::vector<Action> path;
      for (std::string key = state_key<M>(s); !visited[key].parent.empty(); key = visited[key].parent) {
        path.insert(path.begin(), visited[key].action);
      }
      return path;
    }
    model.for_each_action(s, [&](const Action& a) {
      const State next = model.next_state(s, a);
      if (visited.emplace(state_key<M>(next), Visit{state_key<M>(s), a}).second) queue.push_back(next);
    });
  }
  return std::nullopt;
}

// The trace document (docs/trace-format.md) of `actions` taken from `state`, built the
// way the engines build theirs (counterexamples/trace/trace_writer.h).
template <class M>
json trace_of(const M& model, const std::string& model_name, typename M::State state,
              const std::vector<typename M::Action>& actions, std::string_view property) {
  checker::Counterexample<M> path;
  path.property = std::string(property);
  path.states.push_back(state);
  for (const auto& action : actions) {
    path.actions.push_back(action);
    path.states.push_back(model.next_state(path.states.back(), action));
  }
  return trace_to_json(model, path, "bfs", model_name);
}

// acks=1 with one record: the shortest loss of an acked write is a few steps away.
PartitionModel acks1_model() {
  const json document = {{"acks", "1"}, {"bounds", {{"max_records", 1}}}};
  return PartitionModel(spec::load_config(&document, {}));
}

// The first enabled action whose JSON contains every field of `pattern`.
std::optional<spec::Action> enabled_matching(const PartitionModel& model, const spec::State& s,
                                             const json& pattern) {
  std::optional<spec::Action> found;
  model.for_each_action(s, [&](const spec::Action& a) {
    if (found) return;
    const json j = model.action_to_json(a);
    for (const auto& [key, value] : pattern.items()) {
      if (!j.contains(key) || j[key] != value) return;
    }
    found = a;
  });
  return found;
}

// A longer trace: produce record 1 and let N2 fetch by hand, then the shortest way to
// lose the record.
json hand_driven_trace(const PartitionModel& model) {
  spec::State s = model.initial_states().at(0);
  const spec::State initial = s;
  std::vector<spec::Action> actions;
  for (const json& pattern : {json{{"kind", "Produce"}, {"broker", 0}},
                              json{{"kind", "Fetch"}, {"follower", 2}, {"leader", 0}}}) {
    const std::optional<spec::Action> a = enabled_matching(model, s, pattern);
    if (!a) throw std::logic_error("not enabled: " + pattern.dump());
    actions.push_back(*a);
    s = model.next_state(s, *a);
  }
  const auto rest = shortest_violation(model, s, "no-acked-loss");
  if (!rest) throw std::logic_error("no violation reachable after the hand-driven prefix");
  actions.insert(actions.end(), rest->begin(), rest->end());
  return trace_of(model, "partition", initial, actions, "no-acked-loss");
}

json shortest_trace(const PartitionModel& model) {
  const spec::State initial = model.initial_states().at(0);
  const auto path = shortest_violation(model, initial, "no-acked-loss");
  if (!path) throw std::logic_error("acks=1 must lose an acked write");
  return trace_of(model, "partition", initial, *path, "no-acked-loss");
}

TEST(Replay, ReproducesAShortestViolation) {
  const PartitionModel model = acks1_model();
  const json trace = shortest_trace(model);
  const ReplayResult result = replay_trace(model, trace);
  EXPECT_TRUE(result.reproduced) << result.summary();
  const int steps = static_cast<int>(trace["steps"].size()) - 1;
  EXPECT_EQ(result.steps, steps);
  EXPECT_GE(steps, 2);  // at least an ack and a change of leader
  EXPECT_EQ(result.summary(), "reproduced: " + std::to_string(steps) +
                                  " steps, property no-acked-loss violated at step " +
                                  std::to_string(steps));
}

TEST(Replay, ReproducesAHandDrivenTrace) {
  const PartitionModel model = acks1_model();
  const json trace = hand_driven_trace(model);
  ASSERT_GE(trace["steps"].size(), 4u);
  EXPECT_EQ(trace["steps"][2]["action"]["kind"], "Fetch");
  const ReplayResult result = replay_trace(model, trace);
  EXPECT_TRUE(result.reproduced) << result.summary();
  EXPECT_EQ(result.diverged_at, -1);
}

TEST(Replay, AChangedActionFailsAtItsStepListingTheEnabledOnes) {
  const PartitionModel model = acks1_model();
  json trace = hand_driven_trace(model);
  // Step 2 fetches for N2; make it a fetch from a node that is not the leader.
  trace["steps"][2]["action"]["leader"] = 1;
  trace["steps"][2]["action_name"] = "Fetch(follower=2, leader=1)";
  const ReplayResult result = replay_trace(model, trace);
  EXPECT_FALSE(result.reproduced);
  EXPECT_EQ(result.diverged_at, 2);
  EXPECT_NE(result.explanation.find("Fetch(follower=2, leader=1)"), std::string::npos)
      << result.explanation;
  EXPECT_NE(result.explanation.find("not enabled"), std::string::npos) << result.explanation;
  // The enabled actions are listed, the real one among them.
  const std::string real = model.action_name(*enabled_matching(
      model, model.next_state(model.initial_states()[0],
                              *enabled_matching(model, model.initial_states()[0],
                                                {{"kind", "Produce"}, {"broker", 0}})),
      {{"kind", "Fetch"}, {"follower", 2}, {"leader", 0}}));
  EXPECT_NE(std::find(result.enabled_actions.begin(), result.enabled_actions.end(), real),
            result.enabled_actions.end());
  EXPECT_NE(result.summary().find("enabled actions:\n  "), std::string::npos);
}

TEST(Replay, AChangedStateFieldFailsAtItsStepWithTheDiff) {
  const PartitionModel model = acks1_model();
  json trace = hand_driven_trace(model);
  // Step 2 is N2's fetch: claim the leader's log grew by one more entry.
  const json real_leo = trace["steps"][2]["state"]["nodes"][0]["replica"]["leo"];
  trace["steps"][2]["state"]["nodes"][0]["replica"]["leo"] = real_leo.get<int>() + 1;
  const ReplayResult result = replay_trace(model, trace);
  EXPECT_FALSE(result.reproduced);
  EXPECT_EQ(result.diverged_at, 2);
  ASSERT_TRUE(result.state_diff.contains("nodes[0].replica.leo")) << result.state_diff.dump();
  EXPECT_EQ(result.state_diff.size(), 1u) << result.state_diff.dump();
  EXPECT_EQ(result.state_diff["nodes[0].replica.leo"]["expected"], real_leo.get<int>() + 1);
  EXPECT_EQ(result.state_diff["nodes[0].replica.leo"]["found"], real_leo);
  EXPECT_NE(result.summary().find("state fields that differ"), std::string::npos);
}

TEST(Replay, AChangedInitialStateFailsAtStepZero) {
  const PartitionModel model = acks1_model();
  json trace = shortest_trace(model);
  trace["steps"][0]["state"]["controller"]["leader"] = 2;
  const ReplayResult result = replay_trace(model, trace);
  EXPECT_FALSE(result.reproduced);
  EXPECT_EQ(result.diverged_at, 0);
  EXPECT_TRUE(result.state_diff.contains("controller.leader")) << result.state_diff.dump();
}

TEST(Replay, ATruncatedTraceFailsAtItsLastStepBecauseThePropertyHolds) {
  const PartitionModel model = acks1_model();
  json trace = hand_driven_trace(model);
  trace["steps"].erase(trace["steps"].size() - 1);
  const int last = static_cast<int>(trace["steps"].size()) - 1;
  const ReplayResult result = replay_trace(model, trace);
  EXPECT_FALSE(result.reproduced);
  EXPECT_EQ(result.diverged_at, last);
  EXPECT_NE(result.explanation.find("no-acked-loss holds in the final state"), std::string::npos)
      << result.explanation;
}

TEST(Replay, RefusesAPropertyTheConfigurationDoesNotCheck) {
  const PartitionModel model = acks1_model();
  json trace = shortest_trace(model);
  trace["property"] = "no-such-property";
  try {
    replay_trace(model, trace);
    FAIL() << "accepted an unknown property";
  } catch (const TraceFormatError& e) {
    EXPECT_EQ(e.field, "property");
    EXPECT_NE(e.message.find("no-acked-loss"), std::string::npos) << e.message;  // allowed values
  }
}

TEST(Replay, RefusesAMalformedTraceNamingTheField) {
  const PartitionModel model = acks1_model();
  json trace = shortest_trace(model);
  trace["steps"][1].erase("state");
  try {
    replay_trace(model, trace);
    FAIL() << "accepted a step without a state";
  } catch (const TraceFormatError& e) {
    EXPECT_EQ(e.field, "steps[1].state");
  }
}

// Replay knows no Kafka: the toy counter model from the engine tests replays too.
TEST(Replay, IsModelAgnostic) {
  const toy::CounterModel model(/*processes=*/3, /*max_count=*/2, /*sum_limit=*/3);
  using Action = toy::CounterModel::Action;
  const std::vector<Action> actions = {Action{0}, Action{2}, Action{2}};
  json trace = trace_of(model, "counter", model.initial_states()[0], actions, "sum-below");
  EXPECT_TRUE(replay_trace(model, trace).reproduced);

  json tampered = trace;
  tampered["steps"][2]["state"]["counters"] = {2, 0, 0};  // not a permutation of [1,0,1]
  const ReplayResult result = replay_trace(model, tampered);
  EXPECT_EQ(result.diverged_at, 2);
  EXPECT_TRUE(result.state_diff.contains("counters")) << result.state_diff.dump();
}

// Engines with symmetry reduction may record orbit representatives: accepted, and the
// replay continues from the representative.
TEST(Replay, AcceptsStatesRecordedAsSymmetryRepresentatives) {
  const toy::CounterModel model(/*processes=*/2, /*max_count=*/2, /*sum_limit=*/2);
  using Action = toy::CounterModel::Action;
  json trace = trace_of(model, "counter", model.initial_states()[0], {Action{1}, Action{1}},
                          "sum-below");
  // Exact states are [0,1] then [0,2]; as representatives (descending) [1,0] then [2,0],
  // reached from the representative [1,0] by incrementing process 0.
  trace["steps"][1]["state"]["counters"] = {1, 0};
  trace["steps"][2]["state"]["counters"] = {2, 0};
  trace["steps"][2]["action"] = model.action_to_json(Action{0});
  EXPECT_TRUE(replay_trace(model, trace).reproduced) << replay_trace(model, trace).summary();
  // A state outside the orbit is still a divergence.
  trace["steps"][1]["state"]["counters"] = {2, 0};
  EXPECT_EQ(replay_trace(model, trace).diverged_at, 1);
}

// `isrcheck replay` end to end (ISRCHECK_BINARY).
class ReplayCli : public ::testing::Test {
 protected:
  trace_test::Run replay(const json& trace) { return replay_text(trace.dump(1)); }
  trace_test::Run replay_text(const std::string& text) {
    const std::string path = trace_test::write_temp(text);
    trace_test::Run r = trace_test::run_isrcheck("replay '" + path + "'");
    std::remove(path.c_str());
    return r;
  }
  const PartitionModel model_ = acks1_model();
};

TEST_F(ReplayCli, ExitsZeroWhenTheTraceReproduces) {
  const json trace = hand_driven_trace(model_);
  const int steps = static_cast<int>(trace["steps"].size()) - 1;
  const trace_test::Run r = replay(trace);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "reproduced: " + std::to_string(steps) +
                       " steps, property no-acked-loss violated at step " + std::to_string(steps) +
                       "\n");
}

TEST_F(ReplayCli, ExitsOneAtTheFirstDivergingStep) {
  json trace = hand_driven_trace(model_);
  trace["steps"][2]["action"]["leader"] = 1;
  trace_test::Run r = replay(trace);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out.rfind("diverged at step 2: ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("enabled actions:"), std::string::npos) << r.out;

  trace = hand_driven_trace(model_);
  trace["steps"][3]["state"]["producer"]["retries"] = 1;
  r = replay(trace);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out.rfind("diverged at step 3: ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\"producer.retries\""), std::string::npos) << r.out;
}

TEST_F(ReplayCli, ExitsTwoOnUnreadableOrMalformedFiles) {
  const json good = hand_driven_trace(model_);

  trace_test::Run r = trace_test::run_isrcheck("replay /nonexistent/trace.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot open"), std::string::npos) << r.err;

  const std::string text = good.dump(1);
  r = replay_text(text.substr(0, text.size() / 2));  // a file cut short
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not valid JSON"), std::string::npos) << r.err;

  json trace = good;
  trace["steps"][1].erase("state");
  r = replay(trace);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("steps[1].state: missing"), std::string::npos) << r.err;

  trace = good;
  trace.erase("property");
  r = replay(trace);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("property: missing"), std::string::npos) << r.err;

  trace = good;
  trace["model"] = "raft";
  r = replay(trace);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("model: unsupported model \"raft\"; allowed: partition"), std::string::npos)
      << r.err;

  trace = good;
  trace["config"]["acks"] = "2";
  r = replay(trace);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("config.acks"), std::string::npos) << r.err;
}

// Issue 29 point 8: one trace reader for every command. render and export --format itf
// accepted an action kind no model has and a partition trace relabelled "kraft", which
// replay refused; now each reader refuses each such trace, with the same field named.
TEST_F(ReplayCli, EveryTraceReaderRefusesTracesOfAnotherModelOrConfiguration) {
  const json good = hand_driven_trace(model_);
  json unknown_kind = good;
  unknown_kind["steps"][1]["action"]["kind"] = "Teleport";
  json relabelled = good;
  relabelled["model"] = "kraft";
  json other_config = good;  // a valid configuration, but not the one the states are of
  other_config["config"]["min_insync_replicas"] = 1;
  other_config["config"]["brokers"] = 4;
  const std::vector<std::pair<json, std::string>> bad = {
      {unknown_kind, "steps[1].action.kind: unknown action kind \"Teleport\""},
      {relabelled, "model: the trace names model \"kraft\", but its configuration is one of model \"partition\""},
      {other_config, "steps[0].state: field \"nodes\" has 3 entries, the configuration gives 4"}};
  const std::string out = trace_test::temp_path(".out");
  const std::vector<std::string> readers = {
      "render", "render --format mermaid", "render --format dot", "replay",
      "export --format scenario", "export --format gtest", "export --format itf",
      "conform --driver /nonexistent/driver"};
  for (const auto& [trace, message] : bad) {
    const std::string path = trace_test::write_temp(trace.dump(1));
    for (const std::string& reader : readers) {
      const std::string verb = reader.substr(0, reader.find(' '));
      const trace_test::Run r = trace_test::run_isrcheck(
          reader + " '" + path + "'" + (verb == "export" || verb == "render" ? " --out '" + out + "'" : ""));
      EXPECT_EQ(r.exit_code, 2) << reader << ": " << r.out << r.err;
      EXPECT_NE(r.err.find(message), std::string::npos) << reader << ": " << r.err;
    }
    std::remove(path.c_str());
  }
  std::remove(out.c_str());
  // --model on render and replay: the same message from both.
  const std::string path = trace_test::write_temp(good.dump(1));
  for (const char* reader : {"render", "replay"}) {
    const trace_test::Run r = trace_test::run_isrcheck(std::string(reader) + " --model kraft '" + path + "'");
    EXPECT_EQ(r.exit_code, 2) << reader;
    EXPECT_NE(r.err.find("the trace is of model \"partition\", not \"kraft\""), std::string::npos) << r.err;
  }
  std::remove(path.c_str());
}

// The whole loop: `isrcheck check` writes a trace, `replay` reproduces it, `render` shows it.
TEST_F(ReplayCli, ReplaysAndRendersTheTraceThatCheckWrites) {
  const std::string path = trace_test::temp_path(".json");
  trace_test::Run r = trace_test::run_isrcheck(
      "check --set acks=1 --set bounds.max_records=1 --quiet --trace-out '" + path + "'");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;  // a violation
  const json trace = json::parse(trace_test::slurp(path));
  const std::string property = trace["property"];
  const std::string steps = std::to_string(trace["steps"].size() - 1);

  r = trace_test::run_isrcheck("replay '" + path + "'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "reproduced: " + steps + " steps, property " + property +
                       " violated at step " + steps + "\n");

  r = trace_test::run_isrcheck("render '" + path + "' --format mermaid");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("sequenceDiagram\n", 0), 0u);
  r = trace_test::run_isrcheck("render '" + path + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("VIOLATION: Property " + property + " is violated at step " + steps),
            std::string::npos)
      << r.out;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace isr::counterexamples
