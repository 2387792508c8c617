// The seeded fault schedule of a campaign run (see fault_schedule.h).
#include "conformance/campaign/fault_schedule.h"

#include <algorithm>

namespace isr::conformance::campaign {

using nlohmann::json;

namespace {

// splitmix64 (Steele, Lea, Flood 2014): a fixed integer recipe, the same everywhere.
struct Rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // In [lo, hi]; the modulo bias is below 2^-50 for these small ranges.
  int between(int lo, int hi) { return lo + static_cast<int>(next() % static_cast<uint64_t>(hi - lo + 1)); }
};

struct Active {
  int node;
  FaultKind kind;
  int sends_left;
};

ScheduledOp start_op(FaultKind kind, int node) {
  ScheduledOp op;
  op.node = node;
  switch (kind) {
    case FaultKind::Kill: op.op = "crash"; op.crash_kind = "kill"; break;
    case FaultKind::Clean: op.op = "crash"; op.crash_kind = "clean"; break;
    case FaultKind::Pause: op.op = "pause"; break;
    case FaultKind::CutBrokers: op.op = "cut"; op.side = "brokers"; break;
    case FaultKind::CutQuorum: op.op = "cut"; op.side = "quorum"; break;
    case FaultKind::CutClients: op.op = "cut"; op.side = "clients"; break;
  }
  return op;
}

ScheduledOp end_op(const Active& a) {
  ScheduledOp op = start_op(a.kind, a.node);
  if (op.op == "crash") {
    op.op = "restart";
    op.crash_kind.clear();
  } else if (op.op == "pause") {
    op.op = "resume";
  } else {
    op.op = "heal";
  }
  return op;
}

}  // namespace

uint64_t run_seed(uint64_t campaign_seed, int run) {
  Rng r{campaign_seed ^ (0xD1B54A32D192ED03ull * static_cast<uint64_t>(run))};
  return r.next();
}

std::vector<ScheduledOp> make_schedule(const CampaignConfig& c, uint64_t seed) {
  Rng rng{seed};
  std::vector<ScheduledOp> out;
  std::vector<Active> active;
  int started = 0;
  int total_weight = 0;
  for (int w : c.weights) total_weight += w;
  auto emit = [&](ScheduledOp op) {
    op.gap_ms = rng.between(c.gap_ms_min, c.gap_ms_max);
    out.push_back(std::move(op));
  };
  for (int record = 1; record <= c.records; ++record) {
    if (started < c.max_faults && static_cast<int>(active.size()) < c.max_concurrent && total_weight > 0 &&
        rng.between(0, 99) < c.fault_percent) {
      int pick = rng.between(0, total_weight - 1);
      std::size_t k = 0;
      while (pick >= c.weights[k]) pick -= c.weights[k++];
      std::vector<int> free_nodes;
      for (int n = 0; n < kNodes; ++n)
        if (std::none_of(active.begin(), active.end(), [&](const Active& a) { return a.node == n; }))
          free_nodes.push_back(n);
      const int node = free_nodes[static_cast<std::size_t>(rng.between(0, static_cast<int>(free_nodes.size()) - 1))];
      const Active a{node, static_cast<FaultKind>(k), rng.between(c.fault_sends_min, c.fault_sends_max)};
      emit(start_op(a.kind, a.node));
      ++started;
      if (a.sends_left == 0) emit(end_op(a));  // a fault that ends before the next send
      else active.push_back(a);
    }
    ScheduledOp send;
    send.op = "produce";
    send.record = record;
    emit(send);
    for (auto it = active.begin(); it != active.end();) {
      if (--it->sends_left == 0) {
        emit(end_op(*it));
        it = active.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const Active& a : active) {
    ScheduledOp op = end_op(a);
    op.final_heal = true;
    emit(op);
  }
  return out;
}

FaultCounts count_faults(const std::vector<ScheduledOp>& schedule) {
  FaultCounts f;
  for (const ScheduledOp& op : schedule) {
    if (op.op == "crash") {
      ++f.crashes;
      if (op.crash_kind == "clean") ++f.clean;
    } else if (op.op == "pause") {
      ++f.pauses;
    } else if (op.op == "cut") {
      ++f.cuts;
    }
  }
  return f;
}

json to_json(const ScheduledOp& op) {
  json j = {{"op", op.op}, {"gap_ms", op.gap_ms}};
  if (op.op == "produce") j["record"] = op.record;
  else j["node"] = op.node;
  if (!op.crash_kind.empty()) j["crash_kind"] = op.crash_kind;
  if (!op.side.empty()) j["side"] = op.side;
  if (op.final_heal) j["final_heal"] = true;
  return j;
}

std::string op_text(const ScheduledOp& op) {
  if (op.op == "produce") return "produce record " + std::to_string(op.record);
  std::string out = op.op + " node " + std::to_string(op.node);
  if (!op.crash_kind.empty()) out += " " + op.crash_kind;
  if (!op.side.empty()) out += " " + op.side;
  return out;
}

}  // namespace isr::conformance::campaign
