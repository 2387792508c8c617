// Every shipped claim (claims/*.json, the facts of MODEL.md section 5) holds as written:
// `isrcheck prove claims/*.json` exits 0. Slow: four of the claims search 200 000 to
// five million states each; tests/claims_test.cc proves the others in the fast pass.
#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/trace_test_support.h"

namespace {

using nlohmann::json;

TEST(ClaimsSlow, EveryShippedClaimHoldsViaProve) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ISRCHECK_SOURCE_DIR) + "/claims")) {
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 10u);
  std::string args = "prove --threads 2";
  for (const auto& f : files) args += " '" + f + "'";
  const std::string json_file = isr::trace_test::temp_path(".json");
  const auto r = isr::trace_test::run_isrcheck(args + " --json '" + json_file + "'");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("all " + std::to_string(files.size()) + " claims hold as expected"), std::string::npos)
      << r.out;
  const json report = json::parse(isr::trace_test::slurp(json_file));
  ASSERT_EQ(report.at("claims").size(), files.size());
  std::set<std::string> found;
  for (const auto& claim : report.at("claims")) {
    EXPECT_TRUE(claim.at("met").get<bool>()) << claim.dump(2);
    for (const auto& check : claim.at("checks")) found.insert(check.at("found").get<std::string>());
  }
  for (const char* verdict : {"holds", "violated", "available", "not-enough-replicas", "no-eligible-leader",
                              "no-controller-quorum"}) {
    EXPECT_TRUE(found.count(verdict)) << verdict;
  }
}

}  // namespace
