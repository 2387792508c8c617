// The grouping hook of `check --continue --classes` (checker/bfs/bfs.h, BfsOptions::
// continue_after_violation): how an engine that knows no protocol tells distinct
// mechanisms of a violation apart.
//
// The engine labels every edge of its BFS tree with step(parent, action, child): 0 when
// the step does not belong to a mechanism signature, else a model-specific token. The
// signature of a state is the sequence of nonzero tokens on its BFS-tree path (a
// shortest path; the same one for every thread count). A state violating a property
// whose BFS-tree parent violates it too belongs to the parent's class (it was reached
// through that violation); otherwise its own signature is its class's. Classes are then
// merged by class_key(signature), which may identify signatures that differ only in ways the
// labeler calls irrelevant (node names, for instance), and measure(state) is a number
// reported per class (its maximum over the class and its value on the class's first
// state). What the tokens mean, and why two states with one key are one hazard, is the
// labeler's business: the Kafka one is analysis/mechanism_signature.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace isr::checker {

template <class M>
class PathLabeler {
 public:
  using State = typename M::State;
  using Action = typename M::Action;
  virtual ~PathLabeler() = default;

  // Called on the hot path (once per new state): must not allocate.
  virtual uint32_t step(const State& parent, const Action& action, const State& child) const = 0;
  // Called once per violating state: must not allocate.
  virtual uint32_t measure(const State& state) const = 0;
  // Called once per (property, distinct signature) after the search.
  virtual std::string class_key(const std::vector<uint32_t>& signature) const = 0;
};

}  // namespace isr::checker
