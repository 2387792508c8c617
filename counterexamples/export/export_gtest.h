// Exporting a scenario (export_scenario.h) as a C++ GoogleTest file that drives it
// through the ClusterUnderTest interface (cluster_under_test.h): each operation becomes
// a call with its expected result, each wait a wait_until on the observable condition,
// and the end of the scenario the observations that show the violation.
//
// The generated file includes only <gtest/gtest.h> and cluster_under_test.h; it is linked
// with one adapter that defines make_cluster_under_test (ours: model_cluster.h). The build
// compiles and runs such a file against the model adapter (CMakeLists.txt, "generated
// scenario tests").
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace isr::counterexamples {

// What the generated test asserts.
enum class GtestKind {
  // A reproduction: every step's expected result, every wait reached, the final
  // observations and the violation itself (the acked record gone, the read record
  // changed). It passes where the hazard happens: on the model, or on an implementation
  // that has the bug.
  Reproduction,
  // A regression guard: the same operations and faults in the same order, each wait given
  // its chance (a wait not reached is reported, not a failure: an implementation with the
  // fix may not take the trace's path), and at the end the property the trace violates:
  // every send the implementation acknowledged is still there, every record it served to
  // the consumer is still at its offset. It fails where the hazard happens, so it guards
  // an implementation with the fix against a regression.
  Guard,
};

// The C++ source of one test case for `scenario`. Throws TraceFormatError when the
// scenario lacks a field it needs.
std::string scenario_to_gtest(const nlohmann::ordered_json& scenario, GtestKind kind = GtestKind::Reproduction);

// A C++ identifier from a scenario name ("no-acked-loss acks=1" -> "no_acked_loss_acks_1").
std::string cpp_identifier(const std::string& name);

}  // namespace isr::counterexamples
