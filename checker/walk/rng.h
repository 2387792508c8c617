// The pseudo-random generator of the random-walk engine.
//
// SplitMix64 (Steele, Lea, Flood 2014): one 64-bit word of state, passes BigCrush, and
// is cheap enough to be invisible next to successor generation. Its real job here is
// reproducibility: each walk gets its own generator derived from (seed, walk index)
// alone, so a walk draws the same numbers whichever thread runs it and whatever ran
// before it. That is what makes `simulate` give identical results for any thread count.
#pragma once

#include <cstdint>

namespace isr::checker {

// The SplitMix64 output function: a bijective 64-bit mixer.
constexpr uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

class SplitMix64 {
 public:
  explicit constexpr SplitMix64(uint64_t seed) : state_(seed) {}

  // The generator of walk `walk_index` of a run seeded with `seed`. Mixing the index
  // before combining keeps neighbouring walks (i, i+1) from starting on neighbouring
  // points of the same sequence.
  static constexpr SplitMix64 for_walk(uint64_t seed, uint64_t walk_index) {
    return SplitMix64(mix64(seed) ^ mix64(walk_index + 0x632BE59BD9B4E019ULL));
  }

  constexpr uint64_t next() {
    state_ += 0x9E3779B97F4A7C15ULL;
    return mix64(state_);
  }

  // Uniform in [0, bound), bound > 0. Lemire's multiply-shift; the bias (at most
  // bound / 2^64) is irrelevant for choosing among a few hundred actions.
  constexpr uint32_t below(uint32_t bound) {
    return static_cast<uint32_t>(((next() >> 32) * static_cast<uint64_t>(bound)) >> 32);
  }

  // Uniform in [0, 1) with 53 random bits.
  constexpr double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

}  // namespace isr::checker
