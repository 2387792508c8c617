// The exhaustive search of one configuration, packaged for the analyses (see verify.h).
#include "analysis/verify.h"

#include <stdexcept>
#include <utility>

#include "analysis/restricted_model.h"
#include "checker/bfs/bfs.h"
#include "counterexamples/trace/replay.h"
#include "counterexamples/trace/trace_writer.h"
#include "spec/partition/partition_model.h"
#include "spec/partition/queries.h"

namespace isr::analysis {
namespace {

using spec::ActionKind;

// The premises as a filter on the enabled actions.
//
// FaultsBegin::AfterAck: until a record is acknowledged, no fault and no ISR shrink, so
// the record is acknowledged by the whole partition (its first leader, the full ISR).
// From then on, everything the model does: in particular followers may fall behind and
// leave the ISR before any fault, which is the hazard KIP-966 closes.
//
// only_copy_losses: see copy_loss_allowed (verify.h).
struct Premise {
  bool after_ack = false;
  bool only_copy_losses = false;

  bool operator()(const spec::Config& c, const spec::State& s, const spec::Action& a) const {
    if (only_copy_losses && !copy_loss_allowed(c, a)) return false;
    if (!after_ack) return true;
    if (a.kind != ActionKind::Crash && a.kind != ActionKind::Cut && a.kind != ActionKind::ShrinkIsr) return true;
    for (int k = 0; k < c.bounds.max_records; ++k) {
      if (s.producer.outcome[k] == static_cast<uint8_t>(spec::SendOutcome::Acked)) return true;
    }
    return false;
  }
};

// The first acknowledged record (0: none yet). Records are sent in id order with one in
// flight (max.in.flight.requests=1, spec/partition/produce.cc), and a record's outcome is final
// before the next is sent, so the first acknowledged is the smallest acknowledged id.
int first_acked(const spec::Config& c, const spec::State& s) {
  for (int k = 1; k <= c.bounds.max_records; ++k) {
    if (s.producer.outcome[k - 1] == static_cast<uint8_t>(spec::SendOutcome::Acked)) return k;
  }
  return 0;
}

bool log_has(const spec::ReplicaState& r, int record) {
  for (int i = 0; i < r.leo; ++i) {
    if (r.log[i].record == record) return true;
  }
  return false;
}

// no-acked-loss and no-committed-loss-globally (spec/partition/properties/durability.cc) for the first
// acknowledged write alone: each violation violates the catalogue's property too.
template <class M>
bool first_write_on_leader(const M& m, const spec::State& s) {
  const int k = first_acked(m.config(), s);
  const int l = spec::rules::active_leader(s);
  return k == 0 || l < 0 || log_has(s.replicas[l], k);
}

template <class M>
bool first_write_on_a_replica(const M& m, const spec::State& s) {
  const int k = first_acked(m.config(), s);
  if (k == 0) return true;
  for (int r = 0; r < m.config().replication_factor; ++r) {
    if (log_has(s.replicas[r], k)) return true;
  }
  return false;
}

template <class M>
std::vector<checker::Property<spec::State, M>> first_ack_properties(const spec::Config& config) {
  std::vector<checker::Property<spec::State, M>> out;
  for (const std::string& name : config.properties) {
    if (name == "no-acked-loss") {
      out.push_back({"no-acked-loss", "the first acknowledged write stays in the log of every later leader",
                     &first_write_on_leader<M>});
    } else if (name == "no-committed-loss-globally") {
      out.push_back({"no-committed-loss-globally", "the first acknowledged write is still on at least one replica",
                     &first_write_on_a_replica<M>});
    } else {
      throw std::invalid_argument("first_ack_only judges no-acked-loss and no-committed-loss-globally only, not " +
                                  name);
    }
  }
  return out;
}

template <class M>
VerifyOutcome search(const M& model, const spec::PartitionModel& full, const VerifyOptions& options) {
  checker::BfsOptions bfs;
  bfs.threads = options.threads < 1 ? 1 : options.threads;
  bfs.symmetry = options.symmetry;
  bfs.max_states = options.max_states;
  bfs.max_memory_bytes = options.max_memory_bytes;
  bfs.interrupt = options.interrupt;
  bfs.por = options.por;
  const checker::BfsResult<M> r = checker::bfs(model, bfs);

  VerifyOutcome out;
  out.verdict = r.verdict;
  out.stop_reason = r.stop_reason;
  out.distinct_states = r.distinct_states;
  out.states_generated = r.states_generated;
  out.depth = r.depth;
  out.seconds = r.seconds;
  out.bounds_reached = r.bounds_reached;
  if (r.verdict == checker::Verdict::Violated) {
    out.property = r.property;
    for (const auto& p : model.properties()) {
      if (p.name == r.property) out.property_description = std::string(p.description);
    }
    out.trace = counterexamples::trace_to_json(model, r.counterexample, "bfs");
    out.trace_steps = static_cast<int>(r.counterexample.actions.size());
    // A trace is only worth returning if it stands on its own: on the unrestricted
    // model, as `isrcheck replay` will read it.
    const auto replayed = counterexamples::replay_trace(full, out.trace);
    if (!replayed.reproduced) {
      throw std::logic_error("the BFS trace does not replay: " + replayed.summary());
    }
  }
  return out;
}

}  // namespace

std::string_view faults_begin_name(FaultsBegin f) {
  return f == FaultsBegin::AfterAck ? "after-ack" : "anytime";
}

bool parse_faults_begin(std::string_view name, FaultsBegin& out) {
  for (FaultsBegin f : {FaultsBegin::Anytime, FaultsBegin::AfterAck}) {
    if (faults_begin_name(f) == name) {
      out = f;
      return true;
    }
  }
  return false;
}

bool copy_loss_allowed(const spec::Config& config, const spec::Action& a) {
  if (a.kind != ActionKind::Crash) return true;
  // Replicas are nodes 0..RF-1; a dedicated controller voter holds no copy of the log.
  if (a.node >= config.replication_factor) return false;
  const auto kind = static_cast<spec::StopKind>(a.arg);
  return kind == spec::StopKind::Power || kind == spec::StopKind::Disk;
}

VerifyOutcome verify(const spec::Config& config, const VerifyOptions& options) {
  const spec::PartitionModel model(config);
  const Premise premise{options.faults_begin == FaultsBegin::AfterAck, options.only_copy_losses};
  if (options.first_ack_only) {
    using M = RestrictedModel<Premise>;
    const M restricted(config, premise, first_ack_properties<M>(config));
    return search(restricted, model, options);
  }
  if (premise.after_ack || premise.only_copy_losses) {
    const RestrictedModel<Premise> restricted(config, premise);
    return search(restricted, model, options);
  }
  return search(model, model, options);
}

}  // namespace isr::analysis
