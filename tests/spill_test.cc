// Searches larger than memory (check --spill, BfsOptions::spill_dir): the disk part of
// the visited set, the frontier's chunks on disk, and whole searches under a small
// --max-memory that must find exactly what the in-memory search finds.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "checker/bfs/bfs.h"
#include "checker/store/disk_fingerprints.h"
#include "checker/store/fingerprint.h"
#include "checker/store/spilling_visited_set.h"
#include "checker/store/state_store.h"
#include "tests/same_bfs_result.h"
#include "tests/toy_models.h"
#include "tests/trace_test_support.h"

namespace {

using namespace isr::checker;
using isr::toy::CounterModel;

// A fresh directory for spill files; spill files are unlinked at once, so it stays empty.
std::string spill_dir() {
  std::string dir = isr::trace_test::temp_path(".spill");
  EXPECT_EQ(::mkdir(dir.c_str(), 0700), 0) << dir;
  return dir;
}

bool directory_is_empty(const std::string& dir) {
  const isr::trace_test::Run r = isr::trace_test::run_shell("ls -A '" + dir + "'");
  return r.exit_code == 0 && r.out.empty();
}

template <class Fp>
Fp random_fp(std::mt19937_64& rng) {
  if constexpr (std::is_same_v<Fp, Fingerprint128>) {
    Fingerprint128 fp{rng(), rng()};
    if (fp.hi == 0 && fp.lo == 0) fp.lo = 1;
    return fp;
  } else {
    const uint64_t v = rng();
    return v == 0 ? 1 : v;
  }
}

// Batches merged into the disk part one after the other: every fingerprint merged is
// found, and fingerprints never merged are not (including ones between stored values).
template <class Fp>
void disk_fingerprints_find_exactly_what_was_merged() {
  const std::string dir = spill_dir();
  using Set = BasicVisitedSet<Fp>;
  DiskFingerprints<Fp> disk(Set::kShards);
  std::mt19937_64 rng(7);
  std::set<Fp> merged;
  for (int round = 0; round < 3; ++round) {
    std::vector<std::vector<Fp>> batch(Set::kShards);
    std::set<Fp> fresh;
    while (fresh.size() < 40000) {
      const Fp fp = random_fp<Fp>(rng);
      if (!merged.contains(fp)) fresh.insert(fp);
    }
    for (const Fp& fp : fresh) batch[Set::shard_of(fp)].push_back(fp);  // sorted per shard
    disk.merge(dir, [&](size_t s, std::vector<Fp>& out) { out.insert(out.end(), batch[s].begin(), batch[s].end()); });
    merged.insert(fresh.begin(), fresh.end());
    ASSERT_EQ(disk.size(), merged.size());
    for (const Fp& fp : merged) ASSERT_TRUE(disk.contains(Set::shard_of(fp), fp));
    for (int i = 0; i < 20000; ++i) {
      const Fp fp = random_fp<Fp>(rng);
      EXPECT_EQ(disk.contains(Set::shard_of(fp), fp), merged.contains(fp));
    }
  }
  EXPECT_EQ(disk.file_bytes(), merged.size() * sizeof(Fp));
  EXPECT_TRUE(directory_is_empty(dir));
  ::rmdir(dir.c_str());
}

TEST(Spill, DiskFingerprints64) { disk_fingerprints_find_exactly_what_was_merged<Fingerprint>(); }
TEST(Spill, DiskFingerprints128) { disk_fingerprints_find_exactly_what_was_merged<Fingerprint128>(); }

// The visited set with a tiny budget moves its memory part to disk after batches, and
// still answers every lookup as the in-memory set does.
TEST(Spill, VisitedSetKeepsItsContentsAcrossSpills) {
  const std::string dir = spill_dir();
  SpillingVisitedSet<Fingerprint> set;
  set.spill_to(dir, 64 << 10);
  std::mt19937_64 rng(11);
  std::set<Fingerprint> all;
  for (int round = 0; round < 6; ++round) {
    std::vector<std::vector<Fingerprint>> batches(SpillingVisitedSet<Fingerprint>::kShards);
    std::set<Fingerprint> fresh;
    while (fresh.size() < 5000) {
      const Fingerprint fp = random_fp<Fingerprint>(rng);
      if (!all.contains(fp)) fresh.insert(fp);
    }
    for (const Fingerprint fp : fresh) batches[set.shard_of(fp)].push_back(fp);
    std::vector<size_t> incoming(batches.size());
    for (size_t s = 0; s < batches.size(); ++s) incoming[s] = batches[s].size();
    set.begin_batch(incoming);
    for (size_t s = 0; s < batches.size(); ++s) set.insert_batch(s, batches[s].data(), batches[s].size());
    set.end_batch(batches);
    set.maybe_spill();
    all.insert(fresh.begin(), fresh.end());
    ASSERT_EQ(set.size(), all.size());
    for (const Fingerprint fp : all) ASSERT_TRUE(set.contains(fp));
    EXPECT_FALSE(set.insert(*all.begin()));  // on disk or in memory: not new
  }
  EXPECT_GT(set.spills(), 1u);
  EXPECT_GT(set.disk_bytes(), 0u);
  for (int i = 0; i < 10000; ++i) {
    const Fingerprint fp = random_fp<Fingerprint>(rng);
    EXPECT_EQ(set.contains(fp), all.contains(fp));
  }
  ::rmdir(dir.c_str());
}

// A frontier level moved to disk reads back state for state, through a Reader (in any
// order) and through get().
TEST(Spill, FrontierChunksReadBackFromDisk) {
  struct S {
    uint8_t bytes[40];
  };
  const std::string dir = spill_dir();
  S reference{};
  StateStore<S> store(reference);
  store.spill_to(dir);
  std::mt19937_64 rng(3);
  for (int level = 0; level < 2; ++level) {
    const size_t n = 5000 + static_cast<size_t>(level) * 1000;
    std::vector<S> states(n);
    for (S& s : states) {
      s = reference;
      for (int k = 0; k < 4; ++k) s.bytes[rng() % sizeof s.bytes] = static_cast<uint8_t>(rng());
    }
    store.reset(n);
    for (size_t i = 0; i < n; ++i) store.append(i / StateStore<S>::kChunk, states[i]);
    for (size_t c = 0; c < store.chunks(); ++c) store.seal(c);
    const size_t in_memory = store.bytes();
    EXPECT_GT(store.spill(), 0u);
    EXPECT_LT(store.bytes(), in_memory / 4);
    typename StateStore<S>::Reader reader(store);
    for (size_t i = 0; i < n; i += 7) ASSERT_EQ(std::memcmp(&reader.get(i), &states[i], sizeof(S)), 0) << i;
    for (size_t i = n; i-- > 0;) ASSERT_EQ(std::memcmp(&reader.get(i), &states[i], sizeof(S)), 0) << i;
    S out;
    store.get(n / 2, out);
    EXPECT_EQ(std::memcmp(&out, &states[n / 2], sizeof(S)), 0);
  }
  EXPECT_TRUE(directory_is_empty(dir));
  ::rmdir(dir.c_str());
}

// Issue 27, item 4: a search whose structures need far more than the limit completes
// under it, with the in-memory search's counts, levels and verdict, on 1 and 2 threads.
TEST(Spill, SearchUnderASmallLimitFindsTheInMemoryCounts) {
  const CounterModel model(7, 6);  // 7^7 = 823,543 states
  BfsOptions in_memory;
  in_memory.threads = 1;
  const auto expected = bfs(model, in_memory);
  ASSERT_EQ(expected.verdict, Verdict::Holds);
  ASSERT_GT(expected.peak_memory_bytes, uint64_t{24} << 20);

  const std::string dir = spill_dir();
  for (const int threads : {1, 2}) {
    BfsOptions spilling = in_memory;
    spilling.threads = threads;
    spilling.max_memory_bytes = uint64_t{8} << 20;
    spilling.spill_dir = dir;
    const auto r = bfs(model, spilling);
    isr::test::expect_same_result(r, expected);
    EXPECT_EQ(r.visited_set_fingerprints, expected.visited_set_fingerprints);
    EXPECT_GT(r.visited_spills, 0u);
    EXPECT_GT(r.spill_visited_bytes, 0u);
    // (The toy's levels, ~300 KB at most, stay below the frontier's threshold: the
    // Kafka test below and FrontierChunksReadBackFromDisk cover the frontier.)
    EXPECT_LE(r.peak_memory_bytes, spilling.max_memory_bytes) << threads << " threads";
  }
  EXPECT_TRUE(directory_is_empty(dir));
  ::rmdir(dir.c_str());
}

// A violation found while spilling: the same shortest counterexample.
TEST(Spill, ViolationUnderASmallLimitGivesTheSameCounterexample) {
  const CounterModel model(7, 6, 38);  // the property fails once the counters sum past 38
  BfsOptions in_memory;
  in_memory.threads = 2;
  const auto expected = bfs(model, in_memory);
  ASSERT_EQ(expected.verdict, Verdict::Violated);
  const std::string dir = spill_dir();
  BfsOptions spilling = in_memory;
  spilling.max_memory_bytes = uint64_t{4} << 20;
  spilling.spill_dir = dir;
  const auto r = bfs(model, spilling);
  isr::test::expect_same_result(r, expected);
  EXPECT_GT(r.visited_spills, 0u);
  ::rmdir(dir.c_str());
}

// The command line: `check --max-memory 8M --spill DIR` on a Kafka configuration whose
// search needs more, against the same search in memory.
TEST(Spill, CheckCommandUnderEightMegabytesMatchesTheInMemoryRun) {
  // --por off: the unreduced search, large enough to spill its frontier at 8 MiB too.
  const std::string config = "--set faults.max_lossy_crashes=0 --por off --threads 2 --quiet";
  const std::string in_memory_json = isr::trace_test::temp_path(".json");
  const std::string spilled_json = isr::trace_test::temp_path(".json");
  const std::string dir = spill_dir();
  auto a = isr::trace_test::run_isrcheck("check " + config + " --json '" + in_memory_json + "'");
  ASSERT_EQ(a.exit_code, 0) << a.out << a.err;
  auto b = isr::trace_test::run_isrcheck("check " + config + " --max-memory 8M --spill '" + dir + "' --json '" +
                                         spilled_json + "'");
  ASSERT_EQ(b.exit_code, 0) << b.out << b.err;
  const auto x = nlohmann::json::parse(isr::trace_test::slurp(in_memory_json));
  const auto y = nlohmann::json::parse(isr::trace_test::slurp(spilled_json));
  ASSERT_GT(x.at("peak_memory_bytes").get<uint64_t>(), uint64_t{8} << 20) << "the test needs a larger search";
  for (const char* key : {"verdict", "distinct_states", "states_generated", "depth", "level_sizes", "bounds_reached"}) {
    EXPECT_EQ(x.at(key), y.at(key)) << key;
  }
  EXPECT_LE(y.at("peak_memory_bytes").get<uint64_t>(), uint64_t{8} << 20);
  EXPECT_GT(y.at("spill").at("visited_set_merges").get<uint64_t>(), 0u);
  EXPECT_GT(y.at("spill").at("frontier_disk_bytes_written").get<uint64_t>(), 0u);
  EXPECT_NE(b.out.find("spilled to disk (--spill, budget 8.0 MiB)"), std::string::npos) << b.out;
  EXPECT_TRUE(directory_is_empty(dir));
  std::remove(in_memory_json.c_str());
  std::remove(spilled_json.c_str());
  ::rmdir(dir.c_str());
}

TEST(Spill, BadDirectoryIsRejectedNamingTheOption) {
  auto r = isr::trace_test::run_isrcheck("check --spill /nonexistent/isrcheck-spill --quiet");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--spill"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("existing directory"), std::string::npos) << r.err;
}

}  // namespace
