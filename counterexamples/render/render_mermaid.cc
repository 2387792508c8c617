// Mermaid rendering of a trace: a sequence diagram between the producer, the consumer,
// the controller and the brokers, with one arrow per request or response and notes for
// crashes, restarts, cuts, elections and every other change, ending with the violation.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "counterexamples/render/render.h"
#include "counterexamples/render/render_model.h"
#include "counterexamples/render/render_words.h"
#include "counterexamples/trace/trace_reader.h"

namespace isr::counterexamples {

using nlohmann::json;

namespace {

// Mermaid ends a statement at ';' and reads '#' as an entity escape.
std::string clean(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == ';') out += ',';
    else if (c == '#') out += "no.";
    else if (c == '\n') out += "<br/>";
    else out += c;
  }
  return out;
}

// `text` with a line break at a space wherever a line would pass `width` characters, so
// that a long note stays a readable box instead of one very wide line.
std::string wrap(const std::string& text, size_t width) {
  std::string out;
  size_t line = 0;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find_first_of(" \n", start), text.size());
    const std::string word = text.substr(start, end - start);
    if (line > 0 && line + 1 + word.size() > width) {
      out += '\n';
      line = 0;
    } else if (line > 0) {
      out += ' ';
      ++line;
    }
    out += word;
    line += word.size();
    if (end < text.size() && text[end] == '\n') {
      out += '\n';
      line = 0;
    }
    start = end + 1;
  }
  return out;
}
constexpr size_t kNoteWidth = 60;   // a note over one lane
constexpr size_t kSpanWidth = 100;  // a note across every lane

class Diagram {
 public:
  Diagram(const json& trace, bool ends_in_violation)
      : trace_(trace), rendering_(rendering_for(trace)), ends_in_violation_(ends_in_violation) {
    const json& nodes = field(trace.at("steps")[0].at("state"), "nodes");
    if (nodes.is_array()) {
      for (const json& node : nodes) {
        // Dedicated controller voters are drawn as the Controller participant.
        if (field(node, "broker") != false) brokers_.push_back(field(node, "id"));
      }
    }
    const json& initial = trace.at("steps")[0].at("state");
    has_producer_ = rendering_.client_lanes && (initial.contains("producer") || nodes.is_array());
    // No Consumer lane when the configuration has no consumer (the state may still
    // carry its empty position).
    has_consumer_ = rendering_.client_lanes && initial.contains("consumer") &&
                    field(field(trace, "config"), "consumer") != false;
    // The lane for the control plane; a model without one gets a neutral name.
    system_ = !rendering_.client_lanes                             ? rendering_.system_lane
              : initial.contains("controller") || nodes.is_array() ? rendering_.system_lane
                                                                   : "Model";
  }

  std::string render() {
    out_ = "sequenceDiagram\n";
    if (has_producer_) out_ += "  participant Producer\n";
    if (has_consumer_) out_ += "  participant Consumer\n";
    out_ += "  participant " + system_ + "\n";
    for (const json& id : brokers_) out_ += "  participant " + node_name(id) + "\n";
    const json& steps = trace_.at("steps");
    // A note across several lanes may be wider than one over a single lane.
    const size_t span_width = span().find(',') != std::string::npos ? kSpanWidth : kNoteWidth;
    out_ += "  Note over " + span() + ": " + clean(wrap("0. " + initial_summary(steps[0].at("state")), span_width)) +
            "\n";
    for (size_t i = 1; i < steps.size(); ++i) {
      render_step(i, steps[i - 1].at("state"), steps[i]);
    }
    if (ends_in_violation_) {
      out_ += "  Note over " + span() + ": " + clean(wrap("VIOLATED " + rendering_.violation(trace_), span_width)) +
              "\n";
    }
    return out_;
  }

 private:
  std::string span() const {
    const std::string first = has_producer_ ? "Producer" : has_consumer_ ? "Consumer" : system_;
    const std::string last = brokers_.empty() ? system_ : node_name(brokers_.back());
    return first == last ? first : first + "," + last;
  }

  // The participant drawing node `id`: its broker lane, or the controller.
  std::string who(const json& id) const {
    if (std::find(brokers_.begin(), brokers_.end(), id) != brokers_.end()) return node_name(id);
    return system_;
  }

  static const json& param(const json& action, std::initializer_list<const char*> keys) {
    for (const char* key : keys) {
      if (action.contains(key)) return action[key];
    }
    return field(json(), "none");
  }

  static const json* node_in(const json& state, const json& id) {
    const json& nodes = field(state, "nodes");
    if (!nodes.is_array()) return nullptr;
    for (const json& node : nodes) {
      if (field(node, "id") == id) return &node;
    }
    return nullptr;
  }

  // A node's replica; a model whose nodes are the replicas (KRaft voters) has none.
  static const json& replica_of(const json* node) {
    if (node == nullptr) return field(json(), "none");
    return node->contains("replica") ? (*node)["replica"] : *node;
  }

  // The entries a follower appended and the HW it ended with: "0:r1, HW 0".
  std::string fetched_text(const json& before, const json& after) const {
    const json& old_log = field(before, "log");
    const json& new_log = field(after, "log");
    std::string entries;
    if (old_log.is_array() && new_log.is_array()) {
      size_t common = 0;
      while (common < old_log.size() && common < new_log.size() && old_log[common] == new_log[common]) {
        ++common;
      }
      for (size_t i = common; i < new_log.size(); ++i) {
        entries += (entries.empty() ? "" : " ") + rendering_.entry(new_log[i]);
      }
    }
    return (entries.empty() ? std::string("no records") : entries) + ", HW " +
           compact(field(after, "hw"));
  }

  static std::string initial_summary(const json& state) {
    const json& controller = field(state, "controller");
    if (!controller.is_object()) return "initial state";
    return "initial state: leader " + node_name(field(controller, "leader")) + ", leader epoch " +
           compact(field(controller, "leader_epoch")) + ", ISR " +
           node_set_text(field(controller, "isr"));
  }

  void arrow(const std::string& from, const std::string& to, bool response, const std::string& text) {
    out_ += "  " + from + (response ? "-->>" : "->>") + to + ": " + clean(text) + "\n";
  }

  void note(const std::string& over, const std::string& text) {
    notes_order_.push_back(over);
    notes_[over].push_back(text);
  }

  void reply(const std::string& from, const std::string& to, const std::string& text) {
    replies_.push_back("  " + from + "-->>" + to + ": " + clean(text) + "\n");
  }

  // Notes first (what happened at the nodes), then the replies it caused to clients.
  void flush_notes() {
    std::vector<std::string> seen;
    for (const std::string& over : notes_order_) {
      if (std::find(seen.begin(), seen.end(), over) != seen.end()) continue;
      seen.push_back(over);
      std::string text;
      for (const std::string& line : notes_[over]) {
        text += (text.empty() ? "" : "<br/>") + clean(wrap(line, kNoteWidth));
      }
      out_ += "  Note over " + over + ": " + text + "\n";
    }
    for (const std::string& line : replies_) out_ += line;
    notes_.clear();
    notes_order_.clear();
    replies_.clear();
  }

  void render_step(size_t index, const json& before, const json& step) {
    const json& after = step.at("state");
    const json& action = step.at("action");
    const std::string kind = scalar_text(field(action, "kind"));
    const std::string n = std::to_string(index) + ". ";
    const std::string name = step_action_name(step);
    // The node the action happens at; Fetch and EpochQuery name both ends explicitly.
    const json& node = param(action, {"node", "broker", "leader", "follower", "voter"});
    // Where acks, errors and reads come from: the broker that handled the request, else
    // the leader; a client-side timeout comes from nowhere (null: a note, not an arrow).
    json source;
    if (kind == "Produce" || kind == "Consume") {
      source = param(action, {"broker", "node"});
    } else if (kind == "Fetch" || kind == "EpochQuery" || kind == "ShrinkIsr" || kind == "AlterPartition") {
      source = param(action, {"leader", "node"});
    } else if (kind != "ProduceTimeout") {
      source = field(field(before, "controller"), "leader");
      if (source.is_null()) source = node;
    }

    if (field(action, "layer") == "decision") {
      // The cluster model: a controller appends a decision as a metadata record; the
      // answer and the brokers' view follow once it commits (notes below).
      note(system_, n + name);
    } else if (kind == "Produce") {
      arrow("Producer", who(node), false, n + "Produce(record " + compact(field(action, "record")) + ")");
    } else if (kind == "ProduceTimeout") {
      note("Producer", n + name);
    } else if (kind == "Fetch") {
      const json& follower = param(action, {"follower", "node"});
      const json& leader = param(action, {"leader", "other"});
      const json* f = node_in(before, follower);
      const json& replica = replica_of(f);
      const json& epoch = replica.contains("view") ? field(field(replica, "view"), "leader_epoch")
                                                   : field(replica, "epoch");
      arrow(who(follower), who(leader), false,
            n + "Fetch(offset " + compact(field(replica, "leo")) + ", epoch " + compact(epoch) + ")");
      const json* g = node_in(after, follower);
      const json& new_replica = replica_of(g);
      if (field(action, "response_lost") == true) {
        out_ += "  " + who(leader) + "--x" + who(follower) + ": response lost\n";
      } else if (!field(new_replica, "fetch_response").is_null()) {
        // The response is in flight; the follower handles it in a later FetchResponse.
        const std::string text = in_flight_text(new_replica);
        const std::string prefix = "fetch response from " + node_name(leader) + ": ";
        arrow(who(leader), who(follower), true,
              text.rfind(prefix, 0) == 0 ? text.substr(prefix.size()) : text);
      } else if (g != nullptr && new_replica != replica) {
        // Fetch and response in one step: what the follower took from it.
        arrow(who(leader), who(follower), true, "response: " + fetched_text(replica, new_replica));
      }
    } else if (kind == "Vote") {
      // KRaft: one Vote round trip; granted when the voter now votes for the candidate.
      const json& candidate = field(action, "candidate");
      const json& voter = field(action, "voter");
      const json* c = node_in(after, candidate);
      const json* v = node_in(after, voter);
      const json& epoch = c != nullptr ? field(*c, "epoch") : field(json(), "none");
      arrow(who(candidate), who(voter), false, n + "Vote(epoch " + compact(epoch) + ")");
      const bool granted = v != nullptr && field(*v, "voted_for") == candidate && field(*v, "epoch") == epoch;
      arrow(who(voter), who(candidate), true, granted ? "vote granted" : "vote refused");
    } else if (kind == "BeginEpoch") {
      const json* l = node_in(before, field(action, "leader"));
      arrow(who(field(action, "leader")), who(field(action, "voter")), false,
            n + "BeginQuorumEpoch(epoch " + (l != nullptr ? compact(field(*l, "epoch")) : "?") + ")");
    } else if (kind == "FetchResponse") {
      note(who(node), n + "handle fetch response");
    } else if (kind == "EpochQuery") {
      const json& follower = param(action, {"follower", "node"});
      const json& leader = param(action, {"leader", "other"});
      arrow(who(follower), who(leader), false, n + "OffsetsForLeaderEpoch");
      arrow(who(leader), who(follower), true, "epoch end offset");
    } else if (kind == "ShrinkIsr") {
      const json* l = node_in(after, node);
      const json& proposed =
          l != nullptr ? field(field(field(*l, "replica"), "leader_state"), "alter_partition")
                       : field(json(), "none");
      // One follower ("follower") or several in one change ("followers").
      const json& follower = field(action, "follower");
      const json& followers = field(action, "followers");
      const std::string removing = !follower.is_null()    ? ", removing " + node_name(follower)
                                   : followers.is_array() ? ", removing " + node_set_text(followers)
                                                          : "";
      arrow(who(node), system_, false,
            n + "AlterPartition(ISR " + (proposed.is_null() ? "?" : node_set_text(proposed)) + removing + ")");
    } else if (kind == "AlterPartition") {
      const bool accepted = field(field(before, "controller"), "partition_epoch") !=
                            field(field(after, "controller"), "partition_epoch");
      arrow(system_, who(node), true, n + (accepted ? "AlterPartition accepted" : "AlterPartition rejected"));
    } else if (kind == "RegisterBroker") {
      arrow(who(node), system_, false, n + "BrokerRegistration");
      const json* r = node_in(after, node);
      arrow(system_, who(node), true,
            "registered, broker epoch " + (r != nullptr ? compact(field(*r, "broker_epoch")) : "?"));
    } else if (kind == "MetadataUpdate") {
      const json* m = node_in(after, node);
      const json& view = m != nullptr ? field(field(*m, "replica"), "view") : field(json(), "none");
      arrow(system_, who(node), true,
            n + "metadata: leader " + node_name(field(view, "leader")) + ", epoch " +
                compact(field(view, "leader_epoch")) + ", ISR " + node_set_text(field(view, "isr")));
    } else if (kind == "Consume") {
      arrow("Consumer", who(node), false,
            n + "Fetch(offset " + compact(field(field(before, "consumer"), "position")) + ")");
    } else if (kind == "FenceBroker" || kind == "UnfenceBroker" || kind == "UncleanElection" ||
               kind == "PreferredElection" || kind == "ControllerFailover") {
      note(system_, n + name);
    } else if (!node.is_null()) {
      // Crash, Restart, Cut, Heal, Flush, CheckpointHw, and kinds of later models.
      note(who(node), n + name);
    } else {
      note(system_, n + name);
    }
    render_effects(before, after, source);
    flush_notes();
  }

  // Every change the step made, as arrows back to clients or notes over the node.
  void render_effects(const json& before, const json& after, const json& source) {
    for (const std::string& phrase : rendering_.changes(before, after)) {
      if (phrase.find("sees follower") != std::string::npos ||
          phrase.find("got fetch response") != std::string::npos ||
          phrase.find("handled its fetch response") != std::string::npos ||
          phrase.find("sent AlterPartition") != std::string::npos) {
        continue;  // drawn as an arrow already
      }
      const size_t subject = phrase.rfind("node ", 0) == 0 ? 5 : phrase.rfind("voter ", 0) == 0 ? 6 : 0;
      if (subject > 0) {
        const size_t colon = phrase.find(": ");
        const std::string id = phrase.substr(subject, colon - subject);
        json node_id = json::parse(id, nullptr, false);
        if (node_id.is_discarded()) node_id = id;
        // A node without a broker lane (a dedicated voter) is drawn on the controller's
        // lane, so the note must say which node it is about.
        const std::string lane = who(node_id);
        note(lane, lane == system_ ? node_name(node_id) + ": " + phrase.substr(colon + 2)
                                   : phrase.substr(colon + 2));
      } else if (phrase.rfind("record ", 0) == 0 && phrase.ends_with(": " + outcome_words("in-flight"))) {
        // acks=all, the ISR not caught up yet: the leader holds the request (Kafka's
        // DelayedProduce in ReplicaManager.appendRecords) and sends no response until the
        // acks are met or it times out, so this is a note at the broker, not a reply.
        note(source.is_null() ? std::string("Producer") : who(source),
             phrase.substr(0, phrase.find(':')) + " waits for the ISR's acks (no response yet)");
      } else if (phrase.rfind("record ", 0) == 0) {
        if (source.is_null()) note("Producer", phrase);
        else reply(who(source), "Producer", phrase);
      } else if (phrase.rfind("consumer: read ", 0) == 0) {
        reply(who(source), "Consumer", phrase.substr(10));
      } else if (phrase.rfind("controller: ", 0) == 0) {
        note(system_, phrase.substr(12));
      } else if (phrase.rfind("producer: ", 0) == 0) {
        note("Producer", phrase.substr(10));
      } else if (phrase.rfind("consumer: ", 0) == 0 && has_consumer_) {
        note("Consumer", phrase.substr(10));
      } else {
        note(system_, phrase);
      }
    }
  }

  const json& trace_;
  const ModelRendering& rendering_;
  bool ends_in_violation_;
  std::vector<json> brokers_;
  bool has_producer_ = false;
  bool has_consumer_ = false;
  std::string system_;
  std::string out_;
  std::map<std::string, std::vector<std::string>> notes_;
  std::vector<std::string> notes_order_;
  std::vector<std::string> replies_;
};

}  // namespace

std::string render_mermaid(const json& trace) { return Diagram(trace, true).render(); }
std::string render_mermaid(const json& trace, bool ends_in_violation) {
  return Diagram(trace, ends_in_violation).render();
}

}  // namespace isr::counterexamples
