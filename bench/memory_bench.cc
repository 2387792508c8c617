// This machine's random-memory-access rate, next to the visited set's lookup rate
// (issue 14, point 5): how far the engine's lookups are from what the memory allows.
//
// On one array of --mib MiB (huge pages, as the visited set: checker/store/large_array.h):
//   dependent    each address comes from the previous load (latency-bound)
//   independent  addresses known in advance, prefetched 16 ahead (the engine's ring)
// and on a visited set holding as many fingerprints: contains() of random absent
// fingerprints, prefetched 16 ahead the way bfs.h's expand phase does. Rates per thread,
// in millions of accesses per CPU-second, so that a loaded machine still compares.
//
//   memory_bench [--mib 1024] [--accesses 20000000]

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench/cpu_time.h"
#include "checker/store/large_array.h"
#include "checker/store/visited_set.h"

namespace {

using isr::bench::cpu_seconds;

uint64_t mix(uint64_t x) {  // splitmix64: a cheap random address stream
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

void report(const char* what, uint64_t accesses, double cpu, uint64_t checksum) {
  std::printf("%-44s %8.1f M/cpu-s %8.1f ns each   (checksum %llu)\n", what, static_cast<double>(accesses) / cpu / 1e6,
              cpu * 1e9 / static_cast<double>(accesses), static_cast<unsigned long long>(checksum % 1000));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t mib = 1024;
  uint64_t accesses = 20000000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--mib") == 0) {
      mib = std::strtoull(argv[i + 1], nullptr, 10);
    } else if (std::strcmp(argv[i], "--accesses") == 0) {
      accesses = std::strtoull(argv[i + 1], nullptr, 10);
    } else {
      std::fprintf(stderr, "usage: memory_bench [--mib N] [--accesses N]\n");
      return 2;
    }
  }
  if (argc % 2 == 0 || mib == 0 || accesses == 0) {
    std::fprintf(stderr, "usage: memory_bench [--mib N >= 1] [--accesses N >= 1]\n");
    return 2;
  }
  const uint64_t n = mib * 1024 * 1024 / sizeof(uint64_t);
  isr::checker::LargeArray<uint64_t> array(n);
  // One random cycle through every slot (Sattolo's shuffle): a walk never settles into a
  // short cycle that would fit in the cache.
  for (uint64_t i = 0; i < n; ++i) array[i] = i;
  std::mt19937_64 shuffle(7);
  for (uint64_t i = n - 1; i > 0; --i) std::swap(array[i], array[shuffle() % i]);

  double start = cpu_seconds();
  uint64_t at = 0;
  for (uint64_t k = 0; k < accesses; ++k) at = array[at];
  report("random reads, dependent (latency)", accesses, cpu_seconds() - start, at);

  start = cpu_seconds();
  uint64_t sum = 0;
  constexpr uint64_t kAhead = 16;
  for (uint64_t k = 0; k < accesses; ++k) {
    const uint64_t ahead = mix(k + kAhead) % n;
#if defined(__x86_64__)
    asm volatile("prefetcht0 %0" : : "m"(array[ahead]));
#else
    __builtin_prefetch(&array[ahead]);
#endif
    sum += array[mix(k) % n];
  }
  report("random reads, independent, prefetch 16 ahead", accesses, cpu_seconds() - start, sum);

  // A visited set of about the same size: fill it as the engine does, in sorted batches.
  isr::checker::VisitedSet set;
  const uint64_t fingerprints = n * 85 / 100;
  const uint64_t rounds = 8;
  std::mt19937_64 rng(1);
  for (uint64_t r = 0; r < rounds; ++r) {
    std::vector<std::vector<uint64_t>> batches(isr::checker::VisitedSet::kShards);
    for (uint64_t i = 0; i < fingerprints / rounds; ++i) {
      const uint64_t fp = rng() | 1;
      batches[isr::checker::VisitedSet::shard_of(fp)].push_back(fp);
    }
    std::vector<size_t> incoming(isr::checker::VisitedSet::kShards);
    for (size_t s = 0; s < batches.size(); ++s) {
      std::sort(batches[s].begin(), batches[s].end());
      batches[s].erase(std::unique(batches[s].begin(), batches[s].end()), batches[s].end());
      incoming[s] = batches[s].size();
    }
    set.begin_batch(incoming);
    for (size_t s = 0; s < batches.size(); ++s) set.insert_batch(s, batches[s].data(), batches[s].size());
    set.end_batch(batches);
  }
  std::printf("visited set: %llu fingerprints, %.1f MiB\n", static_cast<unsigned long long>(set.size()),
              static_cast<double>(set.bytes()) / (1024.0 * 1024.0));
  start = cpu_seconds();
  uint64_t found = 0;
  for (uint64_t k = 0; k < accesses; ++k) {
    set.prefetch(mix(k + kAhead) | 1);
    found += set.contains(mix(k) | 1) ? 1 : 0;
  }
  report("visited set contains(), prefetch 16 ahead", accesses, cpu_seconds() - start, found);
  start = cpu_seconds();
  for (uint64_t k = 0; k < accesses; ++k) found += set.contains(mix(k) | 1) ? 1 : 0;
  report("visited set contains(), no prefetch", accesses, cpu_seconds() - start, found);
  return 0;
}
