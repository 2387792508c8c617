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

namespace isr::checker {

class PositionLog {
 public:
  void begin_level() {
    level_start_.push_back(bytes_.size());
    level_count_.push_back(0);
    previous_ = 0;
  }

  void append(uint64_t position) {
    if (level_count_.back() > 0 && position <= previous_) throw std::logic_error("PositionLog: positions must increase");
    uint64_t v = position - (level_count_.back() > 0 ? previous_ : 0);
    while (v >= 0x80) {
      bytes_.push_back(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    bytes_.push_back(static_cast<uint8_t>(v));
    previous_ = position;
    ++level_count_.back();
  }

  size_t levels() const { return level_start_.size(); }

  // The local index of global position `position` in `level`, if this rank holds it.
  std::optional<uint64_t> find(size_t level, uint64_t position) const {
    if (level >= levels()) throw std::out_of_range("PositionLog::find");
    size_t pos = level_start_[level];
    uint64_t value = 0;
    for (uint64_t i = 0; i < level_count_[level]; ++i) {
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

  size_t bytes() const { return bytes_.capacity() + level_start_.capacity() * sizeof(uint64_t) * 2; }

 private:
  std::vector<uint8_t> bytes_;
  std::vector<uint64_t> level_start_;
  std::vector<uint64_t> level_count_;
  uint64_t previous_ = 0;
};

}  // namespace isr::checker
