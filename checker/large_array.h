// A zero-initialised array of trivially copyable values, backed by transparent huge
// pages when it is large.
//
// The visited set is probed at random: with 4 KiB pages nearly every probe of a large
// table also misses the TLB, and under virtualisation a page walk costs more than the
// cache miss itself (we measured ~3x slower probes, and prefetching did not hide it).
// 2 MiB pages make the whole table TLB-resident. Arrays below kHugeThreshold use the
// ordinary heap: the TLB covers them anyway, and whole 2 MiB pages would be a large
// rounding on them.
#pragma once

#include <sys/mman.h>

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
  ~LargeArray() { release(); }

  LargeArray(LargeArray&& other) noexcept { *this = std::move(other); }
  LargeArray& operator=(LargeArray&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      mapping_ = std::exchange(other.mapping_, nullptr);
      mapping_bytes_ = std::exchange(other.mapping_bytes_, 0);
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
  // Memory the array can touch (whole huge pages; the alignment slack is never touched).
  size_t bytes() const { return mapping_ != nullptr ? mapping_bytes_ - kHugePage : size_ * sizeof(T); }

 private:
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
  }

  T* data_ = nullptr;
  size_t size_ = 0;
  void* mapping_ = nullptr;
  size_t mapping_bytes_ = 0;
};

}  // namespace isr::checker
