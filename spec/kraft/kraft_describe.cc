// How the KRaft model speaks to people and files: action names, actions and states as
// JSON (trace format v1, docs/trace-format.md) and the exploration bounds a state has
// reached. Nothing here is on an engine's hot path.
#include <iterator>
#include <string>

#include "spec/kraft/kraft_model.h"
#include "spec/kraft/kraft_rules.h"

namespace isr::spec::kraft {
namespace {

using nlohmann::json;

constexpr const char* kKindNames[] = {"Timeout", "Vote",    "BeginEpoch", "Fetch", "Append",   "Resign",
                                      "Crash",   "Restart", "Cut",        "Heal",  "AddVoter", "RemoveVoter"};
static_assert(std::size(kKindNames) == static_cast<size_t>(KraftActionKind::kCount));

const char* role_name(int role) {
  switch (static_cast<Role>(role)) {
    case Role::Unattached: return "unattached";
    case Role::Voted: return "voted";
    case Role::Candidate: return "candidate";
    case Role::Leader: return "leader";
    case Role::Follower: return "follower";
    case Role::Resigned: return "resigned";
  }
  return "?";
}

json voter_or_null(int id) { return id == kNone ? json(nullptr) : json(id); }

json set_json(VoterSet s) {
  json out = json::array();
  for (int v = 0; v < kMaxVoters; ++v)
    if (has(s, v)) out.push_back(v);
  return out;
}

// [epoch, writer voter] per entry.
json entries_json(const Entry* entries, int length) {
  json out = json::array();
  for (int o = 0; o < length; ++o) out.push_back({entries[o].epoch, entries[o].writer - 1});
  return out;
}

// The KIP-853 VotersRecords of a log: offset, voter ids, and the ids named with the
// directory of their first disk loss. A list of records of one shape, so that a trace's
// export has one type per field (docs/trace-format.md, ITF).
json voters_records_json(const Voter& v) {
  json out = json::array();
  for (int o = 0; o < v.leo; ++o) {
    if (v.log[o].members == 0) continue;
    out.push_back({{"offset", o}, {"voters", set_json(v.log[o].members)}, {"new_directory", set_json(v.log[o].dirs)}});
  }
  return out;
}

std::string_view action_kind(const KraftModel&, const KraftAction& a) {
  return kKindNames[static_cast<int>(a.kind)];
}

std::vector<std::string_view> action_kinds(const KraftModel&) {
  return {std::begin(kKindNames), std::end(kKindNames)};
}

std::string action_name(const KraftModel&, const KraftAction& a) {
  const std::string n = std::to_string(a.node);
  const std::string o = std::to_string(a.other);
  switch (a.kind) {
    case KraftActionKind::Timeout: return "Timeout(voter=" + n + ")";
    case KraftActionKind::Vote: return "Vote(candidate=" + n + ", voter=" + o + (a.arg ? ", response lost)" : ")");
    case KraftActionKind::BeginEpoch: return "BeginEpoch(leader=" + n + ", voter=" + o + ")";
    case KraftActionKind::Fetch:
      return "Fetch(follower=" + n + ", leader=" + o + (a.arg ? ", response lost)" : ")");
    case KraftActionKind::Append: return "Append(leader=" + n + ")";
    case KraftActionKind::Resign: return "Resign(leader=" + n + ")";
    case KraftActionKind::Crash: return "Crash(voter=" + n + (a.arg ? ", disk lost)" : ")");
    case KraftActionKind::Restart: return "Restart(voter=" + n + ")";
    case KraftActionKind::Cut: return "Cut(voter=" + n + ")";
    case KraftActionKind::Heal: return "Heal(voter=" + n + ")";
    case KraftActionKind::AddVoter: return "AddVoter(leader=" + n + ", voter=" + o + ")";
    case KraftActionKind::RemoveVoter: return "RemoveVoter(leader=" + n + ", voter=" + o + ")";
    case KraftActionKind::kCount: break;
  }
  return "?";
}

json action_to_json(const KraftModel& m, const KraftAction& a) {
  json j = {{"kind", std::string(action_kind(m, a))}};
  switch (a.kind) {
    case KraftActionKind::Timeout:
    case KraftActionKind::Restart:
    case KraftActionKind::Cut:
    case KraftActionKind::Heal: j["voter"] = a.node; break;
    case KraftActionKind::Append:
    case KraftActionKind::Resign: j["leader"] = a.node; break;
    case KraftActionKind::Vote:
      j["candidate"] = a.node;
      j["voter"] = a.other;
      if (a.arg == 1) j["response_lost"] = true;  // absent otherwise: older traces stay as they were
      break;
    case KraftActionKind::BeginEpoch:
    case KraftActionKind::AddVoter:
    case KraftActionKind::RemoveVoter: j["leader"] = a.node; j["voter"] = a.other; break;
    case KraftActionKind::Fetch:
      j["follower"] = a.node;
      j["leader"] = a.other;
      j["response_lost"] = a.arg == 1;
      break;
    case KraftActionKind::Crash: j["voter"] = a.node; j["disk_lost"] = a.arg == 1; break;
    case KraftActionKind::kCount: break;
  }
  return j;
}

json state_to_json(const KraftModel& m, const KraftState& s) {
  const KraftConfig& c = m.config();
  json voters = json::array();
  for (int v = 0; v < c.voters; ++v) {
    const Voter& x = s.voters[v];
    json j = {{"id", v},
              {"alive", x.alive == 1},
              {"role", x.alive ? json(role_name(x.role)) : json("down")},
              {"voter", rules::is_voter(c, s, v)},
              {"new_directory", x.new_directory == 1},
              {"cut", x.cut == 1},
              {"epoch", x.epoch},
              {"voted_for", voter_or_null(x.voted_for)},
              {"leader", voter_or_null(x.leader)},
              {"log", entries_json(x.log, x.leo)},
              {"leo", x.leo},
              {"hw", x.hw}};
    if (x.role == static_cast<uint8_t>(Role::Candidate)) j["granted"] = set_json(x.granted);
    // Only where voter changes can happen (in every state then), so that other traces
    // keep their states.
    if (c.bounds.max_voter_changes > 0) j["voters_records"] = voters_records_json(x);
    if (x.alive && x.role == static_cast<uint8_t>(Role::Leader)) {
      json ends = json::array();
      for (int f = 0; f < c.voters; ++f) ends.push_back(x.end_offset[f]);
      j["leader_state"] = {{"epoch_start_offset", x.epoch_start_offset}, {"end_offsets", ends}};
      if (c.bounds.max_voter_changes > 0) {
        json ends_new = json::array();
        for (int f = 0; f < c.voters; ++f) ends_new.push_back(x.end_offset_new[f]);
        j["leader_state"]["end_offsets_new_directory"] = ends_new;
        j["leader_state"]["caught_up"] = set_json(x.caught_up);
      }
    }
    voters.push_back(std::move(j));
  }
  json leaders = json::object();
  for (int e = 0; e <= kMaxEpoch; ++e)
    if (s.history.leaders[e] != 0) leaders[std::to_string(e)] = set_json(s.history.leaders[e]);
  json committed_in = json::array();
  for (int o = 0; o < s.history.committed_len; ++o) committed_in.push_back(s.history.committed_in[o]);
  json faults = {{"crashes", s.faults.crashes},
                 {"disk_losses", s.faults.disk_losses},
                 {"cuts", s.faults.cuts},
                 {"lost_responses", s.faults.lost_responses},
                 {"appends", s.faults.appends}};
  if (c.bounds.max_voter_changes > 0) faults["voter_changes"] = s.faults.voter_changes;
  return {{"nodes", voters},
          {"history", {{"leaders", leaders},
                       {"committed", entries_json(s.history.committed, s.history.committed_len)},
                       {"committed_in", committed_in},
                       {"commit_conflict", s.history.commit_conflict == 1}}},
          {"faults", faults}};
}

json config_json(const KraftModel& m) { return to_json(m.config()); }

std::vector<std::string_view> bound_names(const KraftModel&) {
  return {"bounds.max_epoch", "bounds.max_appends", "faults.max_crashes", "faults.max_disk_losses",
          "faults.max_network_cuts", "faults.max_lost_responses", "bounds.max_voter_changes"};
}

uint32_t bounds_hit(const KraftModel& m, const KraftState& s) {
  const KraftConfig& c = m.config();
  uint32_t hit = 0;
  auto mark = [&](int i, bool cond) { hit |= cond ? (1u << i) : 0u; };
  bool epoch_bound = false;
  for (int v = 0; v < c.voters; ++v) epoch_bound |= s.voters[v].epoch >= c.bounds.max_epoch;
  mark(0, epoch_bound);
  mark(1, c.bounds.max_appends > 0 && s.faults.appends >= c.bounds.max_appends);
  mark(2, c.faults.max_crashes > 0 && s.faults.crashes >= c.faults.max_crashes);
  mark(3, c.faults.max_disk_losses > 0 && s.faults.disk_losses >= c.faults.max_disk_losses);
  mark(4, c.faults.max_network_cuts > 0 && s.faults.cuts >= c.faults.max_network_cuts);
  mark(5, c.faults.max_lost_responses > 0 && s.faults.lost_responses >= c.faults.max_lost_responses);
  mark(6, c.bounds.max_voter_changes > 0 && s.faults.voter_changes >= c.bounds.max_voter_changes);
  return hit;
}

}  // namespace

const checker::ModelWords<KraftModel, KraftState, KraftAction>& kraft_words() {
  static constexpr checker::ModelWords<KraftModel, KraftState, KraftAction> words = {
      action_name, action_kind, action_kinds, action_to_json, state_to_json, config_json, bound_names, bounds_hit};
  return words;
}

}  // namespace isr::spec::kraft
