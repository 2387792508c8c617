// The counterexample corpus as a regression suite (analysis/corpus.h, docs/corpus.md):
// every stored trace replays, every unsafe configuration is still violated with the very
// same trace, a tampered or stale trace is caught, manifest errors name the field, and
// `isrcheck corpus` regenerates byte for byte. The fix side of every pair (exhaustive
// checks that hold, so they explore everything) is in corpus_slow_test.cc.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/corpus.h"
#include "analysis/corpus_models.h"
#include "counterexamples/trace/replay.h"
#include "spec/kraft/kraft_config.h"
#include "spec/partition/config.h"
#include "tests/trace_test_support.h"

namespace isr::analysis {
namespace {

using nlohmann::json;
using trace_test::run_isrcheck;
using trace_test::slurp;

const std::string kCorpusDir = std::string(ISRCHECK_SOURCE_DIR) + "/counterexamples/corpus";
const std::string kManifest = kCorpusDir + "/manifest.json";

const Manifest& corpus() {
  static const Manifest manifest = load_manifest(kManifest);
  return manifest;
}

json stored_trace(const CorpusEntry& entry) {
  return json::parse(slurp(kCorpusDir + "/" + trace_file_name(entry)));
}

const CorpusEntry& first_safety_entry() {
  for (const CorpusEntry& entry : corpus().entries) {
    if (entry.kind == EntryKind::Safety && entry.max_steps >= 3) return entry;
  }
  throw std::logic_error("the corpus has no safety entry of 3 steps or more");
}

// --- the corpus itself ------------------------------------------------------------------

// Issue 24 item 5: every toggle of `list fixes` has a corpus pair whose two sides differ in
// that toggle (the hazard with the fix off, holding with it on), or is one of those
// docs/model.md gives a reason for ("Every toggle and its corpus pair"); either way the
// toggle has its row in that table. A new toggle fails here until it has one of the two.
TEST(Corpus, EveryFixToggleHasAPairOrADocumentedReason) {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"leader_epoch_truncation", "hw-truncation-leader-change"},
      {"largest_epoch_lookup", "kip-101-divergent-epochs"},
      {"fetch_epoch_fencing", "kip-279-stale-follower-hw"},
      {"reelected_leader_keeps_followers", "reelected-leader-stale-follower"},
      {"maximal_isr", "maximal-isr-off-shrink-before-commit"},
      {"alter_partition_broker_epochs", "stale-broker-epoch-isr-join"},
      {"hw_frozen_below_min_isr", "hw-advances-below-min-isr"},
      {"unclean_restart_leaves_elr", "unclean-restart-stays-in-elr"},
      {"isr_join_unfenced_only", "isr-join-fenced-replica"},
      {"bounced_broker_epochs", "kip-320-unnoticed-bounce"},
      {"reconcile_on_epoch_gap", "missed-epoch-divergence"},
  };
  const std::vector<std::string> documented = {
      "reconcile_on_every_epoch", "leader_epoch_cached_on_election", "isr_join_epoch_start",
      "last_known_elr",
      "last_known_leader_unfenced", "isr_shrink_keeps_leader_epoch", "directory_assignment",
      "controller_epoch_zk_version"};
  const std::string table = slurp(std::string(ISRCHECK_SOURCE_DIR) + "/docs/model.md");
  for (const auto& fix : spec::all_fixes()) {
    const std::string name(fix.name);
    EXPECT_NE(table.find("| `" + name + "` | "), std::string::npos) << name << ": no row in docs/model.md";
    const auto pair = std::find_if(pairs.begin(), pairs.end(), [&](const auto& p) { return p.first == name; });
    if (pair == pairs.end()) {
      EXPECT_NE(std::find(documented.begin(), documented.end(), name), documented.end())
          << name << ": neither a corpus pair nor a documented reason";
      continue;
    }
    const auto entry = std::find_if(corpus().entries.begin(), corpus().entries.end(),
                                    [&](const CorpusEntry& e) { return e.name == pair->second; });
    ASSERT_NE(entry, corpus().entries.end()) << pair->second;
    EXPECT_NE(entry->unsafe_config.at("fixes").at(name), entry->fixed_config.at("fixes").at(name))
        << pair->second << " does not switch " << name;
  }
}

TEST(Corpus, TheManifestCoversEveryGenerationStepAndTheConfigurationHazards) {
  std::vector<std::string> names;
  for (const CorpusEntry& entry : corpus().entries) names.push_back(entry.name);
  for (const char* required : {"kraft-vote-not-persisted", "kraft-hw-older-epoch", "kraft-disk-loss-same-voter",
                               "kraft-two-voter-changes",
                               "cluster-uncommitted-metadata",
                               "acks-1-leader-loss", "acks-0-no-broker-ack", "min-isr-1-single-copy",
                               "unclean-leader-election", "no-fsync-power-loss", "hw-truncation-leader-change",
                               "kip-101-divergent-epochs", "kip-279-stale-follower-hw",
                               "kip-320-unnoticed-bounce",
                               "maximal-isr-off-shrink-before-commit", "kip-497-stale-incarnation",
                               "kip-903-last-replica-disk-loss", "retry-duplicates-without-idempotence",
                               "acks-1-lost-response-duplicates", "missed-epoch-divergence", "reassignment-below-min-isr",
                               "isr-join-fenced-replica", "stale-broker-epoch-isr-join",
                               "hw-advances-below-min-isr", "unclean-restart-stays-in-elr"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), required), names.end()) << required;
  }
  // Each generation step: the unsafe side runs the older generation, the fix the next.
  const std::vector<std::string> generations = {"hw-truncation", "kip-101", "kip-279", "kip-320",
                                                "kip-497",       "kip-903", "kip-966"};
  for (size_t i = 0; i + 1 < generations.size(); ++i) {
    bool found = false;
    for (const CorpusEntry& entry : corpus().entries) {
      if (entry.model == "partition" && entry.unsafe_config.at("protocol") == generations[i] &&
          entry.fixed_config.at("protocol") == generations[i + 1]) {
        found = true;
      }
    }
    EXPECT_TRUE(found) << "no entry for " << generations[i] << " -> " << generations[i + 1];
  }
}

// Every KRaft toggle is a hazard (docs/kraft.md): each has an entry whose unsafe side has
// that one fix off, every other on, and whose fix turns it back on.
TEST(Corpus, EveryKraftToggleHasAnEntryThatSwitchesItBackOn) {
  for (const spec::kraft::KraftFixInfo& fix : spec::kraft::all_fixes()) {
    const std::string toggle(fix.name);
    int found = 0;
    for (const CorpusEntry& entry : corpus().entries) {
      if (entry.model != "kraft") continue;
      const json& unsafe = entry.unsafe_config.at("fixes");
      const json& fixed = entry.fixed_config.at("fixes");
      bool others_on = true;
      for (const auto& [name, on] : unsafe.items()) others_on = others_on && (name == toggle || on == true);
      if (unsafe.at(toggle) == false && fixed.at(toggle) == true && others_on) {
        ++found;
        json rest = entry.fixed_config;
        rest["fixes"][toggle] = false;
        EXPECT_EQ(rest, entry.unsafe_config) << entry.name << ": the fix changes more than fixes." << toggle;
      }
    }
    EXPECT_EQ(found, 1) << "entries for fixes." << toggle;
  }
}

TEST(Corpus, EveryStoredTraceReplays) {
  for (const CorpusEntry& entry : corpus().entries) {
    SCOPED_TRACE(entry.name);
    const json trace = stored_trace(entry);
    EXPECT_EQ(replay_problem(entry, trace), "");
    EXPECT_LE(static_cast<int>(trace.at("steps").size()) - 1, entry.max_steps);
    if (entry.kind != EntryKind::Safety) continue;
    // Directly through the model the trace names, rebuilt from the trace's own config.
    const CorpusModel* model = find_corpus_model(trace.at("model").get<std::string>());
    ASSERT_NE(model, nullptr);
    const counterexamples::ReplayResult replayed =
        model->replay(trace.at("config"), trace, counterexamples::ReplayEnd::PropertyViolated);
    EXPECT_TRUE(replayed.reproduced) << replayed.summary();
    EXPECT_EQ(replayed.property, entry.property);
  }
}

TEST(Corpus, EveryUnsafeConfigurationIsViolatedWithTheStoredTrace) {
  for (const CorpusEntry& entry : corpus().entries) {
    SCOPED_TRACE(entry.name);
    const SideResult unsafe = run_unsafe(entry);
    EXPECT_EQ(unsafe_problem(entry, unsafe), "");
    EXPECT_EQ(unsafe.verdict, entry.expected);
    EXPECT_LE(unsafe.steps, entry.max_steps);
    // BFS is deterministic: the corpus is up to date exactly when the bytes are equal.
    EXPECT_EQ(trace_file_text(unsafe.trace), slurp(kCorpusDir + "/" + trace_file_name(entry)))
        << "run: isrcheck corpus regenerate";
  }
}

// --- tampering is caught ------------------------------------------------------------------

TEST(Corpus, ATamperedStateDoesNotReplay) {
  const CorpusEntry& entry = first_safety_entry();
  json trace = stored_trace(entry);
  json& state = trace["steps"][1]["state"];
  state["faults"]["crashes"] = state["faults"]["crashes"].get<int>() + 1;
  const std::string problem = replay_problem(entry, trace);
  EXPECT_NE(problem, "");
  EXPECT_NE(problem.find("diverged at step 1"), std::string::npos) << problem;
}

TEST(Corpus, AnActionThatIsNotEnabledDoesNotReplay) {
  const CorpusEntry& entry = first_safety_entry();
  json trace = stored_trace(entry);
  trace["steps"][1]["action"] = {{"kind", "Restart"}, {"node", 0}};
  const std::string problem = replay_problem(entry, trace);
  EXPECT_NE(problem.find("is not enabled"), std::string::npos) << problem;
}

TEST(Corpus, ATraceCutBeforeTheViolationDoesNotReplay) {
  const CorpusEntry& entry = first_safety_entry();
  json trace = stored_trace(entry);
  trace["steps"].erase(trace["steps"].size() - 1);
  const std::string problem = replay_problem(entry, trace);
  EXPECT_NE(problem.find("holds in the final state"), std::string::npos) << problem;
}

TEST(Corpus, ATraceOfAnotherConfigurationIsRejected) {
  const CorpusEntry& entry = first_safety_entry();
  json trace = stored_trace(entry);
  trace["config"]["bounds"]["max_retries"] = 1;
  EXPECT_NE(replay_problem(entry, trace).find("not the entry's"), std::string::npos);
}

TEST(Corpus, VerifyReportsAStaleAndAMissingTrace) {
  const CorpusEntry& entry = first_safety_entry();
  const std::string dir = trace_test::temp_path("_corpus");
  std::filesystem::create_directories(dir);
  EntryVerification missing = verify_entry(entry, dir, {}, /*check_fix=*/false);
  ASSERT_EQ(missing.problems.size(), 1u);
  EXPECT_NE(missing.problems[0].find("missing trace"), std::string::npos);

  // Same steps, different bytes (an extra field): it replays but is not what regenerate
  // writes, so verify asks for a regeneration.
  json trace = stored_trace(entry);
  trace["note"] = "edited by hand";
  std::ofstream(dir + "/" + trace_file_name(entry)) << trace_file_text(trace);
  EntryVerification stale = verify_entry(entry, dir, {}, /*check_fix=*/false);
  ASSERT_EQ(stale.problems.size(), 1u);
  EXPECT_NE(stale.problems[0].find("differs from the one found now"), std::string::npos);

  std::ofstream(dir + "/" + trace_file_name(entry)) << slurp(kCorpusDir + "/" + trace_file_name(entry));
  EXPECT_TRUE(verify_entry(entry, dir, {}, /*check_fix=*/false).ok());
  std::filesystem::remove_all(dir);
}

TEST(Corpus, AnExpectationTheModelDoesNotMeetIsReported) {
  CorpusEntry entry = first_safety_entry();
  entry.max_steps = 1;
  const SideResult unsafe = run_unsafe(entry);
  EXPECT_NE(unsafe_problem(entry, unsafe).find("more than max_steps 1"), std::string::npos);
  SideResult holds = unsafe;
  holds.verdict = "violated";
  EXPECT_NE(fix_problem(entry, holds), "");
}

// --- manifest validation -------------------------------------------------------------------

json valid_manifest() {
  return json::parse(R"({
    "format": "isrcheck-corpus", "version": 1,
    "entries": [{
      "name": "acks-1", "model": "partition", "kind": "safety",
      "config": {"acks": "1", "faults": {"max_lossy_crashes": 0}},
      "property": "no-acked-loss", "expected": "violated", "max_steps": 5,
      "fix": {"config": {"acks": "all"}, "expected": "holds"},
      "why": "acks=1 acknowledges before replication."
    }]})");
}

std::string error_field(const json& document) {
  try {
    parse_manifest(document);
  } catch (const CorpusError& e) {
    return e.field;
  }
  return "(no error)";
}

TEST(CorpusManifest, AValidManifestResolvesBothConfigurations) {
  const Manifest m = parse_manifest(valid_manifest());
  ASSERT_EQ(m.entries.size(), 1u);
  EXPECT_EQ(m.entries[0].unsafe_config.at("acks"), "1");
  EXPECT_EQ(m.entries[0].fixed_config.at("acks"), "all");
  EXPECT_EQ(m.entries[0].fixed_config.at("faults").at("max_lossy_crashes"), 0) << "the fix is merged into the config";
  EXPECT_EQ(m.entries[0].unsafe_config.at("properties"), json::array({"no-acked-loss"}));
  EXPECT_EQ(m.entries[0].fixed_config.at("properties"), json::array({"no-acked-loss"}));
}

json valid_kraft_manifest() {
  return json::parse(R"({
    "format": "isrcheck-corpus", "version": 1,
    "entries": [{
      "name": "vote", "model": "kraft",
      "config": {"fixes": {"persist_vote": false}, "bounds": {"max_epoch": 2}},
      "property": "single-controller-per-epoch", "expected": "violated", "max_steps": 6,
      "fix": {"config": {"fixes": {"persist_vote": true}}, "expected": "holds"},
      "why": "An unpersisted vote is granted twice."
    }]})");
}

TEST(CorpusManifest, AKraftEntryIsResolvedByTheKraftModel) {
  const Manifest m = parse_manifest(valid_kraft_manifest());
  ASSERT_EQ(m.entries.size(), 1u);
  EXPECT_EQ(m.entries[0].unsafe_config.at("fixes").at("persist_vote"), false);
  EXPECT_EQ(m.entries[0].fixed_config.at("fixes").at("persist_vote"), true);
  EXPECT_EQ(m.entries[0].fixed_config.at("bounds").at("max_epoch"), 2);
  EXPECT_EQ(m.entries[0].unsafe_config.at("properties"), json::array({"single-controller-per-epoch"}));
  EXPECT_EQ(m.entries[0].unsafe_config.at("voters"), 3) << "defaults of the KRaft model";

  auto with = [](auto edit) {
    json doc = valid_kraft_manifest();
    edit(doc);
    return error_field(doc);
  };
  EXPECT_EQ(with([](json& d) { d["entries"][0]["config"]["acks"] = "1"; }), "entries[0].config.acks");
  EXPECT_EQ(with([](json& d) { d["entries"][0]["config"]["voters"] = 4; }), "entries[0].config.voters");
  EXPECT_EQ(with([](json& d) { d["entries"][0]["fix"]["config"] = {{"fixes", {{"persist_votes", true}}}}; }),
            "entries[0].fix.config.fixes.persist_votes");
  EXPECT_EQ(with([](json& d) { d["entries"][0]["property"] = "no-acked-loss"; }), "entries[0].property");
  EXPECT_EQ(with([](json& d) {
              d["entries"][0]["kind"] = "availability";
              d["entries"][0].erase("property");
              d["entries"][0]["failures"] = 1;
            }),
            "entries[0].kind");
}

TEST(CorpusManifest, ErrorsNameTheField) {
  auto with = [](auto edit) {
    json m = valid_manifest();
    edit(m);
    return error_field(m);
  };
  EXPECT_EQ(with([](json& m) { m["format"] = "other"; }), "format");
  EXPECT_EQ(with([](json& m) { m["entries"] = json::array(); }), "entries");
  EXPECT_EQ(with([](json& m) { m["entries"][0].erase("name"); }), "entries[0].name");
  EXPECT_EQ(with([](json& m) { m["entries"][0]["name"] = "Acks One"; }), "entries[0].name");
  EXPECT_EQ(with([](json& m) { m["entries"][0]["colour"] = "red"; }), "entries[0].colour");
  EXPECT_EQ(with([](json& m) { m["entries"][0]["model"] = "zookeeper"; }), "entries[0].model");
  // A known model judges the configuration by its own keys.
  EXPECT_EQ(with([](json& m) { m["entries"][0]["model"] = "kraft"; }), "entries[0].config.acks");
  EXPECT_EQ(with([](json& m) { m["entries"][0]["kind"] = "liveness"; }), "entries[0].kind");
  EXPECT_EQ(with([](json& m) { m["entries"][0]["config"]["acks"] = "2"; }), "entries[0].config.acks");
  EXPECT_EQ(with([](json& m) { m["entries"][0]["config"]["faults"]["max_crashs"] = 1; }),
            "entries[0].config.faults.max_crashs");
  EXPECT_EQ(with([](json& m) { m["entries"][0]["fix"]["config"] = {{"flush", "sometimes"}}; }),
            "entries[0].fix.config.flush");
  EXPECT_EQ(with([](json& m) { m["entries"][0]["fix"]["config"] = {{"acks", "1"}}; }), "entries[0].fix.config");
  EXPECT_EQ(with([](json& m) { m["entries"][0]["fix"]["expected"] = "violated"; }), "entries[0].fix.expected");
  EXPECT_EQ(with([](json& m) { m["entries"][0]["property"] = "no-such-property"; }), "entries[0].property");
  EXPECT_EQ(with([](json& m) { m["entries"][0]["config"]["properties"] = {"log-matching"}; }),
            "entries[0].config.properties");
  EXPECT_EQ(with([](json& m) { m["entries"][0]["expected"] = "holds"; }), "entries[0].expected");
  EXPECT_EQ(with([](json& m) { m["entries"][0]["max_steps"] = 0; }), "entries[0].max_steps");
  EXPECT_EQ(with([](json& m) { m["entries"][0]["failures"] = 2; }), "entries[0].failures");
  EXPECT_EQ(with([](json& m) { m["entries"].push_back(m["entries"][0]); }), "entries[1].name");
  EXPECT_EQ(with([](json& m) {
              m["entries"][0]["kind"] = "availability";
              m["entries"][0].erase("property");
              m["entries"][0]["expected"] = "no-controller-quorum";
              m["entries"][0]["fix"]["expected"] = "not-enough-replicas";
            }),
            "entries[0].failures");
  EXPECT_EQ(with([](json& m) {
              m["entries"][0]["kind"] = "availability";
              m["entries"][0].erase("property");
              m["entries"][0]["failures"] = 2;
              m["entries"][0]["expected"] = "down";
            }),
            "entries[0].expected");
}

// --- the command line ---------------------------------------------------------------------

TEST(CorpusCli, RegenerateRewritesTheSameBytes) {
  const CorpusEntry& entry = first_safety_entry();
  const std::string dir = trace_test::temp_path("_regen");
  const auto r = run_isrcheck("corpus regenerate --manifest '" + kManifest + "' --only " + entry.name +
                              " --threads 2 --out '" + dir + "'");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("written"), std::string::npos) << r.out;
  EXPECT_EQ(slurp(dir + "/" + trace_file_name(entry)), slurp(kCorpusDir + "/" + trace_file_name(entry)));
  const auto again = run_isrcheck("corpus regenerate --manifest '" + kManifest + "' --only " + entry.name +
                                  " --threads 1 --out '" + dir + "'");
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_NE(again.out.find("unchanged"), std::string::npos) << again.out;
  std::filesystem::remove_all(dir);
}

TEST(CorpusCli, VerifyPrintsATableAndFailsOnAMismatch) {
  const CorpusEntry& entry = first_safety_entry();
  const auto ok = run_isrcheck("corpus verify --manifest '" + kManifest + "' --only " + entry.name);
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find(entry.name), std::string::npos);
  EXPECT_NE(ok.out.find("corpus verified: 1 of 1"), std::string::npos) << ok.out;

  const std::string dir = trace_test::temp_path("_empty");
  std::filesystem::create_directories(dir);
  const auto missing = run_isrcheck("corpus verify --manifest '" + kManifest + "' --only " + entry.name +
                                    " --traces '" + dir + "'");
  EXPECT_EQ(missing.exit_code, 1) << missing.out;
  EXPECT_NE(missing.out.find("MISMATCH"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// The traces of other models go through the same commands as any trace: `replay` rebuilds
// the model the trace names, `render` shows it in that model's terms.
TEST(CorpusCli, KraftTracesReplayAndRenderThroughTheCommandLine) {
  int kraft_entries = 0;
  for (const CorpusEntry& entry : corpus().entries) {
    if (entry.model != "kraft") continue;
    ++kraft_entries;
    const std::string file = "'" + kCorpusDir + "/" + trace_file_name(entry) + "'";
    const auto replayed = run_isrcheck("replay " + file);
    EXPECT_EQ(replayed.exit_code, 0) << entry.name << replayed.out << replayed.err;
    EXPECT_NE(replayed.out.find("reproduced: " + std::to_string(entry.max_steps) + " steps, property " +
                                entry.property),
              std::string::npos)
        << replayed.out;
    const auto rendered = run_isrcheck("render " + file);
    EXPECT_EQ(rendered.exit_code, 0) << rendered.err;
    EXPECT_NE(rendered.out.find("log (epoch:writer, | = HW)"), std::string::npos) << rendered.out;
  }
  EXPECT_EQ(kraft_entries, 4);
}

TEST(CorpusCli, BadInputExitsTwoNamingTheField) {
  const auto unknown = run_isrcheck("corpus verify --manifest '" + kManifest + "' --only no-such-entry");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("--only"), std::string::npos) << unknown.err;

  json bad = valid_manifest();
  bad["entries"][0]["config"]["acks"] = "2";
  const std::string path = trace_test::write_temp(bad.dump());
  const auto r = run_isrcheck("corpus regenerate --manifest '" + path + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("entries[0].config.acks"), std::string::npos) << r.err;
  std::remove(path.c_str());

  const auto absent = run_isrcheck("corpus verify --manifest /nonexistent/manifest.json");
  EXPECT_EQ(absent.exit_code, 2);
  EXPECT_NE(absent.err.find("--manifest"), std::string::npos) << absent.err;
}

}  // namespace
}  // namespace isr::analysis
