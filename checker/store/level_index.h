// The per-level index of an append-only byte log (parent_log.h, position_log.h): where
// each BFS level's entries start in the log's bytes and how many entries it has, and
// its checkpoint form: the number of levels, a (start, count) pair per level, then the
// byte size those levels cover. One index for both logs, so that a checkpoint saves and
// checks them the same way (checker/bfs/checkpoint.h, distributed_checkpoint.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace isr::checker {

struct LevelIndex {
  std::vector<uint64_t> start;
  std::vector<uint64_t> count;

  size_t levels() const { return start.size(); }
  bool empty() const { return start.empty(); }
  void open_level(uint64_t at) {
    start.push_back(at);
    count.push_back(0);
  }
  size_t bytes() const { return start.capacity() * sizeof(uint64_t) * 2; }

  // Writes levels [0, levels) of a log of `log_size` bytes, and returns the bytes those
  // levels take, which the caller writes next. `Out` has value(v).
  template <class Out>
  uint64_t write_to(Out& out, size_t levels, uint64_t log_size, const char* log_name) const {
    if (levels > start.size()) throw std::out_of_range(std::string(log_name) + "::write_to");
    out.value(static_cast<uint64_t>(levels));
    for (size_t l = 0; l < levels; ++l) {
      out.value(start[l]);
      out.value(count[l]);
    }
    const uint64_t size = levels == start.size() ? log_size : start[levels];
    out.value(size);
    return size;
  }

  // Reads what write_to wrote into an empty index and sets `size` to the byte size that
  // follows; false when it is inconsistent (levels out of order, or past the size). `In`
  // has value<T>() and count(item_bytes), bounded by what is left to read.
  template <class In>
  bool read_from(In& in, uint64_t& size) {
    if (!start.empty()) return false;
    const uint64_t levels = in.count(2 * sizeof(uint64_t));
    for (uint64_t l = 0; l < levels; ++l) {
      const auto s = in.template value<uint64_t>();
      const auto n = in.template value<uint64_t>();
      if (!start.empty() && s < start.back()) return false;
      start.push_back(s);
      count.push_back(n);
    }
    size = in.count(1);
    return start.empty() || start.back() <= size;
  }
};

}  // namespace isr::checker
