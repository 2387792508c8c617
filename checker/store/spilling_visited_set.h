// The BFS engine's visited set: the in-memory set of visited_set.h, and with a spill
// directory (check --spill) a part on disk (disk_fingerprints.h) that takes the
// in-memory fingerprints whenever they pass their budget, as TLC's DiskFPSet does.
//
// Without a spill directory it is the in-memory set and nothing else (one predictable
// branch per lookup). With one, a lookup probes memory first and then the disk's index
// and one page; inserts always go to memory; maybe_spill(), called by the coordinator
// after each batch, merges the memory part into the disk part and starts an empty one
// when the memory part passed its budget. The set's contents, hence every count, are
// the same either way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "checker/store/disk_fingerprints.h"
#include "checker/store/visited_set.h"

namespace isr::checker {

template <class Fp>
class SpillingVisitedSet {
 public:
  using Memory = BasicVisitedSet<Fp>;
  static constexpr int kShardBits = Memory::kShardBits;
  static constexpr size_t kShards = Memory::kShards;

  // Spill to files in `dir` once the in-memory part holds more than `budget` bytes.
  void spill_to(std::string dir, uint64_t budget) {
    dir_ = std::move(dir);
    budget_ = budget;
  }

  // The engine lowers the budget as its other structures (the parent log, the
  // candidates) grow, so that the whole search stays under --max-memory.
  void set_budget(uint64_t budget) { budget_ = budget; }

  static size_t shard_of(const Fp& fp) { return Memory::shard_of(fp); }
  bool contains(const Fp& fp) const {
    if (memory_.contains(fp)) return true;
    return !disk_.empty() && disk_.contains(shard_of(fp), fp);
  }
  void prefetch(const Fp& fp) const { memory_.prefetch(fp); }
  bool insert(const Fp& fp) {
    if (!disk_.empty() && disk_.contains(shard_of(fp), fp)) return false;
    return memory_.insert(fp);
  }
  void begin_batch(const std::vector<size_t>& incoming) { memory_.begin_batch(incoming); }
  // Growing the memory part on several threads (visited_set.h, plan_batch()).
  bool plan_batch(const std::vector<size_t>& incoming) { return memory_.plan_batch(incoming); }
  size_t growth_tasks() const { return memory_.growth_tasks(); }
  void prepare_growth(size_t task) { memory_.prepare_growth(task); }
  size_t layout_growth(size_t threads) { return memory_.layout_growth(threads); }
  void move_growth(size_t group) { memory_.move_growth(group); }
  void finish_growth() { memory_.finish_growth(); }
  bool insert_batch(size_t shard, const Fp* fps, size_t n) { return memory_.insert_batch(shard, fps, n); }
  void end_batch(const std::vector<std::vector<Fp>>& batches) { memory_.end_batch(batches); }

  // Coordinator, between batches: moves the in-memory fingerprints to disk when they
  // pass the budget. Returns true when it did.
  bool maybe_spill() {
    if (dir_.empty() || memory_.bytes() <= budget_) return false;
    disk_.merge(dir_, [this](size_t s, std::vector<Fp>& out) { memory_.shard_values(s, out); });
    memory_ = Memory();
    ++spills_;
    return true;
  }

  // The in-memory part, for a checkpoint (which the CLI allows only without a spill
  // directory, so it is then the whole set).
  const Memory& memory() const { return memory_; }
  Memory& memory() { return memory_; }

  size_t size() const { return memory_.size() + static_cast<size_t>(disk_.size()); }
  size_t capacity() const { return memory_.capacity() + static_cast<size_t>(disk_.size()); }
  // Memory only (the disk part's page index included).
  size_t bytes() const { return memory_.bytes() + (disk_.empty() ? 0 : static_cast<size_t>(disk_.index_bytes())); }
  uint64_t disk_bytes() const { return disk_.file_bytes(); }
  uint64_t spills() const { return spills_; }

 private:
  Memory memory_;
  DiskFingerprints<Fp> disk_{kShards};
  std::string dir_;
  uint64_t budget_ = 0;
  uint64_t spills_ = 0;
};

}  // namespace isr::checker
