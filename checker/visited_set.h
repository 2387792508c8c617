// The set of fingerprints of every state the exhaustive search has seen.
//
// Layout: 2^kShardBits independent shards chosen by the top bits of the fingerprint,
// so that the BFS engine can insert into different shards from different threads
// without locks (and concurrent lookups are safe while nobody inserts).
//
// Each shard is an *ordered* linear-probing table (Amble & Knuth, 1974): the home slot
// of a fingerprint is monotone in its value (fast range reduction, Lemire 2019), and
// every run of occupied slots is kept sorted. That buys three things:
//   - an unsuccessful lookup stops at the first larger fingerprint, so lookups stay short
//     at a high load factor (we grow at 0.85 instead of the usual 0.5-0.75);
//   - the capacity need not be a power of two, so we grow by 1.5x rather than 2x;
//   - rehashing is one sequential pass, because the old table is already sorted.
// Together this keeps the table between 9.4 and 14.1 bytes per fingerprint (8 / load),
// which with the ~2-byte parent log meets the 16 bytes per state budget.
//
// 0 marks an empty slot (fingerprint.h never produces 0). The last physical slot is
// kept empty as a sentinel, so scans need no bounds check; runs that would reach it
// trigger a rebuild with a larger overflow tail.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "checker/fingerprint.h"

namespace isr::checker {

// GCC and Clang's 128-bit integer; __extension__ keeps -Wpedantic quiet about it.
__extension__ typedef unsigned __int128 Uint128;

class VisitedShard {
 public:
  // `shift` drops the shard-selection bits, so the home slot uses the remaining ones.
  explicit VisitedShard(int shift = 0) : shift_(shift) { rebuild(kMinCapacity, TailFor(kMinCapacity)); }

  VisitedShard(VisitedShard&&) noexcept = default;
  VisitedShard& operator=(VisitedShard&&) noexcept = default;

  bool contains(Fingerprint fp) const {
    const uint64_t* slot = slots_.get() + home(fp);
    while (true) {
      const uint64_t v = *slot;
      if (v == fp) return true;
      if (v == 0 || v > fp) return false;
      ++slot;
    }
  }

  // Starts loading the cache line a lookup of fp will read first.
  void prefetch(Fingerprint fp) const { __builtin_prefetch(slots_.get() + home(fp)); }

  // Returns true when fp was not in the shard (and now is).
  bool insert(Fingerprint fp) {
    while (true) {
      size_t pos = home(fp);
      uint64_t* s = slots_.get();
      while (s[pos] != 0 && s[pos] < fp) ++pos;
      if (s[pos] == fp) return false;
      size_t empty = pos;
      while (s[empty] != 0) ++empty;
      if (empty + 1 >= physical_) {  // would fill the sentinel: make the tail longer
        rebuild(capacity_, tail_ * 2);
        continue;
      }
      std::memmove(s + pos + 1, s + pos, (empty - pos) * sizeof(uint64_t));
      s[pos] = fp;
      ++count_;
      if (count_ > static_cast<size_t>(kMaxLoad * static_cast<double>(capacity_))) {
        const size_t grown = capacity_ + capacity_ / 2;
        rebuild(grown, TailFor(grown));
      }
      return true;
    }
  }

  size_t size() const { return count_; }
  size_t capacity() const { return capacity_; }
  size_t bytes() const { return physical_ * sizeof(uint64_t); }

 private:
  static constexpr size_t kMinCapacity = 16;
  static constexpr double kMaxLoad = 0.85;
  static size_t TailFor(size_t capacity) { return 8 + capacity / 256; }

  size_t home(Fingerprint fp) const {
    return static_cast<size_t>((static_cast<Uint128>(fp << shift_) * capacity_) >> 64);
  }

  // Re-lays every fingerprint into a table of `capacity` home slots plus `tail` overflow
  // slots. The old contents are sorted, so each goes to max(home, previous + 1).
  void rebuild(size_t capacity, size_t tail) {
    while (true) {
      const size_t physical = capacity + tail;
      std::unique_ptr<uint64_t[]> fresh(new uint64_t[physical]());
      const size_t old_capacity = capacity_;
      capacity_ = capacity;  // home() reads it
      bool fits = true;
      size_t next_free = 0;
      for (size_t i = 0; i < physical_ && fits; ++i) {
        const uint64_t v = slots_[i];
        if (v == 0) continue;
        const size_t pos = std::max(home(v), next_free);
        if (pos + 1 >= physical) {
          fits = false;
          break;
        }
        fresh[pos] = v;
        next_free = pos + 1;
      }
      if (!fits) {
        capacity_ = old_capacity;
        tail *= 2;
        continue;
      }
      slots_ = std::move(fresh);
      physical_ = physical;
      tail_ = tail;
      return;
    }
  }

  int shift_ = 0;
  size_t capacity_ = 0;
  size_t tail_ = 0;
  size_t physical_ = 0;
  size_t count_ = 0;
  std::unique_ptr<uint64_t[]> slots_;
};

class VisitedSet {
 public:
  static constexpr int kShardBits = 8;
  static constexpr size_t kShards = size_t{1} << kShardBits;

  VisitedSet() {
    shards_.reserve(kShards);
    for (size_t i = 0; i < kShards; ++i) shards_.emplace_back(kShardBits);
  }

  static size_t shard_of(Fingerprint fp) { return static_cast<size_t>(fp >> (64 - kShardBits)); }

  bool contains(Fingerprint fp) const { return shards_[shard_of(fp)].shard.contains(fp); }
  void prefetch(Fingerprint fp) const { shards_[shard_of(fp)].shard.prefetch(fp); }
  bool insert(Fingerprint fp) { return shards_[shard_of(fp)].shard.insert(fp); }

  // Direct access for the engine: one thread per shard at a time.
  VisitedShard& shard(size_t i) { return shards_[i].shard; }

  size_t size() const {
    size_t n = 0;
    for (const auto& s : shards_) n += s.shard.size();
    return n;
  }
  size_t bytes() const {
    size_t n = sizeof(*this) + shards_.capacity() * sizeof(PaddedShard);
    for (const auto& s : shards_) n += s.shard.bytes();
    return n;
  }

 private:
  // Shards are inserted into by different threads: keep their counters apart.
  struct alignas(64) PaddedShard {
    explicit PaddedShard(int shift) : shard(shift) {}
    VisitedShard shard;
  };
  std::vector<PaddedShard> shards_;
};

}  // namespace isr::checker
