// Fixes a release shipped, against the fixes a trace's model turns off (release_fixes.h).
#include "conformance/release_fixes.h"

#include <cctype>
#include <string_view>

#include "conformance/real_kafka_cluster.h"
#include "spec/partition/config.h"
#include "spec/partition/metadata_version.h"

namespace isr::conformance {

using nlohmann::json;

std::vector<int> version_numbers(const std::string& text) {
  std::vector<int> out;
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    int n = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) n = n * 10 + (text[i++] - '0');
    out.push_back(n);
    if (i < text.size() && text[i] == '.') ++i;
    else break;
  }
  return out;
}

std::string fix_off_not_executable(const json& scenario, const std::string& kafka_version) {
  const json& source = scenario.value("source", json::object());
  if (!source.is_object() || !source.contains("model_config")) return "";
  const json& config = source["model_config"];
  // ZooKeeper mode has fixes of its own era and mode (zookeeper_mode.cc decides there).
  if (config.value("controller", json::object()).value("mode", "kraft") != "kraft") return "";
  const json& fixes = config.value("fixes", json::object());
  const std::vector<int> release = version_numbers(kafka_version);
  if (release.empty()) return "";
  // Compared with the release's generation, not the release itself: a generation's
  // preset is what the model says its releases do, and the suite's 3.9.1 runs of
  // kip-903 traces (a preset from 3.5) are measured to conform with 3.9's later fixes
  // left off where the trace never takes their path.
  const std::string generation = generation_of_release(kafka_version);
  const std::string trace_generation = config.value("protocol", "");
  if (generation.empty() || generation != trace_generation) return "";
  const spec::Protocol* protocol = nullptr;
  for (const spec::Protocol& p : spec::all_protocols())
    if (spec::protocol_name(p) == generation) protocol = &p;
  if (protocol == nullptr) return "";
  const spec::Fixes preset = spec::fixes_for(*protocol);
  const bool elr = config.value("eligible_leader_replicas", false);
  for (const spec::FixInfo& fix : spec::all_fixes()) {
    if (!(preset.*fix.toggle)) continue;  // the generation does not have it either
    // A fix of the ELR code path is inert with ELR off (`list fixes`: "ELR usable from").
    if (!elr && fix.kafka_version.find("ELR usable") != std::string_view::npos) continue;
    // Switched off on a real KRaft cluster by formatting it at an older metadata.version
    // (export_scenario.cc writes the level): runnable.
    if (spec::fix_gated_by_metadata_version(fix.name)) continue;
    const auto it = fixes.find(std::string(fix.name));
    if (it == fixes.end() || !it->is_boolean() || it->get<bool>()) continue;
    const std::string shipped(fix.kafka_version);
    const std::vector<int> since = version_numbers(shipped);
    if (since.empty() || release < since) continue;
    return "the trace turns off fixes." + std::string(fix.name) + " (" + std::string(fix.description) +
           "), which Kafka " + kafka_version + " has (since " + shipped +
           "): no setting of that release turns it back off; run it with --kafka-version of a release before " +
           std::to_string(since[0]) + "." + (since.size() > 1 ? std::to_string(since[1]) : "0");
  }
  return "";
}

}  // namespace isr::conformance
