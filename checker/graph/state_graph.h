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
// `parent` holds a shortest path from an initial state to every vertex. With symmetry a
// vertex stands for a whole orbit: its key is the fingerprint of the canonical form, and
// `states[v]` is the real state first reached in the orbit, so that re-executing the
// parent pointers reproduces it exactly (a real execution with real node identities, as
// in bfs.h). An edge (u, w, i) then means: action i enabled in states[u] leads to a
// state of orbit w (not necessarily states[w] itself).
//
// Parallel and deterministic: the graph (vertex numbering, states, edges, BFS tree,
// `expanded`, the counts) is the same for every thread count, and the same as the
// sequential exploration that follows the model's action order from each vertex in
// turn. Each BFS level runs three phases:
//   1. expand (parallel, chunks of the level): every successor of every vertex of the
//      level, its key, and a look-up in the index, which holds every vertex discovered
//      so far and does not change during the phase; an edge whose target is not there
//      waits, with its key and action;
//   2. number (coordinator, sequential): the waiting edges in source order, each source's
//      in action order, the order of a sequential BFS; a key seen for the first time
//      becomes the next vertex. Only hash look-ups and appends: the model is not called;
//   3. materialize (parallel): each new vertex's state, from its parent and action.
// `max_states` and the interrupt stop at the same vertex as a sequential exploration
// would (the interrupt is checked per chunk, so where it stops may vary, but what it
// leaves is always consistent: the vertices [0, expanded) have all their out-edges).
//
// Partial-order reduction (`por`, checker/por.h): the two mechanisms that are a quotient
// of the graph, not a choice of paths. Dead components are cleared before the key is
// taken (states that differ only there are one vertex) and irrelevant actions get no
// edge. Both keep every question of the form "is a state with property P reachable
// (along edges of given kinds) from this vertex" for every P that reads no dead
// component: docs/claims.md ("Threads and partial-order reduction") gives the argument.
// Stubborn sets are never applied here (a model that declares them is expanded fully):
// their provisos keep invariants, not reachability from every vertex.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "checker/action_kind_index.h"
#include "checker/bfs/worker_pool.h"
#include "checker/counterexample.h"
#include "checker/model.h"
#include "checker/por.h"
#include "checker/store/fingerprint.h"
#include "checker/store/state_blocks.h"

namespace isr::checker {

struct StateGraphOptions {
  bool symmetry = false;    // one vertex per orbit (fingerprint of the canonical form)
  // Partial-order reduction (checker/por.h): clear dead components before the key and
  // drop irrelevant actions, when the model declares them. Stubborn sets are not used.
  bool por = false;
  int threads = 1;          // workers for the expand and materialize phases; same graph for any count
  uint64_t max_states = 0;  // 0: no limit; otherwise stop (incomplete) beyond this many vertices
  const std::atomic<bool>* interrupt = nullptr;  // set (e.g. by SIGINT) to stop early, incomplete
  // When set, the vertices found so far, stored after each level (for progress lines).
  std::atomic<uint64_t>* progress_states = nullptr;
};

// An edge's data, also the bundled edge property of the Boost view.
struct StateGraphEdge {
  uint32_t source = 0;
  uint32_t target = 0;
  uint32_t action_index = 0;  // position of the action in for_each_action(states[source])
  uint32_t kind = 0;          // position of its kind in model.action_kinds()
  friend bool operator==(const StateGraphEdge&, const StateGraphEdge&) = default;
};

// The Boost.Graph view: bidirectional so that in_edges (reverse reachability) is
// available; vertex descriptors are the vertex numbers of the StateGraph.
using StateGraphBoost = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS,
                                             boost::no_property, StateGraphEdge>;

// Fingerprint -> vertex, open addressing with linear probing: no allocation per vertex
// (a node-based map was a tenth of the build's profile, in malloc and free), and safe to
// read from many threads while nobody inserts. Fingerprint 0 never occurs
// (checker/store/fingerprint.h), so it marks an empty slot.
class VertexIndex {
 public:
  static constexpr uint32_t kAbsent = std::numeric_limits<uint32_t>::max();

  size_t size() const { return size_; }

  uint32_t find(Fingerprint fp) const {
    if (keys_.empty()) return kAbsent;
    for (size_t slot = home(fp);; slot = (slot + 1) & mask_) {
      if (keys_[slot] == fp) return values_[slot];
      if (keys_[slot] == 0) return kAbsent;
    }
  }

  // Adds fp -> v; fp must be absent.
  void insert(Fingerprint fp, uint32_t v) {
    if (2 * (size_ + 1) > keys_.size()) grow();
    place(fp, v);
    ++size_;
  }

 private:
  // The fingerprint's high bits: the low ones are what the visited set's shards use
  // elsewhere, and XXH3 mixes all of them.
  size_t home(Fingerprint fp) const { return static_cast<size_t>(fp >> 20 ^ fp) & mask_; }

  void place(Fingerprint fp, uint32_t v) {
    size_t slot = home(fp);
    while (keys_[slot] != 0) slot = (slot + 1) & mask_;
    keys_[slot] = fp;
    values_[slot] = v;
  }

  void grow() {
    std::vector<Fingerprint> keys = std::move(keys_);
    std::vector<uint32_t> values = std::move(values_);
    const size_t capacity = std::max<size_t>(1024, 2 * keys.size());
    keys_.assign(capacity, 0);
    values_.assign(capacity, kAbsent);
    mask_ = capacity - 1;
    for (size_t i = 0; i < keys.size(); ++i)
      if (keys[i] != 0) place(keys[i], values[i]);
  }

  std::vector<Fingerprint> keys_;
  std::vector<uint32_t> values_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

// The predecessors of every vertex, compressed (one array of sources, offsets per
// vertex): millions of edges, so no per-vertex vectors.
struct Predecessors {
  std::vector<uint64_t> begin;  // vertex v's predecessors are from[begin[v] .. begin[v+1])
  std::vector<uint32_t> from;   // one per edge kept, so a source appears once per edge
};

// The predecessor lists of the edges `keep(edge)` accepts, each list in edge order.
template <class Keep>
Predecessors predecessors(size_t vertices, const std::vector<StateGraphEdge>& edges, Keep keep) {
  Predecessors p;
  p.begin.assign(vertices + 1, 0);
  for (const StateGraphEdge& e : edges)
    if (keep(e)) ++p.begin[e.target + 1];
  for (size_t v = 0; v < vertices; ++v) p.begin[v + 1] += p.begin[v];
  p.from.resize(p.begin[vertices]);
  std::vector<uint64_t> at(p.begin.begin(), p.begin.end() - 1);
  for (const StateGraphEdge& e : edges)
    if (keep(e)) p.from[at[e.target]++] = e.source;
  return p;
}

// Marks, in place, every vertex with a path into a marked one (a reverse breadth-first
// search over `p`), going only through vertices `through(v)` accepts: a vertex that it
// rejects is neither marked nor searched from (unless it was marked to begin with).
template <class Through>
void mark_backwards(const Predecessors& p, std::vector<char>& marked, Through through) {
  std::vector<uint32_t> queue;
  for (size_t v = 0; v < marked.size(); ++v)
    if (marked[v]) queue.push_back(static_cast<uint32_t>(v));
  for (size_t head = 0; head < queue.size(); ++head) {
    const uint32_t v = queue[head];
    for (uint64_t i = p.begin[v]; i < p.begin[v + 1]; ++i) {
      const uint32_t u = p.from[i];
      if (marked[u] || !through(u)) continue;
      marked[u] = 1;
      queue.push_back(u);
    }
  }
}

inline void mark_backwards(const Predecessors& p, std::vector<char>& marked) {
  mark_backwards(p, marked, [](uint32_t) { return true; });
}

template <Model M>
struct StateGraph {
  using State = typename M::State;
  using Action = typename M::Action;
  static constexpr uint32_t kNoParent = std::numeric_limits<uint32_t>::max();

  StateBlocks<State> states;             // per vertex, in discovery (BFS) order
  VertexIndex index;                     // key (canonical with symmetry, cleared with por) -> vertex
  std::vector<StateGraphEdge> edges;     // grouped by source, sources in vertex order,
                                         // each source's edges in action order
  std::vector<uint32_t> parent;          // BFS tree parent, kNoParent for an initial vertex
  std::vector<uint32_t> parent_action;   // action index in for_each_action(states[parent]);
                                         // for an initial vertex: its position in initial_states()
  std::vector<uint32_t> depth;           // shortest distance from an initial state
  std::vector<std::string> kinds;        // model.action_kinds() (edge.kind indexes it)
  bool symmetry = false;
  // Partial-order reduction was in effect (asked for, and the model declares dead
  // components or irrelevant actions): a vertex stands for the states that differ from
  // states[v] only in dead components, and irrelevant actions have no edge.
  bool por = false;
  // Every reachable state is a vertex and every vertex has all its out-edges. When false,
  // the vertices [0, expanded) have all their out-edges and the others none.
  bool complete = true;
  bool interrupted = false;  // the interrupt flag stopped the exploration (complete is false)
  uint64_t expanded = 0;
  uint64_t states_generated = 0;  // initial states plus next_state calls for the edges
  int threads = 1;
  double build_seconds = 0;       // wall time of explore_state_graph
  // Sum over the parallel phases of the largest CPU time one worker spent in it, plus the
  // coordinator's CPU time: the wall time with one idle core per worker (WorkerPool).
  double critical_path_seconds = 0;
  double sequential_seconds = 0;  // the coordinator's CPU time in it (numbering; all of it with one thread)

  size_t vertex_count() const { return states.size(); }
  size_t edge_count() const { return edges.size(); }

  // Per vertex, whether a path along `p` (predecessors of some of the edges) leads from it
  // to an unexpanded vertex: in an incomplete graph such a vertex has successors the
  // exploration never saw, so what follows it is unknown.
  std::vector<char> reaching_unexpanded(const Predecessors& p) const {
    std::vector<char> unknown(vertex_count(), 0);
    for (size_t v = expanded; v < unknown.size(); ++v) unknown[v] = 1;
    mark_backwards(p, unknown);
    return unknown;
  }

  // The vertex of a state (of its orbit with symmetry), if explored.
  std::optional<uint32_t> find(const M& model, const State& s) const {
    State key = s;
    if constexpr (HasDeadComponents<M>) {
      if (por) model.por_clear_dead(key);
    }
    if (symmetry) model.canonicalize(key);
    const uint32_t v = index.find(fingerprint(key));
    if (v == VertexIndex::kAbsent) return std::nullopt;
    return v;
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

  // The predecessors along every edge (for reverse reachability without Boost).
  Predecessors predecessors() const {
    return checker::predecessors(states.size(), edges, [](const StateGraphEdge&) { return true; });
  }

  // The Boost.Graph adjacency_list of this graph (built on demand: it roughly doubles the
  // memory of the edges).
  StateGraphBoost to_boost() const {
    StateGraphBoost g(states.size());
    for (const StateGraphEdge& e : edges) boost::add_edge(e.source, e.target, e, g);
    return g;
  }
};

namespace state_graph_detail {

inline constexpr uint32_t kWaiting = std::numeric_limits<uint32_t>::max();

// An edge whose target was not in the index during the expand phase.
template <class Action>
struct Waiting {
  Fingerprint key;
  Action action;  // to materialize the target if it is new
};

// What the expand phase produced for one chunk of a level (reused from level to level,
// so its vectors keep their capacity).
template <class Action>
struct ChunkOut {
  std::vector<StateGraphEdge> edges;      // target kWaiting when not yet known
  std::vector<Waiting<Action>> waiting;   // one per waiting edge, in edge order
};

template <Model M>
struct alignas(64) Worker {
  explicit Worker(const M& model) : kinds(model) {}
  ActionKindIndex<M> kinds;  // its cache is per thread
  std::vector<typename M::Action> actions;
};

template <Model M>
class Builder {
 public:
  using State = typename M::State;
  using Action = typename M::Action;
  using Graph = StateGraph<M>;

  Builder(const M& model, const StateGraphOptions& options) : model_(model), options_(options) {
    if (options.threads < 1) throw std::invalid_argument("state graph: threads must be >= 1");
  }

  Graph run() {
    const auto start = std::chrono::steady_clock::now();
    const double coordinator_cpu = WorkerPool::thread_cpu_seconds();
    g_.symmetry = options_.symmetry;
    g_.por = options_.por && (HasDeadComponents<M> || HasIrrelevantActions<M>);
    g_.threads = options_.threads;
    g_.kinds = ActionKindIndex<M>(model_).names();
    std::unique_ptr<WorkerPool> pool;
    if (options_.threads > 1) pool = std::make_unique<WorkerPool>(options_.threads);
    pool_ = pool.get();
    for (int t = 0; t < options_.threads; ++t) workers_.push_back(std::make_unique<Worker<M>>(model_));

    explore_initial_states();
    for (size_t lo = 0, hi = g_.states.size(); lo < hi && g_.complete; lo = hi, hi = g_.states.size()) {
      if (interrupted()) {
        stop_interrupted(lo);
        break;
      }
      if (!expand(lo, hi)) {
        stop_interrupted(lo);
        break;
      }
      number(hi);
      materialize(hi);
      if (options_.progress_states != nullptr) {
        options_.progress_states->store(g_.states.size(), std::memory_order_relaxed);
      }
    }
    g_.sequential_seconds = WorkerPool::thread_cpu_seconds() - coordinator_cpu;
    g_.critical_path_seconds = (pool ? pool->critical_path_seconds() : 0) + g_.sequential_seconds;
    g_.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::move(g_);
  }

 private:
  bool interrupted() const {
    return options_.interrupt != nullptr && options_.interrupt->load(std::memory_order_relaxed);
  }

  void stop_interrupted(size_t level_start) {
    g_.complete = false;
    g_.interrupted = true;
    g_.expanded = level_start;
  }

  // The vertex key of a state, computed in place (the copy is dropped).
  Fingerprint key_in_place(State& s) const {
    if constexpr (HasDeadComponents<M>) {
      if (options_.por) model_.por_clear_dead(s);
    }
    if (options_.symmetry) model_.canonicalize(s);
    return fingerprint(s);
  }

  bool full() const { return options_.max_states != 0 && g_.states.size() + fresh_.size() >= options_.max_states; }

  // Appends the BFS-tree data of a new vertex (its state comes in materialize); returns
  // its number.
  uint32_t add_vertex(Fingerprint key, uint32_t parent, uint32_t action, uint32_t depth) {
    const size_t v = g_.parent.size();
    if (v >= Graph::kNoParent) throw std::length_error("state graph: 2^32 vertices");
    g_.index.insert(key, static_cast<uint32_t>(v));
    g_.parent.push_back(parent);
    g_.parent_action.push_back(action);
    g_.depth.push_back(depth);
    return static_cast<uint32_t>(v);
  }

  void explore_initial_states() {
    const std::vector<State> initial = model_.initial_states();
    g_.states_generated = initial.size();
    for (size_t i = 0; i < initial.size(); ++i) {
      State key = initial[i];
      const Fingerprint fp = key_in_place(key);
      if (g_.index.find(fp) != VertexIndex::kAbsent) continue;
      if (options_.max_states != 0 && g_.states.size() >= options_.max_states) {
        g_.complete = false;
        break;
      }
      add_vertex(fp, Graph::kNoParent, static_cast<uint32_t>(i), 0);
      g_.states.push_back(initial[i]);
    }
  }

  // Runs task(worker) on every worker: on the pool, or here with one thread.
  template <class Task>
  void on_workers(const Task& task) {
    if (pool_ == nullptr) {
      task(0);
      return;
    }
    pool_->run([&](int t) { task(t); }, {});
  }

  size_t chunk_size(size_t items) const {
    const size_t per_thread = items / (static_cast<size_t>(options_.threads) * 8) + 1;
    return std::clamp<size_t>(per_thread, 1, 256);
  }

  // Phase 1: the out-edges of vertices [lo, hi), by chunks. False when interrupted.
  bool expand(size_t lo, size_t hi) {
    chunk_ = chunk_size(hi - lo);
    const size_t chunks = (hi - lo + chunk_ - 1) / chunk_;
    while (out_.size() < chunks) out_.push_back(std::make_unique<ChunkOut<Action>>());
    chunks_ = chunks;
    std::atomic<size_t> next{0};
    std::atomic<bool> stopped{false};
    on_workers([&](int t) {
      Worker<M>& w = *workers_[static_cast<size_t>(t)];
      while (true) {
        if (interrupted()) {
          stopped.store(true, std::memory_order_relaxed);
          return;
        }
        const size_t c = next.fetch_add(1);
        if (c >= chunks) return;
        ChunkOut<Action>& out = *out_[c];
        out.edges.clear();
        out.waiting.clear();
        const size_t end = std::min(hi, lo + (c + 1) * chunk_);
        for (size_t u = lo + c * chunk_; u < end; ++u) expand_one(w, out, static_cast<uint32_t>(u));
      }
    });
    return !stopped.load();
  }

  void expand_one(Worker<M>& w, ChunkOut<Action>& out, uint32_t u) {
    const State& s = g_.states[u];
    w.actions.clear();
    model_.for_each_action(s, [&](const Action& a) { w.actions.push_back(a); });
    for (size_t i = 0; i < w.actions.size(); ++i) {
      const Action& a = w.actions[i];
      if constexpr (HasIrrelevantActions<M>) {
        if (options_.por && model_.por_irrelevant(s, a)) continue;
      }
      State next = model_.next_state(s, a);
      const Fingerprint key = key_in_place(next);
      const uint32_t target = g_.index.find(key);
      out.edges.push_back(StateGraphEdge{u, target == VertexIndex::kAbsent ? kWaiting : target,
                                         static_cast<uint32_t>(i), static_cast<uint32_t>(w.kinds.of(a))});
      if (target == VertexIndex::kAbsent) out.waiting.push_back(Waiting<Action>{key, a});
    }
  }

  // Phase 2: numbers the new vertices in sequential BFS order and appends the edges of
  // [lo, hi). With max_states, stops at the first source with a new target beyond the
  // limit: its edges are dropped, and it and every later vertex stay unexpanded.
  void number(size_t hi) {
    fresh_.clear();
    for (size_t c = 0; c < chunks_; ++c) {
      ChunkOut<Action>& out = *out_[c];
      size_t waiting = 0;
      for (size_t first = 0; first < out.edges.size();) {
        const uint32_t source = out.edges[first].source;
        size_t last = first;
        while (last < out.edges.size() && out.edges[last].source == source) ++last;
        for (size_t k = first; k < last; ++k) {
          ++g_.states_generated;
          StateGraphEdge& e = out.edges[k];
          if (e.target != kWaiting) continue;
          const Waiting<Action>& pending = out.waiting[waiting++];
          e.target = g_.index.find(pending.key);
          if (e.target != VertexIndex::kAbsent) continue;
          if (full()) {
            g_.complete = false;
            g_.expanded = source;
            return;
          }
          e.target = add_vertex(pending.key, source, e.action_index, g_.depth[source] + 1);
          fresh_.push_back(&pending.action);
        }
        g_.edges.insert(g_.edges.end(), out.edges.begin() + static_cast<std::ptrdiff_t>(first),
                        out.edges.begin() + static_cast<std::ptrdiff_t>(last));
        first = last;
      }
    }
    g_.expanded = hi;
  }

  // Phase 3: the states of the vertices numbered by the last number(), from `first` on.
  void materialize(size_t first) {
    if (fresh_.empty()) return;
    g_.states.grow_uninitialized(first + fresh_.size());
    std::atomic<size_t> next{0};
    const size_t n = fresh_.size();
    const size_t chunk = chunk_size(n);
    on_workers([&](int) {
      while (true) {
        const size_t begin = next.fetch_add(chunk);
        if (begin >= n) return;
        const size_t end = std::min(n, begin + chunk);
        for (size_t i = begin; i < end; ++i) {
          const size_t v = first + i;
          g_.states[v] = model_.next_state(g_.states[g_.parent[v]], *fresh_[i]);
        }
      }
    });
  }

  const M& model_;
  const StateGraphOptions& options_;
  Graph g_;
  WorkerPool* pool_ = nullptr;
  std::vector<std::unique_ptr<Worker<M>>> workers_;
  std::vector<std::unique_ptr<ChunkOut<Action>>> out_;  // per chunk of the level
  size_t chunks_ = 0;
  size_t chunk_ = 1;
  std::vector<const Action*> fresh_;  // per vertex numbered in this level: its action
};

}  // namespace state_graph_detail

// Explores `model` breadth first from its initial states into a StateGraph.
template <Model M>
StateGraph<M> explore_state_graph(const M& model, const StateGraphOptions& options = {}) {
  return state_graph_detail::Builder<M>(model, options).run();
}

}  // namespace isr::checker
