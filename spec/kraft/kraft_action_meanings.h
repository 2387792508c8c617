// What each action kind of the KRaft quorum model stands for in Kafka's raft module
// (org.apache.kafka.raft, KIP-595), one line each: `isrcheck list actions --model kraft`
// prints them, `isrcheck explore` shows them beside each enabled action, and the
// composed cluster model reuses them for its quorum actions.
#pragma once

#include <vector>

#include "spec/common/listing.h"

namespace isr::spec::kraft {

// One row per kind of kraft_describe.cc's kKindNames, in that order.
const std::vector<NameRow>& kraft_action_meanings();

}  // namespace isr::spec::kraft
