// The BFS frontier: a level's states, compressed, in chunks that threads fill in parallel.
//
// Frontier states dominate the engine's memory (the Kafka state is ~590 bytes; the
// visited set needs ~12 bytes per state). A level is stored in BFS order, so consecutive
// states are mostly siblings (same parent, different action) or cousins: a Kafka state
// differs from the previous one in ~6 bytes, from the initial state in ~30-50. So each
// state is stored as its XOR with the previous state of its block (the first state of a
// block: with a reference state), sparsely, in a self-delimiting form:
//   [top: one bit per byte of the group bitmap that is non-zero]
//   [those bitmap bytes: one bit per 8-byte group that differs]
//   then per differing group: [mask: one bit per differing byte] [those bytes]
// ~15 bytes per Kafka state (~66 against the reference alone: 10 bytes of flat bitmap,
// and a 4-byte offset per state). Encoding and decoding touch only the differing bytes.
//
// Random access: a block of kBlock states starts against the reference, and its byte
// offset is kept (4 / kBlock bytes per state), so get(i) decodes at most kBlock states.
// The engine reads a level in increasing order (expand: runs of positions; materialize:
// non-decreasing parents), through a Reader that decodes each state from the previous one.
//
// States are addressed by their position in the level. Position i lives in chunk
// i / kChunk; each chunk is written by one thread, in order, so that the materialize
// phase can fill chunks in parallel and still produce the level in frontier order.
// seal(chunk) trims a finished chunk's buffer to its size (one reallocation per chunk,
// none per state).
//
// With delta = false each state is encoded against the reference only (the encoding of
// the first state of every block), for measuring what the delta saves (check --frontier).
//
// With a spill directory (check --spill, as TLC's disk state queue) spill() moves every
// sealed chunk's bytes to a file: a Reader then reads a chunk back with one pread when
// it first needs it (into its own buffer), so a level that does not fit in memory costs
// only its chunk table there. reset() empties the file with the store.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "checker/store/spill_file.h"
#include "checker/store/xor_encoding.h"

namespace isr::checker {

template <class State>
class StateStore {
  static_assert(std::is_trivially_copyable_v<State>);

 public:
  static constexpr size_t kChunk = 1024;
  static constexpr size_t kBlock = 64;  // states per random-access point

  explicit StateStore(const State& reference, bool delta = true) : delta_(delta) {
    std::memcpy(reference_, &reference, kBytes);
  }

  // Lets spill() move chunks to files in `dir`.
  void spill_to(const std::string& dir) { file_ = SpillFile(dir, "frontier"); }

  // Moves every chunk written so far (sealed) to the spill file. Returns the bytes moved.
  uint64_t spill() {
    uint64_t moved = 0;
    for (Chunk& c : chunks_) {
      if (c.on_disk || c.count == 0) continue;
      c.file_offset = file_.append(c.data.get(), c.used);
      moved += c.used;
      c.on_disk = true;
      c.data.reset();
      c.capacity = 0;
    }
    return moved;
  }
  uint64_t disk_bytes() const { return file_.size(); }

  // Empties the store for a level of n states (keeps buffers for reuse).
  void reset(size_t n) {
    if (file_.is_open()) file_.clear();
    size_ = n;
    const size_t chunks = (n + kChunk - 1) / kChunk;
    chunks_.resize(chunks);
    for (auto& c : chunks_) c.clear();
  }

  size_t size() const { return size_; }
  size_t chunks() const { return chunks_.size(); }

  // Appends the next state of chunk `chunk` (positions chunk * kChunk, +1, ... in order).
  // One thread per chunk at a time.
  void append(size_t chunk, const State& s) { chunks_[chunk].append(s, reference_, delta_); }

  // After the last append to a chunk: gives back the buffer's slack.
  void seal(size_t chunk) { chunks_[chunk].seal(); }

  void get(size_t i, State& out) const {
    if (i >= size_) throw std::out_of_range("StateStore::get");
    const Chunk& c = chunks_[i / kChunk];
    const size_t index = i % kChunk;
    if (index >= c.count) throw std::out_of_range("StateStore: state not written");
    auto* bytes = reinterpret_cast<uint8_t*>(&out);
    std::vector<uint8_t> loaded;
    const uint8_t* data = c.data.get();
    if (c.on_disk) {
      loaded.resize(c.used);
      file_.read(c.file_offset, loaded.data(), c.used);
      data = loaded.data();
    }
    const uint8_t* p = data + c.block_offsets[index / kBlock];
    for (size_t k = index / kBlock * kBlock; k <= index; ++k) {
      if (k % kBlock == 0 || !delta_) std::memcpy(bytes, reference_, kBytes);
      p = apply(p, bytes);
    }
  }

  // Sequential access for one thread: decodes a state from the last one it decoded when
  // that is in the same block, from the block's start otherwise.
  class Reader {
   public:
    explicit Reader(const StateStore& store) : store_(&store) {}

    const State& get(size_t i) {
      if (i == index_) return state_;
      if (i >= store_->size_) throw std::out_of_range("StateStore::Reader::get");
      const Chunk& c = store_->chunks_[i / kChunk];
      const size_t index = i % kChunk;
      if (index >= c.count) throw std::out_of_range("StateStore: state not written");
      auto* bytes = reinterpret_cast<uint8_t*>(&state_);
      size_t k;
      if (index_ != kNone && i > index_ && i / kBlock == index_ / kBlock) {
        k = index + 1 - (i - index_);
      } else {
        k = index / kBlock * kBlock;
        next_ = data_of(i / kChunk) + c.block_offsets[index / kBlock];
      }
      for (; k <= index; ++k) {
        if (k % kBlock == 0 || !store_->delta_) std::memcpy(bytes, store_->reference_, kBytes);
        next_ = apply(next_, bytes);
      }
      index_ = i;
      return state_;
    }

   private:
    static constexpr size_t kNone = std::numeric_limits<size_t>::max();
    // A chunk's bytes: in memory, or read back from the spill file into this reader's buffer.
    const uint8_t* data_of(size_t chunk) {
      const auto& c = store_->chunks_[chunk];
      if (!c.on_disk) return c.data.get();
      if (loaded_ != chunk) {
        buffer_.resize(c.used);
        store_->file_.read(c.file_offset, buffer_.data(), c.used);
        loaded_ = chunk;
      }
      return buffer_.data();
    }
    const StateStore* store_;
    std::vector<uint8_t> buffer_;
    size_t loaded_ = kNone;
    size_t index_ = kNone;
    const uint8_t* next_ = nullptr;
    State state_;
  };

  // Bytes held by one chunk (safe to call from the chunk's writer).
  size_t chunk_bytes(size_t chunk) const { return chunks_[chunk].bytes(); }

  size_t bytes() const { return chunks_.capacity() * sizeof(Chunk) + encoded_bytes(); }

  // The chunks' buffers alone (what the states cost, without the chunk table).
  size_t encoded_bytes() const {
    size_t n = 0;
    for (size_t c = 0; c < chunks_.size(); ++c) n += chunks_[c].bytes();
    return n;
  }

 private:
  using Encoding = XorEncoding<sizeof(State)>;
  static constexpr size_t kBytes = Encoding::kBytes;
  static constexpr size_t kMaxEncoded = Encoding::kMaxEncoded;
  static uint8_t* encode(const uint8_t* a, const uint8_t* b, uint8_t* out) { return Encoding::encode(a, b, out); }
  static const uint8_t* apply(const uint8_t* p, uint8_t* out) { return Encoding::apply(p, out); }

  struct Chunk {
    std::unique_ptr<uint8_t[]> data;
    size_t used = 0;
    size_t capacity = 0;
    size_t count = 0;
    std::vector<uint32_t> block_offsets;  // start of each block's first state in data
    std::unique_ptr<uint8_t[]> last;      // the previous state, while the chunk is written
    bool on_disk = false;                 // spilled: data is at file_offset in the spill file
    uint64_t file_offset = 0;

    void clear() {
      on_disk = false;
      used = 0;
      count = 0;
      block_offsets.clear();
    }

    size_t bytes() const {
      return capacity + block_offsets.capacity() * sizeof(uint32_t) + (last != nullptr ? kBytes : 0);
    }

    void reserve_for_one() {
      if (used + kMaxEncoded <= capacity) return;
      const size_t grown = std::max(capacity * 2, used + kMaxEncoded + 1024);
      resize(grown);
    }

    void resize(size_t n) {
      std::unique_ptr<uint8_t[]> fresh(new uint8_t[n]);
      if (used > 0) std::memcpy(fresh.get(), data.get(), used);
      data = std::move(fresh);
      capacity = n;
    }

    void append(const State& s, const uint8_t* reference, bool delta) {
      if (count >= kChunk) throw std::logic_error("StateStore: chunk overfull");
      reserve_for_one();
      if (last == nullptr) last.reset(new uint8_t[kBytes]);
      const auto* bytes = reinterpret_cast<const uint8_t*>(&s);
      if (count % kBlock == 0) {
        if (block_offsets.capacity() == 0) block_offsets.reserve(kChunk / kBlock);
        block_offsets.push_back(static_cast<uint32_t>(used));
      }
      const uint8_t* against = (count % kBlock == 0 || !delta) ? reference : last.get();
      uint8_t* end = encode(bytes, against, data.get() + used);
      used = static_cast<size_t>(end - data.get());
      std::memcpy(last.get(), bytes, kBytes);
      ++count;
    }

    void seal() {
      last.reset();
      if (capacity - used > used / 8) resize(used);
    }
  };

  uint8_t reference_[kBytes];
  bool delta_ = true;
  size_t size_ = 0;
  std::vector<Chunk> chunks_;
  SpillFile file_;
};

}  // namespace isr::checker
