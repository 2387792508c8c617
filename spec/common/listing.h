// What `isrcheck list properties|protocols|fixes|actions --model M` prints of a model: the names
// its configuration accepts, each with a one-line description and, for fixes, the Kafka
// release that shipped it. Each model's folder says its own (a row of spec/models.h
// points to it), so that the command line lists a new model without an edit.
#pragma once

#include <stdexcept>
#include <string_view>
#include <vector>

namespace isr::spec {

struct NameRow {
  std::string_view name;
  std::string_view description;
  std::string_view kafka_version;  // fixes: the release that shipped it; "-" for none; empty elsewhere
};

// The model has no such names (the KRaft model has no protocol generations): the
// message says where to look instead.
struct NotListed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace isr::spec
