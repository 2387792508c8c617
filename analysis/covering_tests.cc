// Covering tests over the explicit state graph (see covering_tests.h).
#include "analysis/covering_tests.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <set>
#include <utility>

#include "checker/graph/state_graph.h"
#include "counterexamples/trace/trace_writer.h"
#include "spec/partition/partition_model.h"

namespace isr::analysis {
namespace {

using spec::State;

template <class T>
bool differ(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) != 0;
}

// The top-level components of the state JSON (docs/trace-format.md) a step changes,
// compared on the compact state: "nodes" holds the node and replica facts.
std::vector<std::string> changed_components(const State& before, const State& after) {
  std::vector<std::string> out;
  // Alphabetical, as the JSON keys are.
  if (differ(before.consumer, after.consumer)) out.emplace_back("consumer");
  if (differ(before.controller, after.controller)) out.emplace_back("controller");
  if (differ(before.faults, after.faults)) out.emplace_back("faults");
  // Only hw_regressed is part of the JSON; the rest is bookkeeping for it.
  if (before.history.hw_regressed != after.history.hw_regressed) out.emplace_back("history");
  if (differ(before.nodes, after.nodes) || differ(before.replicas, after.replicas)) out.emplace_back("nodes");
  if (differ(before.producer, after.producer)) out.emplace_back("producer");
  return out;
}

struct Candidate {
  uint32_t source = 0;        // the witness edge: action `action_index` in states[source]
  uint32_t action_index = 0;
  std::string target;
  std::set<std::string> covers;
  size_t length = 0;          // steps
};

}  // namespace

std::string_view cover_criterion_name(CoverCriterion c) {
  return c == CoverCriterion::Actions ? "actions" : "transitions";
}

std::string transition_class(CoverCriterion criterion, std::string_view kind,
                             const std::vector<std::string>& changed) {
  std::string out(kind);
  if (criterion == CoverCriterion::Actions) return out;
  out += ":{";
  for (size_t i = 0; i < changed.size(); ++i) out += (i ? "," : "") + changed[i];
  return out + "}";
}

CoveringResult covering_tests(const spec::Config& config, const CoveringOptions& options) {
  const spec::PartitionModel model(config);
  checker::StateGraphOptions graph_options;
  graph_options.symmetry = options.symmetry;
  graph_options.max_states = options.max_states;
  graph_options.interrupt = options.interrupt;
  graph_options.progress_states = options.progress_states;
  const checker::StateGraph<spec::PartitionModel> graph = checker::explore_state_graph(model, graph_options);

  CoveringResult result;
  result.states = graph.vertex_count();
  result.edges = graph.edge_count();
  result.complete = graph.complete;
  result.interrupted = graph.interrupted;

  std::vector<spec::Action> actions;
  auto enabled = [&](const State& s) {
    actions.clear();
    model.for_each_action(s, [&](const spec::Action& a) { actions.push_back(a); });
  };
  auto class_of = [&](const State& from, const spec::Action& a) {
    std::vector<std::string> changed;
    if (options.criterion == CoverCriterion::Transitions) changed = changed_components(from, model.next_state(from, a));
    return transition_class(options.criterion, model.action_kind(a), changed);
  };

  // Witness of each class: its first edge in edge order, whose source is shallowest
  // because vertices are numbered breadth first.
  std::map<std::string, std::pair<uint32_t, uint32_t>> witness;
  std::set<uint32_t> kinds_seen;
  uint32_t enumerated = checker::StateGraph<spec::PartitionModel>::kNoParent;
  for (const checker::StateGraphEdge& e : graph.edges) {
    kinds_seen.insert(e.kind);
    std::string cls;
    if (options.criterion == CoverCriterion::Actions) {
      cls = graph.kinds[e.kind];
    } else {
      if (enumerated != e.source) {
        enabled(graph.states[e.source]);
        enumerated = e.source;
      }
      cls = class_of(graph.states[e.source], actions[e.action_index]);
    }
    witness.emplace(cls, std::make_pair(e.source, e.action_index));
  }
  for (uint32_t k = 0; k < graph.kinds.size(); ++k)
    if (!kinds_seen.count(k)) result.unreachable_kinds.push_back(graph.kinds[k]);
  for (const auto& [cls, w] : witness) result.reachable_classes.push_back(cls);

  // Each candidate path: the shortest path to the witness's source, then the witness.
  std::vector<Candidate> candidates;
  for (const auto& [cls, w] : witness) {
    Candidate c;
    c.source = w.first;
    c.action_index = w.second;
    c.target = cls;
    const auto path = graph.path_to(model, w.first);
    for (size_t i = 0; i < path.actions.size(); ++i) c.covers.insert(class_of(path.states[i], path.actions[i]));
    enabled(path.states.back());
    c.covers.insert(class_of(path.states.back(), actions[w.second]));
    c.length = path.actions.size() + 1;
    candidates.push_back(std::move(c));
  }

  // Greedy set cover: most new classes first; ties to the shorter path, then the name.
  std::set<std::string> uncovered(result.reachable_classes.begin(), result.reachable_classes.end());
  std::vector<bool> taken(candidates.size(), false);
  while (!uncovered.empty() && (options.max_tests <= 0 || static_cast<int>(result.tests.size()) < options.max_tests)) {
    int best = -1;
    size_t best_gain = 0;
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (taken[i]) continue;
      size_t gain = 0;
      for (const std::string& cls : candidates[i].covers) gain += uncovered.count(cls);
      if (gain == 0) continue;
      if (best < 0 || gain > best_gain ||
          (gain == best_gain && candidates[i].length < candidates[best].length)) {
        best = static_cast<int>(i);
        best_gain = gain;
      }
    }
    if (best < 0) break;
    taken[best] = true;
    const Candidate& c = candidates[best];
    for (const std::string& cls : c.covers) uncovered.erase(cls);

    CoveringTest test;
    test.target = c.target;
    test.covers.assign(c.covers.begin(), c.covers.end());
    auto path = graph.path_to(model, c.source, "cover-" + c.target);
    enabled(path.states.back());
    path.actions.push_back(actions[c.action_index]);
    path.action_indices.push_back(c.action_index);
    path.states.push_back(model.next_state(path.states.back(), actions[c.action_index]));
    test.trace = counterexamples::trace_to_json(model, path, "cover");
    result.tests.push_back(std::move(test));
  }
  result.uncovered.assign(uncovered.begin(), uncovered.end());
  return result;
}

}  // namespace isr::analysis
