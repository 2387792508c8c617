// What each action kind of the partition model stands for in Kafka, one line each, with
// the Kafka class and method (or KIP) it models: `isrcheck list actions` prints them and
// `isrcheck explore` shows them beside each enabled action. The composed cluster model
// reuses these rows for its broker and decision actions.
#pragma once

#include <vector>

#include "spec/common/listing.h"

namespace isr::spec {

// One row per kind of describe.cc's kKindNames, in that order (tests/explore_test.cc
// checks that every kind the model has is here).
const std::vector<NameRow>& partition_action_meanings();

}  // namespace isr::spec
