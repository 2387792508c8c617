// A state as a compact, self-delimiting byte string: its XOR with a reference state,
// sparsely (the layout checker/state_store.h uses for the frontier):
//   [bitmap: one bit per 8-byte group that differs]
//   then per differing group: [mask: one bit per differing byte] [those bytes]
// The distributed engine (checker/distributed_bfs.h) sends states between ranks and
// keeps its frontier in this form: ~40 bytes instead of ~500 for the Kafka state. Every
// rank uses the same reference (the model's first initial state), so encoded states are
// copied between ranks as they are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace isr::checker {

template <class State>
class StateCodec {
  static_assert(std::is_trivially_copyable_v<State>);

 public:
  static constexpr size_t kBytes = sizeof(State);
  static constexpr size_t kGroups = (kBytes + 7) / 8;
  static constexpr size_t kBitmapBytes = (kGroups + 7) / 8;
  static constexpr size_t kMaxEncoded = kBitmapBytes + kGroups + kBytes;

  explicit StateCodec(const State& reference) { std::memcpy(reference_, &reference, kBytes); }

  // Appends the encoding of s to out (no allocation once out has grown).
  void encode(const State& s, std::vector<uint8_t>& out) const {
    const size_t start = out.size();
    out.resize(start + kMaxEncoded);
    uint8_t* bitmap = out.data() + start;
    std::memset(bitmap, 0, kBitmapBytes);
    uint8_t* p = bitmap + kBitmapBytes;
    const auto* bytes = reinterpret_cast<const uint8_t*>(&s);
    for (size_t g = 0; g < kGroups; ++g) {
      const uint64_t diff = load_group(bytes, g) ^ load_group(reference_, g);
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
    out.resize(static_cast<size_t>(p - out.data()));
  }

  // The length of the encoded state starting at `in`, without decoding it.
  static size_t encoded_size(const uint8_t* in) {
    size_t groups = 0;
    for (size_t byte = 0; byte < kBitmapBytes; ++byte) groups += static_cast<size_t>(__builtin_popcount(in[byte]));
    const uint8_t* p = in + kBitmapBytes;
    for (size_t g = 0; g < groups; ++g) p += 1 + static_cast<size_t>(__builtin_popcount(*p));
    return static_cast<size_t>(p - in);
  }

  // Decodes the state starting at `in`; returns the number of bytes it took.
  size_t decode(const uint8_t* in, State& s) const {
    auto* out = reinterpret_cast<uint8_t*>(&s);
    std::memcpy(out, reference_, kBytes);
    const uint8_t* p = in + kBitmapBytes;
    for (size_t byte = 0; byte < kBitmapBytes; ++byte) {
      unsigned bits = in[byte];
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
    return static_cast<size_t>(p - in);
  }

 private:
  static uint64_t load_group(const uint8_t* p, size_t g) {
    uint64_t v = 0;
    if (g + 1 < kGroups || kBytes % 8 == 0) {
      std::memcpy(&v, p + g * 8, 8);
    } else {
      std::memcpy(&v, p + g * 8, kBytes % 8);
    }
    return v;
  }

  uint8_t reference_[kBytes];
};

// States appended one after the other in encoded form, addressed by their index.
template <class State>
class EncodedStates {
 public:
  void clear() {
    bytes_.clear();
    offsets_.clear();
  }
  size_t size() const { return offsets_.size(); }
  // Appends an already encoded state of `n` bytes.
  void append(const uint8_t* encoded, size_t n) {
    offsets_.push_back(bytes_.size());
    bytes_.insert(bytes_.end(), encoded, encoded + n);
  }
  const uint8_t* at(size_t i) const { return bytes_.data() + offsets_[i]; }
  size_t bytes() const { return bytes_.capacity() + offsets_.capacity() * sizeof(uint64_t); }

 private:
  std::vector<uint8_t> bytes_;
  std::vector<uint64_t> offsets_;
};

}  // namespace isr::checker
