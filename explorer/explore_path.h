// Where `isrcheck explore` is in the state space, and how that is written in a URL.
//
// A position is an initial state (its index among the model's initial states), a path of
// actions from it, and how many of those actions are taken: the rest is the "forward"
// history, so that back and forward are links like any other and a shared URL reopens
// the same state with the same history. Each step of the path is an action's name as the
// model prints it ("Crash(node=2, kill)"), stable when the model's action order changes,
// or, where a name cannot serve (it contains the separator, is all digits, or two enabled
// actions share it), the action's index among the actions enabled there.
//
//   /state?path=Produce(broker%3D0%2C%20record%3D1).Fetch(...)&at=1&init=0
//
// Nothing here knows a model: explore_session.h replays a position against one.
#pragma once

#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace isr::explorer {

// A position or trace that cannot be used; `field` names the URL parameter or trace
// field at fault ("path", "at", "steps[3].action"), `message` what is allowed.
struct PathError : std::runtime_error {
  PathError(std::string field, std::string message)
      : std::runtime_error(field + ": " + message), field(std::move(field)), message(std::move(message)) {}
  std::string field;
  std::string message;
};

inline constexpr char kStepSeparator = '.';

struct Position {
  int initial = 0;                 // index among the model's initial states
  std::vector<std::string> steps;  // each an action name or an index (see above)
  std::size_t at = 0;              // steps taken: 0 is the initial state, steps.size() the end

  bool operator==(const Position&) const = default;
};

// "a.b.c" -> {"a", "b", "c"}; "" -> {}. An empty step ("a..b", "a.") is a PathError.
std::vector<std::string> split_path(std::string_view text);
std::string join_path(const std::vector<std::string>& steps);

// The position the query parameters of a URL name: path (default empty), at (default the
// end of the path), init (default 0). Bad values throw PathError naming the parameter.
Position parse_position(const std::map<std::string, std::string>& params);

// "/state?path=...&at=...&init=...": at and init only when not their defaults.
std::string position_url(const Position& position);

// Percent-encodes everything but letters, digits and - _ . ~ ( ) (RFC 3986 unreserved,
// plus the parentheses of action names, which are safe in a query).
std::string url_encode(std::string_view text);

// True when `step` is an index ("0", "12") rather than a name.
bool is_index_step(std::string_view step);

// The step that names an action: its name when the name can serve (not empty, not all
// digits, without the separator, unique among the enabled actions: `unique`), else its
// index among the enabled actions.
std::string step_for(const std::string& name, std::size_t index, bool unique);

}  // namespace isr::explorer
