// Partial-order reduction for the BFS engine (checker/bfs/bfs.h, BfsOptions::por): which of a
// state's enabled actions the engine expands, and which state components it may ignore.
// Optional model hooks, each detected at compile time; a model with none is always fully
// expanded. Hooks 1 and 2 are below; hook 3 (dead components) is next to its concept. docs/checker.md
// ("Partial-order reduction") gives the soundness argument in full.
//
// 1. Irrelevant actions (`HasIrrelevantActions`):
//      bool por_irrelevant(const State& s, const Action& a) const;
//    true when a's successor differs from s only in components that are dead in s: no
//    guard, no effect on other components and no property reads them again on any path
//    from s, and the predicate itself reads no dead component. Such an edge leads to a
//    state equivalent to s for every observer; the engine drops it. Counterexamples stay
//    shortest (a path in the full graph maps to one no longer in the reduced graph).
//
// 2. Stubborn sets (`HasStubbornSets`), over *groups* of actions that the model numbers:
//      int por_group_count() const;                   // <= kMaxPorGroups
//      int por_group(const Action& a) const;          // [0, por_group_count())
//      const PorSet& por_dependent(int g) const;      // groups that may not commute with g (g itself included)
//      const PorSet& por_visible() const;             // groups that may change a checked property
//      PorSet por_enablers(const State& s, int g) const;  // g has no enabled action in s: groups one of
//                                                     // which must act before one of g's can be enabled
//    Independence (h not in por_dependent(g)) must hold in every reachable state: an
//    action of g and one of h, both enabled, commute (same state either order) and
//    neither disables the other. The engine computes, from each seed group, the closure
//    T: an enabled group adds its dependent groups, a disabled one its enablers
//    (conditions D1/D2 of Valmari's strong stubborn sets = ample condition C1); T is
//    rejected if an enabled group of T is visible (C2) or if T holds every enabled
//    group (no reduction). The smallest T (fewest enabled actions, then lowest seed) is
//    the ample set. The cycle proviso (C3) is the engine's: bfs.h fully expands a state
//    when any ample successor is already in the visited set (every cycle of the reduced
//    graph has an edge back to a state of an earlier or the same level, so every cycle
//    contains a fully expanded state).
//
// Hot path: no allocation; PorSet is a fixed bit array.
#pragma once

#include <array>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace isr::checker {

inline constexpr int kMaxPorGroups = 384;

// A set of action groups.
class PorSet {
 public:
  static constexpr int kWords = kMaxPorGroups / 64;
  void set(int g) { w_[static_cast<size_t>(g) / 64] |= uint64_t{1} << (g % 64); }
  bool test(int g) const { return (w_[static_cast<size_t>(g) / 64] >> (g % 64)) & 1u; }
  PorSet& operator|=(const PorSet& o) {
    for (int i = 0; i < kWords; ++i) w_[i] |= o.w_[i];
    return *this;
  }
  friend PorSet operator&(PorSet a, const PorSet& b) {
    for (int i = 0; i < kWords; ++i) a.w_[i] &= b.w_[i];
    return a;
  }
  friend PorSet operator-(PorSet a, const PorSet& b) {  // set difference
    for (int i = 0; i < kWords; ++i) a.w_[i] &= ~b.w_[i];
    return a;
  }
  bool operator==(const PorSet&) const = default;
  bool any() const {
    for (uint64_t w : w_)
      if (w != 0) return true;
    return false;
  }
  // The lowest member, or -1.
  int first() const {
    for (int i = 0; i < kWords; ++i)
      if (w_[i] != 0) return i * 64 + std::countr_zero(w_[i]);
    return -1;
  }
  static PorSet all(int groups) {
    PorSet s;
    for (int g = 0; g < groups; ++g) s.set(g);
    return s;
  }

 private:
  std::array<uint64_t, kWords> w_{};
};

template <class M>
concept HasIrrelevantActions = requires(const M& m, const typename M::State& s, const typename M::Action& a) {
  { m.por_irrelevant(s, a) } -> std::convertible_to<bool>;
};

template <class M>
concept HasStubbornSets = requires(const M& m, const typename M::State& s, const typename M::Action& a, int g) {
  { m.por_group_count() } -> std::convertible_to<int>;
  { m.por_group(a) } -> std::convertible_to<int>;
  { m.por_dependent(g) } -> std::convertible_to<const PorSet&>;
  { m.por_visible() } -> std::convertible_to<const PorSet&>;
  { m.por_enablers(s, g) } -> std::convertible_to<PorSet>;
};

// 3. Dead components (`HasDeadComponents`):
//      void por_clear_dead(State& s) const;
//    overwrites with a fixed value every component of s that is dead in s (the same
//    meaning as in 1.), where deadness is decided from live components only. The engine
//    fingerprints the cleared copy (before the symmetry representative), so states
//    that differ only in dead components are one state; the frontier keeps the real
//    state first reached, so traces stay real executions. Clearing must commute with
//    the model's relabelling of ids (symmetry).
template <class M>
concept HasDeadComponents = requires(const M& m, typename M::State& s) { m.por_clear_dead(s); };

template <class M>
inline constexpr bool kHasPor = HasIrrelevantActions<M> || HasStubbornSets<M> || HasDeadComponents<M>;

// Per-thread scratch for ample-set selection (capacity kept from state to state).
struct PorScratch {
  std::vector<int> group_of;        // per enabled action; -1: irrelevant
  std::vector<uint32_t> per_group;  // relevant enabled actions per group
  std::vector<PorSet> enablers;     // memo per group, valid where `memo` is set
  PorSet memo;
};

// What select_ample decided for one state.
struct AmpleChoice {
  bool dropped_irrelevant = false;  // some action was irrelevant (never expanded)
  bool stubborn = false;            // `ample` is a strict stubborn subset: C3 applies
};

// Writes into `ample` (cleared first) the indices, in increasing order, of the enabled
// actions to expand in `s`; into `relevant` every index that is not irrelevant (what a
// full expansion expands, for the cycle proviso).
template <class M>
AmpleChoice select_ample(const M& model, const typename M::State& s, const typename M::Action* actions, size_t n,
                         PorScratch& scratch, std::vector<uint32_t>& ample, std::vector<uint32_t>& relevant) {
  AmpleChoice choice;
  ample.clear();
  relevant.clear();
  for (size_t i = 0; i < n; ++i) {
    bool keep = true;
    if constexpr (HasIrrelevantActions<M>) keep = !model.por_irrelevant(s, actions[i]);
    if (keep) {
      relevant.push_back(static_cast<uint32_t>(i));
    } else {
      choice.dropped_irrelevant = true;
    }
  }
  if constexpr (HasStubbornSets<M>) {
    const int groups = model.por_group_count();
    scratch.group_of.resize(n);
    scratch.per_group.assign(static_cast<size_t>(groups), 0);
    if (scratch.enablers.size() < static_cast<size_t>(groups)) scratch.enablers.resize(static_cast<size_t>(groups));
    scratch.memo = PorSet{};
    PorSet enabled;
    for (const uint32_t i : relevant) {
      const int g = model.por_group(actions[i]);
      scratch.group_of[i] = g;
      enabled.set(g);
      ++scratch.per_group[static_cast<size_t>(g)];
    }
    const PorSet& visible = model.por_visible();
    PorSet best;
    size_t best_count = relevant.size();
    // Every enabled invisible group seeds a closure; groups are tried in increasing
    // order and only a strictly smaller set replaces the best, so the choice is the
    // same whatever the thread or the order states are met in.
    for (PorSet seeds = enabled - visible; seeds.any();) {
      const int seed = seeds.first();
      PorSet one;
      one.set(seed);
      seeds = seeds - one;
      PorSet t = one;
      PorSet done;
      bool rejected = false;
      for (PorSet todo = t; todo.any(); todo = t - done) {
        const int g = todo.first();
        PorSet gset;
        gset.set(g);
        done |= gset;
        if (enabled.test(g)) {
          if (visible.test(g)) {
            rejected = true;  // C2: an enabled visible action would be in the ample set
            break;
          }
          t |= model.por_dependent(g);  // C1 (D1): everything that may not commute with it
        } else {
          if (!scratch.memo.test(g)) {
            scratch.enablers[static_cast<size_t>(g)] = model.por_enablers(s, g);
            scratch.memo.set(g);
          }
          t |= scratch.enablers[static_cast<size_t>(g)];  // C1 (D2): what could enable it first
        }
        if ((t & enabled) == enabled) {
          rejected = true;  // no reduction from this seed
          break;
        }
      }
      if (rejected) continue;
      const PorSet chosen = t & enabled;
      size_t count = 0;
      for (PorSet c = chosen; c.any();) {
        const int g = c.first();
        count += scratch.per_group[static_cast<size_t>(g)];
        PorSet x;
        x.set(g);
        c = c - x;
      }
      if (count < best_count) {
        best_count = count;
        best = chosen;
      }
    }
    if (best.any()) {
      choice.stubborn = true;
      for (const uint32_t i : relevant)
        if (best.test(scratch.group_of[i])) ample.push_back(i);
      return choice;
    }
  } else {
    (void)scratch;
  }
  ample = relevant;
  return choice;
}

}  // namespace isr::checker
