// The named properties isrcheck can check (MODEL.md section 4): stable kebab-case
// names, one-line descriptions, when each applies, and the predicate itself.
#pragma once

#include <string_view>
#include <vector>

#include "spec/config.h"
#include "spec/state.h"

namespace isr::properties {

struct PropertyInfo {
  std::string_view name;
  std::string_view description;
  // Whether the property means something under this configuration (used to choose the
  // default list; naming an inapplicable property explicitly is an error).
  bool (*applies)(const spec::Config& c);
  bool (*holds)(const spec::Config& c, const spec::State& s);
};

// Every property, in a fixed order.
const std::vector<PropertyInfo>& catalog();

// nullptr when unknown.
const PropertyInfo* find(std::string_view name);

}  // namespace isr::properties
