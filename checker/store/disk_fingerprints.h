// The fingerprints a visited set has moved to disk (check --spill), as TLC's DiskFPSet:
// per shard one sorted array in a spill file, and in memory only the first fingerprint
// of every page of it (1/256 of the fingerprints), so that a lookup reads one page.
//
// merge() folds a batch of sorted in-memory fingerprints into a new file in one
// sequential pass (old file and batch merged shard by shard), then drops the old one:
// the disk part is always one sorted run per shard, so a lookup is one binary search in
// the index and one pread of a page. Each thread keeps the last page it read (a
// dedupe phase looks fingerprints up in increasing order, so consecutive lookups often
// fall in one page).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "checker/store/spill_file.h"

namespace isr::checker {

template <class Fp>
class DiskFingerprints {
 public:
  static constexpr size_t kPage = 4096 / sizeof(Fp);  // fingerprints per read

  explicit DiskFingerprints(size_t shards) : shards_(shards) {}

  bool empty() const { return count_ == 0; }
  uint64_t size() const { return count_; }
  uint64_t file_bytes() const { return file_.size(); }
  // Memory held: the page index.
  uint64_t index_bytes() const {
    uint64_t n = shards_.capacity() * sizeof(Shard);
    for (const Shard& sh : shards_) n += sh.first.capacity() * sizeof(Fp);
    return n;
  }

  // Thread-safe while nobody merges.
  bool contains(size_t shard, const Fp& fp) const {
    const Shard& sh = shards_[shard];
    if (sh.count == 0) return false;
    const auto it = std::upper_bound(sh.first.begin(), sh.first.end(), fp);
    if (it == sh.first.begin()) return false;
    const size_t page = static_cast<size_t>(it - sh.first.begin()) - 1;
    if (sh.first[page] == fp) return true;
    thread_local PageCache cache;
    if (cache.stamp != stamp_ || cache.shard != shard || cache.page != page) {
      cache.n = std::min<uint64_t>(kPage, sh.count - page * kPage);
      file_.read((sh.offset + page * kPage) * sizeof(Fp), cache.values, cache.n * sizeof(Fp));
      cache.stamp = stamp_;
      cache.shard = shard;
      cache.page = page;
    }
    return std::binary_search(cache.values, cache.values + cache.n, fp);
  }

  // Coordinator: a new file holding the old one's fingerprints and, per shard s,
  // batch(s) (sorted increasing, none already on disk), merged.
  template <class Batch>
  void merge(const std::string& dir, Batch&& batch) {
    SpillFile next(dir, "visited");
    std::vector<Fp> out;
    out.reserve(kBuffer);
    std::vector<Fp> old(kBuffer);
    std::vector<Fp> values;
    uint64_t written = 0;
    for (size_t s = 0; s < shards_.size(); ++s) {
      Shard& sh = shards_[s];
      values.clear();
      batch(s, values);
      Shard fresh;
      fresh.offset = written;
      auto emit = [&](const Fp& v) {
        if (fresh.count % kPage == 0) fresh.first.push_back(v);
        ++fresh.count;
        out.push_back(v);
        if (out.size() == kBuffer) {
          next.append(out.data(), out.size() * sizeof(Fp));
          out.clear();
        }
      };
      uint64_t i = 0;  // next old fingerprint of this shard
      size_t loaded = 0, at = 0;
      size_t j = 0;
      while (true) {
        if (at == loaded && i < sh.count) {
          loaded = static_cast<size_t>(std::min<uint64_t>(kBuffer, sh.count - i));
          file_.read((sh.offset + i) * sizeof(Fp), old.data(), loaded * sizeof(Fp));
          i += loaded;
          at = 0;
        }
        const bool have_old = at < loaded;
        if (!have_old && j == values.size()) break;
        if (have_old && (j == values.size() || old[at] < values[j])) {
          emit(old[at++]);
        } else {
          emit(values[j++]);
        }
      }
      written += fresh.count;
      fresh.first.shrink_to_fit();
      sh = std::move(fresh);
    }
    if (!out.empty()) next.append(out.data(), out.size() * sizeof(Fp));
    file_ = std::move(next);
    count_ = written;
    stamp_ = next_stamp().fetch_add(1) + 1;
  }

 private:
  static constexpr size_t kBuffer = size_t{1} << 16;  // fingerprints per sequential read or write

  struct Shard {
    uint64_t offset = 0;  // first fingerprint's index in the file
    uint64_t count = 0;
    std::vector<Fp> first;  // the first fingerprint of each page
  };
  struct PageCache {
    uint64_t stamp = 0;  // which file (0: none)
    size_t shard = 0;
    size_t page = 0;
    size_t n = 0;
    Fp values[kPage];
  };
  // Distinguishes files across every instance, for the threads' page caches.
  static std::atomic<uint64_t>& next_stamp() {
    static std::atomic<uint64_t> stamp{0};
    return stamp;
  }

  std::vector<Shard> shards_;
  SpillFile file_;
  uint64_t count_ = 0;
  uint64_t stamp_ = 0;
};

}  // namespace isr::checker
