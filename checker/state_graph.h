// The explicit state graph of a small model: every reachable state as a vertex, every
// enabled action as an edge, for analyses that need the whole graph rather than one
// verdict (availability by reverse reachability, covering tests, exports to DOT or
// GraphML).
//
// Generic over checker::Model, like the other engines, and knows nothing about Kafka.
// Unlike bfs.h it keeps every state and every edge in memory (hundreds of bytes per
// state), so it is meant for models of up to a few million states; `max_states` stops
// the exploration early and marks the graph incomplete rather than exhausting memory.
//
// Vertices are numbered in breadth-first discovery order, so the BFS tree given by
// `parent` holds a shortest path from an initial state to every vertex, and the path is
// the same on every run (the exploration is sequential and follows the model's action
// order). With symmetry a vertex stands for a whole orbit: its key is the fingerprint of
// the canonical form, and `states[v]` is the real state first reached in the orbit, so
// that re-executing the parent pointers reproduces it exactly (a real execution with
// real node identities, as in bfs.h). An edge (u, w, i) then means: action i enabled in
// states[u] leads to a state of orbit w (not necessarily states[w] itself).
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "checker/action_kind_index.h"
#include "checker/counterexample.h"
#include "checker/fingerprint.h"
#include "checker/model.h"

namespace isr::checker {

struct StateGraphOptions {
  bool symmetry = false;    // one vertex per orbit (fingerprint of the canonical form)
  uint64_t max_states = 0;  // 0: no limit; otherwise stop (incomplete) beyond this many vertices
  const std::atomic<bool>* interrupt = nullptr;  // set (e.g. by SIGINT) to stop early, incomplete
};

// An edge's data, also the bundled edge property of the Boost view.
struct StateGraphEdge {
  uint32_t source = 0;
  uint32_t target = 0;
  uint32_t action_index = 0;  // position of the action in for_each_action(states[source])
  uint32_t kind = 0;          // position of its kind in model.action_kinds()
};

// The Boost.Graph view: bidirectional so that in_edges (reverse reachability) is
// available; vertex descriptors are the vertex numbers of the StateGraph.
using StateGraphBoost = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS,
                                             boost::no_property, StateGraphEdge>;

template <Model M>
struct StateGraph {
  using State = typename M::State;
  using Action = typename M::Action;
  static constexpr uint32_t kNoParent = std::numeric_limits<uint32_t>::max();

  std::vector<State> states;             // per vertex, in discovery (BFS) order
  std::unordered_map<Fingerprint, uint32_t> index;  // fingerprint (canonical with symmetry) -> vertex
  std::vector<StateGraphEdge> edges;     // grouped by source, sources in vertex order,
                                         // each source's edges in action order
  std::vector<uint32_t> parent;          // BFS tree parent, kNoParent for an initial vertex
  std::vector<uint32_t> parent_action;   // action index in for_each_action(states[parent]);
                                         // for an initial vertex: its position in initial_states()
  std::vector<uint32_t> depth;           // shortest distance from an initial state
  std::vector<std::string> kinds;        // model.action_kinds() (edge.kind indexes it)
  bool symmetry = false;
  // Every reachable state is a vertex and every vertex has all its out-edges. When false,
  // the vertices [0, expanded) have all their out-edges and the others none.
  bool complete = true;
  bool interrupted = false;  // the interrupt flag stopped the exploration (complete is false)
  uint64_t expanded = 0;
  uint64_t states_generated = 0;  // initial states plus next_state calls

  size_t vertex_count() const { return states.size(); }
  size_t edge_count() const { return edges.size(); }

  // The vertex of a state (of its orbit with symmetry), if explored.
  std::optional<uint32_t> find(const M& model, const State& s) const {
    State key = s;
    if (symmetry) model.canonicalize(key);
    const auto it = index.find(fingerprint(key));
    if (it == index.end()) return std::nullopt;
    return it->second;
  }

  // The BFS-tree path from an initial state to `v`: a shortest one.
  std::vector<uint32_t> path_vertices(uint32_t v) const {
    std::vector<uint32_t> path;
    for (uint32_t at = v; at != kNoParent; at = parent[at]) path.push_back(at);
    return {path.rbegin(), path.rend()};
  }

  // The shortest execution from an initial state to states[v], re-executed from the
  // recorded indices (so its states are real ones), as a Counterexample that
  // counterexamples::trace_to_json turns into a trace. `property` names what the path
  // shows (a violated property, "reach-<kind>" for a covering test...).
  Counterexample<M> path_to(const M& model, uint32_t v, std::string property = {}) const {
    if (v >= states.size()) throw std::out_of_range("StateGraph::path_to: no such vertex");
    const std::vector<uint32_t> vertices = path_vertices(v);
    std::vector<uint32_t> action_indices;
    for (size_t i = 1; i < vertices.size(); ++i) action_indices.push_back(parent_action[vertices[i]]);
    Counterexample<M> path = execute_path(model, parent_action[vertices.front()], action_indices);
    if (!same_bytes(path.states.back(), states[v])) {
      throw std::logic_error("StateGraph::path_to: re-executing the path does not reach the vertex's state "
                             "(the model is not deterministic)");
    }
    path.property = std::move(property);
    return path;
  }

  // A shortest execution that ends with edge `e`: the path to its source, then its
  // action. For covering tests: every transition, reached as early as possible.
  Counterexample<M> path_through(const M& model, const StateGraphEdge& e, std::string property = {}) const {
    Counterexample<M> path = path_to(model, e.source, std::move(property));
    const auto action = action_at(model, path.states.back(), e.action_index);
    if (!action) throw std::logic_error("StateGraph::path_through: the edge's action is not enabled at its source");
    path.actions.push_back(*action);
    path.action_indices.push_back(e.action_index);
    path.states.push_back(model.next_state(path.states.back(), *action));
    return path;
  }

  // Per action kind (indexing `kinds`), the position in `edges` of its first edge, or
  // kNoParent when no explored state enables it. Edges are grouped by source in BFS
  // order, so the first edge of a kind leaves a state nearest to an initial state:
  // path_through it is a shortest execution taking an action of that kind.
  std::vector<uint32_t> first_edge_per_kind() const {
    std::vector<uint32_t> first(kinds.size(), kNoParent);
    for (size_t i = 0; i < edges.size(); ++i) {
      const uint32_t kind = edges[i].kind;
      if (kind < first.size() && first[kind] == kNoParent) first[kind] = static_cast<uint32_t>(i);
    }
    return first;
  }

  // The Boost.Graph adjacency_list of this graph (built on demand: it roughly doubles the
  // memory of the edges).
  StateGraphBoost to_boost() const {
    StateGraphBoost g(states.size());
    for (const StateGraphEdge& e : edges) boost::add_edge(e.source, e.target, e, g);
    return g;
  }
};

// Explores `model` breadth first from its initial states into a StateGraph.
template <Model M>
StateGraph<M> explore_state_graph(const M& model, const StateGraphOptions& options = {}) {
  using State = typename M::State;
  using Action = typename M::Action;
  StateGraph<M> g;
  g.symmetry = options.symmetry;
  ActionKindIndex<M> kinds(model);
  g.kinds = kinds.names();

  auto key_of = [&](const State& s) {
    if (!options.symmetry) return fingerprint(s);
    State canonical = s;
    model.canonicalize(canonical);
    return fingerprint(canonical);
  };
  auto full = [&] { return options.max_states != 0 && g.states.size() >= options.max_states; };
  // Adds a vertex for a new state; returns its number, or kNoParent when the limit stops it.
  auto discover = [&](const State& s, Fingerprint fp, uint32_t parent, uint32_t action, uint32_t depth) {
    if (full()) {
      g.complete = false;
      return StateGraph<M>::kNoParent;
    }
    if (g.states.size() >= StateGraph<M>::kNoParent) throw std::length_error("state graph: 2^32 vertices");
    const auto v = static_cast<uint32_t>(g.states.size());
    g.index.emplace(fp, v);
    g.states.push_back(s);
    g.parent.push_back(parent);
    g.parent_action.push_back(action);
    g.depth.push_back(depth);
    return v;
  };

  const std::vector<State> initial = model.initial_states();
  g.states_generated = initial.size();
  for (size_t i = 0; i < initial.size(); ++i) {
    const Fingerprint fp = key_of(initial[i]);
    if (g.index.count(fp)) continue;
    discover(initial[i], fp, StateGraph<M>::kNoParent, static_cast<uint32_t>(i), 0);
  }

  // The vertex list is the BFS queue: vertices are appended in discovery order.
  std::vector<Action> actions;
  for (size_t u = 0; u < g.states.size(); ++u) {
    if (!g.complete) break;  // the limit stopped discovery: later vertices stay unexpanded
    if (options.interrupt != nullptr && options.interrupt->load(std::memory_order_relaxed)) {
      g.complete = false;
      g.interrupted = true;
      break;
    }
    actions.clear();
    model.for_each_action(g.states[u], [&](const Action& a) { actions.push_back(a); });
    const State from = g.states[u];  // g.states may grow (and move) below
    const auto source = static_cast<uint32_t>(u);
    std::vector<StateGraphEdge> out;
    out.reserve(actions.size());
    for (size_t i = 0; i < actions.size(); ++i) {
      const State next = model.next_state(from, actions[i]);
      ++g.states_generated;
      const Fingerprint fp = key_of(next);
      uint32_t target;
      if (const auto it = g.index.find(fp); it != g.index.end()) {
        target = it->second;
      } else {
        target = discover(next, fp, source, static_cast<uint32_t>(i), g.depth[u] + 1);
        if (target == StateGraph<M>::kNoParent) break;
      }
      out.push_back(StateGraphEdge{source, target, static_cast<uint32_t>(i),
                                   static_cast<uint32_t>(kinds.of(actions[i]))});
    }
    // A source's edges are kept only when all of them are known, so that "expanded"
    // means "every out-edge present".
    if (!g.complete) break;
    g.edges.insert(g.edges.end(), out.begin(), out.end());
    g.expanded = u + 1;
  }
  return g;
}

}  // namespace isr::checker
