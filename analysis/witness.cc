// The settled-path search for a client script (see witness.h).
#include "analysis/witness.h"

#include <xxhash.h>

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "counterexamples/export/export_scenario.h"
#include "counterexamples/trace/trace_writer.h"
#include "spec/partition/partition_model.h"

namespace isr::analysis {

using nlohmann::json;

namespace {

const char* const kForms =
    "produce, lose, retry, timeout, drop, consume, kill N|leader, clean N|leader, disk N|leader, power N|leader, restart N, "
    "cut N quorum|brokers|clients, heal N quorum|brokers|clients, pause N|leader, resume N|leader, elect N, "
    "remove_voter N, add_voter N";

struct Node {
  spec::State state;
  size_t op = 0;        // script operations done
  long parent = -1;
  spec::Action action{};
};

// Where the model leaves the controller's choice of a new leader open (any eligible
// replica), Kafka takes the first valid one in assignment order
// (PartitionChangeBuilder.electAnyLeader / electLeader, kafka-metadata 4.4:
// targetReplicas.stream().filter(isValidNewLeader).findFirst()). The witness follows
// Kafka's rule: of the actions that differ only in the leader chosen, the one with the
// lowest replica id (our assignments are 0, 1, 2, ...), a node before none.
const char* choice_field(std::string_view kind) {
  if (kind == "FenceBroker" || kind == "RegisterBroker" || kind == "UnfenceBroker" || kind == "Crash") {
    return "leader_after";
  }
  if (kind == "UncleanElection") return "leader";
  return nullptr;
}

int choice_rank(const json& v) { return v.is_number_integer() ? v.get<int>() : 1 << 20; }

// Fairness of a real cluster, which a model interleaving need not have: a follower that
// is alive and connected fetches within replica.fetch.wait.max.ms, far below
// replica.lag.time.max.ms, so its leader never shrinks it from the ISR. The model lets a
// leader shrink any follower whose last fetch it has not yet seen at its LEO; the witness
// search takes no such ShrinkIsr (neither on its path nor when judging settledness).
//
// Likewise a paused broker's session: the harness performs the script's next operation
// within milliseconds of a pause, far below broker.session.timeout.ms, so the controller
// does not fence a paused broker on the witness's path (a pause that outlasts the session
// is a pause followed by a cut of the quorum side, or a scenario of `check`).
bool unfair(const json& action, const json& state) {
  // KIP-858: a broker back on a new disk is unfenced by a heartbeat that goes at once,
  // before its directory assignment (AssignmentsManager batches it for 100 ms): the
  // other order is possible but not what a cluster does (docs/fidelity.md, F10).
  if (action.value("kind", "") == "RegisterBroker") return action.value("directory_assigned_first", false);
  if (action.value("kind", "") == "FenceBroker") {
    const int b = action.value("broker", -1);
    for (const json& n : state.value("nodes", json::array()))
      if (n.value("id", -2) == b) return n.value("alive", false) && n.value("paused", false) && n.value("cut", json::array()).empty();
    return false;
  }
  if (action.value("kind", "") != "ShrinkIsr") return false;
  // A shrink of several followers at once is unfair when one of them is.
  json removed = action.value("followers", json::array());
  if (action.contains("follower")) removed.push_back(action["follower"]);
  for (const json& f : removed)
    for (const json& n : state.value("nodes", json::array()))
      if (n.value("id", -2) == f.get<int>() && n.value("alive", false) && n.value("cut", json::array()).empty())
        return true;
  return false;
}

uint64_t key_of(const spec::State& s, size_t op) {
  return XXH3_64bits_withSeed(&s, sizeof s, op);
}

}  // namespace

std::vector<ScriptOp> parse_script(const std::string& text) {
  std::vector<ScriptOp> out;
  std::stringstream parts(text);
  std::string part;
  while (std::getline(parts, part, ';')) {
    std::istringstream words(part);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    if (w.empty()) continue;
    ScriptOp op;
    op.kind = w[0];
    auto bad = [&] { return std::invalid_argument("script operation \"" + part + "\": allowed forms: " + kForms); };
    auto node_at = [&](size_t i, bool leader_ok) {
      if (i >= w.size()) throw bad();
      if (leader_ok && w[i] == "leader") return -1;
      // Decimal digits only: std::stoi took "-1", "1abc" (as 1) and "1e3" (as 1).
      const std::string& number = w[i];
      const bool digits = !number.empty() && number.size() <= 3 &&
                          std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; });
      if (!digits) {
        throw std::invalid_argument("script operation \"" + part + "\": node \"" + number +
                                    "\" is not a node number (0, 1, 2, ...)" + (leader_ok ? " or \"leader\"" : ""));
      }
      return std::stoi(number);
    };
    if (op.kind == "produce" || op.kind == "lose" || op.kind == "retry" || op.kind == "timeout" || op.kind == "drop" ||
        op.kind == "consume") {
      if (w.size() != 1) throw bad();
    } else if (op.kind == "kill" || op.kind == "clean" || op.kind == "disk" || op.kind == "power" ||
               op.kind == "pause" || op.kind == "resume") {
      if (w.size() != 2) throw bad();
      op.node = node_at(1, true);
    } else if (op.kind == "restart" || op.kind == "elect" || op.kind == "remove_voter" || op.kind == "add_voter") {
      if (w.size() != 2) throw bad();
      op.node = node_at(1, false);
    } else if (op.kind == "cut" || op.kind == "heal") {
      if (w.size() != 3 || (w[2] != "quorum" && w[2] != "brokers" && w[2] != "clients")) throw bad();
      op.node = node_at(1, false);
      op.side = w[2];
    } else {
      throw bad();
    }
    out.push_back(op);
  }
  if (out.empty()) throw std::invalid_argument(std::string("script: empty; allowed forms: ") + kForms);
  return out;
}

void check_script_nodes(const spec::Config& config, const std::vector<ScriptOp>& script) {
  for (const ScriptOp& op : script) {
    if (op.node < 0) continue;  // "leader"
    // elect names the new leader, a broker; the others any node (dedicated voters too).
    const int limit = op.kind == "elect" ? config.brokers : config.nodes();
    if (op.node >= limit) {
      throw std::invalid_argument("script operation \"" + op.kind + " " + std::to_string(op.node) + "\": node " +
                                  std::to_string(op.node) + " does not exist; allowed: 0 to " +
                                  std::to_string(limit - 1) + (op.kind == "elect" ? " (the brokers)" : " (the nodes)"));
    }
  }
}

WitnessResult find_witness(const spec::Config& config, const std::vector<ScriptOp>& script,
                           const std::string& description, size_t max_states) {
  const spec::PartitionModel model(config);
  const json config_json = model.config_json();
  WitnessResult result;
  std::vector<Node> nodes;
  std::unordered_map<uint64_t, long> seen;
  std::deque<long> queue;
  for (const spec::State& s : model.initial_states()) {
    if (seen.emplace(key_of(s, 0), static_cast<long>(nodes.size())).second) {
      queue.push_back(static_cast<long>(nodes.size()));
      nodes.push_back({s, 0, -1, {}});
    }
  }
  std::array<spec::Action, spec::kMaxEnabledActions> actions;
  auto observable = [&](const spec::State& s) {
    return json(counterexamples::observable_state(model.state_to_json(s), config_json));
  };
  // Settled: no run of fair internal actions changes what a harness observes (one step is
  // not enough: a fetch that changes nothing visible lets the leader advance the HW or
  // expand the ISR next). Searched over at most kClosure states; beyond, not settled.
  // The states these closures visit count against max_states too, so that the bound
  // bounds the work (a closure per path state could otherwise visit kClosure each).
  constexpr size_t kClosure = 20000;
  size_t closure_states = 0;
  bool exhausted = false;
  auto settled = [&](const spec::State& s, const json& seen_now) {
    std::array<spec::Action, spec::kMaxEnabledActions> buffer;
    // Fairness again: a broker's AssignmentsManager retries a directory assignment
    // (KIP-858) until the controller has it, 100 ms after the broker created the log; it
    // changes nothing a harness sees, but it decides the next election, so a state with
    // one still to send is not settled.
    const int first = model.enabled_actions(s, buffer.data());
    for (int i = 0; i < first; ++i)
      if (model.action_kind(buffer[i]) == "AssignReplicasToDirs") return false;
    std::deque<spec::State> todo{s};
    std::unordered_map<uint64_t, bool> visited{{key_of(s, 0), true}};
    while (!todo.empty()) {
      const spec::State at = todo.front();
      todo.pop_front();
      const json at_json = model.state_to_json(at);
      const int n = model.enabled_actions(at, buffer.data());
      for (int i = 0; i < n; ++i) {
        if (counterexamples::is_harness_action(model.action_kind(buffer[i]))) continue;
        if (unfair(model.action_to_json(buffer[i]), at_json)) continue;
        const spec::State next = model.next_state(at, buffer[i]);
        if (!visited.emplace(key_of(next, 0), true).second) continue;
        if (nodes.size() + ++closure_states >= max_states) {
          exhausted = true;
          return false;
        }
        if (observable(next) != seen_now) return false;
        if (visited.size() > kClosure) return false;
        todo.push_back(next);
      }
    }
    return true;
  };
  long goal = -1;
  while (!queue.empty() && goal < 0) {
    const long at = queue.front();
    queue.pop_front();
    const spec::State s = nodes[at].state;
    const size_t done = nodes[at].op;
    const json obs = observable(s);
    // Settledness costs one successor per internal action: computed only when it matters.
    int settled_memo = -1;
    auto is_settled = [&] {
      if (settled_memo < 0) settled_memo = settled(s, obs) ? 1 : 0;
      return settled_memo == 1;
    };
    if (done == script.size() && is_settled()) {
      goal = at;
      break;
    }
    const int n = model.enabled_actions(s, actions.data());
    std::map<std::string, int> best_choice;  // the action without its choice -> lowest rank
    std::vector<json> action_json(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      action_json[i] = model.action_to_json(actions[i]);
      const char* f = choice_field(model.action_kind(actions[i]));
      if (f == nullptr || !action_json[i].contains(f)) continue;
      json rest = action_json[i];
      rest.erase(f);
      const std::string k = rest.dump();
      const int rank = choice_rank(action_json[i][f]);
      auto it = best_choice.find(k);
      if (it == best_choice.end() || rank < it->second) best_choice[k] = rank;
    }
    const json s_json = model.state_to_json(s);
    for (int i = 0; i < n; ++i) {
      const std::string_view kind = model.action_kind(actions[i]);
      if (unfair(action_json[i], s_json)) continue;
      if (const char* f = choice_field(kind); f != nullptr && action_json[i].contains(f)) {
        json rest = action_json[i];
        rest.erase(f);
        if (choice_rank(action_json[i][f]) != best_choice[rest.dump()]) continue;
      }
      size_t next_op = done;
      if (counterexamples::is_harness_action(kind)) {
        if (done >= script.size()) continue;
        const ScriptOp& op = script[done];
        const json& a = action_json[i];
        const int leader = obs.at("leader").is_number_integer() ? obs["leader"].get<int>() : -1;
        const int target = op.node >= 0 ? op.node : leader;
        bool match = false;
        const bool lost = a.value("response_lost", false);
        const int current = s.producer.current;
        if (op.kind == "produce") match = kind == "Produce" && a.value("broker", -2) == leader && !lost;
        else if (op.kind == "lose") match = kind == "Produce" && a.value("broker", -2) == leader && lost;
        else if (op.kind == "retry") {
          match = kind == "Produce" && a.value("broker", -2) == leader && !lost && current != 0 &&
                  a.value("record", -2) == current;
        }
        else if (op.kind == "timeout" || op.kind == "drop") match = kind == "ProduceTimeout";
        else if (op.kind == "consume") match = kind == "Consume" && a.value("broker", -2) == leader;
        else if (op.kind == "kill" || op.kind == "clean" || op.kind == "disk" || op.kind == "power") {
          match = kind == "Crash" && a.value("node", -2) == target && a.value("mode", "") == op.kind;
        } else if (op.kind == "restart") match = kind == "Restart" && a.value("node", -2) == target;
        else if (op.kind == "pause") match = kind == "Pause" && a.value("node", -2) == target;
        else if (op.kind == "resume") match = kind == "Resume" && a.value("node", -2) == target;
        else if (op.kind == "cut") match = kind == "Cut" && a.value("node", -2) == target && a.value("side", "") == op.side;
        else if (op.kind == "heal") match = kind == "Heal" && a.value("node", -2) == target && a.value("side", "") == op.side;
        else if (op.kind == "elect") match = kind == "PreferredElection" && a.value("leader", -2) == target;
        // KIP-853 (controller.quorum=dynamic): the operator's steps on a wiped voter.
        else if (op.kind == "remove_voter") match = kind == "RemoveVoter" && a.value("node", -2) == target;
        else if (op.kind == "add_voter") match = kind == "AddVoter" && a.value("node", -2) == target;
        // "drop": the answer to the send in flight is lost, so the client times out whatever
        // the cluster does meanwhile: taken at once, not in a settled state.
        if (!match || (op.kind != "drop" && !is_settled())) continue;
        next_op = done + 1;
      }
      const spec::State next = model.next_state(s, actions[i]);
      if (!seen.emplace(key_of(next, next_op), static_cast<long>(nodes.size())).second) continue;
      nodes.push_back({next, next_op, at, actions[i]});
      queue.push_back(static_cast<long>(nodes.size()) - 1);
    }
    if (exhausted || nodes.size() + closure_states >= max_states) break;
  }
  result.states = nodes.size() + closure_states;
  if (goal < 0) {
    const bool bounded = exhausted || result.states >= max_states;
    result.why = "no settled path performs the script within the model's bounds (" +
                 std::to_string(result.states) + " states searched, " + std::to_string(closure_states) +
                 " of them judging settledness" + (bounded ? "; --max-states reached" : "") + ")";
    return result;
  }
  std::vector<long> path;
  for (long at = goal; at >= 0; at = nodes[at].parent) path.push_back(at);
  json steps = json::array();
  for (size_t i = path.size(); i-- > 0;) {
    const Node& n = nodes[path[i]];
    json step = {{"index", steps.size()}};
    if (n.parent < 0) {
      step["action"] = nullptr;
      step["action_name"] = "Init";
    } else {
      step["action"] = model.action_to_json(n.action);
      step["action_name"] = model.action_name(n.action);
    }
    step["state"] = model.state_to_json(n.state);
    steps.push_back(std::move(step));
  }
  result.found = true;
  result.trace = counterexamples::make_trace("partition", config_json, "witness", description, "witness", steps);
  return result;
}

}  // namespace isr::analysis
