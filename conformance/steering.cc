// The steering plan of a scenario (see steering.h).
#include "conformance/steering.h"

#include <algorithm>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "io/json_fields.h"

namespace isr::conformance {

using nlohmann::json;

namespace {

// What the scenario says about each replica after a step: alive, and the records in its log.
struct Replica {
  bool alive = true;
  bool paused = false;  // by the scenario's own pause op
  bool cut = false;     // its brokers side, by the scenario's own cut op
  std::vector<int> records;
};
using Known = std::map<int, Replica>;

bool holds(const Replica& r, int record) {
  return std::find(r.records.begin(), r.records.end(), record) != r.records.end();
}

Known from_observation(const json& until, const Known& before) {
  Known out = before;
  if (!until.is_object() || !until.contains("replicas")) return out;
  for (const auto& [id, r] : until["replicas"].items()) {
    Replica rep;
    rep.alive = r.value("alive", true);
    rep.paused = before.count(std::stoi(id)) ? before.at(std::stoi(id)).paused : false;
    rep.cut = before.count(std::stoi(id)) ? before.at(std::stoi(id)).cut : false;
    if (r.contains("log") && r["log"].is_array()) {
      for (const json& e : r["log"])
        if (e.is_array() && e.size() == 2 && e[1].is_number_integer()) rep.records.push_back(e[1].get<int>());
    }
    out[std::stoi(id)] = rep;
  }
  return out;
}

bool appended(const json& step) {
  // acks=0 to a broker that does not lead: it drops the request (nothing appended); a
  // lost response: the broker appended, the client just never heard.
  if (step.value("request_lost", false)) return false;
  if (step.value("response_lost", false)) return true;
  const std::string expect = step.value("expect", "");
  return expect == "acked" || expect == "pending" || expect == "NOT_ENOUGH_REPLICAS_AFTER_APPEND";
}

int int_field(const json& step, const char* name, const std::string& where) {
  if (!step.contains(name) || !step[name].is_number_integer()) {
    throw std::invalid_argument(where + "." + name + ": missing or not an integer");
  }
  return step[name].get<int>();
}

// Whether a produce after step index `q` retries `record`.
bool retried_after(const json& steps, size_t q, int record) {
  for (size_t i = q + 1; i < steps.size(); ++i)
    if (steps[i].value("op", "") == "produce" && steps[i].value("record", -1) == record && steps[i].value("retry", false))
      return true;
  return false;
}

struct Hold {
  int follower;
  int record;
  size_t from;     // index of the produce step
  size_t until;    // index of the release step
  bool release_before;  // release before `until` (else after it)
  bool cut;        // network cut instead of a pause
  std::string reason;
  // Released inside the wait `until` once the follower's own view shows it leading.
  bool until_leads = false;
  int leads_epoch = -1;
};

// The committed leader a wait shows (-1: none or not given).
int wait_leader(const json& step) {
  const json until = step.value("until", json::object());
  return until.contains("leader") && until["leader"].is_number_integer() ? until["leader"].get<int>() : -1;
}

int wait_epoch(const json& step) {
  const json until = step.value("until", json::object());
  return until.contains("leader_epoch") && until["leader_epoch"].is_number_integer() ? until["leader_epoch"].get<int>()
                                                                                   : -1;
}

// Broker `b`'s view in wait `step`: 1 current, 0 stale, -1 not shown (dead, no view).
int view_state(const json& step, int b) {
  const json until = step.value("until", json::object());
  const json rep = until.value("replicas", json::object()).value(std::to_string(b), json());
  if (!rep.is_object() || !rep.value("alive", true)) return -1;
  const json view = rep.value("view", json());
  if (!view.is_object()) return -1;
  const bool current = view.value("leader", json()) == until.value("leader", json()) &&
                       view.value("leader_epoch", json()) == until.value("leader_epoch", json()) &&
                       io::json_fields::sorted_ints(view.value("isr", json())) == io::json_fields::sorted_ints(until.value("isr", json()));
  return current ? 1 : 0;
}

// Whether broker b's stale view in wait `step` changes what b does (steering.h): b leads
// in it, or the committed leader is another live replica holding records b lacks.
bool stale_view_matters(const json& step, int b, const Known& known) {
  const json until = step.value("until", json::object());
  const json view = until.value("replicas", json::object()).value(std::to_string(b), json::object()).value("view", json());
  if (view.value("leader", json()) == json(b)) return true;
  const int leader = wait_leader(step);
  if (leader < 0 || leader == b || view.value("leader", json()) == json(leader)) return false;
  auto l = known.find(leader);
  auto f = known.find(b);
  if (l == known.end() || f == known.end() || !l->second.alive) return false;
  for (int r : l->second.records)
    if (!holds(f->second, r)) return true;
  return false;
}

// The nodes a wait's internal steps fence ("FenceBroker(broker=2, ...)").
std::vector<int> fenced_in(const json& step) {
  std::vector<int> out;
  for (const json& i : step.value("internal", json::array())) {
    if (!i.is_string()) continue;
    const std::string text = i.get<std::string>();
    const std::string key = "FenceBroker(broker=";
    if (text.rfind(key, 0) != 0) continue;
    try {
      out.push_back(std::stoi(text.substr(key.size())));
    } catch (const std::exception&) {
      // not a node id: not a fence the release can wait for
    }
  }
  return out;
}

// Whether wait `step`'s internal steps include `kind` of broker n ("RegisterBroker(broker=0, ...)").
bool internal_of(const json& step, const std::string& kind, int n) {
  const std::string key = kind + "(broker=";
  for (const json& i : step.value("internal", json::array())) {
    if (!i.is_string()) continue;
    const std::string text = i.get<std::string>();
    if (text.rfind(key, 0) != 0) continue;
    try {
      if (std::stoi(text.substr(key.size())) == n) return true;
    } catch (const std::exception&) {
      // not a node id
    }
  }
  return false;
}

// Whether the internal step `text` is a ShrinkIsr that removes follower f, alone
// ("ShrinkIsr(leader=0, follower=1)") or with others in one AlterPartition
// ("ShrinkIsr(leader=0, followers=[1,2])").
bool shrink_removes(const std::string& text, int f) {
  if (text.rfind("ShrinkIsr(", 0) != 0) return false;
  if (text.find("follower=" + std::to_string(f) + ")") != std::string::npos) return true;
  const std::string key = "followers=[";
  const size_t at = text.find(key);
  if (at == std::string::npos) return false;
  const size_t end = text.find(']', at);
  std::stringstream list(text.substr(at + key.size(), end == std::string::npos ? std::string::npos : end - at - key.size()));
  std::string id;
  while (std::getline(list, id, ','))
    if (id.find_first_not_of(" 0123456789") == std::string::npos && id.find_first_of("0123456789") != std::string::npos &&
        std::stoi(id) == f)
      return true;
  return false;
}

// Whether wait `step`'s internal steps shrink follower f.
bool shrinks(const json& step, int f) {
  for (const json& i : step.value("internal", json::array()))
    if (i.is_string() && shrink_removes(i.get<std::string>(), f)) return true;
  return false;
}

bool member(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// The node an internal step names after `kind(broker=` (-1: not that kind).
int broker_of(const std::string& text, const std::string& kind) {
  const std::string key = kind + "(broker=";
  if (text.rfind(key, 0) != 0) return -1;
  try {
    return std::stoi(text.substr(key.size()));
  } catch (const std::exception&) {
    return -1;
  }
}

SteerAction act(SteerAction::Kind kind, int node, int ms, std::string why) {
  SteerAction a;
  a.kind = kind;
  a.node = node;
  a.ms = ms;
  a.why = std::move(why);
  return a;
}

}  // namespace

std::string describe(const SteerAction& a) {
  const std::string n = "N" + std::to_string(a.node);
  switch (a.kind) {
    case SteerAction::Kind::Pause: return "pause " + n + " (SIGSTOP): " + a.why;
    case SteerAction::Kind::Resume: return "resume " + n + " (SIGCONT)";
    case SteerAction::Kind::Cut: return "cut " + n + " brokers side: " + a.why;
    case SteerAction::Kind::Heal: return "heal " + n + " brokers side";
    case SteerAction::Kind::Sleep: return "sleep " + std::to_string(a.ms) + " ms: " + a.why;
    case SteerAction::Kind::HoldMetadata: return "hold " + n + "'s metadata replay (heartbeats flow): " + a.why;
    case SteerAction::Kind::ReleaseMetadata: return "release " + n + "'s metadata replay";
    case SteerAction::Kind::HoldRegistration:
      return "hold " + n + "'s registration and heartbeats at the controller proxies: " + a.why;
    case SteerAction::Kind::ReleaseRegistration: return "release " + n + "'s registration and heartbeats";
    case SteerAction::Kind::GateFetch: return "arm " + n + "'s fetch gate on record " + std::to_string(a.record) + ": " + a.why;
    case SteerAction::Kind::ReleaseGate: return "open " + n + "'s fetch gate";
    case SteerAction::Kind::HoldAlterPartition: return "hold " + n + "'s AlterPartition requests: " + a.why;
    case SteerAction::Kind::ReleaseAlterPartition: return "release " + n + "'s AlterPartition requests";
    case SteerAction::Kind::AwaitAlterPartition:
      return "wait for " + n + "'s held AlterPartition adding N" + std::to_string(a.peer);
    case SteerAction::Kind::ShrinkAfterFetch:
      return "let N" + std::to_string(a.peer) + " shrink " + n +
             (a.second_fetch ? " (one fetch between the shrink and its commit)" : "");
  }
  return "?";
}

SteeringPlan plan_steering(const json& scenario, const SteeringTimes& times) {
  if (!scenario.contains("steps") || !scenario["steps"].is_array()) {
    throw std::invalid_argument("steps: missing or not an array");
  }
  const json& steps = scenario["steps"];
  std::vector<int> replicas;
  const json& assignment = scenario.contains("topic") ? scenario["topic"].value("replicas", json()) : json();
  if (!assignment.is_array()) throw std::invalid_argument("topic.replicas: missing or not an array");
  for (const json& r : assignment) replicas.push_back(r.get<int>());

  // The known state after each step (index i: after steps[i]; `start`: the initial state).
  const json initial = scenario.contains("initial") ? scenario["initial"].value("until", json()) : json();
  Known start = from_observation(initial, {});
  for (int r : replicas) start.emplace(r, Replica{});
  std::vector<Known> after(steps.size());
  Known now = start;
  for (size_t i = 0; i < steps.size(); ++i) {
    const json& s = steps[i];
    const std::string where = "steps[" + std::to_string(i) + "]";
    const std::string op = s.value("op", "");
    if (op == "wait") {
      now = from_observation(s.value("until", json()), now);
    } else if (op == "produce" && appended(s)) {
      now[int_field(s, "broker", where)].records.push_back(int_field(s, "record", where));
    } else if (op == "crash") {
      Replica& r = now[int_field(s, "node", where)];
      r.alive = false;
      r.paused = false;
      if (s.value("kind", "") == "disk") r.records.clear();
    } else if (op == "restart") {
      now[int_field(s, "node", where)].alive = true;
    } else if (op == "pause" || op == "resume") {
      now[int_field(s, "node", where)].paused = op == "pause";
    } else if ((op == "cut" || op == "heal") && s.value("side", "") == "brokers") {
      now[int_field(s, "node", where)].cut = op == "cut";
    }
    after[i] = now;
  }

  // Whether, in wait q, a live replica other than `leader` shows a log that differs from
  // what the trace knew before q (it fetched from or truncated under `leader`).
  auto another_log_moves = [&](size_t q, int leader) {
    const Known& before = q > 0 ? after[q - 1] : start;
    for (const auto& [id, rep] : after[q]) {
      if (id == leader || !rep.alive) continue;
      auto b = before.find(id);
      if (b != before.end() && b->second.alive && b->second.records != rep.records) return true;
    }
    return false;
  };

  size_t first_produce = steps.size();
  for (size_t i = 0; i < steps.size() && first_produce == steps.size(); ++i)
    if (steps[i].value("op", "") == "produce") first_produce = i;
  std::vector<Hold> holds_needed;
  for (size_t p = 0; p < steps.size(); ++p) {
    const json& s = steps[p];
    if (s.value("op", "") != "produce" || !appended(s)) continue;
    const int leader = s["broker"].get<int>();
    const int record = s["record"].get<int>();
    for (int f : replicas) {
      // A follower the scenario itself keeps paused, or cut from replication, fetches
      // nothing: no hold needed (and steering's release would undo the scenario's cut).
      if (f == leader || !after[p].at(f).alive || after[p].at(f).paused || after[p].at(f).cut) continue;
      // A retry of a record the follower already holds: nothing new to hold it from.
      const Known& before_p = p > 0 ? after[p - 1] : start;
      if (s.value("retry", false) && before_p.count(f) && holds(before_p.at(f), record)) continue;
      std::optional<Hold> hold;
      bool spans_slow = false;
      bool ops_between = false;  // an operation the follower must not fetch across
      for (size_t q = p + 1; q <= steps.size(); ++q) {
        if (q == steps.size()) {  // the end: held to the last observation
          hold = Hold{f, record, p, q, true, false, "N" + std::to_string(f) + " never holds record " +
                                                        std::to_string(record) + " in the trace"};
          spans_slow = true;
          break;
        }
        const json& t = steps[q];
        const std::string op = t.value("op", "");
        if (op == "wait" && holds(after[q].at(f), record)) {
          if (!ops_between) break;  // fetched in the wait right after: the cluster does that itself
          hold = Hold{f, record, p, q, true, false,
                      "the trace runs step(s) " + std::to_string(p + 2) + ".." + std::to_string(q) +
                          " before N" + std::to_string(f) + " fetches record " + std::to_string(record)};
          break;
        }
        // The follower leads from this wait on and another replica's log changes in it
        // (it fetches or truncates from the new leader), which the follower's cut would
        // freeze: released once it knows it leads (it fetches no more).
        if (op == "wait" && wait_leader(t) == f && ops_between && another_log_moves(q, f)) {
          hold = Hold{f, record, p, q, true, false,
                      "N" + std::to_string(f) + " must not fetch record " + std::to_string(record) +
                          " before it leads (step " + std::to_string(q + 1) + ")"};
          hold->until_leads = true;
          hold->leads_epoch = wait_epoch(t);
          spans_slow = true;
          break;
        }
        // The leader stops: the follower can no longer fetch the record from it, unless
        // another live replica holds it (and may lead next): then the hold goes on.
        const bool record_elsewhere = [&] {
          for (const auto& [id, rep] : after[q])
            if (id != f && id != leader && rep.alive && holds(rep, record)) return true;
          return false;
        }();
        if (op == "crash" && t.value("node", -1) == leader && record_elsewhere) {
          spans_slow = true;
          continue;
        }
        if (op == "crash" && t.value("node", -1) == leader) {
          hold = Hold{f, record, p, q, false, false,
                      "N" + std::to_string(f) + " does not fetch record " + std::to_string(record) +
                          " before its leader N" + std::to_string(leader) + " stops (step " + std::to_string(q + 1) + ")"};
          break;
        }
        if (op == "crash" && t.value("node", -1) == f) {
          hold = Hold{f, record, p, q, true, false,
                      "N" + std::to_string(f) + " stops (step " + std::to_string(q + 1) +
                          ") without having fetched record " + std::to_string(record)};
          break;
        }
        if (op == "cut" && t.value("node", -1) == f && t.value("side", "") == "brokers") {
          // The scenario cuts it from replication itself from here: the hold ends just after
          // that cut (the harness does not heal a cut the scenario keeps).
          hold = Hold{f, record, p, q, false, false,
                      "N" + std::to_string(f) + " does not fetch record " + std::to_string(record) +
                          " before the scenario cuts it from replication (step " + std::to_string(q + 1) + ")"};
          break;
        }
        if (op == "pause" && t.value("node", -1) == f) {
          // The scenario pauses it itself from here: the hold ends just after that pause
          // (the harness does not continue a node the scenario keeps paused).
          hold = Hold{f, record, p, q, false, false,
                      "N" + std::to_string(f) + " does not fetch record " + std::to_string(record) +
                          " before the scenario pauses it (step " + std::to_string(q + 1) + ")"};
          break;
        }
        // The trace's own timeout of this record before its retry: the harness drops the
        // leader's answer, so the followers may fetch meanwhile (the model's state after the
        // timeout and the fetches is the one of an answer lost after the commit).
        if (op == "expire_send" && t.value("record", -1) == record && retried_after(steps, q, record)) continue;
        ops_between = true;
        if (op == "wait" || op == "restart" || op == "expire_send") spans_slow = true;
      }
      if (!hold) continue;
      hold->cut = spans_slow || (p == first_produce && !times.producer_has_metadata);
      if (hold->cut && !spans_slow) {
        hold->reason += " (a cut, not a pause: the producer's first send needs metadata from some broker)";
      }
      holds_needed.push_back(*hold);
    }
  }

  // Merge the holds of one follower that overlap; a cut wins over a pause.
  std::map<int, std::vector<Hold>> by_follower;
  // Whether follower f's fetches are held by a cut during wait i (merged holds below).
  std::map<int, std::vector<std::pair<size_t, size_t>>> cut_during;
  for (const Hold& h : holds_needed) by_follower[h.follower].push_back(h);
  SteeringPlan plan;
  const json producer = scenario.value("clients", json::object()).value("producer", json::object());
  const bool has_request_timeout = producer.is_object() && producer.contains("request.timeout.ms");
  for (auto& [f, list] : by_follower) {
    std::sort(list.begin(), list.end(), [](const Hold& a, const Hold& b) { return a.from < b.from; });
    std::vector<Hold> merged;
    for (const Hold& h : list) {
      auto end_of = [](const Hold& x) { return 2 * x.until + (x.release_before ? 0 : 1); };
      if (!merged.empty() && 2 * h.from < end_of(merged.back())) {
        Hold& m = merged.back();
        if (end_of(h) > end_of(m)) {
          m.until = h.until;
          m.release_before = h.release_before;
          m.until_leads = h.until_leads;
          m.leads_epoch = h.leads_epoch;
        }
        m.cut = m.cut || h.cut;
        m.reason += "; " + h.reason;
      } else {
        merged.push_back(h);
      }
    }
    for (const Hold& h : merged) {
      const size_t end = h.until_leads || !h.release_before ? h.until + 1 : h.until;
      if (h.cut) cut_during[f].push_back({h.from, end});
      for (size_t q = h.from + 1; h.cut && q < std::min(end, steps.size()); ++q) {
        if (steps[q].value("op", "") != "produce" || !steps[q].value("retry", false) || has_request_timeout) continue;
        if (plan.producer_request_timeout_ms == 0) {
          plan.notes.push_back("producer request.timeout.ms 500: N" + std::to_string(f) +
                               " is cut from replication across the producer's own retry (step " +
                               std::to_string(q + 1) + "), which must come before replica.lag.time.max.ms");
        }
        plan.producer_request_timeout_ms = 500;
        break;
      }
      const int from_step = static_cast<int>(h.from) + 1;
      SteerAction start = act(h.cut ? SteerAction::Kind::Cut : SteerAction::Kind::Pause, f, 0, h.reason);
      plan.steps[from_step].before.push_back(start);
      SteerAction release = act(h.cut ? SteerAction::Kind::Heal : SteerAction::Kind::Resume, f, 0, "");
      if (h.until_leads) {
        release.when = SteerAction::When::OwnViewLeads;
        release.leader_epoch = h.leads_epoch;
      }
      std::string until_text;
      if (h.until_leads) {
        until_text = "until step " + std::to_string(h.until + 1) + ", once its own view shows it leading";
        plan.steps[static_cast<int>(h.until) + 1].before.push_back(release);
      } else if (h.until == steps.size()) {
        until_text = "to the end";
        plan.at_end.push_back(release);
      } else if (h.release_before) {
        until_text = "until just before step " + std::to_string(h.until + 1);
        plan.steps[static_cast<int>(h.until) + 1].before.push_back(release);
      } else {
        until_text = "until just after step " + std::to_string(h.until + 1);
        plan.steps[static_cast<int>(h.until) + 1].after.push_back(release);
      }
      plan.notes.push_back("step " + std::to_string(from_step) + ": " + (h.cut ? "cut N" : "paused N") +
                           std::to_string(f) + (h.cut ? "'s brokers side " : " ") + until_text + ", because " +
                           h.reason);
    }
  }
  // Elections Kafka's controller would make differently (steering.h): where the trace's
  // election picks a replica of the resulting ISR other than the first live, unfenced one
  // in assignment order, which PartitionChangeBuilder.electAnyLeader (kafka-metadata 4.4)
  // elects, no hold changes the choice.
  for (size_t i = 0; i < steps.size() && plan.not_executable.empty(); ++i) {
    const json& s = steps[i];
    if (s.value("op", "") != "wait") continue;
    const json until = s.value("until", json::object());
    const int leader = wait_leader(s);
    if (leader < 0) continue;
    // The election is a fencing's (FenceBroker ... leader_after=L) with no ISR change after
    // it in the wait, so that the wait's final ISR is the one the controller chose from.
    bool elects = false;
    for (const json& in : s.value("internal", json::array())) {
      if (!in.is_string()) continue;
      const std::string text = in.get<std::string>();
      if (text.rfind("FenceBroker(", 0) == 0 && text.find("leader_after=" + std::to_string(leader) + ")") != std::string::npos)
        elects = true;
      else if (elects && (text.rfind("AlterPartition(", 0) == 0 || text.rfind("RegisterBroker(", 0) == 0 ||
                          text.rfind("UnfenceBroker(", 0) == 0 || text.rfind("FenceBroker(", 0) == 0))
        elects = false;  // the ISR changed after the election: its final value says nothing about the choice
    }
    if (!elects) continue;
    const std::vector<int> isr = io::json_fields::sorted_ints(until.value("isr", json()));
    const std::vector<int> fenced = io::json_fields::sorted_ints(until.value("fenced", json()));
    if (std::find(isr.begin(), isr.end(), leader) == isr.end()) continue;  // an unclean or ELR election
    for (int r : replicas) {
      const bool acceptable = std::find(isr.begin(), isr.end(), r) != isr.end() &&
                              std::find(fenced.begin(), fenced.end(), r) == fenced.end() && after[i].at(r).alive;
      if (!acceptable) continue;
      if (r != leader) {
        plan.not_executable = "step " + std::to_string(i + 1) + " elects N" + std::to_string(leader) +
                              ", where Kafka's controller elects the first live, unfenced ISR member in assignment "
                              "order, N" + std::to_string(r) + " (PartitionChangeBuilder.electAnyLeader); no hold changes that choice";
      }
      break;
    }
  }
  // Fencing order (steering.h): the controller fences the broker whose heartbeats stopped
  // first; a trace that fences one while a broker silent for longer stays unfenced runs
  // on no cluster. Silent: killed (not a clean shutdown, which fences through the
  // controlled shutdown), paused or cut from the quorum, until it registers again, is
  // resumed or healed, or is fenced. Where a controller went silent since, the active one
  // may have been among them: its successor starts every broker's session at its
  // activation and fences the silent ones in the order its tracker iterates them (a hash
  // map; observed on 4.4.0 both ways in two runs of one trace), which no hold sets either.
  {
    std::set<int> controllers;
    for (const json& n : scenario.value("cluster", json::object()).value("nodes", json::array())) {
      const json roles = n.value("roles", json::array());
      if (n.contains("id") && n["id"].is_number_integer() &&
          std::find(roles.begin(), roles.end(), "controller") != roles.end())
        controllers.insert(n["id"].get<int>());
    }
    std::optional<size_t> controller_silenced;  // the last step a controller went silent
    std::map<int, size_t> silent_since;
    for (size_t i = 0; i < steps.size() && plan.not_executable.empty(); ++i) {
      const json& s = steps[i];
      const std::string op = s.value("op", "");
      const int node = s.value("node", -1);
      const bool quorum = s.value("side", "") == "quorum";
      if ((op == "crash" || op == "pause" || (op == "cut" && quorum)) && controllers.count(node)) controller_silenced = i;
      if ((op == "crash" && s.value("kind", "") != "clean") || op == "pause" || (op == "cut" && quorum)) {
        silent_since.emplace(node, i);
      } else if (op == "resume" || (op == "heal" && quorum)) {
        silent_since.erase(node);
      } else if (op == "wait") {
        for (const json& in : s.value("internal", json::array())) {
          if (!in.is_string()) continue;
          const std::string text = in.get<std::string>();
          for (const char* kind : {"RegisterBroker", "UnfenceBroker"})
            if (const int b = broker_of(text, kind); b >= 0) silent_since.erase(b);
          const int x = broker_of(text, "FenceBroker");
          auto sx = silent_since.find(x);
          if (x < 0 || sx == silent_since.end()) continue;
          for (const auto& [y, since] : silent_since) {
            if (y == x || since >= sx->second) continue;
            const bool failover = controller_silenced && *controller_silenced >= since;
            plan.not_executable = "step " + std::to_string(i + 1) + " fences N" + std::to_string(x) + " (silent since step " +
                                  std::to_string(sx->second + 1) + ") while N" + std::to_string(y) +
                                  ", silent since step " + std::to_string(since + 1) +
                                  ", stays unfenced; Kafka's controller fences the broker whose session expired first "
                                  "(BrokerHeartbeatTracker.maybeRemoveExpired)" +
                                  (failover ? std::string(", or, after a failover of the active controller (a controller went "
                                                          "silent since), both in its tracker's hash order") : std::string()) +
                                  ", and no hold sets either order";
            break;
          }
          silent_since.erase(x);
          if (!plan.not_executable.empty()) break;
        }
      }
    }
  }
  // Metadata holds of broker-only nodes whose stale view matters (steering.h).
  std::set<int> broker_only;
  for (const json& n : scenario.value("cluster", json::object()).value("nodes", json::array())) {
    const json roles = n.value("roles", json::array());
    if (roles.size() == 1 && roles[0] == "broker" && n.contains("id") && n["id"].is_number_integer())
      broker_only.insert(n["id"].get<int>());
  }
  std::set<int> brokers;  // nodes with the broker role (all replicas when the cluster lists none)
  for (const json& n : scenario.value("cluster", json::object()).value("nodes", json::array())) {
    const json roles = n.value("roles", json::array());
    if (n.contains("id") && n["id"].is_number_integer() && std::find(roles.begin(), roles.end(), "broker") != roles.end())
      brokers.insert(n["id"].get<int>());
  }
  if (brokers.empty()) brokers.insert(replicas.begin(), replicas.end());
  for (int b : replicas) {
    if (!broker_only.count(b)) {
      // A combined node's metadata replay cannot be held (hold_metadata): a stale view of
      // it that matters is an order the cluster cannot be held to.
      if (!brokers.count(b) || !plan.not_executable.empty()) continue;
      for (size_t i = 0; i < steps.size(); ++i) {
        if (steps[i].value("op", "") != "wait" || view_state(steps[i], b) != 0 || !stale_view_matters(steps[i], b, after[i]))
          continue;
        // Not leading in its stale view, it would only fetch: a cut of its fetches (a hold
        // above, or the scenario's own) keeps it from doing so just as well.
        const json view =
            steps[i]["until"].value("replicas", json::object()).value(std::to_string(b), json::object()).value("view", json());
        const bool fetch_held = after[i].at(b).cut || after[i].at(b).paused ||
                                std::any_of(cut_during[b].begin(), cut_during[b].end(),
                                            [&](const auto& c) { return c.first < i && i < c.second; });
        if (view.value("leader", json()) != json(b) && fetch_held) continue;
        plan.not_executable = "step " + std::to_string(i + 1) + " needs N" + std::to_string(b) +
                              "'s metadata replay held (its stale view changes what it does), and N" + std::to_string(b) +
                              " is a combined broker+controller, whose replay no proxy can hold";
        break;
      }
      continue;
    }
    size_t last_current = steps.size();  // index of the last wait showing b current (none: the start)
    bool seen_current = false;
    std::optional<size_t> held_from;
    auto hold_at = [&](size_t first_op, size_t stale_wait) {
      held_from = first_op;
      SteerAction a = act(SteerAction::Kind::HoldMetadata, b, 0,
                    "N" + std::to_string(b) + "'s view is stale in step " + std::to_string(stale_wait + 1) +
                        " and that changes what it does");
      plan.steps[static_cast<int>(first_op) + 1].before.push_back(a);
    };
    for (size_t i = 0; i < steps.size(); ++i) {
      const json& s = steps[i];
      const std::string op = s.value("op", "");
      if (held_from && op == "crash" && s.value("node", -1) == b) {
        plan.steps[static_cast<int>(i) + 1].after.push_back(act(SteerAction::Kind::ReleaseMetadata, b, 0, ""));
        plan.notes.push_back("step " + std::to_string(*held_from + 1) + ": held N" + std::to_string(b) +
                             "'s metadata replay until just after its crash (step " + std::to_string(i + 1) + ")");
        held_from.reset();
        continue;
      }
      if (op != "wait") continue;
      const int v = view_state(s, b);
      if (v == 1) {
        if (held_from) {
          SteerAction r = act(SteerAction::Kind::ReleaseMetadata, b, 0, "");
          r.when = SteerAction::When::ControllerDone;
          r.leader_epoch = wait_epoch(s);
          r.fenced_in_wait = fenced_in(s);
          plan.steps[static_cast<int>(i) + 1].before.push_back(r);
          plan.notes.push_back("step " + std::to_string(*held_from + 1) + ": held N" + std::to_string(b) +
                               "'s metadata replay (its heartbeats flow) until step " + std::to_string(i + 1) +
                               ", once the controller made that step's change");
          held_from.reset();
        }
        last_current = i;
        seen_current = true;
      } else if (v == 0 && !held_from && stale_view_matters(s, b, after[i])) {
        // From the first operation after the last observation that showed b current.
        size_t first_op = seen_current ? last_current + 1 : 0;
        while (first_op < i && steps[first_op].value("op", "") == "wait") ++first_op;
        hold_at(first_op, i);
      }
    }
    if (held_from) {
      plan.at_end.push_back(act(SteerAction::Kind::ReleaseMetadata, b, 0, ""));
      plan.notes.push_back("step " + std::to_string(*held_from + 1) + ": held N" + std::to_string(b) +
                           "'s metadata replay (its heartbeats flow) to the end");
    }
  }
  // Registration and unfencing holds (steering.h).
  for (size_t r = 0; r < steps.size(); ++r) {
    const json& s = steps[r];
    const std::string op = s.value("op", "");
    const bool restart = op == "restart";
    const bool back = op == "resume" || (op == "heal" && s.value("side", "") == "quorum");
    if (!restart && !back) continue;
    const int n = int_field(s, "node", "steps[" + std::to_string(r) + "]");
    if (!brokers.count(n)) continue;
    if (back) {
      // Only a broker the trace shows fenced before it comes back has an unfencing to defer.
      bool fenced = false;
      for (size_t q = r; q-- > 0;) {
        if (steps[q].value("op", "") != "wait") continue;
        const std::vector<int> f = io::json_fields::sorted_ints(steps[q].value("until", json::object()).value("fenced", json()));
        fenced = std::find(f.begin(), f.end(), n) != f.end();
        break;
      }
      if (!fenced) continue;
    }
    const std::string kind = restart ? "RegisterBroker" : "UnfenceBroker";
    bool ops_between = false;
    size_t until = steps.size();
    bool release_before = true;
    bool needed = true;
    for (size_t q = r + 1; q < steps.size(); ++q) {
      const json& t = steps[q];
      const std::string top = t.value("op", "");
      if (top == "wait" && internal_of(t, kind, n)) {
        needed = ops_between;  // registered in the wait right after: the cluster does that itself
        until = q;
        break;
      }
      if (top == "crash" && t.value("node", -1) == n) {
        until = q;
        release_before = false;
        break;
      }
      ops_between = true;
    }
    if (!needed) continue;
    const int from_step = static_cast<int>(r) + 1;
    const std::string what = restart ? "registration" : "unfencing";
    std::string until_text;
    std::vector<SteerAction>* release_list = nullptr;
    if (until == steps.size()) {
      until_text = "to the end";
      release_list = &plan.at_end;
    } else if (release_before) {
      until_text = "until just before step " + std::to_string(until + 1);
      release_list = &plan.steps[static_cast<int>(until) + 1].before;
    } else {
      until_text = "until just after its crash (step " + std::to_string(until + 1) + ")";
      release_list = &plan.steps[static_cast<int>(until) + 1].after;
    }
    const std::string why = "the trace " + std::string(restart ? "restarts" : "brings back") + " N" + std::to_string(n) +
                            " at step " + std::to_string(from_step) + " and " +
                            (until == steps.size() || !release_before
                                 ? "never " + std::string(restart ? "registers" : "unfences") + " it"
                                 : std::string(restart ? "registers" : "unfences") + " it only in step " +
                                       std::to_string(until + 1));
    // Kafka's unregistered incarnation replays metadata and fetches, the model's does not.
    const bool cut = restart && !(r > 0 ? after[r - 1] : start).at(n).cut;
    plan.steps[from_step].before.push_back(act(SteerAction::Kind::HoldRegistration, n, 0, why));
    release_list->push_back(act(SteerAction::Kind::ReleaseRegistration, n, 0, ""));
    if (cut) {
      plan.steps[from_step].before.push_back(
          act(SteerAction::Kind::Cut, n, 0, "N" + std::to_string(n) + " fetches nothing before it registers, as in the model"));
      release_list->push_back(act(SteerAction::Kind::Heal, n, 0, ""));
    }
    plan.notes.push_back("step " + std::to_string(from_step) + ": held N" + std::to_string(n) + "'s " + what +
                         " (BrokerRegistration/BrokerHeartbeat wait at the controller proxies)" +
                         (cut ? " and cut its brokers side" : "") + " " + until_text + ", because " + why);
  }
  // Keep-out cuts (steering.h): a live, unfenced follower outside a live leader's ISR
  // whose log the trace leaves as it was did not fetch; one the wait shrinks after it
  // fetched is cut once it caught up, so that the leader shrinks it.
  // The fetch-reply cut of follower f shrunk in wait v (steering.h).
  auto fetch_reply_cut = [&](size_t v, int f) {
    const json& s = steps[v];
    const auto internal = s.value("internal", json::array());
    const std::string shrink_prefix = "ShrinkIsr(leader=";
    int leader = -1;
    size_t at = internal.size();
    for (size_t k = 0; k < internal.size(); ++k) {
      const std::string text = internal[k].is_string() ? internal[k].get<std::string>() : "";
      if (shrink_removes(text, f)) {
        leader = std::atoi(text.c_str() + shrink_prefix.size());
        at = k;
        break;
      }
    }
    auto refuse = [&](const std::string& why) {
      if (plan.not_executable.empty()) plan.not_executable = "step " + std::to_string(v + 1) + " " + why;
    };
    const std::string alter = "AlterPartition(leader=" + std::to_string(leader) + ")";
    const std::string fetch = "Fetch(follower=" + std::to_string(f) + ", leader=" + std::to_string(leader) + ")";
    for (size_t k = 0; k < at; ++k)
      if (internal[k] == alter) {
        refuse("shrinks N" + std::to_string(f) + " after another ISR change of N" + std::to_string(leader) +
               " in the same wait: Kafka's leader may shrink both in one AlterPartition, and the harness holds "
               "AlterPartition requests without telling which ISR they propose (not executable with this harness)");
        return;
      }
    bool second_fetch = false;
    for (size_t k = at + 1; k < internal.size() && internal[k] != alter; ++k) second_fetch = second_fetch || internal[k] == fetch;
    // A shrink of several followers at once where more than one of them fetches again
    // before the commit: each such follower's sequence releases the held AlterPartition
    // after its own fetch, so the second one's fetch would come after the commit.
    int fetching_again = 0;
    const std::string shrink_text = at < internal.size() && internal[at].is_string() ? internal[at].get<std::string>() : "";
    for (int g = 0; g < 16; ++g) {
      if (!shrink_removes(shrink_text, g)) continue;
      const std::string fetch_g = "Fetch(follower=" + std::to_string(g) + ", leader=" + std::to_string(leader) + ")";
      bool again = false;
      for (size_t k = at + 1; k < internal.size() && internal[k] != alter; ++k) again = again || internal[k] == fetch_g;
      fetching_again += again ? 1 : 0;
    }
    if (fetching_again > 1) {
      refuse("shrinks " + std::to_string(fetching_again) + " followers of N" + std::to_string(leader) +
             " in one AlterPartition and lets each fetch once more before it commits: the harness lets one fetch through "
             "per held AlterPartition (not executable with this harness)");
      return;
    }
    // The record it fetched last, produced since the previous observation.
    int record = -1;
    size_t produce = steps.size();
    const Known& prev = [&]() -> const Known& {
      for (size_t q = v; q-- > 0;)
        if (steps[q].value("op", "") == "wait") return after[q];
      return start;
    }();
    for (int r : after[v].at(f).records)
      if (!prev.count(f) || !holds(prev.at(f), r)) record = r;
    for (size_t q = v; record >= 0 && q-- > 0 && steps[q].value("op", "") != "wait";)
      if (steps[q].value("op", "") == "produce" && steps[q].value("record", -1) == record) produce = q;
    if (record < 0 || produce == steps.size()) {
      refuse("shrinks N" + std::to_string(f) + ", which fetched no record produced since the last observation: Kafka "
             "keeps a follower whose last fetch reached the leader's end offset in the ISR however long it is silent "
             "(ReplicaState.isCaughtUp)");
      return;
    }
    SteerAction gate = act(SteerAction::Kind::GateFetch, f, 0,
                           "N" + std::to_string(f) + "'s next fetch after the one that brings record " + std::to_string(record) +
                               " waits, so that its leader N" + std::to_string(leader) + " shrinks it (step " +
                               std::to_string(v + 1) + ")");
    gate.record = record;
    plan.steps[static_cast<int>(produce) + 1].before.push_back(gate);
    plan.at_end.push_back(act(SteerAction::Kind::ReleaseGate, f, 0, ""));
    if (second_fetch) {
      plan.steps[static_cast<int>(produce) + 1].before.push_back(
          act(SteerAction::Kind::HoldAlterPartition, leader, 0,
              "N" + std::to_string(f) + " fetches once between its shrink and the AlterPartition that commits it"));
      plan.at_end.push_back(act(SteerAction::Kind::ReleaseAlterPartition, leader, 0, ""));
    }
    SteerAction seq = act(SteerAction::Kind::ShrinkAfterFetch, f, 0, "");
    seq.peer = leader;
    seq.second_fetch = second_fetch;
    plan.steps[static_cast<int>(v) + 1].before.push_back(seq);
    plan.notes.push_back("step " + std::to_string(produce + 1) + ": N" + std::to_string(f) +
                         "'s fetch gate closes once a response carries record " + std::to_string(record) +
                         (second_fetch ? ", N" + std::to_string(leader) + "'s AlterPartition requests held" : std::string()) +
                         "; in step " + std::to_string(v + 1) + ": " +
                         (second_fetch ? "once the shrink waits at the controller proxies, one fetch of N" +
                                             std::to_string(f) + " let through, N" + std::to_string(f) +
                                             " cut, the AlterPartition released"
                                       : "N" + std::to_string(f) + " cut"));
  };
  for (int f : replicas) {
    if (!brokers.count(f)) continue;
    bool open = false;
    size_t opened_at = 0;
    std::string reason;
    const Known* previous = &start;  // the previous observation
    json previous_isr = initial.is_object() ? initial.value("isr", json()) : json();
    std::optional<size_t> previous_wait;
    auto close = [&](std::vector<SteerAction>& where, const std::string& until_text) {
      where.push_back(act(SteerAction::Kind::Heal, f, 0, ""));
      plan.notes.push_back("step " + std::to_string(opened_at + 1) + ": cut N" + std::to_string(f) + "'s brokers side " +
                           until_text + ", because " + reason);
      open = false;
    };
    for (size_t v = 0; v < steps.size(); ++v) {
      const json& s = steps[v];
      const std::string op = s.value("op", "");
      if (open && op == "crash" && s.value("node", -1) == f) {
        close(plan.steps[static_cast<int>(v) + 1].after, "until just after its crash (step " + std::to_string(v + 1) + ")");
        continue;
      }
      if (op != "wait") continue;
      const json until = s.value("until", json::object());
      const int leader = wait_leader(s);
      const Replica& rf = after[v].at(f);
      const bool out = rf.alive && !rf.paused && !rf.cut && leader >= 0 && leader != f && after[v].count(leader) &&
                       after[v].at(leader).alive && until.contains("isr") && until["isr"].is_array() &&
                       !member(io::json_fields::sorted_ints(until["isr"]), f) && !member(io::json_fields::sorted_ints(until.value("fenced", json())), f);
      // It fetched nothing in the trace since the previous observation: its log gained no
      // record, and lost records only to its own power or disk loss (not to a truncation).
      const bool crashed_lossy = [&] {
        for (size_t q = previous_wait ? *previous_wait + 1 : 0; q < v; ++q)
          if (steps[q].value("op", "") == "crash" && steps[q].value("node", -1) == f &&
              (steps[q].value("kind", "") == "power" || steps[q].value("kind", "") == "disk"))
            return true;
        return false;
      }();
      const std::vector<int> before_log = previous->count(f) ? previous->at(f).records : std::vector<int>{};
      const bool grew = std::any_of(rf.records.begin(), rf.records.end(), [&](int r) { return !member(before_log, r); });
      const bool unchanged = !grew && (rf.records == before_log || crashed_lossy);
      if (open && !(out && unchanged)) {
        // Released just before this wait; if f leads in it, once it knows it leads (a
        // leader fetches nothing, and others fetch from it).
        SteerAction heal = act(SteerAction::Kind::Heal, f, 0, "");
        if (leader == f) {
          heal.when = SteerAction::When::OwnViewLeads;
          heal.leader_epoch = wait_epoch(s);
        }
        plan.steps[static_cast<int>(v) + 1].before.push_back(heal);
        plan.notes.push_back("step " + std::to_string(opened_at + 1) + ": cut N" + std::to_string(f) +
                             "'s brokers side until step " + std::to_string(v + 1) +
                             (leader == f ? ", once its own view shows it leading" : "") + ", because " + reason);
        open = false;
      }
      if (!open && out && unchanged) {
        // From the first operation after the previous observation.
        const size_t first_op = previous_wait ? *previous_wait + 1 : 0;
        opened_at = first_op;
        plan.steps[static_cast<int>(first_op) + 1].before.push_back(
            act(SteerAction::Kind::Cut, f, 0, "N" + std::to_string(f) + " stays out of the ISR in step " + std::to_string(v + 1)));
        open = true;
        reason = "the trace keeps N" + std::to_string(f) + " out of the ISR with its log unchanged in step " +
                 std::to_string(v + 1) + ", where it would fetch and rejoin (or truncate)";
      } else if (!open && out && shrinks(s, f) && member(io::json_fields::sorted_ints(previous_isr), f)) {
        fetch_reply_cut(v, f);
        opened_at = v;
        open = true;
        reason = "the trace shrinks N" + std::to_string(f) + " in step " + std::to_string(v + 1) +
                 " after it fetched, where Kafka keeps a follower that fetches (fetch-reply cut)";
      }
      previous = &after[v];
      previous_isr = until.value("isr", json());
      previous_wait = v;
    }
    if (open) close(plan.at_end, "to the end");
  }
  // Deferred ISR expansions (steering.h): the trace's leader L proposed adding follower f
  // in wait e (f fetched there and caught up with L, outside the ISR), and that
  // AlterPartition reaches the controller only in a later wait w. Kafka's leader sends it
  // at once (Partition.maybeExpandIsr on the fetch): its AlterPartition requests wait at
  // the controller proxies from the operation before e until w, released there once f is
  // registered and unfenced (the AlterPartition the trace commits after f's
  // re-registration: KIP-903's stale incarnation).
  for (size_t e = 0; e < steps.size(); ++e) {
    if (steps[e].value("op", "") != "wait") continue;
    const int leader = wait_leader(steps[e]);
    if (leader < 0 || !after[e].count(leader) || !after[e].at(leader).alive) continue;
    const json until_e = steps[e].value("until", json::object());
    const auto internal = steps[e].value("internal", json::array());
    const std::string alter = "AlterPartition(leader=" + std::to_string(leader) + ")";
    for (int f : replicas) {
      if (f == leader || !brokers.count(f) || !after[e].count(f)) continue;
      const Replica& rf = after[e].at(f);
      if (!rf.alive || rf.cut || rf.records.empty() || rf.records != after[e].at(leader).records) continue;
      if (!until_e.contains("isr") || member(io::json_fields::sorted_ints(until_e["isr"]), f)) continue;
      const std::string fetch = "Fetch(follower=" + std::to_string(f) + ", leader=" + std::to_string(leader) + ")";
      bool proposed = false;  // f's fetch in e, and no AlterPartition of the leader after it there
      for (const json& t : internal) {
        if (t == fetch) proposed = true;
        else if (t == alter) proposed = false;
      }
      if (!proposed) continue;
      size_t w = e + 1;
      auto sends = [&](const json& t) {
        const json in = t.value("internal", json::array());
        return t.value("op", "") == "wait" && std::find(in.begin(), in.end(), json(alter)) != in.end();
      };
      while (w < steps.size() && !sends(steps[w])) ++w;
      if (w == steps.size()) continue;  // never sent in the trace: not this case
      size_t first_op = e;  // the operation just before e
      while (first_op > 0 && steps[first_op - 1].value("op", "") != "wait") --first_op;
      const std::string why = "N" + std::to_string(leader) + " proposes adding N" + std::to_string(f) + " in step " +
                              std::to_string(e + 1) + " and the controller gets it only in step " + std::to_string(w + 1);
      plan.steps[static_cast<int>(first_op) + 1].before.push_back(act(SteerAction::Kind::HoldAlterPartition, leader, 0, why));
      SteerAction release = act(SteerAction::Kind::ReleaseAlterPartition, leader, 0, "");
      release.when = SteerAction::When::Unfenced;
      release.peer = f;
      plan.steps[static_cast<int>(w) + 1].before.push_back(release);
      // The wait e ends once the proposal waits at the proxies: its state shows f caught up
      // (f's fetch of the records), but the leader proposes on f's next fetch, which a
      // crash of f right after the wait would prevent.
      SteerAction proposed_held = act(SteerAction::Kind::AwaitAlterPartition, leader, 0, "");
      proposed_held.peer = f;
      plan.steps[static_cast<int>(e) + 1].after.push_back(proposed_held);
      plan.notes.push_back("step " + std::to_string(first_op + 1) + ": held N" + std::to_string(leader) +
                           "'s AlterPartition requests until step " + std::to_string(w + 1) + ", once N" +
                           std::to_string(f) + " is registered and unfenced, because " + why);
    }
  }
  // Disk-lost followers kept empty (steering.h): a broker restarted on an empty disk that
  // the following waits show in the ISR of another live leader holding records it lacks,
  // with its log still empty, fetched nothing in the trace; Kafka's new incarnation
  // fetches as soon as it has replayed the partition. Its brokers side is cut from just
  // before the restart to the first wait that shows it with records (released before it),
  // its crash, or the end; once its own view shows it leading, the cut is let go.
  for (size_t r = 0; r < steps.size(); ++r) {
    if (steps[r].value("op", "") != "restart") continue;
    const int f = steps[r].value("node", -1);
    if (!brokers.count(f) || (r > 0 && after[r - 1].count(f) && after[r - 1].at(f).cut)) continue;
    bool disk = false;
    for (size_t q = r; q-- > 0;) {
      const json& t = steps[q];
      if (t.value("op", "") == "crash" && t.value("node", -1) == f) {
        disk = t.value("kind", "") == "disk";
        break;
      }
    }
    if (!disk) continue;
    bool needed = false;
    size_t end = steps.size();
    bool before_end = true;
    for (size_t v = r + 1; v < steps.size(); ++v) {
      const json& t = steps[v];
      if (t.value("op", "") == "crash" && t.value("node", -1) == f) {
        end = v;
        before_end = false;
        break;
      }
      if (t.value("op", "") != "wait") continue;
      if (!after[v].at(f).records.empty()) {
        end = v;
        break;
      }
      const int leader = wait_leader(t);
      const json until = t.value("until", json::object());
      if (leader >= 0 && leader != f && after[v].count(leader) && after[v].at(leader).alive &&
          !after[v].at(leader).records.empty() && until.contains("isr") && member(io::json_fields::sorted_ints(until["isr"]), f)) {
        needed = true;
      }
    }
    if (!needed) continue;
    plan.steps[static_cast<int>(r) + 1].before.push_back(
        act(SteerAction::Kind::Cut, f, 0, "N" + std::to_string(f) + " restarts on an empty disk and fetches nothing in the trace"));
    std::string until_text;
    if (end == steps.size()) {
      // It may lead at the end (elected with its empty log): others would fetch from it.
      plan.at_end.push_back(act(SteerAction::Kind::Heal, f, 0, ""));
      until_text = "to the end";
    } else if (before_end) {
      plan.steps[static_cast<int>(end) + 1].before.push_back(act(SteerAction::Kind::Heal, f, 0, ""));
      until_text = "until step " + std::to_string(end + 1);
    } else {
      plan.steps[static_cast<int>(end) + 1].after.push_back(act(SteerAction::Kind::Heal, f, 0, ""));
      until_text = "until just after its crash (step " + std::to_string(end + 1) + ")";
    }
    plan.notes.push_back("step " + std::to_string(r + 1) + ": cut N" + std::to_string(f) + "'s brokers side " + until_text +
                         ", because the trace keeps N" + std::to_string(f) +
                         ", restarted on an empty disk, in the ISR of a leader with records it never fetches");
  }
  // One settling sleep per step that starts a hold, after the holds and before the op.
  for (auto& [step, sp] : plan.steps) {
    const bool starts = std::any_of(sp.before.begin(), sp.before.end(), [](const SteerAction& a) {
      return a.kind == SteerAction::Kind::Pause || a.kind == SteerAction::Kind::Cut ||
             a.kind == SteerAction::Kind::HoldMetadata;
    });
    if (starts) {
      sp.before.push_back(act(SteerAction::Kind::Sleep, -1, 3 * times.fetch_wait_ms,
                           "longer than replica.fetch.wait.max.ms, so that no fetch parked at the leader carries the record"));
    }
  }
  // Releases first, then holds, within one `before` list: a follower released and held
  // again at the same step is released by the earlier hold's end.
  for (auto& [step, sp] : plan.steps) {
    std::stable_sort(sp.before.begin(), sp.before.end(), [](const SteerAction& a, const SteerAction& b) {
      auto rank = [](const SteerAction& x) {
        switch (x.kind) {
          case SteerAction::Kind::Resume:
          case SteerAction::Kind::Heal:
          case SteerAction::Kind::ReleaseMetadata:
          case SteerAction::Kind::ReleaseRegistration:
          case SteerAction::Kind::ReleaseGate:
          case SteerAction::Kind::ReleaseAlterPartition: return 0;
          case SteerAction::Kind::GateFetch:
          case SteerAction::Kind::HoldAlterPartition:
          case SteerAction::Kind::ShrinkAfterFetch:
          case SteerAction::Kind::Pause:
          case SteerAction::Kind::Cut:
          case SteerAction::Kind::HoldMetadata:
          case SteerAction::Kind::HoldRegistration: return 1;
          case SteerAction::Kind::Sleep:
          case SteerAction::Kind::AwaitAlterPartition: return 2;
        }
        return 3;
      };
      return rank(a) < rank(b);
    });
  }
  return plan;
}

}  // namespace isr::conformance
