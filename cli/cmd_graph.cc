// `isrcheck graph`: the whole state graph of a small model, for drawing or for other
// graph tools: every reachable state a vertex, every enabled action an edge
// (checker/graph/state_graph.h), written with Boost's write_graphviz (DOT) or write_graphml.
//
// Vertex attributes: id (BFS discovery order), depth (shortest distance from an initial
// state) and a one-line summary of the partition (leader, epoch, ISR, dead nodes, send
// outcomes); GraphML also carries the full state JSON. Edge attributes: the action's
// name, its kind, and its index in the model's action order.
//
// A model with more states than --max-states is refused (exit 2) rather than explored
// in part: a partial graph would look complete to whoever reads the file.
#include <cstdint>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <boost/graph/graphml.hpp>
#include <boost/graph/graphviz.hpp>
#include <boost/property_map/function_property_map.hpp>

#include "checker/counterexample.h"
#include "checker/graph/state_graph.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "cli/run_support.h"
#include "spec/partition/partition_model.h"

namespace isr::cli {
namespace {

struct GraphOptions {
  ConfigOptions config;
  std::string format = "dot";
  std::string out;  // empty or "-": stdout
  std::string symmetry = "on";
  uint64_t max_states = 100'000;
};

std::string node_list(const nlohmann::json& nodes) {
  std::string text = "{";
  for (size_t i = 0; i < nodes.size(); ++i) text += (i ? "," : "") + nodes[i].dump();
  return text + "}";
}

// "L0 e1 isr{0,1,2} dead{2} 1:acked": enough to tell vertices apart in a drawing.
std::string summary(const spec::PartitionModel& model, const spec::State& s) {
  const nlohmann::json j = model.state_to_json(s);
  const nlohmann::json& ctl = j["controller"];
  std::string text = "L" + (ctl["leader"].is_null() ? std::string("-") : ctl["leader"].dump()) +
                     " e" + ctl["leader_epoch"].dump() + " isr" + node_list(ctl["isr"]);
  nlohmann::json dead = nlohmann::json::array();
  for (const auto& node : j["nodes"])
    if (!node["alive"].get<bool>()) dead.push_back(node["id"]);
  if (!dead.empty()) text += " dead" + node_list(dead);
  for (const auto& [record, outcome] : j["producer"]["outcomes"].items()) {
    if (outcome != "unsent") text += " " + record + ":" + outcome.get<std::string>();
  }
  return text;
}

// False (nothing written, exit 3) when SIGINT or SIGTERM stopped the exploration.
bool write_graph(const GraphOptions& o, std::ostream& out) {
  const spec::Config config = load_config(o.config);
  const spec::PartitionModel model(config);
  checker::StateGraphOptions graph_options;
  graph_options.symmetry = o.symmetry == "on";
  graph_options.max_states = o.max_states;
  InterruptGuard guard;
  graph_options.interrupt = &interrupted();
  const auto graph = checker::explore_state_graph(model, graph_options);
  if (graph.interrupted) {
    std::cerr << "INCOMPLETE: interrupted after " << graph.vertex_count() << " states; no graph written\n";
    set_exit_code(3);
    return false;
  }
  if (!graph.complete) {
    throw UsageError("--max-states",
                     "the model has more than " + std::to_string(o.max_states) +
                         " states; raise --max-states or make the model smaller (for example "
                         "--set bounds.max_records=1 --set consumer=false --set faults.max_crashes=1)");
  }
  const checker::StateGraphBoost g = graph.to_boost();
  using Vertex = boost::graph_traits<checker::StateGraphBoost>::vertex_descriptor;
  using Edge = boost::graph_traits<checker::StateGraphBoost>::edge_descriptor;

  auto action_name = [&](const Edge& e) {
    const checker::StateGraphEdge& data = g[e];
    const auto action = checker::action_at(model, graph.states[data.source], data.action_index);
    return action ? model.action_name(*action) : std::string("?");
  };
  auto vertex_summary = [&](Vertex v) { return summary(model, graph.states[v]); };
  auto vertex_depth = [&](Vertex v) { return graph.depth[v]; };
  auto vertex_state = [&](Vertex v) { return model.state_to_json(graph.states[v]).dump(); };
  auto edge_kind = [&](const Edge& e) { return graph.kinds.at(g[e].kind); };
  auto edge_index = [&](const Edge& e) { return g[e].action_index; };

  if (o.format == "dot") {
    boost::write_graphviz(
        out, g,
        [&](std::ostream& os, Vertex v) {
          os << "[label=\"" << v << ": " << vertex_summary(v) << "\", depth=" << graph.depth[v] << "]";
        },
        [&](std::ostream& os, const Edge& e) { os << "[label=\"" << action_name(e) << "\"]"; });
    return true;
  }
  boost::dynamic_properties properties(boost::ignore_other_properties);
  properties.property("depth", boost::make_function_property_map<Vertex>(vertex_depth));
  properties.property("summary", boost::make_function_property_map<Vertex>(vertex_summary));
  properties.property("state", boost::make_function_property_map<Vertex>(vertex_state));
  properties.property("action", boost::make_function_property_map<Edge>(action_name));
  properties.property("kind", boost::make_function_property_map<Edge>(edge_kind));
  properties.property("action_index", boost::make_function_property_map<Edge>(edge_index));
  boost::write_graphml(out, g, properties, true);
  return true;
}

void run_graph(const GraphOptions& o) {
  if (o.out.empty() || o.out == "-") {
    write_graph(o, std::cout);
    return;
  }
  check_output_path(o.out, "--out");
  // Write to a string first: a refused model leaves no half-written file behind.
  std::ostringstream text;
  if (write_graph(o, text)) write_text(o.out, "--out", text.str());
}

}  // namespace

void add_graph_command(CLI::App& app) {
  auto o = std::make_shared<GraphOptions>();
  CLI::App* command = app.add_subcommand(
      "graph", "Write the whole state graph of a small model (DOT or GraphML)");
  add_config_options(*command, o->config);
  command->add_option("--format", o->format, "dot (default) or graphml")
      ->check(CLI::IsMember({"dot", "graphml"}));
  command->add_option("--out", o->out, "Output file (default: stdout)");
  command->add_option("--symmetry", o->symmetry,
                      "One vertex per orbit of interchangeable nodes: on (default) or off")
      ->check(CLI::IsMember({"on", "off"}));
  command->add_option("--max-states", o->max_states,
                      "Refuse models with more states than this (default 100000; exit 2)")
      ->check(decimal_count())
      ->check(CLI::Range(uint64_t{1}, uint64_t{100'000'000}));
  command->callback([o] { run_graph(*o); });
}

}  // namespace isr::cli
