// Which shards each thread moves when the visited set grows in place on several threads
// at once (visited_set.h, "Growing in place on several threads").
//
// The shards lie one after the other in one array; growing moves every shard to a new,
// larger region at the same or a higher address (new_offset[s] >= old_offset[s]). One
// thread can do it in place from the last shard to the first: a shard's new region only
// covers old regions of shards already moved, and its own. Several threads take
// contiguous groups of shards, each group from its last shard to its first. Group g-1
// then writes below new_offset[first[g]], which covers the old regions of group g's
// first shards: those, [first[g], saved_end[g]), group g-1 copies out before it writes
// anything, and group g moves them from that copy (after waiting for it), last. Nothing
// else is shared: group g writes at or above new_offset[first[g]] >= old_offset[saved_end[g]],
// above every old region group g-1 reads, and below new_offset[first[g+1]], where group
// g+1's copied shards begin. The copy is what the scheme costs: about (growth - 1) of a
// group's shards per boundary (35% at the set's 1.35x), so the number of groups is
// bounded by the growth (a copied range must stay inside its group).
#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

namespace isr::checker {

struct GrowthGroups {
  std::vector<size_t> first;      // groups + 1 entries: group g moves [first[g], first[g + 1])
  std::vector<size_t> saved_end;  // per group: [first[g], saved_end[g]) copied by group g-1 (none for g = 0)
  size_t count() const { return first.empty() ? 0 : first.size() - 1; }
};

namespace growth_groups_detail {

// The first shard at or after `from` whose old region starts at or past `limit`.
inline size_t first_old_at_or_past(const std::vector<size_t>& old_offset, size_t from, size_t limit) {
  const size_t shards = old_offset.size() - 1;
  size_t i = from;
  while (i < shards && old_offset[i] < limit) ++i;
  return i;
}

// Fills saved_end for the boundaries in `first`; false when a copied range would pass the
// end of its group (too many groups for this growth).
inline bool complete(GrowthGroups& g, const std::vector<size_t>& old_offset, const std::vector<size_t>& new_offset) {
  g.saved_end.assign(g.count(), 0);
  for (size_t k = 1; k < g.count(); ++k) {
    if (g.first[k] <= g.first[k - 1]) return false;
    g.saved_end[k] = first_old_at_or_past(old_offset, g.first[k], new_offset[g.first[k]]);
    if (g.saved_end[k] > g.first[k + 1]) return false;
  }
  return true;
}

}  // namespace growth_groups_detail

// `old_offset` and `new_offset` have one entry per shard and then the total (so
// shards + 1 entries), with new_offset[s] >= old_offset[s]. Returns at most `wanted`
// groups (1 when more are impossible), each a contiguous range of shards. With two
// groups the boundary balances the slots each group writes plus half of those group 0
// copies (a copy reads and writes each value once; a move also clears the new region);
// with more, the groups are equal in shards.
inline GrowthGroups plan_growth_groups(const std::vector<size_t>& old_offset, const std::vector<size_t>& new_offset,
                                       size_t wanted) {
  if (old_offset.size() != new_offset.size() || old_offset.size() < 2) {
    throw std::invalid_argument("plan_growth_groups: one offset per shard and the total, old and new");
  }
  const size_t shards = old_offset.size() - 1;
  for (size_t s = 0; s <= shards; ++s) {
    if (new_offset[s] < old_offset[s]) throw std::invalid_argument("plan_growth_groups: a shard would move down");
  }
  using growth_groups_detail::complete;
  using growth_groups_detail::first_old_at_or_past;
  for (size_t groups = std::min(wanted, shards); groups >= 2; --groups) {
    GrowthGroups g;
    if (groups == 2) {
      size_t best = 0;
      size_t best_cost = 0;
      for (size_t m = 1; m < shards; ++m) {
        const size_t saved_end = first_old_at_or_past(old_offset, m, new_offset[m]);
        const size_t low = new_offset[m] + (old_offset[saved_end] - old_offset[m]) / 2;
        const size_t high = new_offset[shards] - new_offset[m];
        const size_t cost = std::max(low, high);
        if (best == 0 || cost < best_cost) {
          best = m;
          best_cost = cost;
        }
      }
      g.first = {0, best, shards};
    } else {
      for (size_t k = 0; k <= groups; ++k) g.first.push_back(shards * k / groups);
    }
    if (complete(g, old_offset, new_offset)) return g;
  }
  GrowthGroups one;
  one.first = {0, shards};
  one.saved_end = {0};
  return one;
}

}  // namespace isr::checker
