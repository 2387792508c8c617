// A zero-initialised array of trivially copyable values, backed by transparent huge
// pages when it is large.
//
// The visited set is probed at random: with 4 KiB pages nearly every probe of a large
// table also misses the TLB, and under virtualisation a page walk costs more than the
// cache miss itself (we measured ~3x slower probes, and prefetching did not hide it).
// 2 MiB pages make the whole table TLB-resident. Arrays below kHugeThreshold use the
// ordinary heap: the TLB covers them anyway, and whole 2 MiB pages would be a large
// rounding on them.
//
// A large array can also be made growable (LargeArray::growable): the address range of
// up to the machine's physical memory is reserved (PROT_NONE: no memory, no commit
// charge) and pages are committed as the array grows, so that grow() keeps the pages
// already used. Fresh pages are expensive: the kernel zeroes each one on first touch
// and, on a virtual machine, the host may have to back it first (2.6 s per GiB measured
// on the development machine, against 0.02 s per GiB to memset memory already mapped).
// The visited set grows by 1.35x, so re-allocating at each growth touches ~3.9x its
// final size in fresh pages; growing in place touches it once.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace isr::checker {

template <class T>
class LargeArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  static constexpr size_t kHugePage = size_t{2} << 20;
  static constexpr size_t kHugeThreshold = size_t{8} << 20;

  LargeArray() = default;
  explicit LargeArray(size_t n) { allocate(n); }

  // n zero values, growable in place (grow()) while the reservation lasts. Falls back to
  // an ordinary LargeArray (growable() false) when small or when the reservation fails.
  static LargeArray growable(size_t n) {
    LargeArray a;
    const size_t bytes = n * sizeof(T);
    if (bytes >= kHugeThreshold) a.reserve(bytes);
    if (a.data_ == nullptr) a.allocate(n);
    return a;
  }
  ~LargeArray() { release(); }

  LargeArray(LargeArray&& other) noexcept { *this = std::move(other); }
  LargeArray& operator=(LargeArray&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      mapping_ = std::exchange(other.mapping_, nullptr);
      mapping_bytes_ = std::exchange(other.mapping_bytes_, 0);
      committed_bytes_ = std::exchange(other.committed_bytes_, 0);
    }
    return *this;
  }
  LargeArray(const LargeArray&) = delete;
  LargeArray& operator=(const LargeArray&) = delete;

  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  size_t size() const { return size_; }
  // Memory the array can touch (whole huge pages; the alignment slack and the reserved
  // but uncommitted range are never touched).
  size_t bytes() const {
    if (committed_bytes_ != 0) return committed_bytes_;
    return mapping_ != nullptr ? mapping_bytes_ - kHugePage : size_ * sizeof(T);
  }
  bool is_growable() const { return committed_bytes_ != 0; }

  // Grows a growable array to n values in place: values [0, size()) are kept, and the
  // new ones are zero as long as nothing was written past size() (the visited set never
  // does). Returns false, changing nothing, when n is beyond the reservation.
  bool grow(size_t n) {
    if (committed_bytes_ == 0) return false;
    if (n <= size_) {
      size_ = n;
      return true;
    }
    const size_t bytes = round_up(n * sizeof(T));
    if (bytes > mapping_bytes_ - kHugePage) return false;
    if (bytes > committed_bytes_) {
      char* base = reinterpret_cast<char*>(data_);
      if (mprotect(base + committed_bytes_, bytes - committed_bytes_, PROT_READ | PROT_WRITE) != 0) return false;
      committed_bytes_ = bytes;
    }
    size_ = n;
    return true;
  }

 private:
  static size_t round_up(size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }

  // Reserves the address range for up to the machine's physical memory (at least `bytes`)
  // and commits `bytes`. Leaves data_ null on failure.
  void reserve(size_t bytes) {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page_size = sysconf(_SC_PAGESIZE);
    size_t limit = pages > 0 && page_size > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page_size) : 0;
    limit = std::min(limit, size_t{1} << 40);
    const size_t reserved = round_up(std::max(limit, bytes));
    void* p = mmap(nullptr, reserved + kHugePage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return;
    const auto address = reinterpret_cast<uintptr_t>(p);
    const uintptr_t aligned = (address + kHugePage - 1) / kHugePage * kHugePage;
    const size_t committed = round_up(bytes);
    if (mprotect(reinterpret_cast<void*>(aligned), committed, PROT_READ | PROT_WRITE) != 0) {
      munmap(p, reserved + kHugePage);
      return;
    }
    madvise(reinterpret_cast<void*>(aligned), reserved, MADV_HUGEPAGE);  // best effort
    mapping_ = p;
    mapping_bytes_ = reserved + kHugePage;
    committed_bytes_ = committed;
    data_ = reinterpret_cast<T*>(aligned);
    size_ = bytes / sizeof(T);
  }

  void allocate(size_t n) {
    size_ = n;
    const size_t bytes = n * sizeof(T);
    if (bytes < kHugeThreshold) {
      data_ = static_cast<T*>(::operator new(bytes == 0 ? 1 : bytes));
      std::memset(static_cast<void*>(data_), 0, bytes);
      return;
    }
    // Over-allocate by one huge page so the array can start on a 2 MiB boundary.
    const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    mapping_bytes_ = rounded + kHugePage;
    void* p = mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    mapping_ = p;
    const auto address = reinterpret_cast<uintptr_t>(p);
    const uintptr_t aligned = (address + kHugePage - 1) / kHugePage * kHugePage;
    madvise(reinterpret_cast<void*>(aligned), rounded, MADV_HUGEPAGE);  // best effort
    data_ = reinterpret_cast<T*>(aligned);  // anonymous mappings are zero-filled
  }

  void release() {
    if (mapping_ != nullptr) {
      munmap(mapping_, mapping_bytes_);
    } else if (data_ != nullptr) {
      ::operator delete(static_cast<void*>(data_));
    }
    data_ = nullptr;
    size_ = 0;
    mapping_ = nullptr;
    mapping_bytes_ = 0;
    committed_bytes_ = 0;
  }

  T* data_ = nullptr;
  size_t size_ = 0;
  void* mapping_ = nullptr;
  size_t mapping_bytes_ = 0;
  size_t committed_bytes_ = 0;  // growable arrays only: the read-write prefix of the mapping
};

}  // namespace isr::checker
