// The unclean-election study (analysis/research.h, issue 26 point 4): the grid and its
// --cells filter, the per-cell figures (the check's verdicts and classes, the walks'
// shares with Wilson intervals) independent of the thread count, budgets that leave a
// cell incomplete rather than guessed, an interrupt, the JSON and the HTML page.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/research.h"

namespace {

using isr::analysis::MatrixCell;
using isr::analysis::ResearchOptions;
using isr::analysis::ResearchResult;
using nlohmann::json;

const std::string kUncleanNoElr = "rf2-isr1-acks1-unclean-noelr-*";

std::vector<MatrixCell> grid() { return isr::analysis::expand_matrix(isr::analysis::research_default_dimensions()); }

ResearchOptions small_options(int threads) {
  ResearchOptions o;
  o.threads = threads;
  o.walks = 400;
  o.depth = 80;
  o.seed = 9;
  o.rates = {{"Crash", 0.02}};
  return o;
}

TEST(ResearchGrid, CoversTheIssuesDimensionsOnce) {
  const std::vector<MatrixCell> cells = grid();
  // RF 2: min ISR 1-2, RF 3: 1-3; times acks 2, unclean 2, ELR 2, kill or power 2.
  EXPECT_EQ(cells.size(), (2u + 3u) * 2 * 2 * 2 * 2);
  std::set<std::string> ids;
  for (const MatrixCell& c : cells) {
    EXPECT_TRUE(ids.insert(c.id()).second) << c.id();
    EXPECT_LE(c.min_isr, c.replication_factor);
    EXPECT_EQ(c.failures, 1);
  }
}

TEST(ResearchGrid, CellsFilterByGlobAndNamesAPatternThatMatchesNothing) {
  EXPECT_TRUE(isr::analysis::glob_match("rf2-*-lossy", "rf2-isr1-acks1-clean-elr-combined-f1-lossy"));
  EXPECT_FALSE(isr::analysis::glob_match("rf2-*-lossy", "rf2-isr1-acks1-clean-elr-combined-f1"));
  EXPECT_TRUE(isr::analysis::glob_match("*", ""));
  const auto selected = isr::analysis::select_research_cells(grid(), {kUncleanNoElr});
  ASSERT_EQ(selected.size(), 2u);
  EXPECT_FALSE(selected[0].lossy);
  EXPECT_TRUE(selected[1].lossy);
  // Two patterns: the union, in grid order, each cell once.
  EXPECT_EQ(isr::analysis::select_research_cells(grid(), {"rf3-*", "rf3-isr3-*"}).size(), 48u);
  try {
    isr::analysis::select_research_cells(grid(), {"rf4-*"});
    FAIL() << "a pattern matching no cell was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("rf4-*"), std::string::npos) << e.what();
  }
}

TEST(ResearchRun, UncleanElectionIsAClassOfItsOwnAndFiguresDoNotDependOnThreads) {
  const auto cells = isr::analysis::select_research_cells(grid(), {kUncleanNoElr});
  const ResearchResult one = isr::analysis::run_research(cells, small_options(1));
  const ResearchResult two = isr::analysis::run_research(cells, small_options(2));
  json a = isr::analysis::research_to_json(one);
  json b = isr::analysis::research_to_json(two);
  for (json* j : {&a, &b}) {
    j->erase("seconds");
    j->at("options").erase("threads");
    for (auto& c : j->at("cells")) {
      c.erase("check_seconds");
      c.erase("walk_seconds");
    }
  }
  EXPECT_EQ(a, b);
  EXPECT_FALSE(one.interrupted);
  EXPECT_EQ(one.cells_done, 2u);
  const auto& kill = one.cells[0];
  EXPECT_EQ(kill.verdict, "violated");
  bool unclean_class = false;
  for (const auto& k : kill.classes) {
    if (k.property == "no-acked-loss" && k.signature.find("Elect-unclean") != std::string::npos) {
      unclean_class = true;
      EXPECT_NE(k.explanation.find("unclean election"), std::string::npos) << k.explanation;
      EXPECT_GE(k.lost_first, 1u);
    }
  }
  EXPECT_TRUE(unclean_class);
  for (const auto& cell : one.cells) {
    ASSERT_EQ(cell.rates.size(), 2u);
    for (const auto& r : cell.rates) {
      EXPECT_EQ(r.of, 400u);
      EXPECT_LE(r.low, r.share());
      EXPECT_GE(r.high, r.share());
    }
  }
  // Another seed, other walks: the seed is what fixes the rates.
  ResearchOptions other = small_options(1);
  other.seed = 10;
  const ResearchResult c = isr::analysis::run_research(cells, other);
  EXPECT_NE(isr::analysis::research_to_json(c)["cells"][1]["rates"], a["cells"][1]["rates"]);
}

TEST(ResearchRun, ACellRunAloneGivesTheFiguresItHasInTheGrid) {
  // docs/research.md tells readers to re-run one cell with --cells: its figures must not
  // depend on which cells ran before it.
  const auto both = isr::analysis::select_research_cells(grid(), {kUncleanNoElr});
  const auto alone = isr::analysis::select_research_cells(grid(), {"rf2-isr1-acks1-unclean-noelr-combined-f1-lossy"});
  json in_grid = isr::analysis::research_to_json(isr::analysis::run_research(both, small_options(1)))["cells"][1];
  json by_itself = isr::analysis::research_to_json(isr::analysis::run_research(alone, small_options(1)))["cells"][0];
  for (json* j : {&in_grid, &by_itself}) {
    j->erase("check_seconds");
    j->erase("walk_seconds");
  }
  EXPECT_EQ(in_grid, by_itself);
}

TEST(ResearchRun, CleanElectionWithElrHoldsWithAcksAll) {
  // RF 3, min ISR 2, acks=all, unclean off, ELR on, one kill: Kafka 4.4's default holds.
  const auto cells = isr::analysis::select_research_cells(grid(), {"rf3-isr2-acksall-clean-elr-combined-f1"});
  ASSERT_EQ(cells.size(), 1u);
  ResearchOptions o = small_options(2);
  o.walks = 200;
  const ResearchResult r = isr::analysis::run_research(cells, o);
  EXPECT_EQ(r.cells[0].verdict, "holds");
  EXPECT_TRUE(r.cells[0].classes.empty());
  for (const auto& rate : r.cells[0].rates) EXPECT_EQ(rate.walks, 0u) << rate.property;
}

TEST(ResearchRun, AStateBudgetLeavesTheCellIncompleteNotGuessed) {
  const auto cells = isr::analysis::select_research_cells(grid(), {"rf3-isr2-acksall-clean-elr-combined-f1"});
  ResearchOptions o = small_options(1);
  o.max_states = 50;
  o.walks = 0;
  const ResearchResult r = isr::analysis::run_research(cells, o);
  EXPECT_EQ(r.cells[0].verdict, "incomplete");
  EXPECT_EQ(r.cells[0].stop_reason, "max-states");
  for (const auto& v : r.cells[0].verdicts) EXPECT_EQ(v.verdict, "incomplete") << v.property;
  EXPECT_FALSE(r.cells[0].walked);
  EXPECT_FALSE(r.interrupted);  // a budget is not an interruption
}

TEST(ResearchRun, AnInterruptLeavesTheRemainingCellsUnchecked) {
  const auto cells = isr::analysis::select_research_cells(grid(), {kUncleanNoElr});
  std::atomic<bool> stop{true};
  ResearchOptions o = small_options(1);
  o.interrupt = &stop;
  const ResearchResult r = isr::analysis::run_research(cells, o);
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.cells_done, 0u);
  for (const auto& c : r.cells) EXPECT_FALSE(c.checked);
  EXPECT_EQ(isr::analysis::research_to_json(r).at("verdict"), "incomplete");
}

TEST(ResearchReport, HtmlEmbedsThePlotsAndRefusesALibraryThatWouldEndItsScript) {
  const auto cells = isr::analysis::select_research_cells(grid(), {kUncleanNoElr});
  const ResearchResult r = isr::analysis::run_research(cells, small_options(1));
  const std::string html = isr::analysis::render_research_html(r, "var vega = {};");
  EXPECT_NE(html.find("<script>var vega = {};</script>"), std::string::npos);
  EXPECT_NE(html.find("id=\"plot-no-acked-loss\""), std::string::npos);
  EXPECT_NE(html.find("\"name\":\"interval\""), std::string::npos);
  EXPECT_NE(html.find("<tr data-cell=\"rf2-isr1-acks1-unclean-noelr-combined-f1-lossy\">"), std::string::npos);
  EXPECT_THROW(isr::analysis::render_research_html(r, "x = '</script>';"), std::invalid_argument);
  EXPECT_THROW(isr::analysis::render_research_html(r, ""), std::invalid_argument);
}

}  // namespace
