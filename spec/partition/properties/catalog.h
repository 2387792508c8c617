// The named properties isrcheck can check (MODEL.md section 4): stable kebab-case
// names, one-line descriptions, when each applies, and the predicate itself.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "spec/partition/config.h"
#include "spec/partition/state.h"

namespace isr::properties {

// What a black-box harness can see of a counterexample's end, computed by the scenario
// exporter from the trace: the acknowledged records the leader no longer holds, those
// no replica holds, and the acting leader.
struct ClientFacts {
  std::vector<int> acked_missing_on_leader;
  std::vector<int> acked_missing_everywhere;
  int leader = -1;
};

// Which client observation shows a violation of the property; generated tests
// (export --format gtest) assert it at the end.
enum class ClientEvidence {
  FinalState,          // only the final observable state (leader, ISR, ELR, logs)
  AckedRecordMissing,  // a send that completed successfully, its record gone
  ReadRecordChanged,   // a record the consumer read is no longer at its offset
};

struct PropertyInfo {
  std::string_view name;
  std::string_view description;
  // Whether the property means something under this configuration (used to choose the
  // default list; naming an inapplicable property explicitly is an error).
  bool (*applies)(const spec::Config& c);
  bool (*holds)(const spec::Config& c, const spec::State& s);
  // How a counterexample's last state (state_to_json) breaks it, in Kafka terms; empty
  // when that state does not show it (renderers then quote the description).
  std::string (*explain)(const nlohmann::json& last_state);
  // How a client or a harness observes the violation (a scenario's `observed_as`);
  // nullptr, or empty for these facts, when the property is about state that clients see
  // only indirectly.
  std::string (*observed_as)(const ClientFacts& facts);
  ClientEvidence evidence;
};

// Every property, in a fixed order.
const std::vector<PropertyInfo>& catalog();

// nullptr when unknown.
const PropertyInfo* find(std::string_view name);

// The named property's explanation of a trace's last state; empty when the property is
// not in this catalog or the state does not show the violation.
std::string explain(std::string_view property, const nlohmann::json& last_state);

// The named property's observed_as for these facts; for a property without one (or not in
// this catalog), the sentence pointing the harness at the final observable state.
std::string observed_as(std::string_view property, const ClientFacts& facts);
// FinalState for a property not in this catalog.
ClientEvidence client_evidence(std::string_view property);

}  // namespace isr::properties
