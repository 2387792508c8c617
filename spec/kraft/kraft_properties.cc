// Raft's safety properties (Ongaro's thesis, figure 3.2) stated over the KRaft model's
// state: election safety, log matching, leader completeness, and committed entries never
// being replaced. The history they need (leaders per epoch, the committed prefix and the
// epoch each entry was committed in) is kept by the model's rules.
#include "spec/kraft/kraft_properties.h"

#include <algorithm>
#include <string>
#include <vector>

#include "spec/common/state_words.h"

namespace isr::properties {

namespace {
std::string explain_two_leaders(const nlohmann::json& state);
std::string explain_incomplete_leader(const nlohmann::json& state);
std::string explain_log_mismatch(const nlohmann::json& state);
std::string explain_committed_lost(const nlohmann::json& state);
}  // namespace

using spec::kraft::Entry;
using spec::kraft::KraftConfig;
using spec::kraft::KraftState;
using spec::kraft::Role;
using spec::kraft::Voter;

bool single_controller_per_epoch(const KraftConfig&, const KraftState& s) {
  for (const auto leaders : s.history.leaders)
    if (spec::kraft::count(leaders) > 1) return false;
  return true;
}

// If two logs hold an entry with the same epoch at the same offset, they are identical
// up to and including it. Every log counts, stopped voters' too (their disks persist).
bool metadata_log_matching(const KraftConfig& c, const KraftState& s) {
  for (int a = 0; a < c.voters; ++a) {
    for (int b = a + 1; b < c.voters; ++b) {
      const Voter& x = s.voters[a];
      const Voter& y = s.voters[b];
      const int common = x.leo < y.leo ? x.leo : y.leo;
      int last_same_epoch = -1;
      for (int o = 0; o < common; ++o)
        if (x.log[o].epoch == y.log[o].epoch) last_same_epoch = o;
      for (int o = 0; o <= last_same_epoch; ++o)
        if (!(x.log[o] == y.log[o])) return false;
    }
  }
  return true;
}

// No leader's HW ever covered an entry different from one committed before.
bool committed_metadata_durable(const KraftConfig&, const KraftState& s) { return s.history.commit_conflict == 0; }

// A leader of epoch E holds every entry committed in an epoch <= E.
bool metadata_leader_completeness(const KraftConfig& c, const KraftState& s) {
  for (int v = 0; v < c.voters; ++v) {
    const Voter& x = s.voters[v];
    if (!x.alive || x.role != static_cast<uint8_t>(Role::Leader)) continue;
    for (int o = 0; o < s.history.committed_len; ++o) {
      if (s.history.committed_in[o] > x.epoch) continue;
      if (o >= x.leo || !(x.log[o] == s.history.committed[o])) return false;
    }
  }
  return true;
}

const std::vector<KraftPropertyInfo>& kraft_catalog() {
  static const std::vector<KraftPropertyInfo> all = {
      {"single-controller-per-epoch", "at most one voter is elected leader (active controller) in each epoch",
       single_controller_per_epoch, explain_two_leaders},
      {"metadata-log-matching",
       "two metadata logs with an entry of the same epoch at the same offset are identical up to it",
       metadata_log_matching, explain_log_mismatch},
      {"committed-metadata-durable", "a committed metadata entry is never replaced by a later commit",
       committed_metadata_durable, explain_committed_lost},
      {"metadata-leader-completeness", "every leader holds every entry committed in its epoch or earlier",
       metadata_leader_completeness, explain_incomplete_leader},
  };
  return all;
}

const KraftPropertyInfo* find_kraft(std::string_view name) {
  for (const auto& p : kraft_catalog())
    if (p.name == name) return &p;
  return nullptr;
}

// --- explanations, for counterexamples: the quorum part of a trace's last state --------

namespace {

using nlohmann::json;

std::string explain_two_leaders(const json& state) {
  const json& leaders = field(field(state, "history"), "leaders");
  if (!leaders.is_object()) return {};
  for (const auto& [epoch, ids] : leaders.items()) {
    if (!ids.is_array() || ids.size() < 2) continue;
    std::vector<std::string> names;
    for (const json& id : ids) names.push_back(node_name(id));
    return join(names, " and ") + " were both elected leader (active controller) of epoch " + epoch;
  }
  return {};
}


std::string explain_incomplete_leader(const json& state) {
  const json& history = field(state, "history");
  const std::vector<json> committed = set_members(field(history, "committed"));
  const std::vector<json> committed_in = set_members(field(history, "committed_in"));
  for (const json& node : set_members(field(state, "nodes"))) {
    if (field(node, "role") != "leader" || field(node, "alive") == false) continue;
    const json& log = field(node, "log");
    for (size_t o = 0; o < committed.size() && o < committed_in.size(); ++o) {
      if (!(committed_in[o] <= field(node, "epoch"))) continue;
      if (log.is_array() && o < log.size() && log[o] == committed[o]) continue;
      return "the leader " + node_name(field(node, "id")) + " of epoch " + compact(field(node, "epoch")) +
             " lacks the entry " + kraft_entry(committed[o]) + " at offset " + std::to_string(o) +
             ", committed in epoch " + compact(committed_in[o]) + " (its log: " + kraft_log(node) + ")";
    }
  }
  return {};
}


std::string explain_log_mismatch(const json& state) {
  const std::vector<json> nodes = set_members(field(state, "nodes"));
  for (size_t a = 0; a < nodes.size(); ++a) {
    for (size_t b = a + 1; b < nodes.size(); ++b) {
      const std::vector<json> x = set_members(field(nodes[a], "log"));
      const std::vector<json> y = set_members(field(nodes[b], "log"));
      // The first offset where the logs differ, and the last later one where they agree:
      // linear in the logs (a pair search over offsets was quadratic in the trace).
      const size_t common = std::min(x.size(), y.size());
      size_t p = 0;
      while (p < common && x[p] == y[p]) ++p;
      for (size_t o = common; o-- > p + 1;) {
        if (x[o] != y[o]) continue;
        return node_name(field(nodes[a], "id")) + " and " + node_name(field(nodes[b], "id")) +
               " both have " + kraft_entry(x[o]) + " at offset " + std::to_string(o) +
               " but differ at offset " + std::to_string(p) + " (" + kraft_entry(x[p]) + " against " +
               kraft_entry(y[p]) + ")";
      }
    }
  }
  return {};
}


std::string explain_committed_lost(const json& state) {
  const std::vector<json> committed = set_members(field(field(state, "history"), "committed"));
  for (const json& node : set_members(field(state, "nodes"))) {
    const std::vector<json> log = set_members(field(node, "log"));
    const json& hw = field(node, "hw");
    for (size_t o = 0; o < committed.size() && o < log.size(); ++o) {
      if (hw.is_number_integer() && static_cast<long long>(o) < hw.get<long long>() && log[o] != committed[o]) {
        return "the HW of " + node_name(field(node, "id")) + " (" + compact(hw) + ") covers " + kraft_entry(log[o]) +
               " at offset " + std::to_string(o) + ", where " + kraft_entry(committed[o]) + " had been committed";
      }
    }
  }
  if (field(field(state, "history"), "commit_conflict") == true) {
    return "a leader's HW covered an entry different from one committed before";
  }
  return {};
}

}  // namespace

std::string explain_kraft(std::string_view property, const json& state) {
  const KraftPropertyInfo* p = find_kraft(property);
  return p == nullptr || p->explain == nullptr ? std::string() : p->explain(state);
}

}  // namespace isr::properties
