// The `isrcheck` binary end to end: describe, list, and the exit code 2 contract for bad
// input (the message on stderr names the field at fault).
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "spec/kraft/kraft_properties.h"
#include "spec/partition/config.h"
#include "spec/partition/properties/catalog.h"
#include "tests/trace_test_support.h"

namespace {

// The binary runner shared by the tests that drive `isrcheck` (tests/trace_test_support.h).
using Result = isr::trace_test::Run;
using isr::trace_test::slurp;
using isr::trace_test::temp_path;
Result run(const std::string& args) { return isr::trace_test::run_isrcheck(args); }

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Issue 12 point 6: --version names the version, the git revision the binary was built
// from (read at build time) and the build type.
TEST(Cli, VersionNamesTheRevisionAndBuildType) {
  const Result r = run("--version");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string prefix = "isrcheck 0.1.0 (revision ";
  ASSERT_EQ(r.out.rfind(prefix, 0), 0u) << r.out;
  // "Release build)", or "Release, AddressSanitizer + UBSan build)" in build-asan/.
  EXPECT_NE(r.out.find(", Release"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" build)\n"), std::string::npos) << r.out;
  // In a git checkout the revision is HEAD's (the test binary is rebuilt with isrcheck).
  const Result head = isr::trace_test::run_shell(std::string("git -C '") + ISRCHECK_SOURCE_DIR +
                                                 "' rev-parse --short=12 HEAD");
  if (head.exit_code == 0 && head.out.size() >= 12) {
    EXPECT_EQ(r.out.substr(prefix.size(), 12), head.out.substr(0, 12)) << r.out;
  }
}

// Outside a git checkout (a tarball) the revision says so instead of failing the build.
TEST(Cli, VersionOutsideGitSaysUnknown) {
  const std::string dir = temp_path("_nogit");
  const std::string out = dir + "/revision.cc";
  const Result r = isr::trace_test::run_shell(
      "mkdir -p '" + dir + "' && cmake -DSOURCE_DIR='" + dir + "' -DOUTPUT='" + out +
      "' -DVERSION=0.1.0 -DBUILD_TYPE=Release -DSANITIZE=OFF -P '" + ISRCHECK_SOURCE_DIR +
      "/scripts/revision.cmake'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = slurp(out);
  EXPECT_NE(text.find("kRevision = \"unknown (not built from a git checkout)\""), std::string::npos) << text;
  EXPECT_NE(text.find("kBuildType = \"Release\""), std::string::npos) << text;
  std::remove(out.c_str());
  std::remove(dir.c_str());
}

TEST(Cli, DescribePrintsTheResolvedDefaultConfiguration) {
  const Result r = run("describe");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto printed = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(printed.is_discarded()) << "not JSON: " << r.out;
  EXPECT_EQ(printed, isr::spec::describe_json(isr::spec::default_config()));
}

// Issue 29 point 8: describe printed neither admin_unclean_election nor faults.max_pauses
// at their defaults, so a user could not see that the switches exist.
TEST(Cli, DescribePrintsEveryKeyAlsoAtItsDefault) {
  for (const char* model : {"partition", "cluster"}) {
    const Result r = run(std::string("describe --model ") + model);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto printed = nlohmann::json::parse(r.out);
    EXPECT_EQ(printed.at("admin_unclean_election"), false) << model;
    EXPECT_EQ(printed.at("expire_unsent_batches"), false) << model;
    EXPECT_EQ(printed.at("faults").at("max_pauses"), 0) << model;
  }
}

// describe's output is a configuration file its model accepts, for the cluster model too
// (which refused admin_unclean_election as an unknown key).
TEST(Cli, DescribeOutputIsAcceptedAsConfigForEveryModel) {
  for (const char* model : {"partition", "kraft", "cluster"}) {
    const Result first = run(std::string("describe --model ") + model);
    ASSERT_EQ(first.exit_code, 0) << first.err;
    const std::string path = temp_path(".json");
    {
      std::ofstream(path) << first.out;
    }
    const Result second = run(std::string("describe --model ") + model + " --config '" + path + "'");
    std::remove(path.c_str());
    ASSERT_EQ(second.exit_code, 0) << model << ": " << second.err;
    EXPECT_EQ(nlohmann::json::parse(second.out), nlohmann::json::parse(first.out)) << model;
  }
}

TEST(Cli, DescribeAppliesOverrides) {
  const Result r = run("describe --set faults.max_crashes=2 --set acks=1 --set protocol=kip-320");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto printed = nlohmann::json::parse(r.out);
  EXPECT_EQ(printed["faults"]["max_crashes"], 2);
  EXPECT_EQ(printed["acks"], "1");
  EXPECT_EQ(printed["protocol"], "kip-320");
  EXPECT_EQ(printed["fixes"]["maximal_isr"], false);
  EXPECT_EQ(printed["eligible_leader_replicas"], false);
}

TEST(Cli, DescribeReadsAConfigFileAndItsOwnOutput) {
  const std::string path = temp_path(".json");
  {
    std::ofstream(path) << R"({"brokers": 5, "replication_factor": 4})";
  }
  const Result first = run("describe --config '" + path + "' --set min_insync_replicas=3");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const auto printed = nlohmann::json::parse(first.out);
  EXPECT_EQ(printed["brokers"], 5);
  EXPECT_EQ(printed["replication_factor"], 4);
  EXPECT_EQ(printed["min_insync_replicas"], 3);
  {
    std::ofstream(path) << first.out;
  }
  const Result second = run("describe --config '" + path + "'");
  std::remove(path.c_str());
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(nlohmann::json::parse(second.out), printed);
}

TEST(Cli, ReplicationFactorAboveBrokersExitsWithTwo) {
  const Result r = run("describe --set replication_factor=5");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("replication_factor"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(Cli, BadExpireUnsentBatchesExitsWithTwoNamingTheValues) {
  const Result r = run("describe --set expire_unsent_batches=sometimes");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("expire_unsent_batches"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("true or false"), std::string::npos) << r.err;
}

TEST(Cli, UnknownKeyExitsWithTwoListingTheAllowedKeys) {
  const Result r = run("describe --set faults.max_crash=2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("faults.max_crash"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("max_crashes"), std::string::npos) << r.err;
}

TEST(Cli, MissingConfigFileExitsWithTwo) {
  const Result r = run("describe --config /nonexistent/isrcheck.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--config"), std::string::npos) << r.err;
}

TEST(Cli, UsageErrorsExitWithTwo) {
  EXPECT_EQ(run("").exit_code, 2);
  EXPECT_EQ(run("no-such-command").exit_code, 2);
  EXPECT_EQ(run("describe --no-such-flag").exit_code, 2);
  EXPECT_EQ(run("describe --set").exit_code, 2);
  const Result r = run("list bogus");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("properties"), std::string::npos) << r.err;
}

// Issue 29 point 8: CLI11's own messages (a value out of range) lacked the prefix every
// other bad input has.
TEST(Cli, ParseErrorsCarryTheErrorPrefix) {
  for (const char* args : {"check --threads 2000", "describe --no-such-flag", "no-such-command"}) {
    const Result r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(r.err.rfind("isrcheck: error: ", 0), 0u) << args << ": " << r.err;
  }
}

TEST(Cli, HelpExitsWithZero) {
  const Result r = run("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("describe"), std::string::npos) << r.out;
  const Result sub = run("describe --help");
  EXPECT_EQ(sub.exit_code, 0);
  EXPECT_NE(sub.out.find("--set"), std::string::npos) << sub.out;
}

TEST(Cli, ListProtocols) {
  const Result r = run("list protocols");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = lines(r.out);
  ASSERT_EQ(rows.size(), isr::spec::all_protocols().size());
  EXPECT_EQ(rows.front().rfind("hw-truncation ", 0), 0u) << rows.front();
  EXPECT_EQ(rows.back().rfind("kip-966 ", 0), 0u) << rows.back();
}

// `list actions` names the key that enables the unsent form of ProduceTimeout.
TEST(Cli, ListActionsNamesTheKeyOfTheUnsentProduceTimeout) {
  const Result r = run("list actions");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const std::string& row : lines(r.out)) {
    if (row.rfind("ProduceTimeout ", 0) != 0) continue;
    EXPECT_NE(row.find("expire_unsent_batches"), std::string::npos) << row;
    EXPECT_NE(row.find("RecordAccumulator.expiredBatches"), std::string::npos) << row;
    return;
  }
  ADD_FAILURE() << "no ProduceTimeout row in: " << r.out;
}

TEST(Cli, ListFixes) {
  const Result r = run("list fixes");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = lines(r.out);
  ASSERT_EQ(rows.size(), isr::spec::all_fixes().size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& fix = isr::spec::all_fixes()[i];
    EXPECT_EQ(rows[i].rfind(std::string(fix.name) + " ", 0), 0u) << rows[i];
    // The version column follows the name.
    const std::size_t after_name = rows[i].find_first_not_of(' ', fix.name.size());
    EXPECT_EQ(rows[i].compare(after_name, fix.kafka_version.size(), fix.kafka_version), 0) << rows[i];
  }
}

TEST(Cli, ListProperties) {
  const Result r = run("list properties");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = lines(r.out);
  const auto& catalog = isr::properties::catalog();
  ASSERT_EQ(rows.size(), catalog.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].rfind(std::string(catalog[i].name) + " ", 0), 0u) << rows[i];
    EXPECT_NE(rows[i].find(std::string(catalog[i].description)), std::string::npos);
  }
}

TEST(Cli, ListPropertiesOfTheKraftModel) {
  const Result r = run("list properties --model kraft");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = lines(r.out);
  const auto& catalog = isr::properties::kraft_catalog();
  ASSERT_EQ(rows.size(), catalog.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].rfind(std::string(catalog[i].name) + " ", 0), 0u) << rows[i];
  }
  EXPECT_NE(r.out.find("single-controller-per-epoch"), std::string::npos);
  const Result fixes = run("list fixes --model kraft");
  EXPECT_EQ(fixes.exit_code, 0) << fixes.err;
  EXPECT_NE(fixes.out.find("persist_vote"), std::string::npos) << fixes.out;
  const Result protocols = run("list protocols --model kraft");
  EXPECT_EQ(protocols.exit_code, 2);
  EXPECT_NE(protocols.err.find("no protocol generations"), std::string::npos) << protocols.err;
}

}  // namespace
