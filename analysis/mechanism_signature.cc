// The partition model's mechanism signature (analysis/mechanism_signature.h). An event is
// 10 bits: its kind (5 bits) and 1 + the broker it concerns (5 bits); a step's token
// packs up to three events, the first in the low bits, and is 0 when the step has none.
#include "analysis/mechanism_signature.h"

#include <array>
#include <string_view>

#include "spec/partition/queries.h"

namespace isr::analysis {
namespace {

using spec::ActionKind;
using spec::NodeSet;
using spec::State;

enum Event : uint32_t {
  kNone = 0,
  // faults (the action itself)
  kStopClean, kKill, kPower, kDiskLoss, kCutQuorum, kCutBrokers, kCutClients, kPause, kSessionExpiry,
  // elections (the controller's leader and leader epoch)
  kElectIsr, kElectElr, kElectUnclean, kElectPreferred, kOffline,
  // truncation (a replica's log, not by its own fault)
  kTruncate,
  // ISR and ELR membership at the controller
  kIsrShrink, kIsrExpand, kElrAdd, kElrRemove,
  kEventCount
};

struct EventWords {
  std::string_view key;          // in the class key: "Power(A)"
  std::string_view explanation;  // "broker A lost power and its unflushed writes"
};

// `%` stands for the broker's renamed letter.
constexpr std::array<EventWords, kEventCount> kWords = {{
    {"", ""},
    {"Shutdown", "broker % shut down cleanly"},
    {"Kill", "broker % was killed (kill -9, page cache kept)"},
    {"Power", "broker % lost power and its unflushed writes"},
    {"DiskLoss", "broker % lost its disk"},
    {"CutFromQuorum", "broker % was cut off from the controller quorum"},
    {"CutFromBrokers", "broker % was cut off from the other brokers"},
    {"CutFromClients", "broker % was cut off from the clients"},
    {"Pause", "broker %'s process froze (GC pause, SIGSTOP)"},
    {"SessionExpiry", "broker %'s ZooKeeper session expired"},
    {"Elect", "the controller elected % from the ISR"},
    {"Elect-elr", "the controller elected % from the ELR (KIP-966)"},
    {"Elect-unclean", "the controller elected % although it was in neither ISR nor ELR (unclean election)"},
    {"Elect-preferred", "leadership moved to % (preferred-replica election)"},
    {"Offline", "the partition lost its leader (% was the last one)"},
    {"Truncate", "% truncated its log to the leader's, dropping records"},
    {"IsrShrink", "% left the ISR"},
    {"IsrExpand", "% rejoined the ISR"},
    {"ElrAdd", "% entered the ELR"},
    {"ElrRemove", "% left the ELR"},
}};

constexpr uint32_t event(Event kind, int broker) {
  return (static_cast<uint32_t>(kind) << 5) | static_cast<uint32_t>(broker + 1);
}

struct Events {
  uint32_t token = 0;
  int count = 0;
  void add(uint32_t e) {
    if (count == 3) return;  // a step with more events keeps the first three
    token |= e << (10 * count++);
  }
};

Event fault_of(const spec::Action& a) {
  switch (a.kind) {
    case ActionKind::Crash:
      switch (static_cast<spec::StopKind>(a.arg)) {
        case spec::StopKind::Clean: return kStopClean;
        case spec::StopKind::Kill: return kKill;
        case spec::StopKind::Power: return kPower;
        case spec::StopKind::Disk: return kDiskLoss;
        case spec::StopKind::None: return kNone;
      }
      return kNone;
    case ActionKind::Cut:
      if (a.arg & spec::kCutFromQuorum) return kCutQuorum;
      if (a.arg & spec::kCutFromBrokers) return kCutBrokers;
      return kCutClients;
    case ActionKind::Pause: return kPause;
    case ActionKind::SessionExpiry: return kSessionExpiry;
    default: return kNone;
  }
}

// The log of `after` is `before`'s, possibly extended: nothing dropped or replaced.
bool extends(const spec::ReplicaState& before, const spec::ReplicaState& after) {
  if (after.leo < before.leo) return false;
  for (int o = 0; o < before.leo; ++o)
    if (!(after.log[o] == before.log[o])) return false;
  return true;
}

void membership(Events& events, NodeSet before, NodeSet after, Event removed, Event added, int nodes) {
  for (int n = 0; n < nodes; ++n) {
    if (spec::contains(before, n) && !spec::contains(after, n)) events.add(event(removed, n));
    if (!spec::contains(before, n) && spec::contains(after, n)) events.add(event(added, n));
  }
}

bool acked(const State& s, int record) {
  return s.producer.outcome[record - 1] == static_cast<uint8_t>(spec::SendOutcome::Acked);
}

bool holds_record(const spec::ReplicaState& r, int record) {
  for (int i = 0; i < r.leo; ++i)
    if (r.log[i].record == record) return true;
  return false;
}

// Letters A, B, ... by first appearance of each broker in the signature.
template <class Emit>
void for_each_event(const std::vector<uint32_t>& signature, Emit&& emit) {
  std::array<char, 32> letter{};
  char next = 'A';
  for (const uint32_t token : signature) {
    for (int k = 0; k < 3; ++k) {
      const uint32_t e = (token >> (10 * k)) & 0x3ff;
      if (e == 0) continue;
      const uint32_t kind = e >> 5;
      const uint32_t broker = e & 31;
      if (letter[broker] == 0) letter[broker] = next++;
      emit(kind < kEventCount ? kWords[kind] : kWords[0], letter[broker]);
    }
  }
}

std::string with_letter(std::string_view text, char letter) {
  std::string out;
  for (const char ch : text) {
    if (ch == '%') out += letter; else out += ch;
  }
  return out;
}

}  // namespace

uint32_t MechanismLabeler::step(const State& parent, const Action& action, const State& child) const {
  const spec::Config& c = model_.config();
  Events events;
  if (const Event f = fault_of(action); f != kNone) events.add(event(f, action.node));
  // Elections: PartitionChangeBuilder.electLeader picks from the ISR, then (KIP-966) the
  // ELR, then, with unclean.leader.election.enable, any live replica (ElectionResult.unclean).
  const spec::ControllerState& before = parent.controller;
  const spec::ControllerState& after = child.controller;
  if (after.leader_epoch != before.leader_epoch || after.leader != before.leader) {
    if (after.leader == spec::kNoNode) {
      if (before.leader != spec::kNoNode) events.add(event(kOffline, before.leader));
    } else if (after.leader != before.leader || after.leader_epoch != before.leader_epoch) {
      const int l = after.leader;
      Event kind = kElectIsr;
      if (action.kind == ActionKind::PreferredElection) {
        kind = kElectPreferred;
      } else if (action.kind == ActionKind::UncleanElection ||
                 (!spec::contains(before.isr, l) && !spec::contains(before.elr, l) && before.leader != l)) {
        kind = kElectUnclean;
      } else if (!spec::contains(before.isr, l) && spec::contains(before.elr, l)) {
        kind = kElectElr;
      }
      // A new epoch for the same leader (an ISR change bumping it) is no election.
      if (after.leader != before.leader || kind != kElectIsr) events.add(event(kind, l));
    }
  }
  // Truncation: a replica's log lost or replaced entries, not through its own fault (a
  // power failure or disk loss already says that).
  const bool own_fault = action.kind == ActionKind::Crash;
  for (int r = 0; r < c.replication_factor; ++r) {
    if (own_fault && r == action.node) continue;
    if (!extends(parent.replicas[r], child.replicas[r])) events.add(event(kTruncate, r));
  }
  membership(events, before.isr, after.isr, kIsrShrink, kIsrExpand, c.replication_factor);
  membership(events, before.elr, after.elr, kElrRemove, kElrAdd, c.replication_factor);
  return events.token;
}

uint32_t MechanismLabeler::measure(const State& s) const {
  const spec::Config& c = model_.config();
  const int l = spec::rules::active_leader(s);
  uint32_t lost = 0;
  for (int k = 1; k <= c.bounds.max_records; ++k) {
    if (!acked(s, k)) continue;
    bool kept = false;
    if (l >= 0) {
      kept = holds_record(s.replicas[l], k);
    } else {
      for (int r = 0; r < c.replication_factor && !kept; ++r) kept = holds_record(s.replicas[r], k);
    }
    lost += !kept;
  }
  return lost;
}

std::string MechanismLabeler::class_key(const std::vector<uint32_t>& signature) const {
  std::string key;
  for_each_event(signature, [&](const EventWords& w, char letter) {
    key += (key.empty() ? "" : " > ") + std::string(w.key) + "(" + letter + ")";
  });
  return key.empty() ? "(no fault, election, truncation or ISR change)" : key;
}

std::string mechanism_explanation(const std::vector<uint32_t>& signature) {
  std::string text;
  for_each_event(signature, [&](const EventWords& w, char letter) {
    text += (text.empty() ? "" : "; then ") + with_letter(w.explanation, letter);
  });
  return text.empty() ? "ordinary produce and replication traffic alone, no fault" : text;
}

}  // namespace isr::analysis
