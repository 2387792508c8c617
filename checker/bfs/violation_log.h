// The bookkeeping of `check --continue` (BfsOptions::continue_after_violation): per
// property, how many violating states the search met and where the first one sits; with
// a PathLabeler (checker/path_labeler.h), the signature of every state's BFS-tree path,
// interned in a trie, and per (property, class) a tally of its violating states, a
// class being the signature with which a path entered the violation (bfs.h, account_level).
//
// Everything here is fed by the coordinator in frontier order, level by level, never by
// the workers: so the trie's ids, the first positions and every count are those of a
// sequential BFS, the same for any number of threads (docs/checker.md, "Determinism").
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace isr::checker {

// A state's place in the search: its BFS level and its position in that level.
struct StatePosition {
  int level = -1;
  uint64_t index = 0;
  bool found() const { return level >= 0; }
  friend bool operator<(const StatePosition& a, const StatePosition& b) {
    return a.level != b.level ? a.level < b.level : a.index < b.index;
  }
};

// Signatures as a trie: node 0 is the empty signature, node k = (parent node, token).
class SignatureTrie {
 public:
  SignatureTrie() { nodes_.push_back({0, 0}); }

  // The node of `parent`'s signature followed by `token` (token 0: no step, `parent`).
  uint32_t extend(uint32_t parent, uint32_t token) {
    if (token == 0) return parent;
    const uint64_t key = (uint64_t{parent} << 32) | token;
    const auto [it, added] = index_.try_emplace(key, static_cast<uint32_t>(nodes_.size()));
    if (added) {
      if (nodes_.size() == std::numeric_limits<uint32_t>::max()) throw std::length_error("SignatureTrie: full");
      nodes_.push_back({parent, token});
    }
    return it->second;
  }

  std::vector<uint32_t> signature(uint32_t node) const {
    std::vector<uint32_t> tokens;
    for (; node != 0; node = nodes_.at(node).first) tokens.push_back(nodes_[node].second);
    std::reverse(tokens.begin(), tokens.end());
    return tokens;
  }

  size_t size() const { return nodes_.size(); }
  // An estimate: the node array and the hash map's nodes and buckets.
  uint64_t bytes() const {
    return nodes_.capacity() * sizeof(nodes_[0]) + index_.size() * 32 + index_.bucket_count() * sizeof(void*);
  }

 private:
  std::vector<std::pair<uint32_t, uint32_t>> nodes_;
  std::unordered_map<uint64_t, uint32_t> index_;
};

class ViolationLog {
 public:
  // The violating states of one property with one signature.
  struct Tally {
    uint64_t states = 0;
    StatePosition first;
    uint32_t measure_first = 0;
    uint32_t measure_max = 0;
  };
  struct PerProperty {
    uint64_t states = 0;
    StatePosition first;
  };

  void reset(size_t properties) {
    if (properties > 64) throw std::length_error("bfs --continue: at most 64 properties");
    properties_.assign(properties, PerProperty{});
    tallies_.clear();
  }

  // One violating state (mask: bit p set when property p is violated), in frontier order;
  // class_of[p] is its class (a trie node) for property p, or class_of is null without
  // classes.
  void record(StatePosition at, uint64_t mask, const uint32_t* class_of, uint32_t measure) {
    for (size_t p = 0; p < properties_.size(); ++p) {
      if (!((mask >> p) & 1u)) continue;
      PerProperty& pp = properties_[p];
      if (pp.states++ == 0) pp.first = at;
      if (class_of == nullptr) continue;
      Tally& t = tallies_[(uint64_t{p} << 32) | class_of[p]];
      if (t.states++ == 0) {
        t.first = at;
        t.measure_first = measure;
      }
      t.measure_max = std::max(t.measure_max, measure);
    }
  }

  const std::vector<PerProperty>& properties() const { return properties_; }
  size_t violated_count() const {
    size_t n = 0;
    for (const auto& p : properties_) n += p.states > 0;
    return n;
  }
  uint64_t violating_states() const {
    uint64_t n = 0;
    for (const auto& p : properties_) n += p.states;
    return n;
  }
  // Keyed by (property << 32 | signature node), in key order.
  const std::map<uint64_t, Tally>& tallies() const { return tallies_; }
  SignatureTrie& trie() { return trie_; }
  const SignatureTrie& trie() const { return trie_; }
  uint64_t bytes() const { return trie_.bytes() + tallies_.size() * 80; }

 private:
  std::vector<PerProperty> properties_;
  std::map<uint64_t, Tally> tallies_;
  SignatureTrie trie_;
};

}  // namespace isr::checker
