// The sparse XOR of two states' bytes, self-delimiting (checker/store/state_store.h says why
// this layout; the distributed engine sends states between ranks in it too):
//   [top: one bit per byte of the group bitmap that is non-zero]
//   [those bitmap bytes: one bit per 8-byte group that differs]
//   then per differing group: [mask: one bit per differing byte] [those bytes]
// Encoding and decoding touch only the differing bytes and never allocate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace isr::checker {

template <size_t kStateBytes>
struct XorEncoding {
  static constexpr size_t kBytes = kStateBytes;
  static constexpr size_t kGroups = (kBytes + 7) / 8;
  static constexpr size_t kBitmapBytes = (kGroups + 7) / 8;
  static constexpr size_t kTopBytes = (kBitmapBytes + 7) / 8;
  static constexpr size_t kMaxEncoded = kTopBytes + kBitmapBytes + kGroups + kBytes;

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

  // Writes the encoding of a ^ b at out; returns its end.
  static uint8_t* encode(const uint8_t* a, const uint8_t* b, uint8_t* out) {
    uint8_t bitmap[kBitmapBytes] = {};
    uint8_t* top = out;
    std::memset(top, 0, kTopBytes);
    // The groups go first (into a scratch area after the worst-case bitmap), then the
    // bitmap bytes that are non-zero are written in front of them.
    uint8_t groups[kGroups + kBytes];
    uint8_t* p = groups;
    for (size_t g = 0; g < kGroups; ++g) {
      const uint64_t diff = load_group(a, g) ^ load_group(b, g);
      if (diff == 0) continue;
      bitmap[g / 8] = static_cast<uint8_t>(bitmap[g / 8] | (1u << (g % 8)));
      uint8_t* mask = p++;
      unsigned bits = 0;
      for (uint64_t rest = diff; rest != 0;) {
        const int byte = __builtin_ctzll(rest) / 8;
        bits |= 1u << byte;
        *p++ = static_cast<uint8_t>(diff >> (8 * byte));
        rest &= ~(uint64_t{0xFF} << (8 * byte));
      }
      *mask = static_cast<uint8_t>(bits);
    }
    uint8_t* q = out + kTopBytes;
    for (size_t i = 0; i < kBitmapBytes; ++i) {
      if (bitmap[i] == 0) continue;
      top[i / 8] = static_cast<uint8_t>(top[i / 8] | (1u << (i % 8)));
      *q++ = bitmap[i];
    }
    const auto n = static_cast<size_t>(p - groups);
    std::memcpy(q, groups, n);
    return q + n;
  }

  // XORs the encoding at p into out; returns the end of the encoding.
  static const uint8_t* apply(const uint8_t* p, uint8_t* out) {
    const uint8_t* top = p;
    p += kTopBytes;
    uint8_t bitmap[kBitmapBytes];
    size_t present = 0;
    uint8_t indices[kBitmapBytes];
    for (size_t t = 0; t < kTopBytes; ++t) {
      unsigned bits = top[t];
      while (bits != 0) {
        indices[present++] = static_cast<uint8_t>(t * 8 + static_cast<size_t>(__builtin_ctz(bits)));
        bits &= bits - 1;
      }
    }
    for (size_t k = 0; k < present; ++k) bitmap[k] = *p++;
    for (size_t k = 0; k < present; ++k) {
      unsigned bits = bitmap[k];
      const size_t base = static_cast<size_t>(indices[k]) * 8;
      while (bits != 0) {
        const size_t g = base + static_cast<size_t>(__builtin_ctz(bits));
        bits &= bits - 1;
        unsigned mask = *p++;
        while (mask != 0) {
          const size_t b = static_cast<size_t>(__builtin_ctz(mask));
          mask &= mask - 1;
          out[g * 8 + b] ^= *p++;
        }
      }
    }
    return p;
  }

  // The length of the encoding starting at p, without decoding it.
  static size_t encoded_size(const uint8_t* p) {
    const uint8_t* start = p;
    size_t present = 0;
    for (size_t t = 0; t < kTopBytes; ++t) present += static_cast<size_t>(__builtin_popcount(p[t]));
    p += kTopBytes;
    size_t groups = 0;
    for (size_t k = 0; k < present; ++k) groups += static_cast<size_t>(__builtin_popcount(*p++));
    for (size_t g = 0; g < groups; ++g) p += 1 + static_cast<size_t>(__builtin_popcount(*p));
    return static_cast<size_t>(p - start);
  }
};

}  // namespace isr::checker
