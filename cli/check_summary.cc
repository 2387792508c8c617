// The Kafka-terms summary of `isrcheck check` (cli/check_summary.h). Reads only the
// resolved configuration JSON, so the partition, KRaft and cluster models share it: a
// key a model does not have is simply not mentioned.
#include "cli/check_summary.h"

#include <algorithm>
#include <sstream>

namespace isr::cli {
namespace {

using nlohmann::json;

const json* find_key(const json& j, std::initializer_list<const char*> path) {
  const json* at = &j;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return nullptr;
    at = &(*at)[key];
  }
  return at;
}

std::string value_text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

int int_at(const json& j, std::initializer_list<const char*> path, int fallback = 0) {
  const json* v = find_key(j, path);
  return v != nullptr && v->is_number_integer() ? v->get<int>() : fallback;
}

std::string counted(int n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

// "1 node stop (of which 1 lossy power failure), 0 network cuts": the fault budget.
std::string partition_faults(const json& config) {
  std::ostringstream out;
  const int stops = int_at(config, {"faults", "max_crashes"});
  out << counted(stops, "node stop", "node stops");
  std::vector<std::string> of_which;
  if (const int n = int_at(config, {"faults", "max_lossy_crashes"}); n > 0)
    of_which.push_back(counted(n, "power failure losing unflushed writes", "power failures losing unflushed writes"));
  if (const int n = int_at(config, {"faults", "max_disk_losses"}); n > 0)
    of_which.push_back(counted(n, "disk loss", "disk losses"));
  if (const int n = int_at(config, {"faults", "max_clean_shutdowns"}); n > 0)
    of_which.push_back(counted(n, "controlled shutdown", "controlled shutdowns"));
  if (!of_which.empty()) {
    out << " (of which ";
    for (size_t i = 0; i < of_which.size(); ++i) out << (i ? ", " : "") << of_which[i];
    out << ")";
  }
  out << ", " << counted(int_at(config, {"faults", "max_network_cuts"}), "network cut", "network cuts");
  if (find_key(config, {"faults", "max_lost_produce_responses"}) != nullptr)
    out << ", " << counted(int_at(config, {"faults", "max_lost_produce_responses"}), "lost produce response",
                         "lost produce responses");
  return out.str();
}

std::string partition_bounds(const json& config) {
  std::ostringstream out;
  out << counted(int_at(config, {"bounds", "max_records"}), "record produced", "records produced")
      << ", leader epoch <= " << int_at(config, {"bounds", "max_leader_epoch"})
      << ", partition epoch <= " << int_at(config, {"bounds", "max_partition_epoch"}) << ", "
      << counted(int_at(config, {"bounds", "max_retries"}), "producer retry", "producer retries") << ", "
      << counted(int_at(config, {"bounds", "max_leader_moves"}), "preferred-leader move", "preferred-leader moves");
  // Recorded only when set (config.cc to_json), so older summaries keep their text.
  if (find_key(config, {"bounds", "max_reassignments"}) != nullptr)
    out << ", " << counted(int_at(config, {"bounds", "max_reassignments"}), "reassignment", "reassignments");
  return out.str();
}

// "kip-966, all 15 fixes on" or "..., fixes off: a, b".
std::string protocol_text(const json& config) {
  std::string text;
  if (const json* p = find_key(config, {"protocol"})) text = "protocol " + value_text(*p);
  const json* fixes = find_key(config, {"fixes"});
  if (fixes == nullptr || !fixes->is_object()) return text;
  std::vector<std::string> off;
  for (const auto& [name, on] : fixes->items()) {
    if (on.is_boolean() && !on.get<bool>()) off.push_back(name);
  }
  text += text.empty() ? "" : ", ";
  if (off.empty()) return text + "all " + std::to_string(fixes->size()) + " fixes on";
  text += std::to_string(fixes->size() - off.size()) + " of " + std::to_string(fixes->size()) +
          " fixes on (off: ";
  for (size_t i = 0; i < off.size(); ++i) text += (i ? ", " : "") + off[i];
  return text + ")";
}

std::string partition_summary(const json& c, std::string_view model_name) {
  std::ostringstream out;
  out << "checked: one partition on " << counted(int_at(c, {"brokers"}), "broker", "brokers") << " ("
      << model_name << " model)\n";
  out << "  replication.factor=" << int_at(c, {"replication_factor"})
      << ", min.insync.replicas=" << int_at(c, {"min_insync_replicas"});
  if (const json* acks = find_key(c, {"acks"})) out << ", producer acks=" << value_text(*acks);
  if (const json* idem = find_key(c, {"idempotence"}); idem != nullptr && idem->is_boolean())
    out << (idem->get<bool>() ? " (idempotent)" : " (not idempotent)");
  if (const json* consumer = find_key(c, {"consumer"}); consumer != nullptr && consumer->is_boolean())
    out << (!consumer->get<bool>() ? ", no consumer"
            // KIP-392 (consumer_fetch_from, recorded only when not the default).
            : find_key(c, {"consumer_fetch_from"}) != nullptr ? ", a consumer reading from the leader or a follower"
                                                              : ", a consumer reading from the leader");
  out << "\n";
  out << "  unclean.leader.election.enable="
      << (find_key(c, {"unclean_leader_election"}) ? value_text(*find_key(c, {"unclean_leader_election"})) : "?");
  if (const json* elr = find_key(c, {"eligible_leader_replicas"}); elr != nullptr && elr->is_boolean())
    out << ", eligible leader replicas (KIP-966) " << (elr->get<bool>() ? "on" : "off");
  if (const json* flush = find_key(c, {"flush"})) {
    const std::string f = value_text(*flush);
    out << "\n  log flush: " << f << (f == "none" ? " (a power failure loses unflushed writes)" : "");
  }
  out << "\n";
  if (const json* mode = find_key(c, {"controller", "mode"})) {
    const std::string m = value_text(*mode);
    out << "  controller: " << (m == "kraft" ? "KRaft" : m == "zookeeper" ? "ZooKeeper" : m);
    if (m == "kraft") {
      const int voters = int_at(c, {"controller", "voters"});
      const json* placement = find_key(c, {"controller", "placement"});
      out << ", " << counted(voters, "voter", "voters");
      if (placement != nullptr)
        out << (value_text(*placement) == "combined" ? " on the brokers (combined mode)"
                                                     : " on dedicated controller nodes");
      // Only when dynamic, so that the default summary reads as before.
      if (const json* quorum = find_key(c, {"controller", "quorum"}); quorum != nullptr && value_text(*quorum) == "dynamic")
        out << ", dynamic quorum (KIP-853: a voter back on an empty disk is an observer until re-added)";
    }
    out << "; " << protocol_text(c) << "\n";
  } else {
    out << "  " << protocol_text(c) << "\n";
  }
  out << "  faults, at most: " << partition_faults(c) << "\n";
  out << "  bounds: " << partition_bounds(c);
  if (find_key(c, {"kraft"}) != nullptr) {
    out << "\n  metadata log bounds: " << counted(int_at(c, {"kraft", "max_records"}), "record", "records")
        << ", controller epoch <= " << int_at(c, {"kraft", "max_epoch"}) << ", "
        << counted(int_at(c, {"kraft", "max_lost_responses"}), "lost response", "lost responses");
    if (int_at(c, {"kraft", "max_voter_changes"}) > 0)
      out << ", " << counted(int_at(c, {"kraft", "max_voter_changes"}), "voter change", "voter changes")
          << " (AddVoter/RemoveVoter)";
  }
  out << "\n";
  return out.str();
}

std::string kraft_summary(const json& c) {
  std::ostringstream out;
  out << "checked: the KRaft controller quorum alone, " << counted(int_at(c, {"voters"}), "voter", "voters")
      << " (kraft model); " << protocol_text(c) << "\n";
  out << "  faults, at most: " << counted(int_at(c, {"faults", "max_crashes"}), "voter crash", "voter crashes")
      << " (of which " << counted(int_at(c, {"faults", "max_disk_losses"}), "disk loss", "disk losses") << "), "
      << counted(int_at(c, {"faults", "max_network_cuts"}), "network cut", "network cuts") << ", "
      << counted(int_at(c, {"faults", "max_lost_responses"}), "lost response", "lost responses") << "\n";
  out << "  bounds: epoch <= " << int_at(c, {"bounds", "max_epoch"}) << ", "
      << counted(int_at(c, {"bounds", "max_appends"}), "metadata append", "metadata appends");
  // KIP-853 voter changes, named only when the voter set can change (older traces lack the key).
  if (int_at(c, {"bounds", "max_voter_changes"}) > 0)
    out << ", " << counted(int_at(c, {"bounds", "max_voter_changes"}), "voter change", "voter changes")
        << " (AddVoter/RemoveVoter)";
  out << "\n";
  return out.str();
}

}  // namespace

std::string kafka_terms_summary(const json& config, std::string_view model_name) {
  if (find_key(config, {"brokers"}) != nullptr) return partition_summary(config, model_name);
  if (find_key(config, {"voters"}) != nullptr) return kraft_summary(config);
  return "checked: the " + std::string(model_name) + " model: " + config.dump() + "\n";
}

std::string properties_summary(const std::vector<std::pair<std::string, std::string>>& properties) {
  size_t width = 0;
  for (const auto& [name, description] : properties) width = std::max(width, name.size());
  // The names line folds at commas, the descriptions under themselves: the list fits a
  // 120-column terminal.
  std::string out = "properties checked: ";
  size_t column = out.size();
  for (size_t i = 0; i < properties.size(); ++i) {
    const std::string& name = properties[i].first;
    const bool last = i + 1 == properties.size();
    if (i > 0 && column + name.size() + 1 > 120) {
      out += "\n  ";
      column = 2;
    } else if (i > 0) {
      out += ' ';
      ++column;
    }
    out += name + (last ? "" : ",");
    column += name.size() + 1;
  }
  out += "\n";
  const size_t indent = width + 4;
  const size_t room = indent < 80 ? 120 - indent : 40;
  for (const auto& [name, description] : properties) {
    out += "  " + name + std::string(width - name.size() + 2, ' ');
    std::istringstream words(description);
    std::string word;
    size_t used = 0;
    while (words >> word) {
      if (used > 0 && used + 1 + word.size() > room) {
        out += "\n" + std::string(indent, ' ');
        used = 0;
      } else if (used > 0) {
        out += ' ';
        ++used;
      }
      out += word;
      used += word.size();
    }
    out += "\n";
  }
  return out;
}

std::string bounds_reached_summary(const std::vector<std::string>& bounds_reached, bool holds) {
  std::string list;
  for (const auto& b : bounds_reached) list += (list.empty() ? "" : ", ") + b;
  std::string out = "bounds reached: " + (list.empty() ? std::string("none") : list) + "\n";
  if (!holds) return out;
  if (bounds_reached.empty()) {
    out += "  no explored state used any bound to the full: raising them adds no state\n";
  } else {
    out += "  HOLDS means within these bounds only: some state used each of these to the full, so a\n"
           "  larger value may reach states (and violations) that were not explored\n";
  }
  return out;
}

std::string figures_explained() {
  return "what the figures mean (docs/checker.md):\n"
         "  distinct states     different states found and checked against every property; with\n"
         "                      symmetry on, one per class of states equal up to renaming brokers\n"
         "  states generated    every successor computed, duplicates included (TLC's \"states\n"
         "                      generated\"); generated / distinct is how often paths meet again\n"
         "  depth               the longest shortest path: every state within this many actions\n"
         "                      of the start was checked; a counterexample's length when violated\n"
         "  peak memory         the search's own structures at their largest (visited set of\n"
         "                      fingerprints, parent log, frontiers), not the whole process\n"
         "  memory per structure bytes per fingerprint / state of each; the frontier holds the\n"
         "                      states of the level being expanded and of the next, compressed\n"
         "  fingerprint collision probability\n"
         "                      states are stored as 128-bit hashes (64-bit with --fingerprint 64);\n"
         "                      this bounds the chance that two different states shared one, so\n"
         "                      that one was never explored\n"
         "  bounds reached      bounds (faults, records, epochs) some state used to the full: a\n"
         "                      verdict holds for these bounds; raising one may find more\n";
}

}  // namespace isr::cli
