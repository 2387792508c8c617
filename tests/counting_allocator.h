// Counts heap allocations while enabled, for the tests that check the hot paths
// (successor generation, canonicalisation, properties, walks) do not allocate: they run
// millions of times per check. Replaces the global operator new and delete, so include it
// in exactly one translation unit of a test binary (each test source is its own binary).
// Both are replaced together (malloc/free), so sanitizers see matching pairs.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace {
std::atomic<bool> g_count_allocations{false};
std::atomic<uint64_t> g_allocations{0};
}  // namespace

// GCC cannot tell that this operator delete pairs with the operator new below.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t size) {
  if (g_count_allocations.load(std::memory_order_relaxed)) ++g_allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop
