// The opening lines of a counterexample (opening.h).
#include "counterexamples/render/opening.h"

#include <algorithm>
#include <string_view>

#include "counterexamples/render/render_words.h"

namespace isr::counterexamples {
namespace {

using nlohmann::json;

// Steps that are faults, or the decisions that turn a fault into a loss: what a reader
// asks "what went wrong?" about. Requests and replication are the protocol doing its job.
bool is_fault_or_election(std::string_view kind) {
  static constexpr std::string_view kKinds[] = {
      "Crash",         "Restart",      "Cut",         "Heal",       "Pause",
      "Resume",        "SessionExpiry", "BrokerBounce", "ControllerFailover",
      "UncleanElection", "DeposedWrite", "StaleLeaderAndIsr", "ProduceTimeout"};
  return std::find(std::begin(kKinds), std::end(kKinds), kind) != std::end(kKinds);
}

std::string where(const json& node) {
  const std::string name = node_name(field(node, "id"));
  if (field(node, "alive") != true) return name + " (down)";
  const json& role = field(field(node, "replica"), "role");
  if (!role.is_string()) return name;
  const std::string word = role.get<std::string>();
  return word == "follower" || word == "none" ? name : name + " (" + word + ")";
}

}  // namespace

std::vector<std::string> opening_lines(const json& trace, const std::string& why) {
  std::vector<std::string> lines;
  const json& steps = trace.at("steps");
  if (!steps.is_array() || steps.empty()) return {"why: " + why};
  const json& last = steps.back().at("state");

  // What the application was told was written, and when (state_words' acked_records).
  auto acked_at = [&](size_t i, const std::string& record) {
    const std::vector<std::string> acked = properties::acked_records(steps[i].at("state"));
    return std::find(acked.begin(), acked.end(), record) != acked.end();
  };
  const std::vector<std::string> acked_records = properties::acked_records(last);
  if (field(last, "producer").is_object()) {
    std::vector<std::string> told;
    for (const std::string& record : acked_records) {
      size_t at = 0;
      while (at < steps.size() && !acked_at(at, record)) ++at;
      told.push_back("record " + record +
                     (at < steps.size() ? " at step " + std::to_string(at) + " (" +
                                              scalar_text(field(steps[at], "action_name")) + ")"
                                        : ""));
    }
    lines.push_back("acknowledged: " + (told.empty() ? std::string("nothing") : join(told, ", ")));
  }

  // The faults, and the elections that followed them.
  std::vector<std::string> faults;
  for (size_t i = 1; i < steps.size(); ++i) {
    const json& kind = field(field(steps[i], "action"), "kind");
    const std::string step = "step " + std::to_string(i) + " " + scalar_text(field(steps[i], "action_name"));
    // An election is named by what it did: the controller's leader changed to a broker
    // (in KRaft an unclean one happens inside the fencing change, not as a step of its own).
    const json& before = field(field(steps[i - 1].at("state"), "controller"), "leader");
    const json& after = field(field(steps[i].at("state"), "controller"), "leader");
    const bool elected = after.is_number_integer() && after != before;
    if (elected) {
      const bool unclean = field(field(steps[i].at("state"), "controller"), "unclean_elected") == true &&
                           field(field(steps[i - 1].at("state"), "controller"), "unclean_elected") != true;
      faults.push_back(step + ": " + node_name(after) + " elected" + (unclean ? " uncleanly" : ""));
    } else if (kind.is_string() && is_fault_or_election(kind.get<std::string>())) {
      faults.push_back(step);
    }
  }
  constexpr size_t kShown = 4;
  std::string failed = faults.empty() ? "nothing: no fault was injected" : "";
  for (size_t i = 0; i < faults.size() && i < kShown; ++i) failed += (i == 0 ? "" : "; ") + faults[i];
  if (faults.size() > kShown) failed += "; and " + std::to_string(faults.size() - kShown) + " more";
  lines.push_back("faults and elections: " + failed);

  // Which replicas ended up without each acknowledged record.
  const json& nodes = field(last, "nodes");
  if (nodes.is_array() && !acked_records.empty()) {
    std::vector<std::string> missing;
    for (const std::string& record : acked_records) {
      std::vector<std::string> without;
      std::vector<std::string> with;
      for (const json& node : nodes) {
        const json& replica = field(node, "replica");
        if (!replica.is_object()) continue;
        (properties::holds_record(replica, record) ? with : without).push_back(where(node));
      }
      if (without.empty()) continue;
      missing.push_back("record " + record + " missing from " + join(without, ", ") +
                        (with.empty() ? " (on no replica)" : "; still on " + join(with, ", ")));
    }
    if (!missing.empty()) lines.push_back("without it: " + join(missing, "; "));
  }
  lines.push_back("why: " + why);
  return lines;
}

}  // namespace isr::counterexamples
