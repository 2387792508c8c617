// Tests of the exhaustive BFS engine (checker/bfs/bfs.h) and its data structures on the toy
// models of tests/toy_models.h, against closed-form counts and a naive reference BFS.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <deque>
#include <map>
#include <random>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include <gtest/gtest.h>

#include "checker/bfs/bfs.h"
#include "checker/store/large_array.h"
#include "checker/store/parent_log.h"
#include "checker/store/state_store.h"
#include "checker/store/visited_set.h"
#include "counterexamples/trace/trace_writer.h"
#include "tests/same_bfs_result.h"
#include "tests/toy_models.h"

namespace isr::checker {
namespace {

using toy::CounterModel;
using toy::GridModel;
using toy::MutexModel;

BfsOptions with(int threads, bool symmetry = false) {
  BfsOptions o;
  o.threads = threads;
  o.symmetry = symmetry;
  return o;
}

BfsOptions limited(int threads, uint64_t max_states) {
  BfsOptions o = with(threads);
  o.max_states = max_states;
  return o;
}

uint64_t binomial(int n, int k) {
  uint64_t r = 1;
  for (int i = 1; i <= k; ++i) r = r * static_cast<uint64_t>(n - k + i) / static_cast<uint64_t>(i);
  return r;
}

uint64_t power(uint64_t b, int e) {
  uint64_t r = 1;
  while (e-- > 0) r *= b;
  return r;
}

// Compositions of d into n parts each in [0, k].
uint64_t compositions(int d, int n, int k) {
  if (n == 0) return d == 0 ? 1 : 0;
  uint64_t total = 0;
  for (int first = 0; first <= std::min(d, k); ++first) total += compositions(d - first, n - 1, k);
  return total;
}

template <class State>
std::string bytes_of(const State& s) {
  return std::string(reinterpret_cast<const char*>(&s), sizeof(State));
}

// The obvious sequential BFS, as an oracle: a FIFO queue, a std::set of (canonical)
// states, properties checked on discovery, stopping at the first violating level.
template <class M>
struct Reference {
  uint64_t distinct = 0;
  int depth = 0;
  std::vector<uint64_t> level_sizes;
  bool violated = false;
  std::string property;
  typename M::State violating{};
  size_t counterexample_length = 0;
};

template <class M>
Reference<M> reference_bfs(const M& model, bool symmetry) {
  using State = typename M::State;
  Reference<M> ref;
  std::set<std::string> seen;
  auto key = [&](State s) {
    if (symmetry) model.canonicalize(s);
    return bytes_of(s);
  };
  std::vector<State> level;
  auto check = [&](const std::vector<State>& states, int depth) {
    for (const State& s : states) {
      for (const auto& p : model.properties()) {
        if (!p.holds(model, s)) {
          ref.violated = true;
          ref.property = std::string(p.name);
          ref.violating = s;
          ref.counterexample_length = static_cast<size_t>(depth);
          return true;
        }
      }
    }
    return false;
  };
  for (const State& s : model.initial_states()) {
    if (seen.insert(key(s)).second) level.push_back(s);
  }
  ref.level_sizes.push_back(level.size());
  ref.distinct = level.size();
  if (check(level, 0)) return ref;
  for (int depth = 1;; ++depth) {
    std::vector<State> next;
    for (const State& s : level) {
      model.for_each_action(s, [&](const typename M::Action& a) {
        const State n = model.next_state(s, a);
        if (seen.insert(key(n)).second) next.push_back(n);
      });
    }
    if (next.empty()) return ref;
    ref.distinct += next.size();
    ref.level_sizes.push_back(next.size());
    ref.depth = depth;
    if (check(next, depth)) return ref;
    level = std::move(next);
  }
}

template <class M>
void expect_matches_reference(const M& model, bool symmetry, int threads) {
  SCOPED_TRACE("threads=" + std::to_string(threads) + " symmetry=" + std::to_string(symmetry));
  const Reference<M> ref = reference_bfs(model, symmetry);
  BfsOptions options;
  options.threads = threads;
  options.symmetry = symmetry;
  const BfsResult<M> r = bfs(model, options);
  EXPECT_EQ(r.distinct_states, ref.distinct);
  EXPECT_EQ(r.depth, ref.depth);
  EXPECT_EQ(r.level_sizes, ref.level_sizes);
  EXPECT_EQ(r.verdict, ref.violated ? Verdict::Violated : Verdict::Holds);
  if (ref.violated) {
    EXPECT_EQ(r.property, ref.property);
    ASSERT_EQ(r.counterexample.actions.size(), ref.counterexample_length);
    EXPECT_TRUE(same_bytes(r.counterexample.states.back(), ref.violating));
  }
}

// Every step of the counterexample is a real transition of the model, and re-executing
// the recorded indices reproduces exactly the recorded states.
template <class M>
void expect_valid_counterexample(const M& model, const BfsResult<M>& r) {
  ASSERT_EQ(r.verdict, Verdict::Violated);
  const Counterexample<M>& c = r.counterexample;
  ASSERT_EQ(c.states.size(), c.actions.size() + 1);
  ASSERT_EQ(c.action_indices.size(), c.actions.size());
  EXPECT_EQ(c.property, r.property);
  const auto initial = model.initial_states();
  ASSERT_LT(c.initial_index, initial.size());
  EXPECT_TRUE(same_bytes(c.states[0], initial[c.initial_index]));
  for (size_t i = 0; i < c.actions.size(); ++i) {
    const auto a = action_at(model, c.states[i], c.action_indices[i]);
    ASSERT_TRUE(a.has_value());
    EXPECT_EQ(std::memcmp(&*a, &c.actions[i], sizeof(*a)), 0);
    EXPECT_TRUE(same_bytes(model.next_state(c.states[i], c.actions[i]), c.states[i + 1]));
  }
  const Counterexample<M> again = execute_path(model, c.initial_index, c.action_indices);
  ASSERT_EQ(again.states.size(), c.states.size());
  for (size_t i = 0; i < c.states.size(); ++i) EXPECT_TRUE(same_bytes(again.states[i], c.states[i]));
  bool violates = false;
  for (const auto& p : model.properties()) {
    if (p.name == r.property) violates = !p.holds(model, c.states.back());
  }
  EXPECT_TRUE(violates);
}

// --- visited set and parent log ----------------------------------------------------

TEST(VisitedSet, AgreesWithUnorderedSet) {
  VisitedSet set;
  std::unordered_set<uint64_t> oracle;
  std::mt19937_64 rng(42);
  for (int i = 0; i < 400000; ++i) {
    uint64_t fp = rng();
    if (i % 7 == 0 && !oracle.empty()) fp = *oracle.begin();  // repeats
    if (i % 1000 == 1) fp = (fp & 0xFF00000000000000ull) | (i & 3);  // tiny values per shard
    if (i % 1000 == 2) fp |= 0x00FFFFFFFFFFFFF0ull;                   // huge values per shard
    if (fp == 0) fp = 1;
    EXPECT_EQ(set.insert(fp), oracle.insert(fp).second);
  }
  EXPECT_EQ(set.size(), oracle.size());
  for (uint64_t fp : oracle) ASSERT_TRUE(set.contains(fp));
  std::mt19937_64 other(7);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t fp = other() | 1;
    EXPECT_EQ(set.contains(fp), oracle.count(fp) == 1);
  }
}

// Inserts `batch` the way the engine does: split by shard, sorted, deduplicated.
void insert_as_batch(VisitedSet& set, const std::vector<uint64_t>& batch) {
  std::vector<std::vector<uint64_t>> per_shard(VisitedSet::kShards);
  for (uint64_t fp : batch) {
    if (!set.contains(fp)) per_shard[VisitedSet::shard_of(fp)].push_back(fp);
  }
  std::vector<size_t> incoming(VisitedSet::kShards);
  for (size_t s = 0; s < VisitedSet::kShards; ++s) {
    auto& list = per_shard[s];
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    incoming[s] = list.size();
  }
  set.begin_batch(incoming);
  for (size_t s = 0; s < VisitedSet::kShards; ++s) set.insert_batch(s, per_shard[s].data(), per_shard[s].size());
  set.end_batch(per_shard);
}

TEST(VisitedSet, SortedBatchesAgreeWithOneByOneInsertion) {
  VisitedSet batched;
  VisitedSet single;
  std::mt19937_64 rng(9);
  std::vector<uint64_t> all;
  // Batches from tiny to twice the current size: growing and in-place paths.
  for (size_t size : {1, 3, 50, 10, 4000, 100, 20000, 7, 60000, 30}) {
    std::vector<uint64_t> batch;
    for (size_t i = 0; i < size; ++i) {
      batch.push_back(i % 5 == 0 && !all.empty() ? all[rng() % all.size()] : (rng() | 1));
    }
    for (uint64_t fp : batch) single.insert(fp);
    insert_as_batch(batched, batch);
    EXPECT_EQ(batched.size(), single.size());
    all.insert(all.end(), batch.begin(), batch.end());
  }
  for (uint64_t fp : all) ASSERT_TRUE(batched.contains(fp));
  for (int i = 0; i < 10000; ++i) {
    const uint64_t fp = rng() | 1;
    EXPECT_EQ(batched.contains(fp), single.contains(fp));
  }
}

TEST(VisitedSet, SurvivesRunsPastTheEndOfAShard) {
  // Fingerprints at the very top of shard 0 all want the last home slot: their run
  // overflows the shard's tail, which must be lengthened without losing anything.
  std::vector<uint64_t> crowded;
  for (uint64_t i = 0; i < 300; ++i) crowded.push_back(0x00FFFFFFFFFFFFFFull - i * 7);
  std::mt19937_64 rng(11);
  std::vector<uint64_t> others;
  for (int i = 0; i < 2000; ++i) others.push_back(rng() | 1);

  VisitedSet one_by_one;
  for (uint64_t fp : others) one_by_one.insert(fp);
  for (uint64_t fp : crowded) EXPECT_TRUE(one_by_one.insert(fp));
  VisitedSet growing;  // the batch also grows the set
  insert_as_batch(growing, crowded);
  VisitedSet in_place;  // the set is already large enough: in-place path
  insert_as_batch(in_place, others);
  insert_as_batch(in_place, others);
  std::vector<uint64_t> few(crowded.begin(), crowded.begin() + 40);
  insert_as_batch(in_place, few);
  for (const VisitedSet* set : {&one_by_one, &growing}) {
    for (uint64_t fp : crowded) EXPECT_TRUE(set->contains(fp));
  }
  for (uint64_t fp : few) EXPECT_TRUE(in_place.contains(fp));
  for (uint64_t fp : others) EXPECT_TRUE(in_place.contains(fp) && one_by_one.contains(fp));
  EXPECT_EQ(one_by_one.size(), crowded.size() + others.size());
  EXPECT_EQ(growing.size(), crowded.size());
  EXPECT_EQ(in_place.size(), few.size() + others.size());
  EXPECT_FALSE(in_place.contains(crowded.back()));
}

// 128-bit fingerprints: values that share their high word (shard and home slot) but not
// their low word are different fingerprints.
TEST(VisitedSet, Wide128BitFingerprintsAgreeWithStdSet) {
  std::mt19937_64 rng(11);
  VisitedSet128 set;
  std::set<Fingerprint128> reference;
  std::vector<Fingerprint128> batch;
  for (int round = 0; round < 40; ++round) {
    std::vector<std::vector<Fingerprint128>> batches(VisitedSet128::kShards);
    for (int i = 0; i < 3000; ++i) {
      const uint64_t hi = rng() % 4 == 0 ? (rng() % 64) << 56 : rng();  // many share a high word
      const Fingerprint128 fp{hi, rng() % 3 == 0 ? rng() % 4 + 1 : rng()};
      if (reference.count(fp) != 0) continue;
      auto& b = batches[VisitedSet128::shard_of(fp)];
      if (std::find(b.begin(), b.end(), fp) == b.end()) b.push_back(fp);
    }
    std::vector<size_t> incoming(VisitedSet128::kShards);
    for (size_t sh = 0; sh < VisitedSet128::kShards; ++sh) {
      std::sort(batches[sh].begin(), batches[sh].end());
      incoming[sh] = batches[sh].size();
      for (const auto& fp : batches[sh]) reference.insert(fp);
    }
    set.begin_batch(incoming);
    for (size_t sh = 0; sh < VisitedSet128::kShards; ++sh) set.insert_batch(sh, batches[sh].data(), batches[sh].size());
    set.end_batch(batches);
    ASSERT_EQ(set.size(), reference.size());
  }
  for (const auto& fp : reference) ASSERT_TRUE(set.contains(fp));
  for (int i = 0; i < 20000; ++i) {
    const auto it = reference.begin();
    const Fingerprint128 probe{i % 2 == 0 ? it->hi : rng(), rng()};
    EXPECT_EQ(set.contains(probe), reference.count(probe) != 0);
  }
  EXPECT_FALSE(set.insert(*reference.begin()));
  EXPECT_TRUE(set.insert(Fingerprint128{reference.begin()->hi, reference.begin()->lo + 1}) ||
              reference.count(Fingerprint128{reference.begin()->hi, reference.begin()->lo + 1}) != 0);
}

// Past LargeArray::kHugeThreshold the set grows inside its own (reserved) mapping
// instead of into a new array (grow_in_place). Random 128-bit fingerprints in batches
// of growing size, and one by one, against a sorted oracle, at every growth.
TEST(VisitedSet, GrowsInPlaceAndAgreesWithAnOracle) {
  std::mt19937_64 rng(21);
  VisitedSet128 batched;
  VisitedSet128 single;
  std::vector<Fingerprint128> oracle;  // sorted
  size_t checked_growths = 0;
  size_t last_capacity = batched.capacity();
  for (size_t size = 1000; oracle.size() < 1500000; size = size * 3 / 2) {
    std::vector<std::vector<Fingerprint128>> batches(VisitedSet128::kShards);
    for (size_t i = 0; i < size; ++i) {
      Fingerprint128 fp{rng(), rng()};
      if (i % 9 == 0 && !oracle.empty()) fp = oracle[rng() % oracle.size()];   // already present
      if (i % 13 == 0 && !oracle.empty()) fp.hi = oracle[rng() % oracle.size()].hi;  // same high word
      if (fp == Fingerprint128{}) fp.lo = 1;
      if (std::binary_search(oracle.begin(), oracle.end(), fp)) {
        EXPECT_FALSE(single.insert(fp));
        continue;
      }
      batches[VisitedSet128::shard_of(fp)].push_back(fp);
    }
    std::vector<size_t> incoming(VisitedSet128::kShards);
    std::vector<Fingerprint128> added;
    for (size_t sh = 0; sh < VisitedSet128::kShards; ++sh) {
      auto& b = batches[sh];
      std::sort(b.begin(), b.end());
      b.erase(std::unique(b.begin(), b.end()), b.end());
      incoming[sh] = b.size();
      added.insert(added.end(), b.begin(), b.end());
    }
    batched.begin_batch(incoming);
    for (size_t sh = 0; sh < VisitedSet128::kShards; ++sh) batched.insert_batch(sh, batches[sh].data(), batches[sh].size());
    batched.end_batch(batches);
    for (const auto& fp : added) EXPECT_TRUE(single.insert(fp));
    std::sort(added.begin(), added.end());
    std::vector<Fingerprint128> merged;
    std::merge(oracle.begin(), oracle.end(), added.begin(), added.end(), std::back_inserter(merged));
    oracle.swap(merged);
    ASSERT_EQ(batched.size(), oracle.size());
    ASSERT_EQ(single.size(), oracle.size());
    if (batched.capacity() != last_capacity) {
      ++checked_growths;
      last_capacity = batched.capacity();
      // Every value survived the move, and absent neighbours stay absent.
      for (size_t i = 0; i < oracle.size(); i += 1 + i % 7) {
        ASSERT_TRUE(batched.contains(oracle[i])) << i;
        ASSERT_TRUE(single.contains(oracle[i])) << i;
        const Fingerprint128 next{oracle[i].hi, oracle[i].lo + 1};
        const bool present = std::binary_search(oracle.begin(), oracle.end(), next);
        ASSERT_EQ(batched.contains(next), present);
        ASSERT_EQ(single.contains(next), present);
      }
    }
  }
  EXPECT_GE(checked_growths, 5u);
  // Above the threshold the set holds one array: ~16 / load bytes per fingerprint, not
  // old + new.
  EXPECT_LE(static_cast<double>(batched.bytes()) / static_cast<double>(batched.size()), 16 / 0.6);
  for (const auto& fp : oracle) ASSERT_TRUE(batched.contains(fp) && single.contains(fp));
  for (int i = 0; i < 100000; ++i) {
    const Fingerprint128 probe{rng(), rng()};
    EXPECT_EQ(batched.contains(probe), std::binary_search(oracle.begin(), oracle.end(), probe));
  }
}

TEST(LargeArray, GrowableKeepsValuesAndZeroesTheRest) {
  const size_t n = (LargeArray<uint64_t>::kHugeThreshold / sizeof(uint64_t)) + 3;
  LargeArray<uint64_t> a = LargeArray<uint64_t>::growable(n);
  ASSERT_TRUE(a.is_growable());
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(a[i], 0u);
    a[i] = i * 3 + 1;
  }
  const uint64_t* before = a.data();
  ASSERT_TRUE(a.grow(n * 3));
  EXPECT_EQ(a.data(), before);  // in place
  EXPECT_EQ(a.size(), n * 3);
  EXPECT_GE(a.bytes(), n * 3 * sizeof(uint64_t));
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(a[i], i * 3 + 1);
  for (size_t i = n; i < n * 3; ++i) ASSERT_EQ(a[i], 0u);
  EXPECT_FALSE(LargeArray<uint64_t>::growable(16).is_growable());  // small: ordinary heap
}

TEST(VisitedSet, StaysWithinFifteenBytesPerFingerprint) {
  VisitedSet set;
  std::mt19937_64 rng(1);
  for (int i = 1; i <= 3000000; ++i) {
    set.insert(rng() | 1);
    if (i % 250000 == 0) {
      const double per = static_cast<double>(set.bytes()) / static_cast<double>(set.size());
      EXPECT_LE(per, 15.0) << "at " << i;
      EXPECT_GE(per, 8.0);
    }
  }
}

struct Odd {
  uint8_t bytes[13];  // not a multiple of 8: the last group is partial
};

TEST(StateStore, RoundTripsSparseAndDenseStates) {
  std::mt19937_64 rng(5);
  Odd reference{};
  for (auto& b : reference.bytes) b = static_cast<uint8_t>(rng());
  StateStore<Odd> store(reference);
  std::vector<Odd> states;
  for (int i = 0; i < 5000; ++i) {
    Odd s = reference;
    const int changes = i % 3 == 0 ? 13 : i % 3 == 1 ? 1 : 0;  // dense, sparse, identical
    for (int c = 0; c < changes; ++c) s.bytes[rng() % 13] = static_cast<uint8_t>(rng());
    if (i == 7) s.bytes[12] ^= 0xFF;  // the partial group
    states.push_back(s);
  }
  store.reset(states.size());
  // Chunks may be filled in any order, each in order.
  const size_t chunks = store.chunks();
  for (size_t c = chunks; c-- > 0;) {
    for (size_t i = c * StateStore<Odd>::kChunk; i < std::min(states.size(), (c + 1) * StateStore<Odd>::kChunk); ++i) {
      store.append(c, states[i]);
    }
  }
  for (size_t i = 0; i < states.size(); ++i) {
    Odd out;
    store.get(i, out);
    ASSERT_EQ(std::memcmp(&out, &states[i], sizeof(Odd)), 0) << i;
  }
  Odd ignored;
  EXPECT_THROW(store.get(states.size(), ignored), std::out_of_range);
  store.reset(1);
  EXPECT_EQ(store.size(), 1u);
}

// Fills a store chunk by chunk, sealing each, as the engine does.
template <class S>
void fill(StateStore<S>& store, const std::vector<S>& states) {
  store.reset(states.size());
  for (size_t c = 0; c < store.chunks(); ++c) {
    for (size_t i = c * StateStore<S>::kChunk; i < std::min(states.size(), (c + 1) * StateStore<S>::kChunk); ++i) {
      store.append(c, states[i]);
    }
    store.seal(c);
  }
}

struct Wide {
  uint8_t bytes[600];  // the size of a Kafka state
};

// Consecutive states that differ from each other in a byte or two but from the reference
// in many, as siblings in a BFS level do: the delta against the previous state stores
// them in a fraction of what the reference alone needs, and both decode exactly, in
// order, at random and backwards, through get and through a Reader.
TEST(StateStore, DeltaAgainstThePreviousStateIsSmallAndExact) {
  std::mt19937_64 rng(9);
  Wide reference{};
  std::vector<Wide> states;
  Wide s = reference;
  for (auto& b : s.bytes) b = static_cast<uint8_t>(rng() % 4 == 0 ? rng() : 0);  // ~150 bytes off
  for (int i = 0; i < 5000; ++i) {
    s.bytes[rng() % 600] = static_cast<uint8_t>(rng());
    if (i % 500 == 0) s.bytes[599] ^= 1;  // the last group
    states.push_back(s);
  }
  StateStore<Wide> delta(reference, true);
  StateStore<Wide> plain(reference, false);
  fill(delta, states);
  fill(plain, states);
  const double delta_per_state = static_cast<double>(delta.encoded_bytes()) / static_cast<double>(states.size());
  const double plain_per_state = static_cast<double>(plain.encoded_bytes()) / static_cast<double>(states.size());
  EXPECT_LT(delta_per_state, 20.0);
  EXPECT_GT(plain_per_state, 150.0);
  for (const StateStore<Wide>* store : {&delta, &plain}) {
    StateStore<Wide>::Reader reader(*store);
    for (size_t i = 0; i < states.size(); ++i) {
      ASSERT_EQ(std::memcmp(&reader.get(i), &states[i], sizeof(Wide)), 0) << i;
    }
    StateStore<Wide>::Reader jumping(*store);
    for (int k = 0; k < 2000; ++k) {
      const size_t i = k % 7 == 0 ? states.size() - 1 - static_cast<size_t>(k) : rng() % states.size();
      ASSERT_EQ(std::memcmp(&jumping.get(i), &states[i], sizeof(Wide)), 0) << i;
      Wide out;
      store->get(i, out);
      ASSERT_EQ(std::memcmp(&out, &states[i], sizeof(Wide)), 0) << i;
    }
    EXPECT_THROW(jumping.get(states.size()), std::out_of_range);
  }
}

TEST(ParentLog, RoundTripsEntries) {
  ParentLog log;
  std::vector<std::vector<ParentLog::Entry>> levels(3);
  std::mt19937_64 rng(3);
  for (auto& level : levels) {
    log.begin_level();
    uint64_t parent = 0;
    for (int i = 0; i < 5000; ++i) {
      parent += rng() % 3 == 0 ? rng() % 100000 : 0;
      const uint32_t action = static_cast<uint32_t>(rng() % (i % 10 == 0 ? 1u << 24 : 200u));
      log.append(parent, action);
      level.push_back({parent, action});
    }
  }
  for (size_t l = 0; l < levels.size(); ++l) {
    EXPECT_EQ(log.level_size(l), levels[l].size());
    for (size_t i : {size_t{0}, size_t{1}, size_t{777}, size_t{4999}}) {
      EXPECT_EQ(log.entry(l, i).parent_index, levels[l][i].parent_index);
      EXPECT_EQ(log.entry(l, i).action_index, levels[l][i].action_index);
    }
  }
  EXPECT_THROW(log.append(0, 0), std::logic_error);  // parents must not go backwards
}

// The survivors' radix sort agrees with std::sort, for keys with any parent spread and
// action widths (including parents past 2^32 and the widest action indices).
TEST(Bfs, SortKeysAgreesWithStdSort) {
  std::mt19937_64 rng(13);
  std::vector<uint64_t> tmp;
  for (const uint64_t parent_spread : {uint64_t{1}, uint64_t{1000}, uint64_t{1} << 18, uint64_t{1} << 33}) {
    for (const uint64_t action_limit : {uint64_t{1}, uint64_t{7}, uint64_t{300}, bfs_key::kActionMask + 1}) {
      for (const size_t n : {size_t{0}, size_t{5}, size_t{255}, size_t{256}, size_t{5000}}) {
        std::vector<uint64_t> keys;
        const uint64_t base = rng() % 100000;
        for (size_t i = 0; i < n; ++i) {
          keys.push_back(bfs_key::make(base + rng() % parent_spread, rng() % action_limit));
        }
        std::vector<uint64_t> expected = keys;
        std::sort(expected.begin(), expected.end());
        bfs_key::sort(keys, tmp);
        ASSERT_EQ(keys, expected) << parent_spread << " " << action_limit << " " << n;
      }
    }
  }
}

// --- exact counts ------------------------------------------------------------------

TEST(Bfs, CounterModelExactCountsAndLevels) {
  const int n = 3, k = 4;
  const CounterModel model(n, k);
  const BfsResult<CounterModel> r = bfs(model);
  EXPECT_EQ(r.verdict, Verdict::Holds);
  EXPECT_EQ(r.distinct_states, power(k + 1, n));
  EXPECT_EQ(r.depth, n * k);
  ASSERT_EQ(r.level_sizes.size(), static_cast<size_t>(n * k + 1));
  for (int d = 0; d <= n * k; ++d) EXPECT_EQ(r.level_sizes[d], compositions(d, n, k)) << d;
  // generated = the initial state + one successor per (state, counter below K)
  //           = 1 + N * K * (K+1)^(N-1).
  EXPECT_EQ(r.states_generated, 1 + static_cast<uint64_t>(n * k) * power(k + 1, n - 1));
  EXPECT_GT(r.collision_probability, 0.0);
  EXPECT_LT(r.collision_probability, 1e-12);
}

TEST(Bfs, GridWithSeveralInitialStatesCountsDuplicatesOnce) {
  const GridModel model(7, 5, {{0, 0}, {6, 4}, {0, 0}, {3, 2}});
  const BfsResult<GridModel> r = bfs(model);
  EXPECT_EQ(r.verdict, Verdict::Holds);
  EXPECT_EQ(r.distinct_states, 35u);
  ASSERT_FALSE(r.level_sizes.empty());
  EXPECT_EQ(r.level_sizes[0], 3u);
  // The cells farthest from all three starts, (0,4) and (6,0), are 4 steps away.
  EXPECT_EQ(r.depth, 4);
  expect_matches_reference(model, false, 1);
}

TEST(Bfs, GridFromCornerHasDiagonalLevels) {
  const GridModel model(6, 4);
  const BfsResult<GridModel> r = bfs(model, with(2));
  EXPECT_EQ(r.distinct_states, 24u);
  EXPECT_EQ(r.depth, 5 + 3);
  const std::vector<uint64_t> expected = {1, 2, 3, 4, 4, 4, 3, 2, 1};
  EXPECT_EQ(r.level_sizes, expected);
}

TEST(Bfs, MatchesReferenceOnEveryToyModel) {
  for (int threads : {1, 2, 3, 4}) {
    for (bool symmetry : {false, true}) {
      expect_matches_reference(CounterModel(4, 3), symmetry, threads);
      expect_matches_reference(CounterModel(5, 3, 9), symmetry, threads);
      expect_matches_reference(MutexModel(4, false), symmetry, threads);
      expect_matches_reference(MutexModel(5, true, 4), symmetry, threads);
    }
  }
}

// --- determinism across thread counts ----------------------------------------------

template <class M>
void expect_same_for_all_thread_counts(const M& model, bool symmetry, int fingerprint_bits = 64) {
  BfsOptions options;
  options.symmetry = symmetry;
  options.fingerprint_bits = fingerprint_bits;
  options.threads = 1;
  const BfsResult<M> one = bfs(model, options);
  for (int threads : {2, 3, 4}) {
    SCOPED_TRACE("threads=" + std::to_string(threads));
    options.threads = threads;
    isr::test::expect_same_result(bfs(model, options), one);
  }
}

// Where successors are looked up in the visited set (while expanding, at random, or
// while deduplicating, in fingerprint order) changes the memory traffic only: every
// mode gives the same result, for every thread count and wave size. MutexModel revisits
// states of earlier levels (a dedupe phase that forgot its lookup would count them
// again); CounterModel's successors are all new (the adaptive choice's dedupe case).
template <class M>
void expect_same_for_every_lookup(const M& model, bool symmetry) {
  for (int bits : {64, 128}) {
    BfsOptions options;
    options.symmetry = symmetry;
    options.fingerprint_bits = bits;
    options.visited_lookup = VisitedLookup::Expand;
    const BfsResult<M> reference = bfs(model, options);
    // A search that re-expanded visited states would not stop on its own.
    options.max_states = reference.distinct_states * 4 + 100;
    for (VisitedLookup lookup : {VisitedLookup::Dedupe, VisitedLookup::Adaptive}) {
      for (int threads : {1, 3}) {
        for (uint64_t wave : {uint64_t{0}, uint64_t{5}}) {
          SCOPED_TRACE("bits=" + std::to_string(bits) + " lookup=" + std::to_string(static_cast<int>(lookup)) +
                       " threads=" + std::to_string(threads) + " wave=" + std::to_string(wave));
          options.visited_lookup = lookup;
          options.threads = threads;
          options.wave_states = wave;
          isr::test::expect_same_result(bfs(model, options), reference);
        }
      }
    }
  }
}

TEST(Bfs, VisitedLookupPlacementDoesNotChangeTheResult) {
  expect_same_for_every_lookup(MutexModel(5, false), false);
  expect_same_for_every_lookup(MutexModel(5, true, 4), true);  // violated: same counterexample
  expect_same_for_every_lookup(CounterModel(5, 4), false);
  expect_same_for_every_lookup(CounterModel(5, 4, 12), true);
  expect_same_for_every_lookup(GridModel(7, 5, {{0, 0}, {6, 4}, {0, 0}, {3, 2}}), false);
}

TEST(Bfs, WavesDoNotChangeTheResult) {
  const MutexModel model(6, false, 4);
  const auto whole = bfs(model, with(2));
  for (uint64_t wave : {1, 7, 1000}) {
    BfsOptions options = with(2);
    options.wave_states = wave;
    const auto r = bfs(model, options);
    EXPECT_EQ(r.distinct_states, whole.distinct_states) << wave;
    EXPECT_EQ(r.states_generated, whole.states_generated) << wave;
    EXPECT_EQ(r.level_sizes, whole.level_sizes) << wave;
    EXPECT_EQ(r.counterexample.action_indices, whole.counterexample.action_indices) << wave;
  }
  BfsOptions options = with(3, true);
  options.wave_states = 5;
  const auto waved = bfs(CounterModel(6, 5), options);
  EXPECT_EQ(waved.distinct_states, binomial(11, 6));
}

// --fingerprint 128: the same counts, levels and counterexamples as 64 bits on models far
// too small for a 64-bit collision, the same for every thread count, and a collision
// estimate 2^64 times smaller.
TEST(Bfs, Fingerprints128GiveTheSameResultsAs64) {
  const MutexModel mutex(6, false, 4);
  const CounterModel counters(6, 5, 17);
  BfsOptions narrow = with(2);
  narrow.fingerprint_bits = 64;
  BfsOptions wide = with(2);
  EXPECT_EQ(wide.fingerprint_bits, 128);  // the default
  const auto a = bfs(mutex, narrow);
  const auto b = bfs(mutex, wide);
  EXPECT_EQ(a.fingerprint_bits, 64);
  EXPECT_EQ(b.fingerprint_bits, 128);
  EXPECT_EQ(b.distinct_states, a.distinct_states);
  EXPECT_EQ(b.states_generated, a.states_generated);
  EXPECT_EQ(b.level_sizes, a.level_sizes);
  EXPECT_EQ(b.verdict, a.verdict);
  EXPECT_EQ(b.counterexample.action_indices, a.counterexample.action_indices);
  EXPECT_GT(b.collision_probability, 0.0);
  EXPECT_NEAR(b.collision_probability * 18446744073709551616.0 / a.collision_probability, 1.0, 1e-9);
  EXPECT_DOUBLE_EQ(b.collision_probability_64, a.collision_probability);
  EXPECT_EQ(b.candidate_record_bytes, 24u);
  EXPECT_EQ(a.candidate_record_bytes, 16u);
  EXPECT_GT(b.visited_set_bytes, a.visited_set_bytes);
  wide.symmetry = true;
  narrow.symmetry = true;
  EXPECT_EQ(bfs(counters, wide).distinct_states, bfs(counters, narrow).distinct_states);
  expect_same_for_all_thread_counts(CounterModel(6, 5, 17), true, 128);
  expect_same_for_all_thread_counts(MutexModel(6, false, 4), false, 128);
  expect_same_for_all_thread_counts(MutexModel(7, true, 5), true, 128);
  BfsOptions bad = with(1);
  bad.fingerprint_bits = 96;
  EXPECT_THROW(bfs(mutex, bad), std::invalid_argument);
}

// The frontier's encoding changes memory only: the reference-only encoding gives the
// same search, and the delta stores fewer bytes per state.
TEST(Bfs, FrontierEncodingDoesNotChangeTheResult) {
  const MutexModel model(7, true, 5);
  BfsOptions options = with(3, true);
  const auto delta = bfs(model, options);
  options.frontier_delta = false;
  const auto plain = bfs(model, options);
  EXPECT_EQ(plain.distinct_states, delta.distinct_states);
  EXPECT_EQ(plain.level_sizes, delta.level_sizes);
  EXPECT_EQ(plain.counterexample.action_indices, delta.counterexample.action_indices);
  EXPECT_GT(delta.frontier_bytes_per_state, 0.0);
  EXPECT_LE(delta.frontier_bytes_per_state, plain.frontier_bytes_per_state);
}

TEST(Bfs, TimeLimitGivesIncomplete) {
  const CounterModel model(8, 7);  // 16.8M states: far more than 50 ms
  BfsOptions options = with(2);
  options.time_limit = std::chrono::milliseconds(50);
  const auto r = bfs(model, options);
  EXPECT_EQ(r.verdict, Verdict::Incomplete);
  EXPECT_EQ(r.stop_reason, StopReason::TimeLimit);
  EXPECT_EQ(stop_reason_name(r.stop_reason), "time-limit");
  EXPECT_LT(r.distinct_states, power(8, 8));
  EXPECT_LT(r.seconds, 20.0);
}

TEST(Bfs, SameResultWithOneToFourThreads) {
  // Large enough (46656 states, 6^6) that every thread gets many chunks and shards.
  expect_same_for_all_thread_counts(CounterModel(6, 5), false);
  expect_same_for_all_thread_counts(CounterModel(6, 5, 17), false);
  expect_same_for_all_thread_counts(CounterModel(6, 5, 17), true);
  expect_same_for_all_thread_counts(MutexModel(6, false, 4), false);
  expect_same_for_all_thread_counts(MutexModel(6, false, 4), true);
  expect_same_for_all_thread_counts(MutexModel(7, true, 5), true);
}

// --- symmetry ------------------------------------------------------------------------

TEST(Bfs, SymmetryCountsOrbitsExactly) {
  for (auto [n, k] : {std::pair{4, 3}, std::pair{5, 4}, std::pair{6, 2}}) {
    const CounterModel model(n, k);
    const auto plain = bfs(model, with(2, false));
    const auto reduced = bfs(model, with(2, true));
    EXPECT_EQ(plain.distinct_states, power(k + 1, n));
    EXPECT_EQ(reduced.distinct_states, binomial(n + k, n)) << n << " " << k;
    EXPECT_EQ(reduced.verdict, Verdict::Holds);
    EXPECT_EQ(reduced.depth, plain.depth);
  }
}

TEST(Bfs, SymmetryKeepsVerdictsAndReducesStates) {
  const MutexModel buggy(5, false);
  const auto plain = bfs(buggy, with(1, false));
  const auto reduced = bfs(buggy, with(1, true));
  EXPECT_EQ(plain.verdict, Verdict::Violated);
  EXPECT_EQ(reduced.verdict, Verdict::Violated);
  EXPECT_EQ(plain.property, reduced.property);
  EXPECT_EQ(plain.counterexample.actions.size(), reduced.counterexample.actions.size());
  EXPECT_LT(reduced.distinct_states, plain.distinct_states);

  const MutexModel correct(5, true);
  const auto plain_ok = bfs(correct, with(1, false));
  const auto reduced_ok = bfs(correct, with(1, true));
  EXPECT_EQ(plain_ok.verdict, Verdict::Holds);
  EXPECT_EQ(reduced_ok.verdict, Verdict::Holds);
  EXPECT_LT(reduced_ok.distinct_states, plain_ok.distinct_states);
}

TEST(Bfs, SymmetricCounterexampleIsARealExecution) {
  // Process 0 is never relabelled: the trace must show the processes that really moved.
  const MutexModel model(4, false);
  const auto r = bfs(model, with(3, true));
  expect_valid_counterexample(model, r);
}

// --- counterexamples -----------------------------------------------------------------

TEST(Bfs, ShortestCounterexampleHasTheMinimalLength) {
  for (int limit : {1, 5, 11}) {
    const CounterModel model(4, 4, limit);
    const auto r = bfs(model, with(2));
    ASSERT_EQ(r.verdict, Verdict::Violated);
    EXPECT_EQ(r.property, "sum-below");
    EXPECT_EQ(r.counterexample.actions.size(), static_cast<size_t>(limit));
    EXPECT_EQ(r.depth, limit);
    expect_valid_counterexample(model, r);
  }
  const MutexModel mutex(3, false);
  const auto m = bfs(mutex, with(2));
  ASSERT_EQ(m.verdict, Verdict::Violated);
  EXPECT_EQ(m.property, "mutual-exclusion");  // first in property order
  EXPECT_EQ(m.counterexample.actions.size(), 4u);  // check, check, enter, enter
  EXPECT_EQ(mutex.critical(m.counterexample.states.back()), 2);
  expect_valid_counterexample(mutex, m);
}

TEST(Bfs, CounterexampleBecomesTraceJson) {
  const MutexModel model(3, false);
  const auto r = bfs(model, with(2, true));
  ASSERT_EQ(r.verdict, Verdict::Violated);
  const nlohmann::json trace = counterexamples::trace_to_json(model, r.counterexample, "bfs", "mutex");
  EXPECT_EQ(trace.at("format"), "isrcheck-trace");
  EXPECT_EQ(trace.at("version"), 1);
  EXPECT_EQ(trace.at("model"), "mutex");
  EXPECT_EQ(trace.at("engine"), "bfs");
  EXPECT_EQ(trace.at("property"), "mutual-exclusion");
  EXPECT_EQ(trace.at("property_description"), "at most one process is critical");
  EXPECT_EQ(trace.at("config"), model.config_json());
  const auto& steps = trace.at("steps");
  ASSERT_EQ(steps.size(), r.counterexample.states.size());
  EXPECT_EQ(steps[0].at("action"), nullptr);
  EXPECT_EQ(steps[0].at("action_name"), "Init");
  for (size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(steps[i].at("index"), i);
    EXPECT_EQ(steps[i].at("state"), model.state_to_json(r.counterexample.states[i]));
    if (i > 0) {
      EXPECT_EQ(steps[i].at("action"), model.action_to_json(r.counterexample.actions[i - 1]));
      EXPECT_EQ(steps[i].at("action_name"), model.action_name(r.counterexample.actions[i - 1]));
    }
  }
}

TEST(Bfs, ViolationInAnInitialStateIsAnEmptyTrace) {
  CounterModel model(3, 4, /*sum_limit=*/3);
  CounterModel::State bad;
  bad.counter[0] = 2;
  bad.counter[1] = 2;
  model.add_initial_state(CounterModel::State{});  // a duplicate, counted once
  model.add_initial_state(bad);
  for (int threads : {1, 2}) {
    const auto r = bfs(model, with(threads));
    ASSERT_EQ(r.verdict, Verdict::Violated);
    EXPECT_EQ(r.depth, 0);
    EXPECT_EQ(r.distinct_states, 2u);
    EXPECT_TRUE(r.counterexample.actions.empty());
    EXPECT_EQ(r.counterexample.initial_index, 2u);
    expect_valid_counterexample(model, r);
  }
}

// --- limits ----------------------------------------------------------------------------

TEST(Bfs, MaxStatesGivesIncompleteWithExactlyThatManyStates) {
  const CounterModel model(5, 4);
  for (int threads : {1, 3}) {
    const auto r = bfs(model, limited(threads, 1000));
    EXPECT_EQ(r.verdict, Verdict::Incomplete);
    EXPECT_EQ(r.stop_reason, StopReason::MaxStates);
    EXPECT_EQ(r.distinct_states, 1000u);
    // Levels 0..d complete, with d the largest depth whose cumulative count fits.
    uint64_t cumulative = 0;
    int complete = -1;
    for (int d = 0; d <= 20; ++d) {
      cumulative += compositions(d, 5, 4);
      if (cumulative > 1000) break;
      complete = d;
    }
    EXPECT_EQ(r.depth, complete);
  }
  // A limit at or above the state space changes nothing.
  const auto all = bfs(model, limited(1, 3125));
  EXPECT_EQ(all.verdict, Verdict::Holds);
  EXPECT_EQ(all.distinct_states, 3125u);
}

TEST(Bfs, MaxMemoryGivesIncomplete) {
  const CounterModel model(6, 5);
  BfsOptions options = with(2);
  options.max_memory_bytes = 1 << 20;
  const auto r = bfs(model, options);
  EXPECT_EQ(r.verdict, Verdict::Incomplete);
  EXPECT_EQ(r.stop_reason, StopReason::MaxMemory);
  EXPECT_LT(r.distinct_states, power(6, 6));
}

TEST(Bfs, InterruptFlagGivesIncomplete) {
  std::atomic<bool> flag{true};
  const CounterModel model(4, 4);
  BfsOptions options = with(1);
  options.interrupt = &flag;
  const auto before = bfs(model, options);
  EXPECT_EQ(before.verdict, Verdict::Incomplete);
  EXPECT_EQ(before.stop_reason, StopReason::Interrupted);

  // Interrupted in the middle of a search (the model raises the flag itself).
  std::atomic<bool> later{false};
  GridModel grid(3000, 3000);
  grid.interrupt_after(&later, 200000);
  options = with(2);
  options.interrupt = &later;
  const auto mid = bfs(grid, options);
  EXPECT_EQ(mid.verdict, Verdict::Incomplete);
  EXPECT_EQ(mid.stop_reason, StopReason::Interrupted);
  EXPECT_GT(mid.distinct_states, 1000u);
  EXPECT_LT(mid.distinct_states, 9000000u);
}

// --- reports -------------------------------------------------------------------------

TEST(Bfs, ReportsWhichBoundsWereReached) {
  const auto r = bfs(CounterModel(3, 2));
  EXPECT_EQ(r.bounds_reached, (std::vector<std::string>{"counter-at-max", "all-at-max"}));
  const auto partial = bfs(CounterModel(3, 2), limited(1, 4));  // depth 1: no counter at 2
  EXPECT_EQ(partial.verdict, Verdict::Incomplete);
  EXPECT_EQ(partial.level_sizes, (std::vector<uint64_t>{1, 3}));
  EXPECT_TRUE(partial.bounds_reached.empty());
  const auto grid = bfs(GridModel(3, 3));  // no hook: nothing reported
  EXPECT_TRUE(grid.bounds_reached.empty());
}

TEST(Bfs, ProgressIsReportedAndMemoryMeasured) {
  int calls = 0;
  BfsProgress last;
  BfsOptions options;
  options.threads = 2;
  options.progress_interval = std::chrono::milliseconds(0);
  options.progress = [&](const BfsProgress& p) {
    ++calls;
    EXPECT_GE(p.states_generated, last.states_generated);
    last = p;
  };
  const auto r = bfs(CounterModel(6, 5), options);
  EXPECT_GT(calls, 5);
  EXPECT_GT(last.distinct_states, 0u);
  EXPECT_GT(last.memory_bytes, 0u);
  EXPECT_GT(r.peak_memory_bytes, r.visited_set_bytes);
  EXPECT_GT(r.bytes_per_state, 8.0);
}

TEST(Bfs, RejectsZeroThreads) {
  EXPECT_THROW(bfs(CounterModel(2, 2), with(0)), std::invalid_argument);
}

}  // namespace
}  // namespace isr::checker
