// Trace validation of a recorded Kafka execution against the partition model (see
// trace_validation.h): the event-to-action mapping and the observation projection.
#include "analysis/trace_validation.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include "checker/bfs/constrained_search.h"
#include "counterexamples/export/export_scenario.h"
#include "counterexamples/export/model_cluster.h"
#include "counterexamples/scenario/scenario_reader.h"
#include "counterexamples/trace/trace_writer.h"
#include "checker/store/fingerprint.h"
#include "spec/partition/partition_model.h"
#include "spec/partition/queries.h"

namespace isr::analysis {

using nlohmann::json;
using counterexamples::RecordedEvent;
using Model = spec::PartitionModel;
using C = checker::Constraint<Model>;

namespace {

// What the search checks for one recorded event, and how to explain a failure there.
struct Step {
  C constraint;
  std::size_t event = 0;              // index into the recording's events
  std::optional<cut::Condition> condition;  // an Observe of observables: for the differences
  // An Observe of a committed decision: the fields in which a state differs from it.
  std::function<std::vector<std::string>(const spec::State&)> differences;
};

std::string ids_text(spec::NodeSet set) {
  std::string out = "[";
  for (int n = 0; n < spec::kMaxNodes; ++n)
    if (set >> n & 1u) out += (out.size() > 1 ? "," : "") + std::to_string(n);
  return out + "]";
}

std::string ids_text(const std::vector<int>& v) {
  std::vector<int> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  std::string out = "[";
  for (std::size_t i = 0; i < sorted.size(); ++i) out += (i ? "," : "") + std::to_string(sorted[i]);
  return out + "]";
}

// A set of node ids as the model's NodeSet; nullopt when one is no node of the model.
std::optional<spec::NodeSet> node_set(const std::vector<int>& ids, int nodes) {
  spec::NodeSet out = 0;
  for (int id : ids) {
    if (id < 0 || id >= nodes) return std::nullopt;
    out |= static_cast<spec::NodeSet>(1u << id);
  }
  return out;
}

// A committed decision of the controller (docs/validation.md, "Decisions"): the model's
// committed state (spec::ControllerState) must be the one the record leaves: for a
// partition record the leader, leader epoch, ISR and (with KIP-966) ELR; for a broker
// record the broker's fenced flag. An Observe after internal actions, which include the
// model's controller steps: the decision is a controller step of the model, in the
// recorded order, with internal steps free in between. Empty: nothing the model can check
// (a broker the model has no node for, a record that changes no fencing).
std::vector<Step> decision_steps(const spec::Config& config, const RecordedEvent& e, std::size_t index) {
  std::vector<Step> out;
  const int nodes = config.brokers;
  C c;
  c.kind = C::Kind::Observe;
  std::function<std::vector<std::string>(const spec::State&)> differences;
  if (e.op == "partition") {
    const bool elr = config.eligible_leader_replicas;
    const int leader = e.leader;
    const int leader_epoch = e.leader_epoch;
    const std::optional<spec::NodeSet> isr = node_set(e.isr, nodes), elr_set = node_set(e.elr, nodes);
    const std::string recorded_isr = ids_text(e.isr), recorded_elr = ids_text(e.elr);
    differences = [=](const spec::State& s) {
      std::vector<std::string> d;
      const spec::ControllerState& k = s.controller;
      const int model_leader = k.leader == spec::kNoNode ? -1 : k.leader;
      if (model_leader != leader) {
        d.push_back("leader: recorded " + (leader < 0 ? std::string("none") : std::to_string(leader)) + ", model " +
                    (model_leader < 0 ? std::string("none") : std::to_string(model_leader)));
      }
      if (k.leader_epoch != leader_epoch) {
        d.push_back("leader_epoch: recorded " + std::to_string(leader_epoch) + ", model " + std::to_string(k.leader_epoch));
      }
      if (!isr || *isr != k.isr) d.push_back("isr: recorded " + recorded_isr + ", model " + ids_text(k.isr));
      if (elr && (!elr_set || *elr_set != k.elr)) d.push_back("elr: recorded " + recorded_elr + ", model " + ids_text(k.elr));
      return d;
    };
    c.holds = [=](const spec::State& s) {
      const spec::ControllerState& k = s.controller;
      if ((k.leader == spec::kNoNode ? -1 : k.leader) != leader || k.leader_epoch != leader_epoch) return false;
      if (!isr || *isr != k.isr) return false;
      return !elr || (elr_set && *elr_set == k.elr);
    };
  } else {
    if (e.fencing == "none" || e.broker >= nodes) return out;
    // Kafka registers every new incarnation fenced (ClusterControlManager.registerBroker
    // writes RegisterBrokerRecord with fenced=true, replacing a previous incarnation that
    // may still be unfenced) and unfences it at a later heartbeat (a
    // BrokerRegistrationChangeRecord, which is checked). The model's RegisterBroker is the
    // registration and the unfencing in one step (spec/partition/controller.cc), so the
    // registered-but-fenced state is a model state only when the old incarnation had
    // been fenced first: that record says nothing the model can be held to. Found by the
    // suite's recordings with decisions (f-elr-hw-frozen, the i-release-pair-*-966, k-power-loss-*).
    if (e.op == "register_broker" && e.fencing == "fence") return out;
    const int broker = e.broker;
    const bool fenced = e.fencing == "fence";
    differences = [=](const spec::State& s) {
      std::vector<std::string> d;
      const bool model_fenced = (s.controller.fenced >> broker & 1u) != 0;
      if (model_fenced != fenced) {
        d.push_back("broker " + std::to_string(broker) + " fenced: recorded " + (fenced ? "true" : "false") +
                    ", model " + (model_fenced ? "true" : "false"));
      }
      return d;
    };
    c.holds = [=](const spec::State& s) { return ((s.controller.fenced >> broker & 1u) != 0) == fenced; };
  }
  out.push_back({std::move(c), index, std::nullopt, std::move(differences)});
  return out;
}

cut::Condition outcome_condition(int record, cut::SendResult outcome) {
  cut::Condition c;
  c.sends[record] = outcome;
  return c;
}

bool retriable(cut::SendResult r) {
  using R = cut::SendResult;
  return r == R::RequestTimedOut || r == R::NotEnoughReplicas || r == R::NotEnoughReplicasAfterAppend ||
         r == R::NotLeaderOrFollower;
}

// `lenient`: records whose recorded `pending` also matches a retriable error of the model
// (docs/conformance.md, "A retriable error before the trace's retry": a Kafka producer
// that retries by itself shows the application nothing between a failed attempt and its
// retry, where the model shows the attempt's error; kafka-clients Sender.completeBatch ->
// canRetry -> reenqueueBatch). They are taken out of `condition` and checked here.
C observe(const Model& model, cut::Condition condition, std::vector<int> lenient = {}) {
  C c;
  c.kind = C::Kind::Observe;
  for (int record : lenient) condition.sends.erase(record);
  c.holds = [&model, condition = std::move(condition), lenient = std::move(lenient)](const spec::State& s) {
    // The projection goes through the state's JSON (counterexamples::observable_state), the
    // cost of the search: first the fields read straight from the state, the same values
    // the projection copies (a replica's leo, its node's alive), reject most states.
    for (const auto& [id, r] : condition.replicas) {
      if (id < 0 || id >= spec::kMaxReplicas) continue;
      if (r.leo && *r.leo != s.replicas[id].leo) return false;
      if (r.alive && *r.alive != (s.nodes[id].alive != 0)) return false;
    }
    const cut::PartitionObservation o = counterexamples::observe(model, s);
    for (int record : lenient) {
      const auto it = o.sends.find(record);
      const cut::SendResult r = it == o.sends.end() ? cut::SendResult::Unsent : it->second;
      if (r != cut::SendResult::Pending && !retriable(r)) return false;
    }
    return cut::mismatches(condition, o).empty();
  };
  return c;
}

// A Take of the external action of `kind` whose JSON has every field of `fields`
// (response_lost: false means the field is absent, as the model writes it).
C take(const Model& model, std::string kind, json fields) {
  C c;
  c.kind = C::Kind::Take;
  c.matches = [&model, kind = std::move(kind), fields = std::move(fields)](const spec::State&, const spec::Action& a) {
    if (model.action_kind(a) != kind) return false;
    const json j = model.action_to_json(a);
    for (const auto& [key, value] : fields.items()) {
      if (j.value(key, json(false)) != value) return false;
    }
    return true;
  };
  return c;
}

// The steps of one event, in order: a fault or a client operation is a Take (and a client
// call's outcome an Observe after it: the outcome is what the client saw when the call
// returned, which the model may reach only after internal actions, e.g. an acks=all ack).
// Whether the recorded producer retries by itself (retries > 0, or idempotent, which keeps
// Kafka's retries), as the harness decides it: the header's producer settings, else the
// model's configuration.
bool producer_retries(const counterexamples::Recording& recording, const spec::Config& config) {
  const json producer = recording.header.value("producer", json());
  if (producer.is_object()) {
    const json idempotent = producer.value("enable.idempotence", json(false));
    const json retries = producer.value("retries", json(0));
    return (idempotent.is_boolean() && idempotent.get<bool>()) ||
           (retries.is_number_integer() && retries.get<long long>() > 0);
  }
  return config.idempotence || config.bounds.max_retries > 0;
}

// The records a recorded `pending` at event `index` may stand for a retriable error: the
// producer retries by itself and the recording retries the record later.
std::vector<int> lenient_records(const counterexamples::Recording& recording, std::size_t index, bool retries,
                                 const std::map<int, cut::SendResult>& pending_candidates) {
  std::vector<int> out;
  if (!retries) return out;
  for (const auto& [record, result] : pending_candidates) {
    if (result != cut::SendResult::Pending) continue;
    for (std::size_t j = index + 1; j < recording.events.size(); ++j) {
      const RecordedEvent& later = recording.events[j];
      if (later.kind == "client" && later.op == "produce" && later.record == record) {
        out.push_back(record);
        break;
      }
    }
  }
  return out;
}

// Whether the recorded send at `index` timed out in the client without the harness knowing
// whether it left the client: an `expire_send` of the same record follows it, before any
// other send of that record. Such a send may have reached no broker: its batch waited in
// the accumulator until delivery.timeout.ms (the model's unsent ProduceTimeout,
// expire_unsent_batches), so the send itself may have no step of the model.
bool may_never_have_left(const counterexamples::Recording& recording, std::size_t index) {
  const RecordedEvent& e = recording.events[index];
  if (!e.outcome || *e.outcome != cut::SendResult::RequestTimedOut || e.response_lost) return false;
  for (std::size_t j = index + 1; j < recording.events.size(); ++j) {
    const RecordedEvent& later = recording.events[j];
    if (later.kind != "client" || later.record != e.record) continue;
    if (later.op == "expire_send") return true;
    if (later.op == "produce") return false;
  }
  return false;
}

std::vector<Step> steps_of(const Model& model, const counterexamples::Recording& recording, bool retries,
                           std::size_t index) {
  const RecordedEvent& e = recording.events[index];
  std::vector<Step> out;
  auto add = [&](C c, std::optional<cut::Condition> condition = std::nullopt) {
    out.push_back({std::move(c), index, std::move(condition), nullptr});
  };
  if (e.kind == "decision") return decision_steps(model.config(), e, index);
  if (e.kind == "observe") {
    cut::Condition condition = counterexamples::scenario_condition(e.observed, "state");
    add(observe(model, condition, lenient_records(recording, index, retries, condition.sends)), condition);
  } else if (e.kind == "fault") {
    if (e.op == "crash") add(take(model, "Crash", {{"node", e.node}, {"mode", e.crash_kind}}));
    else if (e.op == "restart") add(take(model, "Restart", {{"node", e.node}}));
    else if (e.op == "cut") add(take(model, "Cut", {{"node", e.node}, {"side", e.side}}));
    else if (e.op == "heal") add(take(model, "Heal", {{"node", e.node}, {"side", e.side}}));
    else if (e.op == "pause") add(take(model, "Pause", {{"node", e.node}}));
    else if (e.op == "resume") add(take(model, "Resume", {{"node", e.node}}));
    else if (e.op == "remove_voter") add(take(model, "RemoveVoter", {{"node", e.node}}));
    else if (e.op == "add_voter") add(take(model, "AddVoter", {{"node", e.node}}));
    else if (e.op == "elect_preferred") add(take(model, "PreferredElection", {{"leader", e.leader}}));
  } else if (e.op == "produce" || e.op == "expire_send") {
    if (e.op == "produce") {
      // A broker of -1: the harness did not know it (the client's metadata chose): any.
      json fields = {{"record", e.record}, {"response_lost", e.response_lost}};
      if (e.broker >= 0) fields["broker"] = e.broker;
      C c = take(model, "Produce", std::move(fields));
      // An acks=1 send the client saw time out, recorded as a lost answer with no broker
      // (a campaign's, campaign_run.cc): the harness knows only the TimeoutException. The
      // leader appended and the answer never came in time (the model's Produce with a lost
      // answer; Sender.getExpiredInflightBatches expires such a batch at
      // delivery.timeout.ms), or the batch never left the client: no leader reachable
      // until delivery.timeout.ms (RecordAccumulator.expiredBatches; the unsent
      // ProduceTimeout). Both end in the same "Expiring N record(s)" error.
      if (e.broker < 0 && e.response_lost && e.outcome && *e.outcome == cut::SendResult::RequestTimedOut) {
        C unsent = take(model, "ProduceTimeout", {{"record", e.record}, {"unsent", true}});
        c.matches = [lost = std::move(c.matches), unsent = std::move(unsent.matches)](const spec::State& s,
                                                                                         const spec::Action& a) {
          return lost(s, a) || unsent(s, a);
        };
      }
      // Met with no action once the model's producer gave up on the record unsent (its
      // current record, timed out): the expire_send's Take is that unsent ProduceTimeout.
      if (e.broker < 0 && may_never_have_left(recording, index)) {
        const int record = e.record;
        c.holds = [record](const spec::State& s) {
          return record >= 1 && record <= spec::kMaxRecords && s.producer.current == record &&
                 s.producer.outcome[record - 1] == static_cast<uint8_t>(spec::SendOutcome::TimedOut);
        };
      }
      add(std::move(c));
    } else {
      add(take(model, "ProduceTimeout", {{"record", e.record}}));
    }
    const cut::Condition condition = outcome_condition(e.record, *e.outcome);
    add(observe(model, condition, lenient_records(recording, index, retries, condition.sends)), condition);
  } else if (e.op == "consume") {
    const int offset = e.offset, broker = e.broker;
    if (e.read) {
      C c;
      c.kind = C::Kind::Take;
      const int read = *e.read;
      c.matches = [&model, offset, broker, read](const spec::State& s, const spec::Action& a) {
        if (model.action_kind(a) != "Consume" || s.consumer.position != offset) return false;
        if (broker >= 0 && model.action_to_json(a).value("broker", -1) != broker) return false;
        return model.next_state(s, a).consumer.read[offset] == read;
      };
      add(std::move(c));
    } else {
      // Nothing readable at that offset from that broker: no Consume of it is enabled.
      C c;
      c.kind = C::Kind::Observe;
      c.holds = [&model, offset, broker](const spec::State& s) {
        if (s.consumer.position != offset) return true;
        bool readable = false;
        model.for_each_action(s, [&](const spec::Action& a) {
          if (model.action_kind(a) == "Consume" &&
              (broker < 0 || model.action_to_json(a).value("broker", -1) == broker)) {
            readable = true;
          }
        });
        return !readable;
      };
      add(std::move(c));
    }
  }
  return out;
}

}  // namespace

const char* verdict_name(ValidationResult::Verdict v) {
  switch (v) {
    case ValidationResult::Verdict::Explained: return "explained";
    case ValidationResult::Verdict::Unexplained: return "unexplained";
    case ValidationResult::Verdict::Incomplete: return "incomplete";
  }
  return "?";
}

json ValidationResult::to_json() const {
  json out = {{"verdict", verdict_name(verdict)}, {"events", events},        {"explained", explained},
              {"states_kept", states_kept}};
  if (decisions_left_out > 0) out["decisions_left_out"] = decisions_left_out;
  json r = json::array();
  for (const auto& [layer, closure] : rounds) r.push_back({{"explaining", layer}, {"closure", closure}});
  out["rounds"] = r;
  if (verdict != Verdict::Explained) {
    out["event_seq"] = event_seq;
    out["event"] = event;
  }
  if (verdict == Verdict::Unexplained) {
    out["why"] = why;
    out["nearest_states"] = nearest_count;
    out["differences"] = differences;
    out["enabled_external"] = enabled_external;
  }
  return out;
}

ValidationResult validate_recording(const counterexamples::Recording& recording, const spec::Config& recorded,
                                    const ValidateOptions& options) {
  // A real producer gives up on a batch that never left it (delivery.timeout.ms in the
  // accumulator), and a recording cannot tell whether a timed-out send reached a broker:
  // the model validating it must be able to do the same (docs/validation.md, finding 8).
  spec::Config config = recorded;
  config.expire_unsent_batches = true;
  const Model model(config);
  ValidationResult result;
  // Groups of the engine: consecutive events with the same `group` form one (any order
  // among them); the outcome of a grouped client call is checked once the group is done.
  std::vector<std::vector<Step>> groups;
  std::vector<std::size_t> validated;  // indices of the events that constrain the search
  const bool retries = producer_retries(recording, config);
  // The recorded group being read: its events' actions and observations form one engine
  // group; the outcomes of its client calls wait in `deferred` until the group ends, so
  // that a call's outcome may depend on an event recorded after it in the group (a send
  // the broker handles only after a later heal, docs/campaign.md).
  std::optional<int> current;
  std::vector<Step> deferred;
  // A recorded group that holds committed decisions (docs/recording.md, "Decisions") is two
  // chains whose interleaving alone is unknown: its decisions in offset order, its harness
  // events (each with its outcome) in file order. Their members are ordered by `after`.
  std::set<int> decision_groups;
  for (const RecordedEvent& e : recording.events)
    if (e.kind == "decision" && e.group) decision_groups.insert(*e.group);
  // The engine orders at most 63 constraints in a group (a bit each). A decision group
  // beyond that is validated with fewer of its decisions: first without its broker
  // records, then without any, its harness events then in their file order as ungrouped
  // events. Fewer constraints can only explain more, never less; the result counts the
  // decisions left out.
  std::map<int, std::size_t> harness_steps, partition_steps, broker_steps;
  for (std::size_t i = 0; i < recording.events.size(); ++i) {
    const RecordedEvent& e = recording.events[i];
    if (!e.group || decision_groups.count(*e.group) == 0 || e.kind == "note" || e.kind == "sample") continue;
    const std::size_t n = steps_of(model, recording, retries, i).size();
    (e.kind != "decision" ? harness_steps : e.op == "partition" ? partition_steps : broker_steps)[*e.group] += n;
  }
  std::set<int> without_broker_decisions, without_decisions;
  for (int g : decision_groups) {
    if (harness_steps[g] + partition_steps[g] + broker_steps[g] <= 63) continue;
    if (harness_steps[g] + partition_steps[g] <= 63) {
      without_broker_decisions.insert(g);
    } else {
      without_decisions.insert(g);
    }
  }
  std::uint64_t harness_chain = 0, decision_chain = 0;
  std::map<int, std::size_t> first_step_of, last_step_of;  // a harness event's steps in its group, by seq
  auto end_group = [&] {
    for (Step& st : deferred) groups.push_back({std::move(st)});
    deferred.clear();
    current.reset();
    harness_chain = decision_chain = 0;
    first_step_of.clear();
    last_step_of.clear();
  };
  for (std::size_t i = 0; i < recording.events.size(); ++i) {
    const RecordedEvent& e = recording.events[i];
    if (e.kind == "note" || e.kind == "sample") continue;
    std::vector<Step> steps = steps_of(model, recording, retries, i);
    if (steps.empty()) continue;  // a decision the model cannot read (a broker it has no node for)
    const bool too_large = e.group && without_decisions.count(*e.group) != 0;
    if (e.kind == "decision" && e.group &&
        (too_large || (e.op != "partition" && without_broker_decisions.count(*e.group) != 0))) {
      ++result.decisions_left_out;
      continue;
    }
    validated.push_back(i);
    if (!e.group || too_large) {
      end_group();
      for (Step& st : steps) groups.push_back({std::move(st)});
      continue;
    }
    if (current != e.group) {
      end_group();
      groups.emplace_back();
      current = e.group;
    }
    if (decision_groups.count(*e.group) != 0) {
      std::uint64_t& chain = e.kind == "decision" ? decision_chain : harness_chain;
      // The recording's own bounds inside the group (after_seq, before_seq): the harness
      // event's last step before the decision, the decision before the event's first step.
      std::uint64_t bound = 0;
      if (e.kind == "decision" && e.after_seq > 0) bound |= 1ull << last_step_of[e.after_seq];
      const std::size_t first = groups.back().size();
      for (Step& st : steps) {
        st.constraint.after = chain | bound;
        chain |= 1ull << groups.back().size();
        groups.back().push_back(std::move(st));
      }
      if (e.kind != "decision") {
        first_step_of[e.seq] = first;
        last_step_of[e.seq] = groups.back().size() - 1;
      } else if (e.before_seq > 0) {
        groups.back()[first_step_of[e.before_seq]].constraint.after |= 1ull << first;
      }
      continue;
    }
    groups.back().push_back(std::move(steps.front()));
    for (std::size_t k = 1; k < steps.size(); ++k) deferred.push_back(std::move(steps[k]));
  }
  end_group();
  result.events = validated.size();

  std::vector<std::vector<C>> constraints;
  for (const auto& g : groups) {
    constraints.emplace_back();
    for (const Step& s : g) constraints.back().push_back(s.constraint);
  }
  checker::ConstrainedSearchLimits limits;
  limits.max_internal = options.max_internal;
  limits.max_states = options.max_states;
  limits.stop = options.stop;
  auto internal = [&model](const spec::Action& a) { return !counterexamples::is_harness_action(model.action_kind(a)); };
  // Components no event still to come can read (the recording says which faults come):
  // states that differ only there are one state for the search. A replica's HW
  // checkpoint is read only when its node stops (faults.cc forget_process_state, then
  // apply_restart): dead for a live node that the recording never crashes again, unless
  // the ZooKeeper-mode controller's internal BrokerBounce may stop it. Its `flushed` is
  // read only by a power loss (apply_crash truncates to it): dead for a node the
  // recording never power-crashes again. Neither is observable.
  std::vector<uint32_t> crashes_from(groups.size() + 1, 0), power_from(groups.size() + 1, 0);
  for (std::size_t g = groups.size(); g-- > 0;) {
    crashes_from[g] = crashes_from[g + 1];
    power_from[g] = power_from[g + 1];
    for (const Step& st : groups[g]) {
      const RecordedEvent& e = recording.events[st.event];
      if (e.kind != "fault" || e.op != "crash" || e.node < 0 || e.node >= 32) continue;
      crashes_from[g] |= 1u << e.node;
      if (e.crash_kind == "power") power_from[g] |= 1u << e.node;
    }
  }
  const bool bounces = spec::rules::zk_mode(config);
  auto key = [&](const spec::State& s, std::size_t g) {
    spec::State k = s;
    for (int n = 0; n < spec::kMaxReplicas; ++n) {
      if (!(power_from[g] >> n & 1u)) k.replicas[n].flushed = 0;
      if (!bounces && k.nodes[n].alive && !(crashes_from[g] >> n & 1u)) k.replicas[n].hw_checkpoint = 0;
    }
    return checker::fingerprint(k);
  };
  const auto found = checker::constrained_search(model, constraints, internal, limits, key);
  result.states_kept = found.states_kept;
  result.rounds = found.rounds;

  using Outcome = checker::ConstrainedSearchResult<Model>::Outcome;
  if (found.outcome == Outcome::Explained) {
    result.verdict = ValidationResult::Verdict::Explained;
    result.explained = result.events;
    json steps = json::array();
    for (std::size_t i = 0; i < found.states.size(); ++i) {
      json step = {{"index", i}};
      if (i == 0) {
        step["action"] = nullptr;
        step["action_name"] = "Init";
      } else {
        step["action"] = model.action_to_json(found.actions[i - 1]);
        step["action_name"] = model.action_name(found.actions[i - 1]);
      }
      step["state"] = model.state_to_json(found.states[i]);
      steps.push_back(std::move(step));
    }
    result.trace = counterexamples::make_trace(
        "partition", model.config_json(), "validation",
        "the model's run of the recording of " + recording.header.value("scenario", std::string("a run")),
        "validate", steps);
    return result;
  }

  // The event at which the search stopped: in a group, the first one not yet met by all.
  const std::vector<Step>& group = groups[found.group];
  std::size_t failing = found.matched_in_group < group.size() ? found.matched_in_group : 0;
  if (group.size() > 1 && !found.nearest.empty()) {
    const std::uint64_t mask = found.nearest.front().second;
    // The first constraint not met whose predecessors in the group (`after`) are.
    for (std::size_t i = 0; i < group.size(); ++i)
      if (!(mask & (1ull << i)) && (mask & group[i].constraint.after) == group[i].constraint.after) {
        failing = i;
        break;
      }
  }
  const Step& step = group.size() > 1 ? group[failing] : group.front();
  const RecordedEvent& event = recording.events[step.event];
  result.event_seq = event.seq;
  result.event = event_text(event);
  result.explained = static_cast<std::size_t>(
      std::find(validated.begin(), validated.end(), step.event) - validated.begin());
  if (found.outcome == Outcome::Incomplete) {
    result.verdict = ValidationResult::Verdict::Incomplete;
    return result;
  }
  result.verdict = ValidationResult::Verdict::Unexplained;
  result.nearest_count = found.nearest_count;
  const std::string within = "within " + std::to_string(options.max_internal) + " internal actions";
  if (step.constraint.kind == C::Kind::Observe && step.differences) {
    result.why = "no model state reached " + within + " has the committed state of this decision";
    std::size_t best = static_cast<std::size_t>(-1);
    for (const auto& [s, mask] : found.nearest) {
      std::vector<std::string> d = step.differences(s);
      if (d.size() < best) {
        best = d.size();
        result.differences = std::move(d);
      }
    }
  } else if (step.constraint.kind == C::Kind::Observe) {
    result.why = "no model state reached " + within + " shows what was observed";
    if (step.condition) {
      // The nearest state: the one that differs in the fewest observables.
      std::size_t best = static_cast<std::size_t>(-1);
      for (const auto& [s, mask] : found.nearest) {
        std::vector<std::string> d = cut::mismatches(*step.condition, counterexamples::observe(model, s));
        if (d.size() < best) {
          best = d.size();
          result.differences = std::move(d);
        }
      }
      // mismatches() words it "expected <recorded>, observed <model>": say which is which.
      for (std::string& d : result.differences) {
        const std::size_t at = d.find(": expected ");
        const std::size_t model_at = d.find(", observed ");
        if (at == std::string::npos || model_at == std::string::npos) continue;
        const std::string name = d.substr(0, at);
        std::string recorded = d.substr(at + 11, model_at - at - 11), in_model = d.substr(model_at + 11);
        // A node or HW of -1 is cut::kNone: no leader, no acting leader's HW.
        const bool node_or_hw = name == "hw" || (name.find("leader") != std::string::npos &&
                                                 name.find("epoch") == std::string::npos);
        if (node_or_hw && recorded == "-1") recorded = "none";
        if (node_or_hw && in_model == "-1") in_model = "none";
        d = name + ": recorded " + recorded + ", model " + in_model;
      }
    }
  } else {
    result.why = "no model state reached " + within + " can do it";
    std::set<std::string> names;
    for (const auto& [s, mask] : found.nearest) {
      model.for_each_action(s, [&](const spec::Action& a) {
        if (!internal(a) && names.size() < 16) names.insert(model.action_name(a));
      });
    }
    result.enabled_external.assign(names.begin(), names.end());
  }
  return result;
}

}  // namespace isr::analysis
