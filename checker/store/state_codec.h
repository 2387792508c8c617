// A state as a compact, self-delimiting byte string: its XOR with a reference state, in
// the encoding of checker/store/xor_encoding.h (the one checker/store/state_store.h uses for the
// frontier).
// The distributed engine (checker/bfs/distributed_bfs.h) sends states between ranks and
// keeps its frontier in this form: ~40 bytes instead of ~500 for the Kafka state. Every
// rank uses the same reference (the model's first initial state), so encoded states are
// copied between ranks as they are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "checker/store/xor_encoding.h"

namespace isr::checker {

template <class State>
class StateCodec {
  static_assert(std::is_trivially_copyable_v<State>);
  using Encoding = XorEncoding<sizeof(State)>;

 public:
  static constexpr size_t kBytes = sizeof(State);
  static constexpr size_t kMaxEncoded = Encoding::kMaxEncoded;

  explicit StateCodec(const State& reference) { std::memcpy(reference_, &reference, kBytes); }

  // Appends the encoding of s to out (no allocation once out has grown).
  void encode(const State& s, std::vector<uint8_t>& out) const {
    const size_t start = out.size();
    out.resize(start + kMaxEncoded);
    const uint8_t* end = Encoding::encode(reinterpret_cast<const uint8_t*>(&s), reference_, out.data() + start);
    out.resize(static_cast<size_t>(end - out.data()));
  }

  // The length of the encoded state starting at `in`, without decoding it.
  static size_t encoded_size(const uint8_t* in) { return Encoding::encoded_size(in); }

  // Decodes the state starting at `in`; returns the number of bytes it took.
  size_t decode(const uint8_t* in, State& s) const {
    auto* out = reinterpret_cast<uint8_t*>(&s);
    std::memcpy(out, reference_, kBytes);
    return static_cast<size_t>(Encoding::apply(in, out) - in);
  }

 private:
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
