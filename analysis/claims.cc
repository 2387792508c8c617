// Parsing claim files and checking them (see claims.h and docs/claims.md).
#include "analysis/claims.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string_view>

#include "analysis/verify.h"
#include "io/files.h"
#include "spec/partition/properties/catalog.h"

namespace isr::analysis {
namespace {

using nlohmann::json;

constexpr uint64_t kDefaultAvailabilityStates = 2'000'000;

std::string join(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& n : names) text += (text.empty() ? "" : ", ") + n;
  return text;
}

void require_keys(const json& object, const std::string& where, const std::vector<std::string>& allowed) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      throw ClaimError(where.empty() ? key : where + "." + key, "unknown key; allowed: " + join(allowed));
    }
  }
}

std::string require_string(const json& object, const std::string& key, const std::string& field) {
  const json& v = object.at(key);
  if (!v.is_string()) throw ClaimError(field, "expected a string, got " + v.dump());
  return v.get<std::string>();
}

std::vector<std::string> property_names() {
  std::vector<std::string> names;
  for (const auto& p : properties::catalog()) names.emplace_back(p.name);
  return names;
}

std::vector<std::string> availability_names() {
  std::vector<std::string> names;
  for (WriteAvailability a : {WriteAvailability::Available, WriteAvailability::NotEnoughReplicas,
                              WriteAvailability::NoEligibleLeader, WriteAvailability::NoControllerQuorum}) {
    names.emplace_back(availability_name(a));
  }
  return names;
}

AvailabilityExpectation parse_availability_entry(const json& entry, const std::string& field) {
  if (!entry.is_object()) throw ClaimError(field, "expected an object {\"failures\": N, \"expect\": CLASS}");
  require_keys(entry, field, {"failures", "expect", "lossy", "failing_nodes"});
  AvailabilityExpectation a;
  if (!entry.contains("failures")) throw ClaimError(field + ".failures", "missing (the number of node failures)");
  const json& failures = entry["failures"];
  if (!failures.is_number_integer() || failures.get<int>() < 0) {
    throw ClaimError(field + ".failures", "expected an integer >= 0, got " + failures.dump());
  }
  a.failures = failures.get<int>();
  if (!entry.contains("expect")) {
    throw ClaimError(field + ".expect", "missing; allowed: " + join(availability_names()));
  }
  const std::string expect = require_string(entry, "expect", field + ".expect");
  if (!parse_availability(expect, a.expect)) {
    throw ClaimError(field + ".expect", "unknown class \"" + expect + "\"; allowed: " + join(availability_names()));
  }
  if (entry.contains("lossy")) {
    if (!entry["lossy"].is_boolean()) throw ClaimError(field + ".lossy", "expected true or false");
    a.lossy = entry["lossy"].get<bool>();
  }
  if (entry.contains("failing_nodes")) {
    a.failing_nodes = require_string(entry, "failing_nodes", field + ".failing_nodes");
    if (a.failing_nodes != "any" && a.failing_nodes != "brokers") {
      throw ClaimError(field + ".failing_nodes", "expected \"any\" or \"brokers\", got \"" + a.failing_nodes + "\"");
    }
  }
  return a;
}

// Runs a search over `names` (all still undecided) and decides what it can.
void check_properties(const Claim& claim, const ProveOptions& options, ClaimOutcome& outcome) {
  std::vector<std::string> undecided;
  for (const auto& e : claim.properties) undecided.push_back(e.property);
  auto expectation = [&](const std::string& name) {
    for (const auto& e : claim.properties)
      if (e.property == name) return e.holds;
    return true;
  };
  auto row = [&](const std::string& name, const VerifyOutcome& r, const std::string& found) {
    ClaimCheck c;
    c.check = name;
    c.slug = name;
    c.expected = expectation(name) ? "holds" : "violated";
    c.found = found;
    c.met = c.expected == found;
    c.states = r.distinct_states;
    c.seconds = r.seconds;
    if (!r.bounds_reached.empty() && found == "holds") c.note = "within bounds: " + join(r.bounds_reached);
    return c;
  };
  while (!undecided.empty()) {
    spec::Config c = claim.resolved;
    c.properties = undecided;
    VerifyOptions v;
    v.threads = options.threads;
    v.max_states = claim.max_states;
    v.faults_begin = claim.faults_begin;
    v.interrupt = options.interrupt;
    v.por = options.por;
    const VerifyOutcome r = verify(c, v);
    if (r.verdict == checker::Verdict::Holds) {
      for (const auto& name : undecided) outcome.checks.push_back(row(name, r, "holds"));
      return;
    }
    if (r.verdict == checker::Verdict::Incomplete) {
      for (const auto& name : undecided) {
        ClaimCheck check = row(name, r, "incomplete");
        check.note = "search stopped at " + std::to_string(r.distinct_states) + " states (" +
                     (r.stop_reason == checker::StopReason::Interrupted ? "interrupted" : "max_states") + ")";
        outcome.checks.push_back(check);
      }
      return;
    }
    ClaimCheck check = row(r.property, r, "violated");
    check.trace = r.trace;
    check.note = "shortest counterexample: " + std::to_string(r.trace_steps) + " steps";
    outcome.checks.push_back(check);
    undecided.erase(std::find(undecided.begin(), undecided.end(), r.property));
  }
}

}  // namespace

bool ClaimOutcome::met() const {
  return std::all_of(checks.begin(), checks.end(), [](const ClaimCheck& c) { return c.met; });
}

Claim parse_claim(const json& document, const std::string& default_name) {
  if (!document.is_object()) throw ClaimError("(claim)", "expected a JSON object");
  require_keys(document, "",
               {"format", "version", "name", "description", "source", "config", "faults", "faults_begin",
                "expect", "availability", "max_states"});
  if (document.contains("format") && document["format"] != "isrcheck-claim") {
    throw ClaimError("format", "expected \"isrcheck-claim\", got " + document["format"].dump());
  }
  if (document.contains("version") && document["version"] != 1) {
    throw ClaimError("version", "expected 1, got " + document["version"].dump());
  }
  Claim claim;
  claim.name = document.contains("name") ? require_string(document, "name", "name") : default_name;
  if (claim.name.empty()) throw ClaimError("name", "must not be empty");
  // The name becomes part of the trace files' names under --trace-dir: no separators,
  // no "..", nothing a shell or a file system would read otherwise.
  const bool safe = claim.name.size() <= 100 && claim.name.front() != '.' &&
                    std::all_of(claim.name.begin(), claim.name.end(), [](char ch) {
                      return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                             ch == '-' || ch == '_' || ch == '.';
                    });
  if (!safe) {
    throw ClaimError("name", "\"" + claim.name + "\" is not a valid claim name; allowed: up to 100 letters, digits, "
                             "'-', '_' and '.', not starting with '.' (it names the claim's trace files)");
  }
  if (document.contains("description")) claim.description = require_string(document, "description", "description");
  if (document.contains("source")) claim.source = require_string(document, "source", "source");

  claim.config = document.contains("config") ? document["config"] : json::object();
  if (!claim.config.is_object()) throw ClaimError("config", "expected an object of configuration keys (isrcheck describe)");
  if (document.contains("faults")) {
    const json& faults = document["faults"];
    if (!faults.is_object()) throw ClaimError("faults", "expected an object of fault budgets (faults.* keys)");
    json& merged = claim.config["faults"];
    if (merged.is_null()) merged = json::object();
    if (!merged.is_object()) throw ClaimError("config.faults", "expected an object");
    for (const auto& [key, value] : faults.items()) merged[key] = value;
  }

  if (document.contains("expect")) {
    const json& expect = document["expect"];
    if (!expect.is_object()) throw ClaimError("expect", "expected an object {\"property\": \"holds\" | \"violated\"}");
    const std::vector<std::string> known = property_names();
    for (const auto& [name, value] : expect.items()) {
      const std::string field = "expect." + name;
      if (properties::find(name) == nullptr) throw ClaimError(field, "unknown property; allowed: " + join(known));
      if (value != "holds" && value != "violated") {
        throw ClaimError(field, "expected \"holds\" or \"violated\", got " + value.dump());
      }
      claim.properties.push_back(PropertyExpectation{name, value == "holds"});
    }
  }
  if (document.contains("availability")) {
    const json& list = document["availability"];
    if (!list.is_array()) throw ClaimError("availability", "expected a list of {\"failures\": N, \"expect\": CLASS}");
    for (size_t i = 0; i < list.size(); ++i) {
      claim.availability.push_back(parse_availability_entry(list[i], "availability[" + std::to_string(i) + "]"));
    }
  }
  if (claim.properties.empty() && claim.availability.empty()) {
    throw ClaimError("expect", "a claim needs at least one expectation: \"expect\" (properties) or \"availability\"");
  }
  if (document.contains("faults_begin")) {
    const std::string begin = require_string(document, "faults_begin", "faults_begin");
    if (!parse_faults_begin(begin, claim.faults_begin)) {
      throw ClaimError("faults_begin", "expected \"anytime\" or \"after-ack\", got \"" + begin + "\"");
    }
    if (claim.faults_begin != FaultsBegin::Anytime && claim.properties.empty()) {
      throw ClaimError("faults_begin", "restricts the property checks (\"expect\"), and the claim has none; "
                                       "availability entries have their own failure scenario");
    }
  }
  if (document.contains("max_states")) {
    const json& m = document["max_states"];
    if (!m.is_number_unsigned()) throw ClaimError("max_states", "expected an integer >= 0, got " + m.dump());
    claim.max_states = m.get<uint64_t>();
  }

  // The configuration, with the expected properties as its property list: naming a
  // property that does not apply to it is an error in the claim.
  json config = claim.config;
  if (!claim.properties.empty()) {
    config["properties"] = json::array();
    for (const auto& e : claim.properties) config["properties"].push_back(e.property);
  }
  try {
    claim.resolved = spec::load_config(&config, {});
  } catch (const spec::ConfigError& e) {
    const std::string what = e.what();
    const std::string message = what.substr(std::min(what.size(), e.field.size() + 2));
    if (e.field == "properties") throw ClaimError("expect", message);
    throw ClaimError("config." + e.field, message);
  }
  // Availability runs need the failures to fit the cluster; checked here so that a bad
  // claim is refused before any search runs.
  for (size_t i = 0; i < claim.availability.size(); ++i) {
    const AvailabilityExpectation& a = claim.availability[i];
    int failable = 0;
    for (int node = 0; node < claim.resolved.nodes(); ++node) {
      const bool matters = node < claim.resolved.replication_factor || claim.resolved.is_voter(node);
      if (matters && (a.failing_nodes == "any" || claim.resolved.is_broker(node))) ++failable;
    }
    if (a.failures > failable) {
      throw ClaimError("availability[" + std::to_string(i) + "].failures",
                       "expected 0.." + std::to_string(failable) + " (the nodes that may fail), got " +
                           std::to_string(a.failures));
    }
  }
  return claim;
}

Claim read_claim_file(const std::string& path) {
  json document;
  try {
    document = io::files::read_json_file(path);
  } catch (const io::files::InputError& e) {
    throw ClaimError(path, e.what());
  }
  return parse_claim(document, std::filesystem::path(path).stem().string());
}

ClaimOutcome prove_claim(const Claim& claim, const ProveOptions& options) {
  ClaimOutcome outcome;
  outcome.claim = claim.name;
  if (!claim.properties.empty()) check_properties(claim, options, outcome);
  // Report properties in the claim's order, whatever order the searches decided them in.
  std::stable_sort(outcome.checks.begin(), outcome.checks.end(), [&](const ClaimCheck& a, const ClaimCheck& b) {
    auto position = [&](const std::string& name) {
      for (size_t i = 0; i < claim.properties.size(); ++i)
        if (claim.properties[i].property == name) return i;
      return claim.properties.size();
    };
    return position(a.check) < position(b.check);
  });
  for (const AvailabilityExpectation& a : claim.availability) {
    AvailabilityOptions o;
    o.failures = a.failures;
    o.lossy = a.lossy;
    o.failing_nodes = a.failing_nodes;
    o.threads = options.threads;
    o.por = options.por;
    o.max_states = claim.max_states != 0 ? claim.max_states : kDefaultAvailabilityStates;
    o.interrupt = options.interrupt;
    const AvailabilityReport r = analyze_availability(claim.resolved, o);
    ClaimCheck c;
    c.check = "availability after " + std::to_string(a.failures) + (a.lossy ? " lossy" : "") +
              (a.failures == 1 ? " failure" : " failures") + (a.failing_nodes == "brokers" ? " of brokers" : "");
    c.slug = "availability-" + std::to_string(a.failures) + (a.lossy ? "-lossy" : "") +
             (a.failing_nodes == "brokers" ? "-brokers" : "");
    c.expected = std::string(availability_name(a.expect));
    c.found = r.complete ? std::string(availability_name(r.verdict)) : "incomplete";
    c.met = c.expected == c.found;
    c.states = r.graph_states;
    c.seconds = r.seconds;
    c.trace = r.witness_trace;
    c.note = std::to_string(r.settled_states) + " settled states";
    if (!r.complete) {
      c.note = "state graph stopped at " + std::to_string(r.graph_states) + " states (" +
               (r.interrupted ? "interrupted" : "max_states") + ")";
    }
    if (r.unexplained_states != 0) c.note += ", " + std::to_string(r.unexplained_states) + " unexplained";
    outcome.checks.push_back(c);
  }
  return outcome;
}

}  // namespace isr::analysis
