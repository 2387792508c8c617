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

// The C++ source of one test case for `scenario`. Throws TraceFormatError when the
// scenario lacks a field it needs.
std::string scenario_to_gtest(const nlohmann::ordered_json& scenario);

// A C++ identifier from a scenario name ("no-acked-loss acks=1" -> "no_acked_loss_acks_1").
std::string cpp_identifier(const std::string& name);

}  // namespace isr::counterexamples
