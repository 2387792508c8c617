// Maps an action to the position of its kind in model.action_kinds(), fast.
//
// The random walk needs the kind of every enabled action at every step (for weights and
// for coverage), so this sits on the hot path. A model may provide
// `std::size_t action_kind_index(const Action&) const` returning that position directly;
// otherwise the name from action_kind() is looked up. When action_kind returns a
// string_view (or const char*), the view must point at storage that outlives the model
// and never changes (a string literal, typically), which lets a lookup be cached by the
// pointer alone; for any other return type the name is compared by content every time.
//
// One instance per thread: the cache is not synchronised.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "checker/model.h"

namespace isr::checker {

template <Model M>
class ActionKindIndex {
 public:
  using Action = typename M::Action;

  explicit ActionKindIndex(const M& model) : model_(model) {
    for (std::string_view kind : model.action_kinds()) names_.emplace_back(kind);
  }

  // The number of listed kinds. of() returns it for a kind the model did not list.
  std::size_t size() const { return names_.size(); }
  const std::vector<std::string>& names() const { return names_; }

  std::size_t of(const Action& a) {
    if constexpr (requires {
                    { model_.action_kind_index(a) } -> std::convertible_to<std::size_t>;
                  }) {
      return model_.action_kind_index(a);
    } else if constexpr (kStableViews) {
      const std::string_view kind = model_.action_kind(a);
      CacheEntry& entry = cache_[(reinterpret_cast<uintptr_t>(kind.data()) >> 3) % kCacheSize];
      if (entry.data == kind.data() && entry.size == kind.size() && entry.data != nullptr) {
        return entry.index;
      }
      entry = CacheEntry{kind.data(), kind.size(), by_name(kind)};
      return entry.index;
    } else {
      const auto& kind = model_.action_kind(a);  // keeps a returned temporary alive
      return by_name(std::string_view(kind));
    }
  }

  std::size_t by_name(std::string_view kind) const {
    for (std::size_t i = 0; i < names_.size(); ++i) {
      if (names_[i] == kind) return i;
    }
    return names_.size();
  }

 private:
  using KindReturn = decltype(std::declval<const M&>().action_kind(std::declval<const Action&>()));
  static constexpr bool kStableViews =
      std::is_same_v<std::remove_cvref_t<KindReturn>, std::string_view> ||
      std::is_same_v<std::decay_t<KindReturn>, const char*>;

  struct CacheEntry {
    const char* data = nullptr;
    std::size_t size = 0;
    std::size_t index = 0;
  };
  static constexpr std::size_t kCacheSize = 64;

  const M& model_;
  std::vector<std::string> names_;
  std::array<CacheEntry, kCacheSize> cache_{};
};

}  // namespace isr::checker
