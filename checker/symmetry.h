// Symmetry reduction: the canonical form of a state under permutations of
// interchangeable ids (Stateright's `representative()` plays this role).
//
// A model whose state names processes by small integer ids, some of which play the
// same part, supplies three things:
//   - the classes of interchangeable ids (fixed by its configuration);
//   - relabel(p, from, to): `from` with every id reference rewritten by p (old id ->
//     new id); a relabelled state must be a real state of the same configuration,
//     relabelling must compose (relabel by p then q = relabel by q after p), and the
//     identity must give back every reachable state byte for byte (the engine skips
//     it; a model whose relabelling also normalises, say renumbers a table, must keep
//     its states normalised, or the reduction is no longer one state per orbit);
//   - signature(state, id): a hash of facts about the id that do not depend on labels
//     (its own fields, whether it leads, how many others it has heard from, ...), so
//     that signature(relabel(p, s), p[id]) == signature(s, id).
//
// The engine orders each class by signature and tries every ordering of the ids whose
// signatures tie, keeping the bytewise smallest relabelling. Because signatures do not
// depend on labels, every state of an orbit yields the same set of candidates: the
// reduction is exact (one representative per orbit) and canonicalize is idempotent.
// A richer signature only means fewer ties to try. When the ties allow more than
// kMaxTiedPermutations orderings, the tied ids keep their sorted order: the result is
// still a state of the orbit (sound), only a less complete reduction.
//
// Hot path: no allocation; the classes are read, never copied.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace isr::checker {

// The most orderings of tied ids tried per state (6! = 720).
inline constexpr long kMaxTiedPermutations = 720;

// old id -> new id
template <size_t kMaxIds>
using Relabelling = std::array<uint8_t, kMaxIds>;

// An id through p; `none` (the state's "no such id") stays itself.
template <size_t kMaxIds>
uint8_t map_id(const Relabelling<kMaxIds>& p, uint8_t id, uint8_t none) {
  return id == none ? none : p[id];
}

// A set of ids as a bit mask (bit i = id i), through p.
template <class Set, size_t kMaxIds>
Set map_set(const Relabelling<kMaxIds>& p, Set s) {
  Set out = 0;
  for (int i = 0; s != 0; ++i, s = static_cast<Set>(s >> 1))
    if (s & 1u) out = static_cast<Set>(out | (1u << p[i]));
  return out;
}

// Hashes the words of a node's signature. Signatures are only compared, so a weak but
// fast mix does: two ids whose different facts hash alike merely tie, and canonicalize
// tries both orders (exact either way). Each word is folded with its own key by one
// 64x64->128 multiply, and the products are independent, so the words hash in parallel
// (XXH3 over a struct built byte by byte stalled on store forwarding: a tenth of the
// partition model's profile).
class SignatureHash {
  __extension__ typedef unsigned __int128 Product;

 public:
  void add(uint64_t word) {
    static constexpr uint64_t kKeys[8] = {0xa0761d6478bd642full, 0xe7037ed1a0b428dbull, 0x8ebc6af09c88c6e3ull,
                                          0x589965cc75374cc3ull, 0x1d8e4e27c47d124full, 0x9e3779b97f4a7c15ull,
                                          0xbf58476d1ce4e5b9ull, 0x94d049bb133111ebull};
    const Product m = static_cast<Product>(word ^ kKeys[n_ & 7]) * (kKeys[(n_ + 3) & 7] + n_);
    h_ ^= static_cast<uint64_t>(m) ^ static_cast<uint64_t>(m >> 64);
    h_ = (h_ << 5) | (h_ >> 59);
    ++n_;
  }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 0;
  uint64_t n_ = 0;
};

// The 8 bytes at p, as a word (for signatures; p need not be aligned).
inline uint64_t load_word(const void* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

namespace detail {

// Insertion sort: classes hold at most kMaxIds items (and std::sort trips GCC's
// -Warray-bounds on small fixed arrays).
template <class T>
void small_sort(T* items, int n) {
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && items[j] < items[j - 1]; --j) std::swap(items[j], items[j - 1]);
}

// Storage for a State that is not initialised: the caller writes it whole first.
template <class State>
union Scratch {
  Scratch() {}
  State state;
};

}  // namespace detail

// Where canonical_form writes relabellings: two states, not initialised (the relabel
// writes every byte that is compared or read before anything reads it). The engine keeps
// one per successor on its stack, so the representative is hashed where it was built
// instead of being copied back over the successor.
template <class State>
struct CanonicalScratch {
  detail::Scratch<State> a;
  detail::Scratch<State> b;
};

// The representative of s's orbit: s itself, or one of the scratch's states. `classes`
// are disjoint groups of interchangeable ids, each in ascending order; ids in no class
// are fixed. `bytes`: candidates are compared over their first `bytes` bytes only (a
// model whose states are zero past a prefix, checker/hooks.h HasStatePrefix); relabel
// must write at least those.
//   signature: uint64_t(const State&, int id)
//   relabel:   void(const Relabelling<kMaxIds>&, const State& from, State& to)
template <size_t kMaxIds, class State, class Signature, class Relabel>
const State& canonical_form(const State& s, const std::vector<std::vector<uint8_t>>& classes, size_t bytes,
                            Signature&& signature, Relabel&& relabel, CanonicalScratch<State>& scratch) {
  if (classes.empty()) return s;
  Relabelling<kMaxIds> base;
  for (size_t n = 0; n < kMaxIds; ++n) base[n] = static_cast<uint8_t>(n);
  // Tie groups: runs of class members with equal signatures, as (class slots, members).
  struct Tie {
    const uint8_t* slots;
    std::array<uint8_t, kMaxIds> members;
    int size;
  };
  std::array<Tie, kMaxIds> ties;
  int tie_count = 0;
  long orderings = 1;
  for (const auto& cls : classes) {
    // Not std::pair, whose constructor would zero the array for every class of every state.
    struct Keyed {
      uint64_t first;
      uint8_t second;
      bool operator<(const Keyed& o) const { return first != o.first ? first < o.first : second < o.second; }
    };
    std::array<Keyed, kMaxIds> order;
    const int k = static_cast<int>(cls.size());
    for (int i = 0; i < k; ++i) order[i] = {signature(s, cls[i]), cls[i]};
    detail::small_sort(order.data(), k);
    for (int i = 0; i < k; ++i) base[order[i].second] = cls[i];
    for (int i = 0; i < k;) {
      int j = i;
      while (j < k && order[j].first == order[i].first) ++j;
      if (j - i > 1) {
        Tie& t = ties[tie_count++];
        t.slots = &cls[i];
        t.size = j - i;
        for (int m = 0; m < t.size; ++m) t.members[m] = order[i + m].second;
        for (int m = 2; m <= t.size && orderings <= kMaxTiedPermutations; ++m) orderings *= m;
      }
      i = j;
    }
  }
  // The identity leaves the state as it is (the models' duty, above): relabelling a state
  // of a kilobyte or more costs as much as generating it.
  bool identity = true;
  for (size_t n = 0; n < kMaxIds && identity; ++n) identity = base[n] == n;
  const bool no_choice = tie_count == 0 || orderings > kMaxTiedPermutations;
  if (identity && no_choice) return s;
  // Relabellings go to uninitialised scratch: a State's default member initialisers
  // would zero it first, which was a third of this function's own time on the partition
  // model. The best candidate so far is a pointer into s or the scratch, so improving on
  // it swaps pointers instead of copying states.
  if (no_choice) {
    relabel(base, s, scratch.a.state);
    return scratch.a.state;
  }
  // best is s or best_scratch; a candidate that beats it takes its place, and the
  // candidate's next home is the scratch state that best leaves (never s, which stays
  // the source of every relabelling).
  const State* best = &s;
  State* best_scratch = nullptr;
  if (!identity) {
    relabel(base, s, scratch.a.state);
    best = best_scratch = &scratch.a.state;
  }
  State* candidate = &scratch.b.state;
  // Every ordering of every tie group: an odometer over next_permutation, each group
  // starting from (and wrapping around to) its sorted order.
  for (;;) {
    int g = 0;
    for (; g < tie_count; ++g) {
      Tie& t = ties[g];
      if (std::next_permutation(t.members.begin(), t.members.begin() + t.size)) break;
    }
    if (g == tie_count) break;
    Relabelling<kMaxIds> p = base;
    for (int i = 0; i < tie_count; ++i)
      for (int m = 0; m < ties[i].size; ++m) p[ties[i].members[m]] = ties[i].slots[m];
    relabel(p, s, *candidate);
    if (std::memcmp(candidate, best, bytes) < 0) {
      State* const improved = candidate;
      candidate = best_scratch != nullptr ? best_scratch : &scratch.a.state;
      best = best_scratch = improved;
    }
  }
  return *best;
}

// Rewrites `s` into the representative of its orbit (canonical_form over the whole state).
template <size_t kMaxIds, class State, class Signature, class Relabel>
void canonicalize(State& s, const std::vector<std::vector<uint8_t>>& classes, Signature&& signature,
                  Relabel&& relabel) {
  CanonicalScratch<State> scratch;
  const State& c = canonical_form<kMaxIds>(static_cast<const State&>(s), classes, sizeof(State), signature, relabel,
                                           scratch);
  if (&c != &s) s = c;
}

// Optional model hook, used by the engines' hot path instead of canonicalize when present:
//   const State& canonical_form(const State& s, CanonicalScratch<State>& scratch) const;
// the representative of s's orbit without writing it over s (s itself, or a state in the
// scratch); the bytes it compares and writes are those the fingerprint hashes.
template <class M>
concept HasCanonicalForm =
    requires(const M& m, const typename M::State& s, CanonicalScratch<typename M::State>& scratch) {
      { m.canonical_form(s, scratch) } -> std::same_as<const typename M::State&>;
    };

}  // namespace isr::checker
