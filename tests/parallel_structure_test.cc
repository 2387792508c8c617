// Tests of the engine's parallel structure (issue 27 item 2): the visited set grown in
// place by several threads at once (checker/store/growth_groups.h, visited_set.h), the
// parent log encoded in slices (checker/store/parent_log.h), the survivors merged on the
// workers, and the profile that says what stays serial (checker/bfs/parallel_profile.h).
// Each must leave the search's result exactly what one thread gives.
#include <algorithm>
#include <random>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "checker/bfs/bfs.h"
#include "checker/store/growth_groups.h"
#include "checker/store/parent_log.h"
#include "checker/store/visited_set.h"
#include "tests/same_bfs_result.h"
#include "tests/toy_models.h"

namespace isr::checker {
namespace {

// Offsets of `shards` shards of `sizes[s]` slots, and then the total.
std::vector<size_t> offsets_of(const std::vector<size_t>& sizes) {
  std::vector<size_t> at(sizes.size() + 1, 0);
  for (size_t s = 0; s < sizes.size(); ++s) at[s + 1] = at[s] + sizes[s];
  return at;
}

// The scheme's conditions (growth_groups.h): groups cover the shards in order; what
// group g - 1 writes (below new_offset[first[g]]) covers no old region of group g that is
// not copied out; the copied range lies inside group g.
void expect_valid(const GrowthGroups& g, const std::vector<size_t>& old_offset, const std::vector<size_t>& new_offset) {
  const size_t shards = old_offset.size() - 1;
  ASSERT_GE(g.count(), 1u);
  EXPECT_EQ(g.first.front(), 0u);
  EXPECT_EQ(g.first.back(), shards);
  ASSERT_EQ(g.saved_end.size(), g.count());
  for (size_t k = 1; k < g.count(); ++k) {
    EXPECT_LT(g.first[k - 1], g.first[k]);
    EXPECT_GE(g.saved_end[k], g.first[k]);
    EXPECT_LE(g.saved_end[k], g.first[k + 1]);
    for (size_t s = g.saved_end[k]; s < g.first[k + 1]; ++s) {
      EXPECT_GE(old_offset[s], new_offset[g.first[k]]) << "group " << k - 1 << " would overwrite shard " << s;
    }
  }
}

TEST(ParallelGrowth, GroupsKeepEveryOldRegionUntilItIsReadOrCopied) {
  std::mt19937_64 rng(3);
  for (const double growth : {1.01, 1.35, 2.0, 3.5}) {
    std::vector<size_t> old_sizes(256);
    std::vector<size_t> new_sizes(256);
    for (size_t s = 0; s < 256; ++s) {
      old_sizes[s] = 1000 + rng() % 40;
      new_sizes[s] = static_cast<size_t>(static_cast<double>(old_sizes[s]) * growth) + rng() % 3;
    }
    const auto old_offset = offsets_of(old_sizes);
    const auto new_offset = offsets_of(new_sizes);
    for (size_t wanted : {1, 2, 3, 4, 8}) {
      SCOPED_TRACE("growth " + std::to_string(growth) + ", " + std::to_string(wanted) + " wanted");
      const GrowthGroups g = plan_growth_groups(old_offset, new_offset, wanted);
      expect_valid(g, old_offset, new_offset);
      EXPECT_LE(g.count(), wanted);
      // Two groups are always possible (the copied range may fill the upper group).
      if (wanted >= 2) {
        EXPECT_GE(g.count(), 2u);
      }
    }
  }
  // At the set's 1.35x, two groups split the work within a fifth of even: the lower one
  // moves fewer shards because it also copies the upper one's first shards.
  const auto old_offset = offsets_of(std::vector<size_t>(256, 1000));
  const auto new_offset = offsets_of(std::vector<size_t>(256, 1350));
  const GrowthGroups two = plan_growth_groups(old_offset, new_offset, 2);
  ASSERT_EQ(two.count(), 2u);
  EXPECT_GT(two.first[1], 100u);
  EXPECT_LT(two.first[1], 128u);
  EXPECT_EQ(plan_growth_groups(old_offset, new_offset, 3).count(), 3u);
  // With four equal groups at 1.35x the third writes past the old end: it copies all of
  // the fourth, which is still valid (the fourth moves from the copy).
  const GrowthGroups four = plan_growth_groups(old_offset, new_offset, 4);
  ASSERT_EQ(four.count(), 4u);
  EXPECT_EQ(four.saved_end[3], 256u);
  // Eight equal groups cannot be: the second's copied range (32 shards from shard 32, up
  // to 1.35 x 32 = 43.2) fits, but the fifth's (from 128 up to 172.8) passes shard 160.
  EXPECT_LT(plan_growth_groups(old_offset, new_offset, 8).count(), 8u);
  EXPECT_THROW(plan_growth_groups(new_offset, old_offset, 2), std::invalid_argument);  // shards moving down
}

// Inserts one batch the engine's way, the growth (if any) on `threads` real threads.
// Returns how many groups moved the set (0: no growth in place).
size_t insert_on_threads(VisitedSet128& set, std::vector<std::vector<Fingerprint128>>& batches, size_t threads) {
  std::vector<size_t> incoming(VisitedSet128::kShards);
  for (size_t s = 0; s < VisitedSet128::kShards; ++s) incoming[s] = batches[s].size();
  size_t groups = 0;
  if (set.plan_batch(incoming)) {
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    for (size_t t = 0; t < threads; ++t) {
      pool.emplace_back([&] {
        for (size_t i = next++; i < set.growth_tasks(); i = next++) set.prepare_growth(i);
      });
    }
    for (auto& t : pool) t.join();
    pool.clear();
    groups = set.layout_growth(threads);
    for (size_t g = 0; g < groups; ++g) pool.emplace_back([&set, g] { set.move_growth(g); });
    for (auto& t : pool) t.join();
    set.finish_growth();
  }
  for (size_t s = 0; s < VisitedSet128::kShards; ++s) set.insert_batch(s, batches[s].data(), batches[s].size());
  set.end_batch(batches);
  return groups;
}

// Past LargeArray::kHugeThreshold, a set grown by two or three groups at once holds what
// a set grown by begin_batch() holds, at every growth, in the same capacity.
TEST(ParallelGrowth, GroupsGiveTheSequentialSet) {
  std::mt19937_64 rng(5);
  VisitedSet128 sequential;
  VisitedSet128 two;
  VisitedSet128 three;
  std::vector<Fingerprint128> all;
  size_t grown_by_two = 0;
  size_t grown_by_three = 0;
  for (size_t size = 5000; all.size() < 1500000; size = size * 3 / 2) {
    std::vector<std::vector<Fingerprint128>> batches(VisitedSet128::kShards);
    for (size_t i = 0; i < size; ++i) {
      Fingerprint128 fp{rng(), rng() | 1};
      if (i % 17 == 0 && !all.empty()) fp.hi = all[rng() % all.size()].hi;  // same home slot
      if (sequential.contains(fp)) continue;
      batches[VisitedSet128::shard_of(fp)].push_back(fp);
    }
    std::vector<size_t> incoming(VisitedSet128::kShards);
    for (size_t s = 0; s < VisitedSet128::kShards; ++s) {
      auto& b = batches[s];
      std::sort(b.begin(), b.end());
      b.erase(std::unique(b.begin(), b.end()), b.end());
      incoming[s] = b.size();
      all.insert(all.end(), b.begin(), b.end());
    }
    sequential.begin_batch(incoming);
    for (size_t s = 0; s < VisitedSet128::kShards; ++s) {
      sequential.insert_batch(s, batches[s].data(), batches[s].size());
    }
    sequential.end_batch(batches);
    if (insert_on_threads(two, batches, 2) == 2) ++grown_by_two;
    if (insert_on_threads(three, batches, 3) == 3) ++grown_by_three;
    ASSERT_EQ(two.size(), sequential.size());
    ASSERT_EQ(three.size(), sequential.size());
    ASSERT_EQ(two.capacity(), sequential.capacity());
    ASSERT_EQ(three.capacity(), sequential.capacity());
  }
  EXPECT_GE(grown_by_two, 3u);
  EXPECT_GE(grown_by_three, 3u);
  std::vector<Fingerprint128> a;
  std::vector<Fingerprint128> b;
  std::vector<Fingerprint128> c;
  sequential.for_each([&](const Fingerprint128& fp) { a.push_back(fp); });
  two.for_each([&](const Fingerprint128& fp) { b.push_back(fp); });
  three.for_each([&](const Fingerprint128& fp) { c.push_back(fp); });
  std::sort(all.begin(), all.end());
  EXPECT_EQ(a, all);
  EXPECT_EQ(b, all);
  EXPECT_EQ(c, all);
  for (size_t i = 0; i < all.size(); i += 3) {
    ASSERT_TRUE(two.contains(all[i]) && three.contains(all[i])) << i;
    const Fingerprint128 next{all[i].hi, all[i].lo + 1};
    const bool present = std::binary_search(all.begin(), all.end(), next);
    ASSERT_EQ(two.contains(next), present);
    ASSERT_EQ(three.contains(next), present);
  }
}

// Slices encoded apart and appended in order read back as append() one by one wrote them,
// across the log's block boundaries and levels.
TEST(ParallelOrder, ParentLogSlicesEqualOneByOneAppends) {
  std::mt19937_64 rng(8);
  ParentLog whole;
  ParentLog sliced;
  std::vector<std::vector<ParentLog::Entry>> levels;
  for (int level = 0; level < 4; ++level) {
    std::vector<ParentLog::Entry> entries;
    uint64_t parent = 0;
    for (int i = 0; i < 70000; ++i) {
      parent += rng() % 3 == 0 ? rng() % 300 : 0;
      entries.push_back({parent, static_cast<uint32_t>(rng() % (i % 50 == 0 ? 100000 : 20))});
    }
    whole.begin_level();
    for (const auto& e : entries) whole.append(e.parent_index, e.action_index);
    sliced.begin_level();
    const size_t slices = 7;
    for (size_t k = 0; k < slices; ++k) {
      const size_t begin = entries.size() * k / slices;
      const size_t end = entries.size() * (k + 1) / slices;
      std::vector<uint8_t> bytes;
      uint64_t previous = begin == 0 ? 0 : entries[begin - 1].parent_index;
      for (size_t i = begin; i < end; ++i) {
        ParentLog::encode(bytes, previous, entries[i].parent_index, entries[i].action_index);
        previous = entries[i].parent_index;
      }
      sliced.append_encoded(bytes, end - begin, entries[end - 1].parent_index);
    }
    levels.push_back(entries);
  }
  EXPECT_EQ(sliced.bytes_used(), whole.bytes_used());
  for (size_t level = 0; level < levels.size(); ++level) {
    ASSERT_EQ(sliced.level_size(level), levels[level].size());
    for (size_t i = 0; i < levels[level].size(); i += 997) {
      const ParentLog::Entry e = sliced.entry(level, i);
      EXPECT_EQ(e.parent_index, levels[level][i].parent_index);
      EXPECT_EQ(e.action_index, levels[level][i].action_index);
    }
  }
  std::vector<uint8_t> bytes;
  EXPECT_THROW(ParentLog::encode(bytes, 5, 4, 0), std::logic_error);  // parents must not go backwards
}

// A toy model large enough for every parallel path: a visited set past the huge-page
// threshold grows in place (823,543 states of 16-byte fingerprints), and waves and levels
// pass kParallelOrderMin. With 2 and 3 threads the search is the one-thread search, holding
// or violated (same counterexample), and the profile shows the growth and the ordering ran
// on the workers.
TEST(ParallelOrder, WorkersGiveTheOneThreadSearch) {
  for (const int limit : {0, 30}) {
    const toy::CounterModel model(7, 6, limit);
    BfsOptions options;
    options.profile = true;
    options.threads = 1;
    const BfsResult<toy::CounterModel> one = bfs(model, options);
    EXPECT_EQ(one.verdict, limit == 0 ? Verdict::Holds : Verdict::Violated);
    EXPECT_EQ(one.parallel_profile.threads, 1);
    EXPECT_GT(one.parallel_profile.phases[ParallelProfile::Grow].barriers, 0u);
    // One list: no merge; the parent log is still encoded on the worker, once per large level.
    EXPECT_GT(one.parallel_profile.phases[ParallelProfile::Order].barriers, 0u);
    EXPECT_LT(one.parallel_profile.phases[ParallelProfile::Order].barriers,
              static_cast<uint64_t>(one.depth));
    for (int threads : {2, 3}) {
      SCOPED_TRACE("limit " + std::to_string(limit) + ", threads " + std::to_string(threads));
      options.threads = threads;
      const BfsResult<toy::CounterModel> r = bfs(model, options);
      isr::test::expect_same_result(r, one);
      const ParallelProfile& p = r.parallel_profile;
      EXPECT_EQ(p.threads, threads);
      EXPECT_GT(p.phases[ParallelProfile::Grow].barriers, 0u);
      EXPECT_GT(p.phases[ParallelProfile::Order].barriers, 0u);
      EXPECT_EQ(p.phases[ParallelProfile::Expand].barriers, p.phases[ParallelProfile::Dedupe].barriers);
      EXPECT_EQ(p.phases[ParallelProfile::Expand].barriers, p.phases[ParallelProfile::Insert].barriers);
    }
  }
}

// The profile's arithmetic, and nothing recorded without BfsOptions::profile.
TEST(ParallelProfile, AmdahlBoundFromTheSerialShare) {
  ParallelProfile p;
  p.phases[ParallelProfile::Expand].work = 9;
  p.sections[ParallelProfile::Growth].cpu = 1;
  EXPECT_DOUBLE_EQ(p.serial_fraction(), 0.1);
  EXPECT_DOUBLE_EQ(p.amdahl_bound(2), 1 / (0.1 + 0.45));
  EXPECT_DOUBLE_EQ(p.amdahl_bound(1), 1.0);
  EXPECT_DOUBLE_EQ(ParallelProfile{}.amdahl_bound(2), 2.0);
  EXPECT_EQ(ParallelProfile::phase_name(ParallelProfile::Grow), "grow");
  EXPECT_EQ(ParallelProfile::section_name(ParallelProfile::ParentLog), "parent-log");

  const toy::CounterModel model(5, 4);
  BfsOptions options;
  options.threads = 2;
  const auto off = bfs(model, options);
  EXPECT_EQ(off.parallel_profile.threads, 0);
  EXPECT_EQ(off.parallel_profile.barriers(), 0u);
  EXPECT_EQ(off.parallel_profile.serial_seconds(), 0.0);
  options.profile = true;
  const auto on = bfs(model, options);
  EXPECT_EQ(on.distinct_states, off.distinct_states);
  // One expand, dedupe and insert barrier per wave, one materialize per level.
  EXPECT_EQ(on.parallel_profile.phases[ParallelProfile::Materialize].barriers, static_cast<uint64_t>(on.depth));
  EXPECT_GE(on.parallel_profile.phases[ParallelProfile::Expand].barriers, static_cast<uint64_t>(on.depth));
  EXPECT_GE(on.parallel_profile.parallel_seconds(), 0.0);
  EXPECT_GE(on.parallel_profile.wait_seconds(), 0.0);
}

}  // namespace
}  // namespace isr::checker
