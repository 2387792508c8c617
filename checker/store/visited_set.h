// The set of fingerprints of every state the exhaustive search has seen.
//
// Layout: 2^kShardBits shards chosen by the top bits of the fingerprint, so that the
// BFS engine can insert into different shards from different threads without locks
// (lookups are safe while nobody inserts). All shards live in one array, backed by huge
// pages when large (large_array.h): shard s owns slots [offset(s), offset(s) + capacity
// + tail(s)). Every shard has the same capacity (they hold nearly equal counts), and all
// grow together, in place once the array is large (grow_in_place: no second array, no
// fresh pages but the added ones).
//
// Each shard is an *ordered* linear-probing table (Amble & Knuth, 1974): the home slot
// of a fingerprint is monotone in its value (fast range reduction, Lemire 2019), and
// every run of occupied slots is kept sorted. That buys three things:
//   - an unsuccessful lookup stops at the first larger fingerprint, so lookups stay short
//     at a high load factor (we grow at 0.85 instead of the usual 0.5-0.75);
//   - the capacity need not be a power of two, so we grow by 1.35x rather than 2x (and
//     round the capacity up to fill the last huge page);
//   - growing is one sequential merge pass, because every shard is already sorted.
// Together this keeps the table between ~9.4 and ~13 bytes per fingerprint (8 / load),
// which with the ~2-byte parent log meets the 16 bytes per state budget.
//
// The set is generic in the fingerprint: 64-bit (Fingerprint) or 128-bit (Fingerprint128,
// check --fingerprint 128: 16 bytes a slot, home slot and shard from the high word,
// ordered by (high, low)).
//
// 0 marks an empty slot (fingerprint.h never produces 0). The last slot of each shard
// is kept empty as a sentinel, so scans need no bounds check; a run that would reach it
// makes that shard's overflow tail longer.
//
// Inserting a batch (the engine's way, once per BFS level):
//   begin_batch(new_per_shard)   coordinator: grows every shard if one would pass the load
//   insert_batch(shard, sorted)  for EVERY shard (even with nothing to insert: a growing
//                                set moves each shard then), one thread per shard
//   end_batch(batches)           coordinator: frees the old array, fixes any overflow
// Sorted batches are why growth must be decided up front: inserting sorted fingerprints
// one by one overloads the low end of a table before any load check can see it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "checker/store/fingerprint.h"
#include "checker/store/large_array.h"

namespace isr::checker {

// GCC and Clang's 128-bit integer; __extension__ keeps -Wpedantic quiet about it.
__extension__ typedef unsigned __int128 Uint128;

inline uint64_t high_word(Fingerprint fp) { return fp; }
inline uint64_t high_word(const Fingerprint128& fp) { return fp.hi; }
inline uint64_t low_word(Fingerprint fp) { return fp; }
inline uint64_t low_word(const Fingerprint128& fp) { return fp.lo; }

template <class Fp>
class BasicVisitedSet {
 public:
  using Value = Fp;
  static constexpr int kShardBits = 8;
  static constexpr size_t kShards = size_t{1} << kShardBits;
  static constexpr double kMaxLoad = 0.85;
  static constexpr double kGrowth = 1.35;

  BasicVisitedSet() { allocate(kMinCapacity, std::vector<size_t>(kShards, TailFor(kMinCapacity))); }

  static size_t shard_of(const Fp& fp) { return static_cast<size_t>(high_word(fp) >> (64 - kShardBits)); }

  bool contains(const Fp& fp) const {
    const Fp* slot = home_slot(fp);
    while (true) {
      const Fp v = *slot;
      if (v == fp) return true;
      if (v == Fp{} || v > fp) return false;
      ++slot;
    }
  }

  // Starts loading the cache line a lookup of fp reads first. (Inline assembly on x86-64:
  // GCC 12 drops __builtin_prefetch here as dead code.)
  void prefetch(const Fp& fp) const {
    const Fp* slot = home_slot(fp);
#if defined(__x86_64__)
    asm volatile("prefetcht0 %0" : : "m"(*slot));
#else
    __builtin_prefetch(slot);
#endif
  }

  // One fingerprint (initial states, tests). Returns true when it was new.
  bool insert(const Fp& fp) {
    if (contains(fp)) return false;
    const size_t s = shard_of(fp);
    if (static_cast<double>(shards_[s].count + 1) > kMaxLoad * static_cast<double>(capacity_)) {
      const auto capacity = static_cast<size_t>(static_cast<double>(capacity_) * kGrowth) + 1;
      std::vector<size_t> tails(kShards);
      for (size_t i = 0; i < kShards; ++i) tails[i] = std::max(TailFor(capacity), shards_[i].tail);
      if (!grow_in_place(capacity, tails)) relayout_in_place(capacity, tails);
    }
    while (!insert_batch(s, &fp, 1)) {
      std::vector<size_t> tails(kShards);
      for (size_t i = 0; i < kShards; ++i) tails[i] = shards_[i].tail * (i == s ? 2 : 1);
      relayout_in_place(capacity_, tails);
    }
    return true;
  }

  // Coordinator, before a batch: `incoming[s]` bounds how many new fingerprints shard s
  // will receive. Grows all shards when one of them would pass the maximal load.
  void begin_batch(const std::vector<size_t>& incoming) {
    size_t needed = 0;
    for (size_t s = 0; s < kShards; ++s) needed = std::max(needed, shards_[s].count + incoming[s]);
    size_t capacity = capacity_;
    while (static_cast<double>(needed) > kMaxLoad * static_cast<double>(capacity)) {
      capacity = static_cast<size_t>(static_cast<double>(capacity) * kGrowth) + 1;
    }
    if (capacity == capacity_) return;
    std::vector<size_t> tails(kShards);
    for (size_t s = 0; s < kShards; ++s) tails[s] = std::max(TailFor(capacity), shards_[s].tail);
    if (grow_in_place(capacity, tails)) return;
    old_slots_ = std::move(slots_);
    old_shards_ = shards_;
    allocate(capacity, tails);
    moving_ = true;
  }

  // One thread per shard: inserts a batch of fingerprints, sorted increasing and not yet
  // in the set. Returns false when the shard's tail overflowed (end_batch repairs it).
  bool insert_batch(size_t shard, const Fp* fps, size_t n) {
    Shard& sh = shards_[shard];
    if (moving_) {
      const Shard& old = old_shards_[shard];
      sh.ok = merge_into(sh, old_slots_.data() + old.offset, old.capacity + old.tail, fps, n);
      return sh.ok;
    }
    Fp* s = slots_.data() + sh.offset;
    const size_t physical = capacity_ + sh.tail;
    sh.ok = true;
    for (size_t i = 0; i < n; ++i) {
      // The batch is sorted, but its values are ~capacity / n slots apart: too far for
      // the hardware prefetcher, so each insertion would wait for a cache miss.
      if (i + kInsertAhead < n) prefetch(fps[i + kInsertAhead]);
      const Fp fp = fps[i];
      size_t pos = home(fp);
      while (s[pos] != Fp{} && s[pos] < fp) ++pos;
      if (s[pos] == fp) continue;
      size_t empty = pos;
      while (s[empty] != Fp{}) ++empty;
      if (empty + 1 >= physical) {
        sh.ok = false;
        return false;
      }
      std::memmove(s + pos + 1, s + pos, (empty - pos) * sizeof(Fp));
      s[pos] = fp;
      ++sh.count;
    }
    return true;
  }

  // Coordinator, after a batch: `batches[s]` is what shard s was given.
  void end_batch(const std::vector<std::vector<Fp>>& batches) {
    bool overflow = false;
    for (const Shard& sh : shards_) overflow = overflow || !sh.ok;
    if (overflow) {
      // Rare: a run reached a shard's sentinel. Lay everything out again with twice the
      // tail for the shards that overflowed, from the layout the batch started from,
      // merging in every batch (fingerprints already present are skipped).
      std::vector<size_t> tails(kShards);
      for (size_t s = 0; s < kShards; ++s) tails[s] = shards_[s].ok ? shards_[s].tail : shards_[s].tail * 2;
      if (moving_) {
        relayout(capacity_, tails, old_slots_, old_shards_, &batches);
      } else {
        relayout_in_place(capacity_, tails, &batches);
      }
    }
    moving_ = false;
    old_slots_ = LargeArray<Fp>();
    old_shards_.clear();
  }

  // Appends shard s's fingerprints to `out`, in increasing order (a shard's slots are
  // sorted: see above). Not during a batch.
  void shard_values(size_t s, std::vector<Fp>& out) const {
    const Shard& sh = shards_[s];
    const Fp* from = slots_.data() + sh.offset;
    for (size_t i = 0; i < capacity_ + sh.tail; ++i) {
      if (from[i] != Fp{}) out.push_back(from[i]);
    }
  }

  size_t size() const {
    size_t n = 0;
    for (const Shard& sh : shards_) n += sh.count;
    return n;
  }
  size_t capacity() const { return capacity_ * kShards; }

  // Calls f(fp) for every fingerprint, in increasing order (shards are ordered by their
  // top bits and each is kept sorted): what a checkpoint saves (checker/bfs/checkpoint.h).
  template <class F>
  void for_each(F&& f) const {
    for (const Shard& sh : shards_) {
      const Fp* s = slots_.data() + sh.offset;
      for (size_t i = 0; i < capacity_ + sh.tail; ++i) {
        if (s[i] != Fp{}) f(s[i]);
      }
    }
  }
  // Includes the array being replaced while a batch grows the set.
  size_t bytes() const { return slots_.bytes() + old_slots_.bytes() + shards_.capacity() * sizeof(Shard) * 2; }

 private:
  static constexpr size_t kMinCapacity = 16;
  static constexpr size_t kInsertAhead = 8;
  static size_t TailFor(size_t capacity) { return 8 + capacity / 256; }

  // Written by the one thread that owns the shard during a batch: keep shards apart.
  struct alignas(64) Shard {
    size_t offset = 0;  // first slot in slots_
    size_t tail = 0;
    size_t count = 0;
    size_t capacity = 0;  // capacity_ when this layout was made (for old_shards_)
    bool ok = true;
  };

  size_t home(const Fp& fp) const { return home_for(fp, capacity_); }
  static size_t home_for(const Fp& fp, size_t capacity) {
    return static_cast<size_t>((static_cast<Uint128>(high_word(fp) << kShardBits) * capacity) >> 64);
  }
  const Fp* home_slot(const Fp& fp) const { return slots_.data() + shards_[shard_of(fp)].offset + home(fp); }

  // Memory comes in huge pages once large: spends the last page's slack on capacity.
  static size_t rounded_capacity(size_t capacity, const std::vector<size_t>& tails) {
    size_t tail_total = 0;
    for (size_t t : tails) tail_total += t;
    const size_t slots = capacity * kShards + tail_total;
    const size_t page_slots = LargeArray<Fp>::kHugePage / sizeof(Fp);
    if (slots * sizeof(Fp) >= LargeArray<Fp>::kHugeThreshold) {
      const size_t rounded = (slots + page_slots - 1) / page_slots * page_slots;
      capacity = (rounded - tail_total) / kShards;
    }
    return capacity;
  }

  // Grows every shard to `capacity` home slots inside the array it already has
  // (LargeArray::grow), without a second array: fresh pages cost far more than moving
  // values within pages already mapped (large_array.h). A first read-only pass finds
  // the tail each shard needs at the new capacity; then the shards are laid out again
  // from the last to the first. Shard s's new region starts at or after its old one
  // (capacity and tails only grow) and ends where shard s + 1's new region starts, so
  // writing it (from a copy of its values) overwrites only its own old region and
  // regions of shards already laid out; the old regions of shards before s lie below
  // it. Returns false, changing nothing, when the array is not growable or its
  // reservation is exhausted.
  bool grow_in_place(size_t capacity, std::vector<size_t> tails) {
    if (!slots_.is_growable()) return false;
    capacity = rounded_capacity(capacity, tails);
    for (size_t s = 0; s < kShards; ++s) {
      const Shard& sh = shards_[s];
      const Fp* from = slots_.data() + sh.offset;
      size_t next_free = 0;
      for (size_t i = 0; i < capacity_ + sh.tail; ++i) {
        if (from[i] == Fp{}) continue;
        next_free = std::max(home_for(from[i], capacity), next_free) + 1;
      }
      // next_free is one past the last value: the sentinel needs one more slot.
      if (next_free + 1 > capacity + tails[s]) tails[s] = next_free + 1 - capacity + TailFor(capacity);
    }
    std::vector<size_t> offsets(kShards);
    size_t total = 0;
    for (size_t s = 0; s < kShards; ++s) {
      offsets[s] = total;
      total += capacity + tails[s];
    }
    if (!slots_.grow(total)) return false;
    std::vector<Fp> values;
    for (size_t s = kShards; s-- > 0;) {
      Shard& sh = shards_[s];
      const Fp* from = slots_.data() + sh.offset;
      values.clear();
      for (size_t i = 0; i < capacity_ + sh.tail; ++i) {
        if (from[i] != Fp{}) values.push_back(from[i]);
      }
      Fp* to = slots_.data() + offsets[s];
      std::memset(static_cast<void*>(to), 0, (capacity + tails[s]) * sizeof(Fp));
      size_t next_free = 0;
      for (const Fp& v : values) {
        const size_t pos = std::max(home_for(v, capacity), next_free);
        to[pos] = v;
        next_free = pos + 1;
      }
      sh.offset = offsets[s];
      sh.tail = tails[s];
      sh.capacity = capacity;
      sh.ok = true;
    }
    capacity_ = capacity;
    return true;
  }

  void allocate(size_t capacity, const std::vector<size_t>& tails) {
    capacity = rounded_capacity(capacity, tails);
    size_t total = 0;
    shards_.resize(kShards);
    for (size_t s = 0; s < kShards; ++s) {
      shards_[s].offset = total;
      shards_[s].tail = tails[s];
      shards_[s].count = 0;
      shards_[s].capacity = capacity;
      shards_[s].ok = true;
      total += capacity + tails[s];
    }
    capacity_ = capacity;
    slots_ = LargeArray<Fp>();  // free the old array before the new one is mapped
    slots_ = LargeArray<Fp>::growable(total);
  }

  void relayout_in_place(size_t capacity, const std::vector<size_t>& tails,
                         const std::vector<std::vector<Fp>>* batches = nullptr) {
    const LargeArray<Fp> current = std::move(slots_);
    const std::vector<Shard> current_shards = shards_;
    relayout(capacity, tails, current, current_shards, batches);
  }

  // Sequential re-layout of every shard of `from` merged with its batch, retrying with
  // longer tails until every shard fits.
  void relayout(size_t capacity, std::vector<size_t> tails, const LargeArray<Fp>& from,
                const std::vector<Shard>& from_shards, const std::vector<std::vector<Fp>>* batches) {
    while (true) {
      allocate(capacity, tails);
      bool all_fit = true;
      for (size_t s = 0; s < kShards; ++s) {
        const Fp* fps = batches != nullptr ? (*batches)[s].data() : nullptr;
        const size_t n = batches != nullptr ? (*batches)[s].size() : 0;
        if (!merge_into(shards_[s], from.data() + from_shards[s].offset,
                        from_shards[s].capacity + from_shards[s].tail, fps, n)) {
          all_fit = false;
          tails[s] *= 2;
        }
      }
      if (all_fit) return;
    }
  }

  // Lays out the sorted contents of an old shard region merged with a sorted batch into
  // the (empty) region of `sh`: each value goes to max(home, previous + 1). Returns false
  // when the region's tail is too short.
  bool merge_into(Shard& sh, const Fp* from, size_t from_size, const Fp* fps, size_t n) {
    Fp* to = slots_.data() + sh.offset;
    const size_t physical = capacity_ + sh.tail;
    size_t next_free = 0;
    size_t count = 0;
    Fp last{};
    size_t i = 0;
    size_t j = 0;
    while (true) {
      while (i < from_size && from[i] == Fp{}) ++i;
      Fp v;
      if (i < from_size && (j == n || from[i] <= fps[j])) {
        v = from[i++];
      } else if (j < n) {
        v = fps[j++];
      } else {
        break;
      }
      if (v == last) continue;  // a batch entry already present
      last = v;
      const size_t pos = std::max(home(v), next_free);
      if (pos + 1 >= physical) {
        std::memset(static_cast<void*>(to), 0, physical * sizeof(Fp));
        sh.count = 0;
        return false;
      }
      to[pos] = v;
      next_free = pos + 1;
      ++count;
    }
    sh.count = count;
    return true;
  }

  size_t capacity_ = 0;  // home slots per shard
  LargeArray<Fp> slots_;
  std::vector<Shard> shards_;
  // While a batch grows the set: the previous layout, read by insert_batch.
  bool moving_ = false;
  LargeArray<Fp> old_slots_;
  std::vector<Shard> old_shards_;
};

using VisitedSet = BasicVisitedSet<Fingerprint>;
using VisitedSet128 = BasicVisitedSet<Fingerprint128>;

}  // namespace isr::checker
