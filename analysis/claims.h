// Claims: facts about a configuration written down as data and checked exhaustively.
//
// A claim file (JSON, docs/claims.md) names one configuration, its fault assumptions,
// the properties expected to hold or to be violated, and the write availability
// expected after a number of node failures. `isrcheck prove` checks every expectation
// (analysis::verify for properties, analysis::analyze_availability for availability)
// and reports expected against found. claims/*.json are the facts of MODEL.md section 5.
#pragma once

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/availability.h"
#include "analysis/verify.h"
#include "spec/partition/config.h"

namespace isr::analysis {

// A malformed claim: `field` is the dotted path at fault ("expect.no-acked-loss",
// "availability[1].failures", "config.acks"), the message says what is allowed.
struct ClaimError : std::runtime_error {
  ClaimError(std::string field, const std::string& message)
      : std::runtime_error(field + ": " + message), field(std::move(field)) {}
  std::string field;
};

struct PropertyExpectation {
  std::string property;  // a name from spec/partition/properties/catalog.h
  bool holds = true;     // "holds" or "violated"
};

struct AvailabilityExpectation {
  int failures = 1;
  bool lossy = false;
  std::string failing_nodes = "any";  // "any" or "brokers"
  WriteAvailability expect = WriteAvailability::Available;
};

struct Claim {
  std::string name;         // "name", or the file name without .json
  std::string description;  // the fact in words
  std::string source;       // where the fact comes from (MODEL.md, a KIP, an incident)
  nlohmann::json config;    // the configuration document, "faults" merged in
  spec::Config resolved;
  std::vector<PropertyExpectation> properties;
  // When the faults of the property checks may begin ("faults_begin"; analysis/verify.h).
  // Availability entries have their own failure scenario (analysis/availability.h).
  FaultsBegin faults_begin = FaultsBegin::Anytime;
  std::vector<AvailabilityExpectation> availability;
  uint64_t max_states = 0;  // per search; 0: none for properties, 2 000 000 for availability
};

// Parses and validates a claim document; throws ClaimError.
Claim parse_claim(const nlohmann::json& document, const std::string& default_name);
// Reads a claim file (the default name is the file name without its extension); throws
// ClaimError with the path as field when the file cannot be read or is not JSON.
Claim read_claim_file(const std::string& path);

// One expectation checked.
struct ClaimCheck {
  std::string check;     // the property name, or "availability after 2 failures"
  std::string slug;      // for file names: the property name, or "availability-2"
  std::string expected;  // "holds", "violated", or an availability class name
  std::string found;     // the same vocabulary, or "incomplete"
  bool met = false;
  uint64_t states = 0;   // distinct states of the search that decided it
  double seconds = 0;
  nlohmann::json trace;  // a trace v1 backing `found` (violation, or availability witness)
  std::string note;      // anything that qualifies the result
};

struct ClaimOutcome {
  std::string claim;
  std::vector<ClaimCheck> checks;
  bool met() const;
};

struct ProveOptions {
  int threads = 1;  // results do not depend on it
  bool por = false;  // partial-order reduction (checker/por.h): same verdicts, fewer states
  const std::atomic<bool>* interrupt = nullptr;  // Ctrl-C / SIGTERM: the open checks end "incomplete"
};

// Checks every expectation of a claim. Properties are checked together, in as few
// searches as possible: a search over every property still undecided decides them all
// when they hold, or one violated property (the first found) when not, and is then
// repeated without it.
ClaimOutcome prove_claim(const Claim& claim, const ProveOptions& options = {});

}  // namespace isr::analysis
