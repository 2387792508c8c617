// Counts the distinct states random walks visit, in bounded memory.
//
// Walks revisit states constantly and may see far more distinct states than fit in
// memory, so the count is an estimate by adaptive hash sampling (Wegman; Flajolet 1990):
// keep the fingerprints whose top `level` bits are zero; when more than `capacity` are
// kept, raise the level (halving the sample) and drop the ones no longer admitted. The
// estimate is kept * 2^level; it is exact while the level is 0.
//
// Why this scheme rather than "an exact set that stops counting when full": the kept set
// is always {every distinct fingerprint seen whose top `level` bits are zero} with the
// smallest level that fits, which depends only on WHICH states were seen, never on the
// order. So merging per-walk samples from any number of threads in any order gives the
// same figure, as the reproducibility rule requires.
//
// The table starts small and doubles (like a vector) up to what `capacity` needs, so a
// short run does not pay for a large capacity; growth happens O(log capacity) times.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace isr::checker {

class DistinctStateSketch {
 public:
  // Keeps at most `capacity` fingerprints (16 bytes of memory each, twice that while
  // the table is rebuilt).
  explicit DistinctStateSketch(std::size_t capacity)
      : capacity_(capacity < 16 ? 16 : capacity),
        max_table_size_(table_size_for(capacity_)),
        table_(kInitialTableSize, kEmpty) {}

  // Whether a fingerprint could still enter the sample. Callers may pre-filter with it
  // (the level only grows, so a rejected fingerprint stays rejected).
  static bool admitted_at(uint64_t fingerprint, int level) {
    return level == 0 || (fingerprint >> (64 - level)) == 0;
  }
  bool admits(uint64_t fingerprint) const { return admitted_at(fingerprint, level_); }

  void insert(uint64_t fingerprint) {
    fingerprint = normalise(fingerprint);
    if (!admits(fingerprint)) return;
    if (!insert_into(table_, fingerprint)) return;
    if (++kept_ > capacity_) {
      raise_level();
    } else if (2 * kept_ > table_.size() && table_.size() < max_table_size_) {
      rebuild(table_.size() * 2);
    }
  }

  // The other sketch dropped the fingerprints its level no longer admits: this one must
  // be at that level at least before taking its sample.
  void merge(const DistinctStateSketch& other) { merge_sample(other.sample(), other.level_); }

  // Merges the sample of a sketch at `level` (sample() and level() of a sketch built
  // elsewhere: simulate --distributed merges the ranks' sketches so).
  void merge_sample(const std::vector<uint64_t>& sample, int level) {
    if (level > level_) {
      level_ = level;
      rebuild(table_.size());
    }
    for (uint64_t fingerprint : sample) insert(fingerprint);
  }

  // The kept fingerprints, in no particular order (see merge_sample).
  std::vector<uint64_t> sample() const {
    std::vector<uint64_t> kept;
    for (uint64_t fingerprint : table_) {
      if (fingerprint != kEmpty) kept.push_back(fingerprint);
    }
    return kept;
  }

  int level() const { return level_; }
  std::size_t kept() const { return kept_; }
  bool exact() const { return level_ == 0; }
  uint64_t estimate() const { return static_cast<uint64_t>(kept_) << level_; }
  std::size_t capacity() const { return capacity_; }

 private:
  static constexpr uint64_t kEmpty = 0;
  static constexpr std::size_t kInitialTableSize = 64;

  // Fingerprint 0 marks empty slots; fold it onto 1 (one extra collision in 2^64).
  static uint64_t normalise(uint64_t fingerprint) {
    return fingerprint == kEmpty ? 1 : fingerprint;
  }

  static std::size_t table_size_for(std::size_t capacity) {
    // Load factor at most 1/2 with `capacity + 1` entries (the moment before a raise).
    std::size_t size = kInitialTableSize;
    while (size < 2 * (capacity + 1)) size *= 2;
    return size;
  }

  // Returns false when already present. The slot comes from the low bits while
  // admission looks at the high bits, so a raised level does not cluster the table.
  static bool insert_into(std::vector<uint64_t>& table, uint64_t fingerprint) {
    const std::size_t mask = table.size() - 1;
    for (std::size_t i = fingerprint & mask;; i = (i + 1) & mask) {
      if (table[i] == fingerprint) return false;
      if (table[i] == kEmpty) {
        table[i] = fingerprint;
        return true;
      }
    }
  }

  void raise_level() {
    while (kept_ > capacity_) {
      ++level_;
      rebuild(table_.size());
    }
  }

  // Re-inserts the admitted fingerprints into a table of `size` slots.
  void rebuild(std::size_t size) {
    spare_.assign(size, kEmpty);
    kept_ = 0;
    for (uint64_t fingerprint : table_) {
      if (fingerprint != kEmpty && admits(fingerprint)) {
        insert_into(spare_, fingerprint);
        ++kept_;
      }
    }
    std::swap(table_, spare_);
  }

  std::size_t capacity_;
  std::size_t max_table_size_;
  std::vector<uint64_t> table_;
  std::vector<uint64_t> spare_;
  std::size_t kept_ = 0;
  int level_ = 0;
};

}  // namespace isr::checker
