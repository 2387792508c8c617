// Covering test generation: a small set of executions of the partition model that
// together exercise every action kind (or every transition class) reachable within a
// configuration's bounds, each exported as a scenario (docs/scenarios.md) that a harness
// can run against a real cluster.
//
// Built on the explicit state graph (checker/graph/state_graph.h): every class gets a witness
// edge at minimal depth, reached by a shortest path; greedy set cover then picks the
// paths that cover the most classes still uncovered, until all are covered or the
// maximum number of tests is reached.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "spec/partition/config.h"

namespace isr::analysis {

enum class CoverCriterion {
  Actions,      // one class per action kind
  Transitions,  // (action kind, the set of state components the step changes)
};

// "actions" / "transitions".
std::string_view cover_criterion_name(CoverCriterion c);

struct CoveringOptions {
  CoverCriterion criterion = CoverCriterion::Actions;
  int max_tests = 0;             // 0: as many as needed
  uint64_t max_states = 2000000; // the state graph stops (incomplete) beyond this
  const std::atomic<bool>* interrupt = nullptr;  // SIGINT/SIGTERM: the graph stops, incomplete
  bool symmetry = true;
  std::atomic<uint64_t>* progress_states = nullptr;  // the graph's vertices so far (progress lines)
};

struct CoveringTest {
  std::string target;                // the class whose witness edge ends the path
  std::vector<std::string> covers;   // every class its path covers
  nlohmann::json trace;              // trace format v1 (property "cover-<target>")
};

struct CoveringResult {
  std::vector<CoveringTest> tests;
  std::vector<std::string> reachable_classes;  // sorted
  std::vector<std::string> uncovered;          // reachable but left out by max_tests
  std::vector<std::string> unreachable_kinds;  // action kinds never enabled within the bounds
  uint64_t states = 0;
  uint64_t edges = 0;
  bool complete = true;                        // the state graph is the whole state space
  bool interrupted = false;                    // an interrupt stopped the state graph
};

// The class of one step under `criterion`: "Fetch", or "Fetch:{nodes,producer}".
// `changed` lists the state components the step changed (see transition_components).
std::string transition_class(CoverCriterion criterion, std::string_view kind,
                             const std::vector<std::string>& changed);

// Explores `config`'s model and picks covering tests. Throws spec::ConfigError never
// (the config is already resolved); std::length_error if the graph outgrows 2^32 states.
CoveringResult covering_tests(const spec::Config& config, const CoveringOptions& options);

}  // namespace isr::analysis
