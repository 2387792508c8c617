// The BFS frontier: a level's states, compressed, in chunks that threads fill in parallel.
//
// Frontier states dominate the engine's memory (the Kafka state is ~500 bytes; the
// visited set needs ~12 bytes per state). Reachable states differ from the initial state
// in few bytes (~20 of 514 for the Kafka model), so each state is stored as its XOR with
// a reference state, sparsely:
//   [bitmap: one bit per 8-byte group that differs]
//   then per differing group: [mask: one bit per differing byte] [those bytes]
// which is ~40 bytes instead of ~500 for Kafka, with encode/decode a few hundred cycles.
//
// States are addressed by their position in the level. Position i lives in chunk
// i / kChunk; each chunk is written by one thread, in order, so that the materialize
// phase can fill chunks in parallel and still produce the level in frontier order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace isr::checker {

template <class State>
class StateStore {
  static_assert(std::is_trivially_copyable_v<State>);

 public:
  static constexpr size_t kChunk = 1024;

  explicit StateStore(const State& reference) {
    std::memcpy(reference_, &reference, kBytes);
  }

  // Empties the store for a level of n states (keeps buffers for reuse).
  void reset(size_t n) {
    size_ = n;
    const size_t chunks = (n + kChunk - 1) / kChunk;
    chunks_.resize(chunks);
    for (auto& c : chunks_) c.clear();
  }

  size_t size() const { return size_; }
  size_t chunks() const { return chunks_.size(); }

  // Appends the next state of chunk `chunk` (positions chunk * kChunk, +1, ... in order).
  // One thread per chunk at a time.
  void append(size_t chunk, const State& s) { chunks_[chunk].append(s, reference_); }

  void get(size_t i, State& out) const {
    if (i >= size_) throw std::out_of_range("StateStore::get");
    chunks_[i / kChunk].get(i % kChunk, out, reference_);
  }

  // Bytes held by one chunk (safe to call from the chunk's writer).
  size_t chunk_bytes(size_t chunk) const { return chunks_[chunk].bytes(); }

  size_t bytes() const {
    size_t n = chunks_.capacity() * sizeof(Chunk);
    for (const auto& c : chunks_) n += c.bytes();
    return n;
  }

 private:
  static constexpr size_t kBytes = sizeof(State);
  static constexpr size_t kGroups = (kBytes + 7) / 8;
  static constexpr size_t kBitmapBytes = (kGroups + 7) / 8;
  static constexpr size_t kMaxEncoded = kBitmapBytes + kGroups + kBytes;

  // Group g of a state's bytes; constant-size copies for all but a partial last group,
  // so that they compile to single loads.
  static uint64_t load_group(const uint8_t* p, size_t g) {
    uint64_t v = 0;
    if (g + 1 < kGroups || kBytes % 8 == 0) {
      std::memcpy(&v, p + g * 8, 8);
    } else {
      std::memcpy(&v, p + g * 8, kBytes % 8);
    }
    return v;
  }

  struct Chunk {
    std::unique_ptr<uint8_t[]> data;
    size_t used = 0;
    size_t capacity = 0;
    std::vector<uint32_t> offsets;  // start of each state in data

    void clear() {
      used = 0;
      offsets.clear();
    }

    size_t bytes() const { return capacity + offsets.capacity() * sizeof(uint32_t); }

    void reserve_for_one() {
      if (used + kMaxEncoded <= capacity) return;
      const size_t grown = std::max(capacity * 2, used + kMaxEncoded + 4096);
      std::unique_ptr<uint8_t[]> fresh(new uint8_t[grown]);
      if (used > 0) std::memcpy(fresh.get(), data.get(), used);
      data = std::move(fresh);
      capacity = grown;
    }

    void append(const State& s, const uint8_t* reference) {
      if (offsets.size() >= kChunk) throw std::logic_error("StateStore: chunk overfull");
      reserve_for_one();
      offsets.push_back(static_cast<uint32_t>(used));
      const auto* bytes = reinterpret_cast<const uint8_t*>(&s);
      uint8_t* out = data.get() + used;
      uint8_t* bitmap = out;
      std::memset(bitmap, 0, kBitmapBytes);
      uint8_t* p = out + kBitmapBytes;
      for (size_t g = 0; g < kGroups; ++g) {
        const uint64_t diff = load_group(bytes, g) ^ load_group(reference, g);
        if (diff == 0) continue;
        bitmap[g / 8] = static_cast<uint8_t>(bitmap[g / 8] | (1u << (g % 8)));
        uint8_t* mask = p++;
        unsigned bits = 0;
        for (uint64_t rest = diff; rest != 0;) {
          const int b = __builtin_ctzll(rest) / 8;
          bits |= 1u << b;
          *p++ = static_cast<uint8_t>(diff >> (8 * b));
          rest &= ~(uint64_t{0xFF} << (8 * b));
        }
        *mask = static_cast<uint8_t>(bits);
      }
      used = static_cast<size_t>(p - data.get());
    }

    void get(size_t index, State& s, const uint8_t* reference) const {
      if (index >= offsets.size()) throw std::out_of_range("StateStore: state not written");
      auto* out = reinterpret_cast<uint8_t*>(&s);
      std::memcpy(out, reference, kBytes);
      const uint8_t* bitmap = data.get() + offsets[index];
      const uint8_t* p = bitmap + kBitmapBytes;
      for (size_t byte = 0; byte < kBitmapBytes; ++byte) {
        unsigned bits = bitmap[byte];
        while (bits != 0) {
          const size_t g = byte * 8 + static_cast<size_t>(__builtin_ctz(bits));
          bits &= bits - 1;
          unsigned mask = *p++;
          while (mask != 0) {
            const size_t b = static_cast<size_t>(__builtin_ctz(mask));
            mask &= mask - 1;
            out[g * 8 + b] ^= *p++;
          }
        }
      }
    }
  };

  uint8_t reference_[kBytes];
  size_t size_ = 0;
  std::vector<Chunk> chunks_;
};

}  // namespace isr::checker
