// An append-only array of states in fixed-size blocks, for the explicit state graph
// (checker/graph/state_graph.h), which keeps every state: hundreds of megabytes.
//
// A std::vector there cost a fifth of the build's CPU time on one thread, none of it
// parallel: each growth copied every state so far, and resize() wrote every new slot
// (value-initialising it) before the workers wrote it again, so the first touch of each
// page, and its page fault, fell on the coordinating thread. Blocks never move, and
// grow_uninitialized() leaves new slots untouched: the workers that fill them take the
// page faults, in parallel.
//
// States are trivially copyable (checker::Model), hence implicit-lifetime types: storage
// from std::malloc holds them as soon as a slot is assigned.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

namespace isr::checker {

template <class State>
class StateBlocks {
  static_assert(std::is_trivially_copyable_v<State>);

 public:
  static constexpr size_t kBlockBits = 12;  // 4096 states a block (2.1 MB of 528-byte states)
  static constexpr size_t kBlock = size_t{1} << kBlockBits;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  State& operator[](size_t i) { return blocks_[i >> kBlockBits].get()[i & (kBlock - 1)]; }
  const State& operator[](size_t i) const { return blocks_[i >> kBlockBits].get()[i & (kBlock - 1)]; }

  void push_back(const State& s) {
    grow_uninitialized(size_ + 1);
    (*this)[size_ - 1] = s;
  }

  // Makes the size n (>= size()); the new slots must be assigned before they are read.
  void grow_uninitialized(size_t n) {
    while (blocks_.size() * kBlock < n) {
      void* block = std::malloc(kBlock * sizeof(State));
      if (block == nullptr) throw std::bad_alloc();
      blocks_.emplace_back(static_cast<State*>(block));
    }
    size_ = n;
  }

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = State;
    using difference_type = std::ptrdiff_t;
    using pointer = const State*;
    using reference = const State&;
    const_iterator() = default;
    const_iterator(const StateBlocks* s, size_t i) : s_(s), i_(i) {}
    reference operator*() const { return (*s_)[i_]; }
    pointer operator->() const { return &(*s_)[i_]; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator before = *this;
      ++i_;
      return before;
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) { return a.i_ == b.i_; }

   private:
    const StateBlocks* s_ = nullptr;
    size_t i_ = 0;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

 private:
  struct Free {
    void operator()(State* p) const { std::free(p); }
  };
  std::vector<std::unique_ptr<State, Free>> blocks_;
  size_t size_ = 0;
};

}  // namespace isr::checker
