// Raft's safety properties (Ongaro's thesis, figure 3.2) stated over the KRaft model's
// state: election safety, log matching, leader completeness, and committed entries never
// being replaced. The history they need (leaders per epoch, the committed prefix and the
// epoch each entry was committed in) is kept by the model's rules.
#include "properties/kraft.h"

namespace isr::properties {

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
       single_controller_per_epoch},
      {"metadata-log-matching",
       "two metadata logs with an entry of the same epoch at the same offset are identical up to it",
       metadata_log_matching},
      {"committed-metadata-durable", "a committed metadata entry is never replaced by a later commit",
       committed_metadata_durable},
      {"metadata-leader-completeness", "every leader holds every entry committed in its epoch or earlier",
       metadata_leader_completeness},
  };
  return all;
}

const KraftPropertyInfo* find_kraft(std::string_view name) {
  for (const auto& p : kraft_catalog())
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace isr::properties
