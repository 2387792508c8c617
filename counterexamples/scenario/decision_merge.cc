// Merging committed metadata decisions into a recording (see decision_merge.h).
#include "counterexamples/scenario/decision_merge.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <optional>

#include "io/json_fields.h"

namespace isr::counterexamples {

using nlohmann::json;

namespace {

// Whether the partition state after `decision` is what observation `state` shows, on the
// fields the observation holds (leader, leader epoch, ISR, ELR); false when it holds none.
bool shows(const json& state, const json& decision) {
  bool compared = false;
  if (state.contains("leader")) {
    const int observed = state["leader"].is_null() ? -1 : state["leader"].get<int>();
    if (observed != decision.value("leader", -1)) return false;
    compared = true;
  }
  if (state.contains("leader_epoch")) {
    if (state["leader_epoch"] != decision.value("leader_epoch", json())) return false;
    compared = true;
  }
  for (const char* field : {"isr", "elr"}) {
    if (!state.contains(field)) continue;
    if (io::json_fields::sorted_ints(state[field]) != io::json_fields::sorted_ints(decision.value(field, json::array()))) return false;
    compared = true;
  }
  return compared;
}

}  // namespace

MergedRecording merge_decisions(const std::vector<json>& events, const std::vector<json>& decisions, int first_group) {
  const long n = static_cast<long>(events.size());
  // The partition decisions, by offset; each decision's index among them.
  std::vector<std::size_t> partition;
  for (std::size_t i = 0; i < decisions.size(); ++i)
    if (decisions[i].value("op", "") == "partition") partition.push_back(i);
  const long none_lo = std::numeric_limits<long>::min(), none_hi = std::numeric_limits<long>::max();
  // Per observation: the first and last partition decision whose state it shows. Under the
  // model's mapping the committed state at the observation is one of them; the committed
  // index only grows, so the bounds tighten across observations.
  std::vector<long> observations, lo, hi;
  for (long e = 0; e < n; ++e) {
    if (events[e].value("kind", "") != "observe") continue;
    const json& state = events[e].contains("state") ? events[e]["state"] : json::object();
    long first = none_lo, last = none_hi;
    for (std::size_t j = 0; j < partition.size(); ++j) {
      if (!shows(state, decisions[partition[j]])) continue;
      if (first == none_lo) first = static_cast<long>(j);
      last = static_cast<long>(j);
    }
    observations.push_back(e);
    lo.push_back(first);
    hi.push_back(last);
  }
  for (std::size_t k = 1; k < lo.size(); ++k) lo[k] = std::max(lo[k], lo[k - 1]);
  for (std::size_t k = hi.size(); k-- > 1;) hi[k - 1] = std::min(hi[k - 1], hi[k]);
  // Each partition decision's window: after the last observation that can only be an
  // earlier state, before the first that shows it or a later one (event indices; -1 and n:
  // the recording's start and end).
  std::vector<long> after(decisions.size(), -1), before(decisions.size(), n);
  for (std::size_t j = 0; j < partition.size(); ++j) {
    const long pj = static_cast<long>(j);
    for (std::size_t k = 0; k < observations.size(); ++k) {
      if (hi[k] < pj) after[partition[j]] = observations[k];
      if (lo[k] != none_lo && lo[k] >= pj && before[partition[j]] == n) before[partition[j]] = observations[k];
    }
  }
  // A broker decision lies between the partition decisions around it in the log.
  for (std::size_t i = 0; i < decisions.size(); ++i) {
    if (decisions[i].value("op", "") == "partition") continue;
    for (std::size_t j = i; j-- > 0;)
      if (decisions[j].value("op", "") == "partition") {
        after[i] = after[j];
        break;
      }
    for (std::size_t j = i + 1; j < decisions.size(); ++j)
      if (decisions[j].value("op", "") == "partition") {
        before[i] = before[j];
        break;
      }
  }
  // The harness's own groups: a decision whose window holds one of their events is left
  // out (decision_merge.h), and the groups written here are numbered above theirs.
  int own_groups = 0;
  std::vector<long> grouped_before(static_cast<std::size_t>(n) + 1, 0);  // grouped events among 0..e-1
  for (long e = 0; e < n; ++e) {
    const json& g = events[e].contains("group") ? events[e]["group"] : json();
    if (g.is_number_integer()) own_groups = std::max(own_groups, g.get<int>());
    grouped_before[e + 1] = grouped_before[e] + (g.is_null() ? 0 : 1);
  }
  std::vector<bool> kept(decisions.size(), true);
  for (std::size_t i = 0; i < decisions.size(); ++i) {
    const long first = after[i] + 1, last = before[i] - 1;
    if (first <= last && grouped_before[last + 1] > grouped_before[first]) kept[i] = false;
  }
  // Clusters of decisions whose windows share harness events: one group each, holding
  // those events and the decisions; a decision whose window holds no event needs none.
  struct Cluster {
    long first, last;  // harness events first..last (first > last: none)
    std::vector<std::size_t> decisions;
  };
  std::vector<Cluster> clusters;
  for (std::size_t i = 0; i < decisions.size(); ++i) {
    if (!kept[i]) continue;
    const long first = after[i] + 1, last = before[i] - 1;
    if (!clusters.empty() && !clusters.back().decisions.empty() && clusters.back().first <= clusters.back().last &&
        first <= clusters.back().last && first <= last) {
      clusters.back().last = std::max(clusters.back().last, last);
      clusters.back().decisions.push_back(i);
      continue;
    }
    clusters.push_back({first, last, {i}});
  }
  MergedRecording out;
  out.left_out = static_cast<int>(std::count(kept.begin(), kept.end(), false));
  int group = std::max(first_group, own_groups + 1);
  auto emit = [&](json line, std::optional<int> g) {
    line["seq"] = out.events.size() + 1;
    if (g) line["group"] = *g;
    out.events.push_back(std::move(line));
  };
  auto decision_line = [&](std::size_t i) {
    json line = {{"kind", "decision"}};
    for (const auto& [key, value] : decisions[i].items()) line[key] = value;
    return line;
  };
  std::size_t c = 0;
  for (long e = 0; e <= n; ++e) {
    // Clusters with no harness event of their own go right before the event that bounds them.
    while (c < clusters.size() && clusters[c].first > clusters[c].last && clusters[c].last + 1 <= e) {
      for (std::size_t i : clusters[c].decisions) emit(decision_line(i), std::nullopt);
      ++c;
    }
    if (e == n) break;
    if (c < clusters.size() && clusters[c].first <= clusters[c].last && clusters[c].first == e) {
      const Cluster& k = clusters[c];
      std::vector<std::size_t> seq_of(static_cast<std::size_t>(k.last - k.first + 1));
      for (long h = k.first; h <= k.last; ++h) {
        emit(events[h], group);
        seq_of[static_cast<std::size_t>(h - k.first)] = out.events.size();
      }
      // What is known inside the group: the harness event a decision follows or precedes.
      for (std::size_t i : k.decisions) {
        json line = decision_line(i);
        if (after[i] >= k.first && after[i] <= k.last) line["after_seq"] = seq_of[static_cast<std::size_t>(after[i] - k.first)];
        if (before[i] >= k.first && before[i] <= k.last) line["before_seq"] = seq_of[static_cast<std::size_t>(before[i] - k.first)];
        emit(std::move(line), group);
      }
      ++group;
      ++out.groups;
      e = clusters[c].last;
      ++c;
      continue;
    }
    emit(events[e], std::nullopt);
  }
  for (; c < clusters.size(); ++c)
    for (std::size_t i : clusters[c].decisions) emit(decision_line(i), std::nullopt);
  return out;
}

}  // namespace isr::counterexamples
