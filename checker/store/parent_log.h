// How each distinct state was first reached: its parent and the action taken.
//
// The BFS engine numbers states in discovery order, level by level. Within a level the
// states are sorted by (parent position in the previous level, action index), so the
// parent positions are non-decreasing: we store each as the delta from the previous
// state's parent, followed by the action index, both as LEB128 varints. Most entries
// take 2 bytes (siblings have delta 0, action indices are small), versus 8-16 bytes for
// explicit (parent id, action) pairs.
//
// Entries are only ever read to rebuild one counterexample, by decoding a level from its
// start: O(distinct states) once, which is nothing next to the search itself.
//
// For level 0 (initial states) the "action index" is the position of the state in
// model.initial_states() and the parent delta is 0.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "checker/store/level_index.h"

namespace isr::checker {

class ParentLog {
 public:
  struct Entry {
    uint64_t parent_index;  // position of the parent in the previous level
    uint32_t action_index;  // position of the action in for_each_action order
  };

  // Starts the next level (the first call starts level 0).
  void begin_level() {
    index_.open_level(size_);
    previous_parent_ = 0;
  }

  void append(uint64_t parent_index, uint32_t action_index) {
    if (parent_index < previous_parent_) throw std::logic_error("ParentLog: parents must be non-decreasing within a level");
    put_varint(parent_index - previous_parent_);
    put_varint(action_index);
    previous_parent_ = parent_index;
    ++index_.count.back();
  }

  // A level's entries encoded on several threads (the BFS engine's way): each thread
  // encodes a slice into a buffer of its own, entry after entry, starting from the
  // parent of the entry before the slice (0 at the level's start); append_encoded() then
  // appends the buffers in order. The log holds the bytes append() would have written.
  static void encode(std::vector<uint8_t>& out, uint64_t previous_parent, uint64_t parent_index,
                     uint32_t action_index) {
    if (parent_index < previous_parent) throw std::logic_error("ParentLog: parents must be non-decreasing within a level");
    encode_varint(out, parent_index - previous_parent);
    encode_varint(out, action_index);
  }
  void append_encoded(const std::vector<uint8_t>& bytes, uint64_t entries, uint64_t last_parent) {
    for (size_t at = 0; at < bytes.size();) {
      if (blocks_.empty() || size_ == blocks_.back().start + blocks_.back().size) add_block();
      Block& last = blocks_.back();
      const size_t room = static_cast<size_t>(last.start + last.size - size_);
      const size_t n = std::min(room, bytes.size() - at);
      std::memcpy(last.data.get() + (size_ - last.start), bytes.data() + at, n);
      at += n;
      size_ += n;
    }
    if (entries != 0) previous_parent_ = last_parent;
    index_.count.back() += entries;
  }

  size_t levels() const { return index_.levels(); }
  uint64_t level_size(size_t level) const { return index_.count.at(level); }

  Entry entry(size_t level, uint64_t index) const {
    if (level >= levels() || index >= index_.count[level]) throw std::out_of_range("ParentLog::entry");
    uint64_t pos = index_.start[level];
    uint64_t parent = 0;
    uint64_t action = 0;
    for (uint64_t i = 0; i <= index; ++i) {
      parent += get_varint(pos);
      action = get_varint(pos);
    }
    return Entry{parent, static_cast<uint32_t>(action)};
  }

  // Bytes allocated (blocks are filled before the next is allocated).
  size_t bytes() const {
    size_t n = 0;
    for (const auto& b : blocks_) n += b.size;
    return n + index_.bytes();
  }
  size_t bytes_used() const { return size_; }

  // Saves the log into a checkpoint (checker/bfs/checkpoint.h), between levels. `Out` has
  // value(v) and put(data, n).
  template <class Out>
  void write_to(Out& out) const {
    write_to(out, levels());
  }
  // Only levels [0, levels): the distributed engine, stopped in the middle of a level,
  // saves the boundary before it (checker/bfs/distributed_checkpoint.h).
  template <class Out>
  void write_to(Out& out, size_t levels) const {
    const uint64_t size = index_.write_to(out, levels, size_, "ParentLog");
    uint64_t left = size;
    for (const Block& b : blocks_) {
      const uint64_t n = std::min<uint64_t>(left, b.size);
      out.put(b.data.get(), static_cast<size_t>(n));
      left -= n;
    }
  }

  // Restores what write_to saved into an empty log; false when it is inconsistent. `In`
  // has value<T>(), count(item_bytes) (bounded by what is left to read) and get(data, n).
  template <class In>
  bool read_from(In& in) {
    if (!blocks_.empty() || !index_.empty()) return false;
    uint64_t size = 0;
    if (!index_.read_from(in, size)) return false;
    for (uint64_t at = 0; at < size;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(size - at, kMaxBlock));
      blocks_.push_back(Block{std::unique_ptr<uint8_t[]>(new uint8_t[n]), n, at});
      in.get(blocks_.back().data.get(), n);
      at += n;
    }
    size_ = size;
    previous_parent_ = 0;
    return true;
  }

 private:
  static constexpr size_t kFirstBlock = 4096;
  static constexpr size_t kMaxBlock = size_t{1} << 20;

  struct Block {
    std::unique_ptr<uint8_t[]> data;
    size_t size;
    uint64_t start;  // global byte position of data[0]
  };

  void add_block() {
    const size_t next = blocks_.empty() ? kFirstBlock : std::min(kMaxBlock, blocks_.back().size * 2);
    blocks_.push_back(Block{std::unique_ptr<uint8_t[]>(new uint8_t[next]), next, size_});
  }

  void put_byte(uint8_t b) {
    if (blocks_.empty() || size_ == blocks_.back().start + blocks_.back().size) add_block();
    Block& last = blocks_.back();
    last.data[size_ - last.start] = b;
    ++size_;
  }

  void put_varint(uint64_t v) {
    while (v >= 0x80) {
      put_byte(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    put_byte(static_cast<uint8_t>(v));
  }

  static void encode_varint(std::vector<uint8_t>& out, uint64_t v) {
    while (v >= 0x80) {
      out.push_back(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    out.push_back(static_cast<uint8_t>(v));
  }

  uint8_t byte_at(uint64_t pos) const {
    // Blocks are few (they double up to 1 MiB): find by binary search on start.
    size_t lo = 0, hi = blocks_.size();
    while (hi - lo > 1) {
      const size_t mid = (lo + hi) / 2;
      if (blocks_[mid].start <= pos) lo = mid; else hi = mid;
    }
    return blocks_[lo].data[pos - blocks_[lo].start];
  }

  uint64_t get_varint(uint64_t& pos) const {
    uint64_t v = 0;
    int shift = 0;
    while (true) {
      const uint8_t b = byte_at(pos++);
      v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if (!(b & 0x80)) return v;
      shift += 7;
    }
  }

  std::vector<Block> blocks_;
  uint64_t size_ = 0;
  LevelIndex index_;
  uint64_t previous_parent_ = 0;
};

}  // namespace isr::checker
