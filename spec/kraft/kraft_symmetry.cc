// Symmetry reduction for the KRaft model: the voters of a static voter set are
// interchangeable (none is special in KIP-595), so a state relabelled by any
// permutation of voter ids is a real state of the same configuration and every property
// is invariant under it. A permutation relabels every voter reference: the voter array,
// votes, known leaders, votes granted, the leader's per-voter fetch offsets, the writer
// of every log entry and the history's leader sets.
//
// This file supplies the relabelling and each voter's label-free signature; the generic
// engine of checker/symmetry.h computes the canonical form from them.
#include <algorithm>
#include <array>
#include <cstring>

// Inlined: a signature hashes a few dozen bytes per node of every generated state, where
// the library call's dispatch costs as much as the hash.
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include "checker/symmetry.h"
#include "spec/kraft/kraft_model.h"
#include "spec/kraft/kraft_rules.h"

namespace isr::spec::kraft {
namespace {

using checker::map_id;
using checker::map_set;
using Perm = checker::Relabelling<kMaxVoters>;  // old voter id -> new voter id

void map_entries(const Perm& p, Entry* entries, int length) {
  for (int o = 0; o < length; ++o)
    if (entries[o].writer != 0) entries[o].writer = static_cast<uint8_t>(p[entries[o].writer - 1] + 1);
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
    map_entries(p, to.log, to.leo);
  }
  for (int e = 0; e <= kMaxEpoch; ++e) t.history.leaders[e] = map_set(p, s.history.leaders[e]);
  map_entries(p, t.history.committed, t.history.committed_len);
}

// Label-free facts about voter v: its own numbers, its log's epochs, and how it relates
// to itself (voted for itself, leads itself, wrote its entries, led an epoch).
uint64_t signature(int voters, const KraftState& s, int v) {
  const Voter& x = s.voters[v];
  struct {
    uint8_t numbers[12];
    uint8_t log_epochs[kMaxLog];
    uint8_t own_entries[kMaxLog];
    uint8_t led[kMaxEpoch + 1];
    uint8_t ends[kMaxVoters];
  } sig;
  std::memset(static_cast<void*>(&sig), 0, sizeof sig);
  const uint8_t numbers[12] = {x.alive, x.new_directory, x.cut, x.epoch, x.role, x.hw, x.leo,
                               x.epoch_start_offset,
                               static_cast<uint8_t>(x.voted_for == kNone ? 0 : x.voted_for == v ? 1 : 2),
                               static_cast<uint8_t>(x.leader == kNone ? 0 : x.leader == v ? 1 : 2),
                               static_cast<uint8_t>(count(x.granted)),
                               static_cast<uint8_t>(x.end_offset[v])};
  std::memcpy(sig.numbers, numbers, sizeof numbers);
  for (int o = 0; o < x.leo; ++o) {
    sig.log_epochs[o] = x.log[o].epoch;
    sig.own_entries[o] = x.log[o].writer == v + 1;
  }
  for (int e = 0; e <= kMaxEpoch; ++e) sig.led[e] = has(s.history.leaders[e], v);
  // The leader's fetch offsets as a multiset.
  for (int f = 0; f < voters; ++f) sig.ends[f] = x.end_offset[f];
  checker::detail::small_sort(sig.ends, voters);
  return XXH3_64bits(&sig, sizeof sig);
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
