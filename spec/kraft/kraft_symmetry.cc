// Symmetry reduction for the KRaft model: the voters of a static voter set are
// interchangeable (none is special in KIP-595), so a state relabelled by any
// permutation of voter ids is a real state of the same configuration and every property
// is invariant under it. A permutation relabels every voter reference: the voter array,
// votes, known leaders, votes granted, the leader's per-voter fetch offsets and caught-up
// replicas, the writer and the voter set (KIP-853 VotersRecord) of every log entry and
// the history's leader sets.
//
// This file supplies the relabelling and each voter's label-free signature; the generic
// engine of checker/symmetry.h computes the canonical form from them.
#include <algorithm>
#include <array>
#include <cstring>

#include "checker/symmetry.h"
#include "spec/kraft/kraft_model.h"
#include "spec/kraft/kraft_rules.h"

namespace isr::spec::kraft {
namespace {

using checker::map_id;
using checker::map_set;
using Perm = checker::Relabelling<kMaxVoters>;  // old voter id -> new voter id

void map_entries(const Perm& p, Entry* entries, int length) {
  for (int o = 0; o < length; ++o) {
    if (entries[o].writer != 0) entries[o].writer = static_cast<uint8_t>(p[entries[o].writer - 1] + 1);
    entries[o].members = map_set(p, entries[o].members);
    entries[o].dirs = map_set(p, entries[o].dirs);
  }
}

void relabel(int voters, const Perm& p, const KraftState& s, KraftState& t) {
  t = s;
  for (int v = 0; v < voters; ++v) {
    const Voter& from = s.voters[v];
    Voter& to = t.voters[p[v]];
    to = from;
    to.voted_for = map_id(p, from.voted_for, kNone);
    to.leader = map_id(p, from.leader, kNone);
    to.granted = map_set(p, from.granted);
    for (int f = 0; f < voters; ++f) to.end_offset[p[f]] = from.end_offset[f];
    for (int f = 0; f < voters; ++f) to.end_offset_new[p[f]] = from.end_offset_new[f];
    to.caught_up = map_set(p, from.caught_up);
    map_entries(p, to.log, to.leo);
  }
  for (int e = 0; e <= kMaxEpoch; ++e) t.history.leaders[e] = map_set(p, s.history.leaders[e]);
  map_entries(p, t.history.committed, t.history.committed_len);
}

// Label-free facts about voter v: its own numbers, its log's epochs, and how it relates
// to itself (voted for itself, leads itself, wrote its entries, led an epoch). Packed
// into words as they are read (checker::SignatureHash says why).
uint64_t signature(int voters, const KraftState& s, int v) {
  static_assert(kMaxLog <= 8 && kMaxEpoch < 16 && kMaxVoters <= 8);
  const Voter& x = s.voters[v];
  checker::SignatureHash h;
  uint64_t numbers = uint64_t{x.alive} | uint64_t{x.new_directory} << 8 | uint64_t{x.cut} << 16 |
                     uint64_t{x.epoch} << 24 | uint64_t{x.role} << 32 | uint64_t{x.hw} << 40 |
                     uint64_t{x.leo} << 48 | uint64_t{x.epoch_start_offset} << 56;
  h.add(numbers);
  uint64_t self = static_cast<uint64_t>(x.voted_for == kNone ? 0 : x.voted_for == v ? 1 : 2) |
                  static_cast<uint64_t>(x.leader == kNone ? 0 : x.leader == v ? 1 : 2) << 2 |
                  static_cast<uint64_t>(count(x.granted)) << 4 | uint64_t{x.end_offset[v]} << 8;
  uint64_t log_epochs = 0;
  for (int o = 0; o < x.leo; ++o) {
    log_epochs |= uint64_t{x.log[o].epoch} << 8 * o;
    self |= uint64_t{x.log[o].writer == v + 1} << (16 + o);
  }
  for (int e = 0; e <= kMaxEpoch; ++e) self |= uint64_t{has(s.history.leaders[e], v)} << (24 + e);
  h.add(log_epochs);
  h.add(self);
  // The leader's fetch offsets as a multiset.
  uint8_t ends[kMaxVoters];
  for (int f = 0; f < voters; ++f) ends[f] = x.end_offset[f];
  checker::detail::small_sort(ends, voters);
  uint64_t sorted_ends = 0;
  for (int f = 0; f < voters; ++f) sorted_ends |= uint64_t{ends[f]} << 8 * f;
  h.add(sorted_ends);
  // KIP-853 voter changes: v's place in each VotersRecord and the leader's state of its
  // other key. Added only when present, so that states without voter changes hash as
  // before.
  uint64_t voters_word = uint64_t{x.end_offset_new[v]} | uint64_t{has(x.caught_up, v)} << 8 |
                         static_cast<uint64_t>(count(x.caught_up)) << 12;
  for (int o = 0; o < x.leo; ++o) {
    const Entry& e = x.log[o];
    if (e.members == 0) continue;
    voters_word |= (uint64_t{has(e.members, v)} | uint64_t{has(e.dirs, v)} << 1 |
                    static_cast<uint64_t>(count(e.members)) << 2) << (16 + 6 * o);
  }
  if (voters_word != 0) h.add(voters_word);
  return h.value();
}

}  // namespace

void rules::relabel_voters(int voters, const std::array<uint8_t, kMaxVoters>& perm, const KraftState& s,
                           KraftState& t) {
  relabel(voters, perm, s, t);
}

uint64_t rules::voter_signature(int voters, const KraftState& s, int v) { return signature(voters, s, v); }

std::vector<std::vector<uint8_t>> voter_classes(const KraftConfig& c) {
  if (c.voters < 2) return {};
  std::vector<uint8_t> all;
  for (int v = 0; v < c.voters; ++v) all.push_back(static_cast<uint8_t>(v));
  return {all};
}

void KraftModel::canonicalize(KraftState& s) const {
  const int k = config_.voters;
  checker::canonicalize<kMaxVoters>(
      s, symmetry_classes_, [k](const KraftState& x, int v) { return signature(k, x, v); },
      [k](const Perm& p, const KraftState& from, KraftState& to) { relabel(k, p, from, to); });
}

}  // namespace isr::spec::kraft
