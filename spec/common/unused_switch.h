// A switch or budget a configuration sets but no reachable state used (issue 29 point 2):
// what every model's usage hook reports after a complete search (spec/partition/usage.h,
// spec/kraft/kraft_usage.h, spec/cluster/cluster_usage.h; cli/check_summary.h prints it).
#pragma once

#include <string>

namespace isr::spec {

struct UnusedSwitch {
  std::string setting;  // as --set spells it: "unclean_leader_election=true"
  std::string never;    // what never happened: "no unclean election happened"
  std::string enable;   // what would let it act: "raise faults.max_crashes to 2"; "" when
                        // no single change follows from the model (never guessed)
};

}  // namespace isr::spec
