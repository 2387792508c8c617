// Symmetry reduction for the KRaft model: the voters of a static voter set are
// interchangeable (none is special in KIP-595), so a state relabelled by any
// permutation of voter ids is a real state of the same configuration and every property
// is invariant under it. A permutation relabels every voter reference: the voter array,
// votes, known leaders, votes granted, the leader's per-voter fetch offsets, the writer
// of every log entry and the history's leader sets.
//
// As in spec/symmetry.cc, voters are ordered by a label-free signature and only voters
// with equal signatures are permuted exhaustively, keeping the bytewise smallest
// result: exact (the same representative for every state of an orbit) and idempotent.
#include <algorithm>
#include <array>
#include <cstring>

#include <xxhash.h>

#include "spec/kraft/kraft_model.h"
#include "spec/kraft/kraft_rules.h"

namespace isr::spec::kraft {
namespace {

using Perm = std::array<uint8_t, kMaxVoters>;  // old voter id -> new voter id

// Insertion sort: at most kMaxVoters items (std::sort trips GCC's -Warray-bounds here).
template <class T>
void small_sort(T* items, int n) {
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && items[j] < items[j - 1]; --j) std::swap(items[j], items[j - 1]);
}

uint8_t map_id(const Perm& p, uint8_t id) { return id == kNone ? kNone : p[id]; }

VoterSet map_set(const Perm& p, VoterSet s) {
  VoterSet out = 0;
  for (int v = 0; s != 0; ++v, s >>= 1)
    if (s & 1u) out |= member(p[v]);
  return out;
}

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
    to.voted_for = map_id(p, from.voted_for);
    to.leader = map_id(p, from.leader);
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
  small_sort(sig.ends, voters);
  return XXH3_64bits(&sig, sizeof sig);
}

}  // namespace

void rules::relabel_voters(int voters, const std::array<uint8_t, kMaxVoters>& perm, const KraftState& s,
                           KraftState& t) {
  relabel(voters, perm, s, t);
}

void KraftModel::canonicalize(KraftState& s) const {
  const int k = config_.voters;
  std::array<std::pair<uint64_t, uint8_t>, kMaxVoters> order;
  for (int v = 0; v < k; ++v) order[v] = {signature(k, s, v), static_cast<uint8_t>(v)};
  small_sort(order.data(), k);
  Perm base;
  for (int v = 0; v < kMaxVoters; ++v) base[v] = static_cast<uint8_t>(v);
  for (int i = 0; i < k; ++i) base[order[i].second] = static_cast<uint8_t>(i);
  // Tie groups: runs of equal signatures, as (first slot, members).
  struct Tie {
    int first_slot;
    int size;
    std::array<uint8_t, kMaxVoters> members;
  };
  std::array<Tie, kMaxVoters> ties;
  int tie_count = 0;
  for (int i = 0; i < k;) {
    int j = i;
    while (j < k && order[j].first == order[i].first) ++j;
    if (j - i > 1) {
      Tie& t = ties[tie_count++];
      t.first_slot = i;
      t.size = j - i;
      for (int m = 0; m < t.size; ++m) t.members[m] = order[i + m].second;
    }
    i = j;
  }
  KraftState best;
  relabel(k, base, s, best);
  if (tie_count == 0) {
    s = best;
    return;
  }
  // Every ordering of every tie group (at most 5! = 120 relabellings).
  KraftState candidate;
  for (;;) {
    int g = 0;
    for (; g < tie_count; ++g) {
      Tie& t = ties[g];
      if (std::next_permutation(t.members.begin(), t.members.begin() + t.size)) break;
    }
    if (g == tie_count) break;
    Perm p = base;
    for (int i = 0; i < tie_count; ++i)
      for (int m = 0; m < ties[i].size; ++m) p[ties[i].members[m]] = static_cast<uint8_t>(ties[i].first_slot + m);
    relabel(k, p, s, candidate);
    if (std::memcmp(&candidate, &best, sizeof(KraftState)) < 0) best = candidate;
  }
  s = best;
}

}  // namespace isr::spec::kraft
