// Per BFS level, the global frontier positions of the states one rank of the
// distributed engine owns (checker/bfs/distributed_bfs.h), in increasing order, as LEB128
// varints of their differences: about one byte per state. Read only to rebuild a
// counterexample: "which of my states of level l has global position p?", by decoding
// the level from its start (once per trace step, like ParentLog::entry).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include "checker/store/level_index.h"

namespace isr::checker {

class PositionLog {
 public:
  void begin_level() {
    index_.open_level(bytes_.size());
    previous_ = 0;
  }

  void append(uint64_t position) {
    if (index_.count.back() > 0 && position <= previous_) throw std::logic_error("PositionLog: positions must increase");
    uint64_t v = position - (index_.count.back() > 0 ? previous_ : 0);
    while (v >= 0x80) {
      bytes_.push_back(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    bytes_.push_back(static_cast<uint8_t>(v));
    previous_ = position;
    ++index_.count.back();
  }

  size_t levels() const { return index_.levels(); }

  // The local index of global position `position` in `level`, if this rank holds it.
  std::optional<uint64_t> find(size_t level, uint64_t position) const {
    if (level >= levels()) throw std::out_of_range("PositionLog::find");
    size_t pos = index_.start[level];
    uint64_t value = 0;
    for (uint64_t i = 0; i < index_.count[level]; ++i) {
      uint64_t delta = 0;
      int shift = 0;
      while (true) {
        const uint8_t b = bytes_[pos++];
        delta |= static_cast<uint64_t>(b & 0x7F) << shift;
        if (!(b & 0x80)) break;
        shift += 7;
      }
      value += delta;
      if (value == position) return i;
      if (value > position) return std::nullopt;
    }
    return std::nullopt;
  }

  size_t bytes() const { return bytes_.capacity() + index_.bytes(); }

  // Saves levels [0, levels) into a checkpoint (checker/bfs/distributed_checkpoint.h).
  // `Out` has value(v) and put(data, n).
  template <class Out>
  void write_to(Out& out, size_t levels) const {
    const uint64_t size = index_.write_to(out, levels, bytes_.size(), "PositionLog");
    out.put(bytes_.data(), static_cast<size_t>(size));
  }

  // Restores what write_to saved into an empty log; false when it is inconsistent. `In`
  // has value<T>(), count(item_bytes) (bounded by what is left to read) and get(data, n).
  template <class In>
  bool read_from(In& in) {
    if (!index_.empty() || !bytes_.empty()) return false;
    uint64_t size = 0;
    if (!index_.read_from(in, size)) return false;
    bytes_.resize(static_cast<size_t>(size));
    in.get(bytes_.data(), bytes_.size());
    // Each entry takes at least one byte: a level cannot claim more than its bytes.
    for (size_t l = 0; l < index_.levels(); ++l) {
      const uint64_t end = l + 1 < index_.levels() ? index_.start[l + 1] : size;
      if (index_.count[l] > end - index_.start[l]) return false;
    }
    if (size > 0 && (bytes_.back() & 0x80) != 0) return false;  // a varint cut short
    previous_ = 0;
    return true;
  }

 private:
  std::vector<uint8_t> bytes_;
  LevelIndex index_;
  uint64_t previous_ = 0;
};

}  // namespace isr::checker
