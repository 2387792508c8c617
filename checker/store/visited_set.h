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
//
// Growing in place is a pass over the whole set; on the coordinator it was a quarter of
// the toy model's CPU time, which a second thread could not share (issue 27, item 2).
// The engine therefore grows it on its workers (plan_batch() and the calls after it):
// the read-only pass that sizes each shard's tail and the first touch of the fresh pages
// (which the kernel zeroes) split into tasks, then the move split into groups of shards
// (growth_groups.h), with the layout one thread gives.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include "checker/store/fingerprint.h"
#include "checker/store/growth_groups.h"
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
    if (!plan_batch(incoming)) return;
    for (size_t i = 0; i < growth_tasks(); ++i) prepare_growth(i);
    if (layout_growth(1) == 1) move_growth(0);
    finish_growth();
  }

  // ---- Growing in place on several threads (the BFS engine's way) ---------------------
  // plan_batch(incoming) is begin_batch() for a caller with workers. When the set must
  // grow in place it only starts the growth and returns true; the caller then runs
  //   prepare_growth(i) for every i < growth_tasks(), on any threads (read-only on the
  //       set: each shard's tail at the new capacity, the first touch of fresh pages);
  //   n = layout_growth(threads), on one thread (0: the array could not grow in place,
  //       and the batch moves the set instead, as begin_batch would);
  //   move_growth(g) for every g < n, each on its own thread, all at the same time
  //       (group g waits for what group g - 1 copies out for it: growth_groups.h);
  //   finish_growth(), on one thread;
  // and then inserts the batch as after begin_batch(). The layout, hence every probe,
  // is the one begin_batch() gives, for any number of groups.
  bool plan_batch(const std::vector<size_t>& incoming) {
    size_t needed = 0;
    for (size_t s = 0; s < kShards; ++s) needed = std::max(needed, shards_[s].count + incoming[s]);
    size_t capacity = capacity_;
    while (static_cast<double>(needed) > kMaxLoad * static_cast<double>(capacity)) {
      capacity = static_cast<size_t>(static_cast<double>(capacity) * kGrowth) + 1;
    }
    if (capacity == capacity_) return false;
    std::vector<size_t> tails(kShards);
    for (size_t s = 0; s < kShards; ++s) tails[s] = std::max(TailFor(capacity), shards_[s].tail);
    if (start_growth(capacity, tails)) return true;
    old_slots_ = std::move(slots_);
    old_shards_ = shards_;
    allocate(capacity, tails);
    moving_ = true;
    return false;
  }

  size_t growth_tasks() const { return growth_ ? kShards + growth_->fresh_slices : 0; }

  void prepare_growth(size_t task) {
    Growth& g = *growth_;
    if (task >= kShards) {
      // One write per 4 KiB page (the kernel zeroes the whole page, or huge page, then).
      const size_t per_slice = kFreshSlice / sizeof(Fp);
      const size_t begin = g.fresh_begin + (task - kShards) * per_slice;
      const size_t end = std::min(g.fresh_end, begin + per_slice);
      Fp* s = slots_.data();
      for (size_t i = begin; i < end; i += 4096 / sizeof(Fp)) s[i] = Fp{};
      return;
    }
    const Shard& sh = shards_[task];
    const Fp* from = slots_.data() + sh.offset;
    size_t next_free = 0;
    for (size_t i = 0; i < capacity_ + sh.tail; ++i) {
      if (from[i] == Fp{}) continue;
      next_free = std::max(home_for(from[i], g.capacity), next_free) + 1;
    }
    // next_free is one past the last value: the sentinel needs one more slot.
    if (next_free + 1 > g.capacity + g.tails[task]) g.tails[task] = next_free + 1 - g.capacity + TailFor(g.capacity);
  }

  size_t layout_growth(size_t threads) {
    if (layout(threads)) return growth_->groups.count();
    const size_t capacity = growth_->capacity;
    const std::vector<size_t> tails = growth_->tails;
    growth_.reset();
    old_slots_ = std::move(slots_);
    old_shards_ = shards_;
    allocate(capacity, tails);
    moving_ = true;
    return 0;
  }

  void move_growth(size_t group) {
    Growth& g = *growth_;
    const size_t begin = g.groups.first[group];
    const size_t end = g.groups.first[group + 1];
    if (group + 1 < g.groups.count()) {
      // The next group's first shards, which this group's new regions cover.
      std::vector<Fp>& out = g.saved[group + 1];
      for (size_t s = end; s < g.groups.saved_end[group + 1]; ++s) {
        const Fp* from = slots_.data() + g.old_offset[s];
        for (size_t i = 0; i < g.old_physical[s]; ++i) {
          if (from[i] != Fp{}) out.push_back(from[i]);
        }
      }
      g.ready[group + 1].store(true, std::memory_order_release);
      g.ready[group + 1].notify_all();
    }
    std::vector<Fp>& values = g.values[group];
    for (size_t s = end; s-- > begin;) {
      const Fp* from;
      size_t n;
      if (s < g.groups.saved_end[group]) {
        g.ready[group].wait(false, std::memory_order_acquire);
        const size_t k = s - begin;
        from = g.saved[group].data() + g.saved_at[group][k];
        n = g.saved_at[group][k + 1] - g.saved_at[group][k];
      } else {
        values.clear();
        const Fp* old = slots_.data() + g.old_offset[s];
        for (size_t i = 0; i < g.old_physical[s]; ++i) {
          if (old[i] != Fp{}) values.push_back(old[i]);
        }
        from = values.data();
        n = values.size();
      }
      Fp* to = slots_.data() + g.offset[s];
      std::memset(static_cast<void*>(to), 0, (g.capacity + g.tails[s]) * sizeof(Fp));
      size_t next_free = 0;
      for (size_t i = 0; i < n; ++i) {
        const size_t pos = std::max(home_for(from[i], g.capacity), next_free);
        to[pos] = from[i];
        next_free = pos + 1;
      }
      Shard& sh = shards_[s];
      sh.offset = g.offset[s];
      sh.tail = g.tails[s];
      sh.capacity = g.capacity;
      sh.ok = true;
    }
  }

  void finish_growth() {
    if (!growth_) return;
    capacity_ = growth_->capacity;
    growth_.reset();
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
  // Includes the array being replaced while a batch grows the set, and what a growth in
  // place on several threads copies out.
  size_t bytes() const {
    size_t n = slots_.bytes() + old_slots_.bytes() + shards_.capacity() * sizeof(Shard) * 2;
    if (growth_) {
      for (const auto& v : growth_->saved) n += v.capacity() * sizeof(Fp);
      for (const auto& v : growth_->values) n += v.capacity() * sizeof(Fp);
    }
    return n;
  }

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
  // the tail each shard needs at the new capacity (prepare_growth); then the shards are
  // laid out again from the last to the first (move_growth with one group). Shard s's
  // new region starts at or after its old one (capacity and tails only grow) and ends
  // where shard s + 1's new region starts, so writing it (from a copy of its values)
  // overwrites only its own old region and regions of shards already laid out; the old
  // regions of shards before s lie below it. Returns false, moving nothing, when the
  // array is not growable or its reservation is exhausted.
  bool grow_in_place(size_t capacity, const std::vector<size_t>& tails) {
    if (!start_growth(capacity, tails)) return false;
    for (size_t i = 0; i < growth_tasks(); ++i) prepare_growth(i);
    if (!layout(1)) {
      growth_.reset();
      return false;
    }
    move_growth(0);
    finish_growth();
    return true;
  }

  // A growth in place under way (see plan_batch()).
  struct Growth {
    size_t capacity = 0;                 // home slots per shard, new
    std::vector<size_t> tails;           // new, per shard (prepare_growth raises them)
    std::vector<size_t> old_offset;      // per shard, and then the old total
    std::vector<size_t> old_physical;    // per shard: capacity + tail, old
    std::vector<size_t> offset;          // per shard, and then the new total
    size_t fresh_begin = 0;              // slots never touched before this growth
    size_t fresh_end = 0;
    size_t fresh_slices = 0;
    GrowthGroups groups;
    std::vector<std::vector<Fp>> saved;         // per group: its first shards' values, copied out
    std::vector<std::vector<size_t>> saved_at;  // where each of those shards starts in it, and the end
    std::unique_ptr<std::atomic<bool>[]> ready;  // per group: `saved` is complete
    std::vector<std::vector<Fp>> values;         // per group: one shard's values while it moves
  };
  static constexpr size_t kFreshSlice = size_t{4} << 20;  // bytes of fresh pages per task

  // Starts growing to `capacity` (rounded up to fill the last huge page) with at least
  // `tails`: commits what the new layout needs at the least, for prepare_growth to touch.
  bool start_growth(size_t capacity, const std::vector<size_t>& tails) {
    if (!slots_.is_growable()) return false;
    capacity = rounded_capacity(capacity, tails);
    size_t least = capacity * kShards;
    for (const size_t t : tails) least += t;
    const size_t before = slots_.size();
    if (least > before && !slots_.grow(least)) return false;
    auto g = std::make_unique<Growth>();
    g->capacity = capacity;
    g->tails = tails;
    g->old_offset.resize(kShards + 1);
    g->old_physical.resize(kShards);
    for (size_t s = 0; s < kShards; ++s) {
      g->old_offset[s] = shards_[s].offset;
      g->old_physical[s] = capacity_ + shards_[s].tail;
    }
    g->old_offset[kShards] = shards_[kShards - 1].offset + g->old_physical[kShards - 1];
    g->fresh_begin = before;
    g->fresh_end = std::max(before, least);
    const size_t per_slice = kFreshSlice / sizeof(Fp);
    g->fresh_slices = (g->fresh_end - g->fresh_begin + per_slice - 1) / per_slice;
    growth_ = std::move(g);
    return true;
  }

  // The new offsets, the array grown to them, and the groups (with room for what they
  // copy out). False, having moved nothing, when the reservation is exhausted.
  bool layout(size_t threads) {
    Growth& g = *growth_;
    g.offset.resize(kShards + 1);
    size_t total = 0;
    for (size_t s = 0; s < kShards; ++s) {
      g.offset[s] = total;
      total += g.capacity + g.tails[s];
    }
    g.offset[kShards] = total;
    if (!slots_.grow(total)) return false;
    g.groups = plan_growth_groups(g.old_offset, g.offset, threads);
    const size_t groups = g.groups.count();
    g.saved.assign(groups, {});
    g.saved_at.assign(groups, {});
    g.values.assign(groups, {});
    g.ready = std::make_unique<std::atomic<bool>[]>(groups);
    size_t largest = 0;
    for (size_t s = 0; s < kShards; ++s) largest = std::max(largest, shards_[s].count);
    for (size_t k = 0; k < groups; ++k) {
      g.values[k].reserve(largest);
      size_t at = 0;
      g.saved_at[k].push_back(0);
      for (size_t s = g.groups.first[k]; s < g.groups.saved_end[k]; ++s) {
        at += shards_[s].count;
        g.saved_at[k].push_back(at);
      }
      g.saved[k].reserve(at);
      g.ready[k].store(false, std::memory_order_relaxed);
    }
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
  std::unique_ptr<Growth> growth_;
  std::vector<Shard> shards_;
  // While a batch grows the set: the previous layout, read by insert_batch.
  bool moving_ = false;
  LargeArray<Fp> old_slots_;
  std::vector<Shard> old_shards_;
};

using VisitedSet = BasicVisitedSet<Fingerprint>;
using VisitedSet128 = BasicVisitedSet<Fingerprint128>;

}  // namespace isr::checker
