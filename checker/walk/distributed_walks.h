// Random walks (checker/walk/random_walk.h) spread over the ranks of a Transport, with the
// result of one machine: simulate --distributed.
//
// Walk i is seeded from (seed, i) alone, so it is the same walk on any rank. Rank r runs
// the contiguous block of walk indices [r W / N, (r + 1) W / N) (WalkOptions::first_walk)
// with its own RandomWalker, which counts the walks of its block up to and including its
// first violation. One machine counts walks 0 .. v, v being the smallest violating walk
// index, so the merged result takes the ranks in order: every block before the one
// holding v entirely (they have no violation), that rank's walks up to v, nothing after.
// Counters and the coverage add up, the length histograms add up, and the distinct-state
// sketches merge exactly (checker/walk/walk_state_sketch.h: the kept sample depends only on
// which states were seen). The violation found and shrunk on its rank is sent to every
// rank with its shrink figures. Every rank returns the same merged result.
//
// Ranks after the violating one walk their blocks for nothing (one machine would stop):
// the price of not synchronising the ranks during the walks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "checker/bfs/transport.h"
#include "checker/model.h"
#include "checker/walk/random_walk.h"
#include "checker/walk/walk_result.h"
#include "checker/walk/walk_state_sketch.h"

namespace isr::checker {

namespace walks_detail {

class Writer {
 public:
  explicit Writer(std::vector<uint8_t>& out) : out_(out) {}
  template <class T>
  void put(const T& v) {
    const size_t n = out_.size();
    out_.resize(n + sizeof(T));
    std::memcpy(out_.data() + n, &v, sizeof(T));
  }
  template <class T>
  void put_vector(const std::vector<T>& v) {
    put<uint64_t>(v.size());
    const size_t n = out_.size();
    out_.resize(n + v.size() * sizeof(T));
    if (!v.empty()) std::memcpy(out_.data() + n, v.data(), v.size() * sizeof(T));
  }

 private:
  std::vector<uint8_t>& out_;
};

class Reader {
 public:
  explicit Reader(const uint8_t* in) : in_(in) {}
  template <class T>
  T get() {
    T v;
    std::memcpy(&v, in_, sizeof(T));
    in_ += sizeof(T);
    return v;
  }
  template <class T>
  std::vector<T> get_vector() {
    const auto n = get<uint64_t>();
    std::vector<T> v(n);
    if (n > 0) std::memcpy(v.data(), in_, n * sizeof(T));
    in_ += n * sizeof(T);
    return v;
  }

 private:
  const uint8_t* in_;
};

template <Model M>
void put_trace(Writer& w, const ActionTrace<M>& t) {
  w.put(t.initial);
  w.put_vector(t.actions);
}

template <Model M>
ActionTrace<M> get_trace(Reader& r) {
  ActionTrace<M> t;
  t.initial = r.get<typename M::State>();
  t.actions = r.get_vector<typename M::Action>();
  return t;
}

// One rank's run, as every rank receives it.
template <Model M>
struct Contribution {
  uint64_t walks = 0;  // the block's size
  WalkOutcome outcome = WalkOutcome::kNoViolation;
  std::string stop_reason;
  WalkStats stats;
  bool unlisted_warning = false;
  std::vector<uint64_t> sample;
  int sample_level = 0;
  std::optional<WalkViolation<M>> violation;
};

inline const char* kUnlistedWarning = "the model enabled actions whose kind is not in action_kinds()";

template <Model M>
void encode(const WalkResult<M>& r, uint64_t walks, std::vector<uint8_t>& out) {
  Writer w(out);
  const WalkStats& s = r.stats;
  w.put<uint64_t>(walks);
  w.put<uint64_t>(static_cast<uint64_t>(r.outcome));
  w.put<uint64_t>(r.stop_reason == "time limit" ? 2 : r.stop_reason.empty() ? 0 : 1);
  for (uint64_t v : {s.walks_completed, s.steps, s.deadlocks, s.weight_dead_ends, s.depth_limit_hits,
                     s.unlisted_kind_steps, s.lengths.width, s.lengths.min, s.lengths.max}) {
    w.put(v);
  }
  w.put(s.seconds);
  w.put<uint64_t>(std::find(s.warnings.begin(), s.warnings.end(), kUnlistedWarning) != s.warnings.end());
  std::vector<uint64_t> taken, enabled;
  for (const auto& k : s.coverage) {
    taken.push_back(k.taken);
    enabled.push_back(k.enabled);
  }
  w.put_vector(taken);
  w.put_vector(enabled);
  w.put_vector(s.lengths.counts);
  w.put_vector(r.distinct_sample);
  w.put<uint64_t>(static_cast<uint64_t>(r.distinct_sample_level));
  w.put<uint64_t>(r.violation.has_value());
  if (r.violation) {
    const WalkViolation<M>& v = *r.violation;
    w.put<uint64_t>(v.walk_index);
    w.put<uint64_t>(v.property_index);
    w.put<uint64_t>(v.smallest_walk_index);
    put_trace<M>(w, v.found);
    put_trace<M>(w, v.shrunk);
    const ShrinkStats& k = v.shrink;
    for (uint64_t x : {uint64_t{k.length_before}, uint64_t{k.length_after_delta}, uint64_t{k.length_after},
                       k.candidates_tried, k.candidates_accepted, k.bfs_states, uint64_t{k.bfs_improved},
                       uint64_t{k.proven_shortest}, uint64_t{k.budget_exhausted}}) {
      w.put(x);
    }
    w.put(k.seconds);
  }
}

template <Model M>
Contribution<M> decode(const M& model, const uint8_t* in, const WalkStats& own) {
  Reader r(in);
  Contribution<M> c;
  c.walks = r.get<uint64_t>();
  c.outcome = static_cast<WalkOutcome>(r.get<uint64_t>());
  const auto reason = r.get<uint64_t>();
  c.stop_reason = reason == 2 ? "time limit" : reason == 1 ? "interrupted" : "";
  WalkStats& s = c.stats;
  s.walks_completed = r.get<uint64_t>();
  s.steps = r.get<uint64_t>();
  s.deadlocks = r.get<uint64_t>();
  s.weight_dead_ends = r.get<uint64_t>();
  s.depth_limit_hits = r.get<uint64_t>();
  s.unlisted_kind_steps = r.get<uint64_t>();
  s.lengths.width = r.get<uint64_t>();
  s.lengths.min = r.get<uint64_t>();
  s.lengths.max = r.get<uint64_t>();
  s.seconds = r.get<double>();
  c.unlisted_warning = r.get<uint64_t>() != 0;
  const auto taken = r.get_vector<uint64_t>();
  const auto enabled = r.get_vector<uint64_t>();
  s.coverage = own.coverage;  // the kind names and weights are the same on every rank
  for (size_t k = 0; k < s.coverage.size(); ++k) {
    s.coverage[k].taken = taken.at(k);
    s.coverage[k].enabled = enabled.at(k);
  }
  s.lengths.counts = r.get_vector<uint64_t>();
  c.sample = r.get_vector<uint64_t>();
  c.sample_level = static_cast<int>(r.get<uint64_t>());
  if (r.get<uint64_t>() != 0) {
    WalkViolation<M> v;
    v.walk_index = r.get<uint64_t>();
    v.property_index = static_cast<size_t>(r.get<uint64_t>());
    v.smallest_walk_index = r.get<uint64_t>() != 0;
    const auto& property = model.properties().at(v.property_index);
    v.property = std::string(property.name);
    v.description = std::string(property.description);
    v.found = get_trace<M>(r);
    v.shrunk = get_trace<M>(r);
    ShrinkStats& k = v.shrink;
    k.length_before = static_cast<size_t>(r.get<uint64_t>());
    k.length_after_delta = static_cast<size_t>(r.get<uint64_t>());
    k.length_after = static_cast<size_t>(r.get<uint64_t>());
    k.candidates_tried = r.get<uint64_t>();
    k.candidates_accepted = r.get<uint64_t>();
    k.bfs_states = r.get<uint64_t>();
    k.bfs_improved = r.get<uint64_t>() != 0;
    k.proven_shortest = r.get<uint64_t>() != 0;
    k.budget_exhausted = r.get<uint64_t>() != 0;
    k.seconds = r.get<double>();
    c.violation = std::move(v);
  }
  return c;
}

}  // namespace walks_detail

// Runs options.walks walks over the transport's ranks (see the file comment): the same
// result as simulate(model, options) on one machine, on every rank. options.threads is
// per rank. Collective: every rank calls it with the same model and options.
template <Model M>
WalkResult<M> distributed_simulate(const M& model, const WalkOptions& options, Transport& transport) {
  using namespace walks_detail;
  const auto ranks = static_cast<uint64_t>(transport.size());
  const auto me = static_cast<uint64_t>(transport.rank());
  // floor(walks * r / ranks), without overflow.
  const auto block_start = [&](uint64_t r) {
    return options.walks / ranks * r + options.walks % ranks * r / ranks;
  };
  WalkOptions mine = options;
  mine.first_walk = options.first_walk + block_start(me);
  mine.walks = block_start(me + 1) - block_start(me);
  mine.keep_distinct_sample = true;
  const WalkResult<M> own = simulate(model, mine);

  std::vector<std::vector<uint8_t>> send(static_cast<size_t>(ranks));
  encode(own, mine.walks, send[0]);
  for (size_t r = 1; r < send.size(); ++r) send[r] = send[0];
  std::vector<uint8_t> received;
  std::vector<size_t> offsets;
  transport.exchange(send, received, offsets);

  WalkResult<M> result;
  result.seed = options.seed;
  WalkStats& s = result.stats;
  s.walks_requested = options.walks;
  s.coverage = own.stats.coverage;
  for (auto& k : s.coverage) k.taken = k.enabled = 0;
  s.lengths.width = own.stats.lengths.width;
  s.lengths.counts.assign(own.stats.lengths.counts.size(), 0);
  s.lengths.min = std::numeric_limits<uint64_t>::max();
  DistinctStateSketch sketch(options.distinct_state_capacity);
  bool unlisted_warning = false;
  bool prefix_open = true;  // every block so far was walked completely, without violation
  for (uint64_t r = 0; r < ranks; ++r) {
    Contribution<M> c = decode(model, received.data() + offsets[r], own.stats);
    s.seconds = std::max(s.seconds, c.stats.seconds);
    if (!prefix_open) {
      // After an incomplete block, a later block's violation is reported as one machine
      // would report a walk beyond the counted prefix (not known to be the smallest).
      if (!result.violation && c.violation) {
        result.violation = std::move(c.violation);
        result.violation->smallest_walk_index = false;
      }
      continue;
    }
    const WalkStats& x = c.stats;
    s.walks_completed += x.walks_completed;
    s.steps += x.steps;
    s.deadlocks += x.deadlocks;
    s.weight_dead_ends += x.weight_dead_ends;
    s.depth_limit_hits += x.depth_limit_hits;
    s.unlisted_kind_steps += x.unlisted_kind_steps;
    for (size_t k = 0; k < s.coverage.size(); ++k) {
      s.coverage[k].taken += x.coverage[k].taken;
      s.coverage[k].enabled += x.coverage[k].enabled;
    }
    for (size_t i = 0; i < s.lengths.counts.size(); ++i) s.lengths.counts[i] += x.lengths.counts.at(i);
    if (x.walks_completed > 0) {
      s.lengths.min = std::min(s.lengths.min, x.lengths.min);
      s.lengths.max = std::max(s.lengths.max, x.lengths.max);
    }
    sketch.merge_sample(c.sample, c.sample_level);
    unlisted_warning = unlisted_warning || c.unlisted_warning;
    if (c.violation) {
      result.violation = std::move(c.violation);
      prefix_open = false;
    } else if (x.walks_completed < c.walks) {
      result.stop_reason = c.stop_reason.empty() ? "interrupted" : c.stop_reason;
      prefix_open = false;
    }
  }
  if (s.walks_completed == 0) s.lengths.min = 0;
  s.states_checked = s.steps + s.walks_completed;
  for (const auto& k : s.coverage) {
    if (k.enabled == 0 && s.walks_completed > 0) s.warnings.push_back("action kind " + k.kind + " was never enabled");
  }
  if (unlisted_warning) s.warnings.push_back(kUnlistedWarning);
  s.distinct_states = sketch.estimate();
  s.distinct_states_exact = sketch.exact();
  s.distinct_states_sample_level = sketch.level();
  s.steps_per_second = s.seconds > 0 ? static_cast<double>(s.steps) / s.seconds : 0;
  if (result.violation) {
    result.outcome = WalkOutcome::kViolation;
    result.stop_reason.clear();
  } else if (s.walks_completed < options.walks) {
    result.outcome = WalkOutcome::kIncomplete;
    if (result.stop_reason.empty()) result.stop_reason = "interrupted";
  }
  return result;
}

}  // namespace isr::checker
