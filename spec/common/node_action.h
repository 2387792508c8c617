// The shape of the partition and KRaft models' actions, {kind, node, other, arg} (each
// model's kind enum says what node, other and arg mean for each kind), and the list
// that collects a state's enabled actions into the caller's fixed buffer.
#pragma once

#include <cstdint>

namespace isr::spec {

template <class Kind>
struct NodeAction {
  Kind kind{};
  uint8_t node = 0;
  uint8_t other = 0;
  uint8_t arg = 0;
  bool operator==(const NodeAction&) const = default;
};

template <class Action, int kCapacity>
struct ActionList {
  Action* out;
  int count = 0;

  template <class Kind>
  void add(Kind kind, int node, int other = 0, int arg = 0) {
    // The buffer is sized for the largest cluster the configuration accepts; running
    // past it would be a model bug, not a user error.
    if (count >= kCapacity) __builtin_trap();
    out[count++] = Action{kind, static_cast<uint8_t>(node), static_cast<uint8_t>(other), static_cast<uint8_t>(arg)};
  }
};

}  // namespace isr::spec
