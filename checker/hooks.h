// Optional model hooks, detected at compile time so that models without them still
// satisfy the Model concept unchanged.
//
//   std::vector<std::string_view> bound_names() const;  // at most 32 names
//   uint32_t bounds_hit(const State&) const;            // bit i: bound_names()[i] is reached
//
// A bound is "reached" in a state when the state sits at the limit of an exploration
// bound or fault budget (e.g. all crashes used), so that a holding verdict can say which
// limits actually constrained the search.
//
//   std::vector<std::string_view> usage_names() const;  // at most 32 names
//   uint32_t usage_seen(const State&) const;            // bit i: usage_names()[i] has acted
//
// The other side: a feature the configuration switches on (a kind of election, a fault
// budget) "has acted" in a state when the path to it used it. The engine ORs the bits
// over every distinct state, so that after a complete search the model can name what was
// switched on but never used, and what would let it act (issue 29 point 2). Once per
// new state, like bounds_hit: not on the hot path of expanding actions.
//
//   size_t state_prefix_bytes() const;  // every byte of every state at or past it is zero
//
// A state sized for the largest configuration holds slots (nodes, replicas) that a
// smaller one never uses and keeps zero. A model that lays those slots out last says
// where the bytes its configuration can use end, and the engine's fingerprints and the
// canonical form's comparisons run over that prefix only (issue 27 item 1: the default
// partition model's states are 572 bytes, of which its three brokers use ~330).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace isr::checker {

template <class M>
concept HasBounds = requires(const M& m, const typename M::State& s) {
  { m.bound_names() } -> std::convertible_to<std::vector<std::string_view>>;
  { m.bounds_hit(s) } -> std::convertible_to<uint32_t>;
};

template <class M>
uint32_t bounds_hit(const M& model, const typename M::State& s) {
  if constexpr (HasBounds<M>) {
    return static_cast<uint32_t>(model.bounds_hit(s));
  } else {
    (void)model;
    (void)s;
    return 0;
  }
}

template <class M>
concept HasUsage = requires(const M& m, const typename M::State& s) {
  { m.usage_names() } -> std::convertible_to<std::vector<std::string_view>>;
  { m.usage_seen(s) } -> std::convertible_to<uint32_t>;
};

template <class M>
uint32_t usage_seen(const M& model, const typename M::State& s) {
  if constexpr (HasUsage<M>) {
    return static_cast<uint32_t>(model.usage_seen(s));
  } else {
    (void)model;
    (void)s;
    return 0;
  }
}

template <class M>
concept HasStatePrefix = requires(const M& m) {
  { m.state_prefix_bytes() } -> std::convertible_to<std::size_t>;
};

// The bytes of a state that fingerprints cover: the model's prefix, or the whole state.
template <class M>
std::size_t state_prefix_bytes(const M& model) {
  if constexpr (HasStatePrefix<M>) {
    const std::size_t bytes = model.state_prefix_bytes();
    return bytes < sizeof(typename M::State) ? bytes : sizeof(typename M::State);
  } else {
    (void)model;
    return sizeof(typename M::State);
  }
}

// Names of the bounds whose bits are set in `mask`, in bound_names() order.
template <class M>
std::vector<std::string> bound_names_in(const M& model, uint32_t mask) {
  std::vector<std::string> names;
  if constexpr (HasBounds<M>) {
    const std::vector<std::string_view> all = model.bound_names();
    for (size_t i = 0; i < all.size() && i < 32; ++i) {
      if (mask & (uint32_t{1} << i)) names.emplace_back(all[i]);
    }
  } else {
    (void)model;
    (void)mask;
  }
  return names;
}

}  // namespace isr::checker
