// Optional model hooks, detected at compile time so that models without them still
// satisfy the Model concept unchanged.
//
//   std::vector<std::string_view> bound_names() const;  // at most 32 names
//   uint32_t bounds_hit(const State&) const;            // bit i: bound_names()[i] is reached
//
// A bound is "reached" in a state when the state sits at the limit of an exploration
// bound or fault budget (e.g. all crashes used), so that a holding verdict can say which
// limits actually constrained the search.
#pragma once

#include <concepts>
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
