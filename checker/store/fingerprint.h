// Fingerprints of model states, the only thing the visited set remembers: 64-bit (XXH3
// 64) or 128-bit (XXH3 128, check --fingerprint 128), for runs so large that the 64-bit
// collision estimate (states generated x distinct / 2^64) stops being negligible.
//
// The Model concept guarantees that State is trivially copyable with unique object
// representations (no padding), so equal states have equal bytes and hashing the bytes
// is sound. XXH3 is the fastest good-quality hash for inputs of a few hundred bytes.
//
// Zero is reserved as the visited set's "empty slot" marker, so a fingerprint that
// hashes to zero is remapped to one (this merges two of 2^64 values: negligible, and
// covered by the collision estimate).
#pragma once

#include <compare>
#include <cstdint>
#include <type_traits>

// Inlined: states have a size known at compile time, which XXH3 specialises on, and the
// call sits on the hottest path.
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace isr::checker {

using Fingerprint = uint64_t;

// Ordered by (hi, lo): the visited set takes its shard and home slot from hi.
struct Fingerprint128 {
  uint64_t hi = 0;
  uint64_t lo = 0;
  friend bool operator==(const Fingerprint128&, const Fingerprint128&) = default;
  friend auto operator<=>(const Fingerprint128&, const Fingerprint128&) = default;
};
static_assert(sizeof(Fingerprint128) == 16 && std::has_unique_object_representations_v<Fingerprint128>);

// log2 of the number of fingerprint values, for the collision estimate.
template <class Fp>
inline constexpr int kFingerprintBits = 8 * static_cast<int>(sizeof(Fp));

inline Fingerprint fingerprint_bytes(const void* data, std::size_t size) {
  const Fingerprint h = XXH3_64bits(data, size);
  return h == 0 ? 1 : h;
}

template <class State>
Fingerprint fingerprint(const State& s) {
  static_assert(std::is_trivially_copyable_v<State>);
  static_assert(std::has_unique_object_representations_v<State>,
                "fingerprints hash the bytes: padding would make equal states differ");
  return fingerprint_bytes(&s, sizeof(State));
}

inline Fingerprint128 fingerprint128_bytes(const void* data, std::size_t size) {
  const XXH128_hash_t h = XXH3_128bits(data, size);
  Fingerprint128 fp{h.high64, h.low64};
  if (fp.hi == 0 && fp.lo == 0) fp.lo = 1;
  return fp;
}

// The fingerprint of a state at the width the engine runs with.
template <class Fp, class State>
Fp fingerprint_as(const State& s) {
  static_assert(std::is_trivially_copyable_v<State>);
  static_assert(std::has_unique_object_representations_v<State>,
                "fingerprints hash the bytes: padding would make equal states differ");
  if constexpr (std::is_same_v<Fp, Fingerprint128>) {
    return fingerprint128_bytes(&s, sizeof(State));
  } else {
    static_assert(std::is_same_v<Fp, Fingerprint>);
    return fingerprint_bytes(&s, sizeof(State));
  }
}

// The fingerprint of a state's first `bytes` bytes (a model whose states are zero past
// a prefix: checker/hooks.h, HasStatePrefix), at the width the engine runs with.
template <class Fp, class State>
Fp fingerprint_prefix_as(const State& s, std::size_t bytes) {
  static_assert(std::has_unique_object_representations_v<State>,
                "fingerprints hash the bytes: padding would make equal states differ");
  if constexpr (std::is_same_v<Fp, Fingerprint128>) {
    return fingerprint128_bytes(&s, bytes);
  } else {
    static_assert(std::is_same_v<Fp, Fingerprint>);
    return fingerprint_bytes(&s, bytes);
  }
}

// A second hash, independent of the first (different seed), for tests and tools that
// want to detect actual fingerprint collisions rather than estimate them.
template <class State>
uint64_t secondary_hash(const State& s) {
  return XXH3_64bits_withSeed(&s, sizeof(State), 0x9E3779B97F4A7C15ull);
}

}  // namespace isr::checker
