// The pages of `isrcheck explore` as HTML, from what a model's session computed
// (explore_session.h): no model code here, and every page self-contained (inline CSS and
// script; the diagram renderer is /mermaid.js, served by the explorer itself).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "explorer/explore_path.h"

namespace isr::explorer {

struct ActionLink {
  std::string name;     // "Crash(node=2, kill)"
  std::string kind;     // "Crash"
  std::string meaning;  // what the kind stands for in Kafka (`isrcheck list actions`)
  std::string url;      // the position after taking it
};

struct PropertyValue {
  std::string name;
  std::string description;
  bool holds = true;
};

// One state of the path and everything shown with it.
struct StateView {
  std::string model;        // "partition"
  std::string config_json;  // the resolved configuration, indented
  Position position;
  std::vector<std::string> step_names;  // the name of every step of the path (forward ones too)
  std::string state_html;               // counterexamples::render_step_html of the current step
  std::vector<ActionLink> actions;      // enabled in the current state, in the model's order
  std::vector<PropertyValue> properties;
  std::string mermaid;                  // the diagram of the path up to the current state
};

// The page of a state. `renderer`: whether /mermaid.js can draw the diagram.
std::string state_page(const StateView& view, bool renderer);

// A page saying what went wrong (a path that does not replay, a trace of another
// configuration) with a link back to the start; `status` is shown in the title.
std::string error_page(int status, const std::string& field, const std::string& message);

// The page with the form that loads a trace (also at the bottom of every state page).
std::string trace_form_page();

}  // namespace isr::explorer
