// Turns a catalog of named predicates into checker::Property entries of a model.
//
// A catalog is a list of entries with a `name`, a `description` and a predicate over
// some configuration and state; checker::Property holds a plain function pointer over
// (model, state). PropertyTable makes one such function per catalog position (a
// compile-time table of kMaxProperties instantiations), each calling
// judge(entry, model, state) so that the model decides which part of its configuration
// and state the catalog's predicate reads.
#pragma once

#include <array>
#include <cstddef>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "checker/model.h"

namespace isr::checker {

// kCatalog: a function returning the catalog (const std::vector<Entry>&);
// kJudge: a captureless lambda bool(const Entry&, const M&, const M::State&).
template <class M, auto kCatalog, auto kJudge, size_t kMaxProperties = 32>
class PropertyTable {
 public:
  using State = typename M::State;
  using Holds = bool (*)(const M&, const State&);

  // Appends the catalog's entry named `name`, if it has one, to `out`.
  static void add(std::string_view name, std::vector<Property<State, M>>& out) {
    const auto& all = kCatalog();
    if (all.size() > kMaxProperties) throw std::logic_error("PropertyTable: raise kMaxProperties");
    for (size_t i = 0; i < all.size(); ++i)
      if (all[i].name == name) out.push_back(Property<State, M>{all[i].name, all[i].description, kCallers[i]});
  }

 private:
  template <size_t I>
  static bool call(const M& m, const State& s) {
    return kJudge(kCatalog()[I], m, s);
  }
  template <size_t... I>
  static constexpr std::array<Holds, sizeof...(I)> make_callers(std::index_sequence<I...>) {
    return {&call<I>...};
  }
  static constexpr auto kCallers = make_callers(std::make_index_sequence<kMaxProperties>{});
};

}  // namespace isr::checker
