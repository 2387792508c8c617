// Partial-order reduction keeps every verdict the project ships: every corpus entry
// (both sides; a fix side marked slow too), every shipped claim, and the cells of a
// matrix sweep give the same verdict with --por on as their pinned expectations (which
// the corpus, claims and matrix tests check with it off), and each counterexample found
// with it on is a real one, no longer than the entry allows, of the same length as the
// stored shortest trace. Slow: 36 CPU seconds, 32 s of wall time on 2 cores at a load of 4
// (the claims dominate).
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/claims.h"
#include "analysis/corpus.h"
#include "analysis/matrix.h"
#include "io/files.h"

namespace {

using isr::analysis::EntryKind;

TEST(PorSlow, EveryCorpusEntryKeepsItsVerdict) {
  const auto manifest =
      isr::analysis::load_manifest(std::string(ISRCHECK_SOURCE_DIR) + "/counterexamples/corpus/manifest.json");
  ASSERT_GE(manifest.entries.size(), 19u);
  isr::analysis::RunOptions options;
  options.threads = 2;
  options.por = true;
  for (const auto& entry : manifest.entries) {
    const auto unsafe = isr::analysis::run_unsafe(entry, options);
    EXPECT_EQ(isr::analysis::unsafe_problem(entry, unsafe), "") << entry.name;
    if (entry.kind == EntryKind::Safety) {
      EXPECT_EQ(isr::analysis::replay_problem(entry, unsafe.trace), "") << entry.name;
      // The stored trace is the shortest one (regenerated with POR off): the Kafka
      // models' reductions are irrelevant edges only, which keep lengths.
      const auto stored = nlohmann::json::parse(
          isr::io::files::read_file(manifest.directory + "/" + isr::analysis::trace_file_name(entry)));
      // Its "steps" list the states, the initial one first: one more than the actions.
      EXPECT_EQ(static_cast<size_t>(unsafe.steps) + 1, stored.at("steps").size()) << entry.name;
    }
    const auto fix = isr::analysis::run_fix(entry, options);
    EXPECT_EQ(isr::analysis::fix_problem(entry, fix), "") << entry.name;
  }
}

TEST(PorSlow, EveryShippedClaimKeepsItsVerdict) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ISRCHECK_SOURCE_DIR) + "/claims")) {
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 10u);
  isr::analysis::ProveOptions options;
  options.threads = 2;
  options.por = true;
  for (const auto& file : files) {
    const auto outcome = isr::analysis::prove_claim(isr::analysis::read_claim_file(file), options);
    for (const auto& check : outcome.checks)
      EXPECT_EQ(check.found, check.expected) << outcome.claim << ": " << check.check;
  }
}

TEST(PorSlow, MatrixCellsKeepTheirVerdicts) {
  // RF 1 to 3, every min ISR, acks all and 1, clean, ELR on, combined, 0 to 2 failures,
  // kill -9 or power loss: the cells where power losses (and so irrelevant flushes)
  // exist. Same durability and availability with POR on and off, cell by cell, where
  // both searches completed.
  isr::analysis::MatrixDimensions d;
  d.replication_factors = {1, 2, 3};
  d.acks = {isr::spec::Acks::All, isr::spec::Acks::One};
  d.unclean = {false};
  d.elr = {true};
  d.placements = {isr::spec::Placement::Combined};
  d.failures = {0, 1, 2};
  d.lossy = {false, true};
  const auto cells = isr::analysis::expand_matrix(d);
  ASSERT_GE(cells.size(), 20u);
  isr::analysis::MatrixOptions options;
  options.jobs = 2;
  options.max_states = 300'000;
  const auto full = isr::analysis::run_matrix(cells, options);
  options.por = true;
  const auto reduced = isr::analysis::run_matrix(cells, options);
  ASSERT_EQ(full.cells.size(), reduced.cells.size());
  size_t compared = 0;
  for (size_t i = 0; i < full.cells.size(); ++i) {
    const auto& f = full.cells[i];
    const auto& r = reduced.cells[i];
    const std::string id = f.cell.id();
    EXPECT_LE(r.durability_states, std::max<uint64_t>(f.durability_states, options.max_states)) << id;
    if (f.durability != isr::analysis::Durability::Incomplete && r.durability != isr::analysis::Durability::Incomplete) {
      EXPECT_EQ(isr::analysis::durability_name(f.durability), isr::analysis::durability_name(r.durability)) << id;
      EXPECT_EQ(f.trace_steps, r.trace_steps) << id;
      ++compared;
    }
    EXPECT_EQ(f.availability, r.availability) << id;
  }
  EXPECT_GE(compared, cells.size() / 2) << "too few cells completed to compare";
}

}  // namespace
