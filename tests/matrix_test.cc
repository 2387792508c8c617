// The configuration matrix (analysis/matrix.h, `isrcheck matrix`): the field facts of
// MODEL.md section 5 as matrix cells, the sweep's expansion, the cache, the HTML report
// and the command line's errors. Every cell here is small (at most ~50 thousand states).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/matrix.h"
#include "tests/trace_test_support.h"

namespace {

using isr::analysis::CellResult;
using isr::analysis::Durability;
using isr::analysis::MatrixCell;
using isr::analysis::MatrixOptions;
using isr::analysis::MatrixResult;
using isr::spec::Acks;
using isr::spec::Placement;

MatrixCell cell(int rf, int min_isr, Acks acks, bool elr, int failures, bool lossy,
                Placement placement = Placement::Combined) {
  MatrixCell c;
  c.replication_factor = rf;
  c.min_isr = min_isr;
  c.acks = acks;
  c.unclean = false;
  c.elr = elr;
  c.placement = placement;
  c.failures = failures;
  c.lossy = lossy;
  return c;
}

MatrixResult run(const std::vector<MatrixCell>& cells, bool availability = true) {
  MatrixOptions options;
  options.jobs = 2;
  options.availability = availability;
  options.max_states = 200'000;
  return isr::analysis::run_matrix(cells, options);
}

bool has_action(const nlohmann::json& trace, const std::string& prefix) {
  for (const auto& step : trace.at("steps")) {
    if (step.at("action_name").is_string() && step.at("action_name").get<std::string>().starts_with(prefix)) {
      return true;
    }
  }
  return false;
}

std::string temp_dir() {
  const std::string dir = isr::trace_test::temp_path("_cache");
  std::filesystem::remove_all(dir);
  return dir;
}

// MODEL.md section 5, durability. Kafka does not fsync on ack: a "lossy" failure (power
// loss) drops a replica's unflushed suffix, a kill -9 keeps the page cache.
TEST(Matrix, DurabilityFactsOfTheField) {
  const std::vector<MatrixCell> cells = {
      // 0: min ISR 1 on one replica: a single lossy failure loses the acked write.
      cell(1, 1, Acks::All, /*elr=*/false, 1, true),
      // 1: RF 3, min ISR 1: the ISR may shrink to the leader (followers lag; no fault
      //    needed), acks=all then equals acks=1 and the leader's loss loses the write.
      cell(3, 1, Acks::All, false, 1, true),
      // 2: RF 2, min ISR 2 survives one failure: a kill keeps both copies ...
      cell(2, 2, Acks::All, false, 1, false),
      // 3: ... and with KIP-966 ELR even a lossy one: the replica that lost its suffix
      //    leaves the ELR on its unclean restart instead of being elected.
      cell(2, 2, Acks::All, true, 1, true),
      // 4: without ELR the lossy failure of the last ISR member loses it: the ISR shrank
      //    to that member after the ack, and it is elected again after its restart.
      cell(2, 2, Acks::All, false, 1, true),
      // 5: acks=1 acks before any follower has the record: the leader's failure loses it
      //    even when the failure keeps the leader's log (a follower is elected).
      cell(3, 2, Acks::One, true, 1, false),
      // 6: no failure, no loss, whatever the settings.
      cell(3, 1, Acks::One, false, 0, false),
  };
  const MatrixResult r = run(cells, /*availability=*/false);
  ASSERT_EQ(r.cells.size(), cells.size());
  const Durability expected[] = {Durability::AckedLoss,   Durability::AckedLoss, Durability::NoAckedLoss,
                                 Durability::NoAckedLoss, Durability::AckedLoss, Durability::AckedLoss,
                                 Durability::NoAckedLoss};
  for (size_t i = 0; i < cells.size(); ++i) {
    EXPECT_EQ(r.cells[i].durability, expected[i]) << cells[i].label();
    EXPECT_GT(r.cells[i].durability_states, 0u) << cells[i].label();
  }
  EXPECT_EQ(r.red, 4);
  EXPECT_EQ(r.incomplete, 0);
  for (const CellResult& c : r.cells) {
    if (!c.red()) {
      EXPECT_TRUE(c.trace.is_null()) << c.cell.label();
      continue;
    }
    EXPECT_EQ(c.trace.at("property"), "no-acked-loss") << c.cell.label();
    EXPECT_EQ(static_cast<int>(c.trace.at("steps").size()), c.trace_steps + 1) << c.cell.label();
    EXPECT_EQ(c.trace.at("config").at("replication_factor"), c.cell.replication_factor);
  }
  // The lossy cells lose through a power loss, the acks=1 cell through a plain kill.
  EXPECT_TRUE(has_action(r.cells[0].trace, "Crash(node=0, power)"));
  EXPECT_TRUE(has_action(r.cells[1].trace, "ShrinkIsr"));
  EXPECT_TRUE(has_action(r.cells[4].trace, "ShrinkIsr"));
  EXPECT_TRUE(has_action(r.cells[5].trace, "Crash(node=0, kill)"));
}

// MODEL.md section 5, availability after f failures (analysis/availability.h).
TEST(Matrix, AvailabilityFactsOfTheField) {
  const std::vector<MatrixCell> cells = {
      // RF 2, min ISR 2, dedicated controllers: one broker lost leaves a one-replica
      // ISR, below min ISR: a clean NOT_ENOUGH_REPLICAS.
      cell(2, 2, Acks::All, true, 1, false, Placement::Dedicated),
      // min ISR 1: the ISR shrinks to the survivor and writes go on.
      cell(2, 1, Acks::All, true, 1, false, Placement::Dedicated),
      // Combined on two nodes: the failure also takes one of two voters, no majority is
      // left, the ISR is never shrunk and producers time out.
      cell(2, 2, Acks::All, true, 1, false, Placement::Combined),
      // No failure: writable.
      cell(2, 2, Acks::All, true, 0, false, Placement::Combined),
  };
  const MatrixResult r = run(cells);
  ASSERT_EQ(r.cells.size(), cells.size());
  EXPECT_EQ(r.cells[0].availability, "not-enough-replicas");
  EXPECT_EQ(r.cells[1].availability, "available");
  EXPECT_EQ(r.cells[2].availability, "no-controller-quorum");
  EXPECT_EQ(r.cells[3].availability, "available");
  for (const CellResult& c : r.cells) EXPECT_EQ(c.durability, Durability::NoAckedLoss) << c.cell.label();
  EXPECT_FALSE(r.cells[0].availability_witness.is_null());
  EXPECT_TRUE(r.cells[1].availability_witness.is_null());
}

TEST(Matrix, ExpansionSkipsImpossibleCellsAndDuplicateLossyColumns) {
  isr::analysis::MatrixDimensions d;
  d.replication_factors = {1, 2};
  d.min_isr = {};           // 1..RF
  d.acks = {Acks::All};
  d.unclean = {false};
  d.elr = {true};
  d.placements = {Placement::Combined};
  d.failures = {0, 1, 2, 5};  // 2 only for RF 2, 5 never
  d.lossy = {false, true};
  const auto cells = isr::analysis::expand_matrix(d);
  // RF 1: min ISR 1 x {f0, f1, f1 lossy} = 3; RF 2: min ISR 1,2 x {f0, f1, f1l, f2, f2l} = 10.
  ASSERT_EQ(cells.size(), 13u);
  for (const auto& c : cells) {
    EXPECT_LE(c.min_isr, c.replication_factor);
    EXPECT_LE(c.failures, c.replication_factor);
    if (c.failures == 0) {
      EXPECT_FALSE(c.lossy);
    }
  }
  d.min_isr = {3};
  EXPECT_TRUE(isr::analysis::expand_matrix(d).empty());

  // The default sweep: RF 1-3, every min ISR, acks all and 1, unclean and ELR both
  // ways, combined placement, 0-2 failures, kill and lossy.
  const auto defaults = isr::analysis::expand_matrix(isr::analysis::default_matrix_dimensions());
  EXPECT_EQ(defaults.size(), (3u + 10u + 15u) * 2 * 2 * 2);
}

TEST(Matrix, CellConfigurationAndOverrides) {
  const MatrixCell c = cell(3, 2, Acks::One, false, 2, true, Placement::Dedicated);
  const isr::spec::Config config = isr::analysis::matrix_cell_config(nlohmann::json::object(), {}, c);
  EXPECT_EQ(config.brokers, 3);
  EXPECT_EQ(config.replication_factor, 3);
  EXPECT_EQ(config.min_insync_replicas, 2);
  EXPECT_EQ(config.acks, Acks::One);
  EXPECT_FALSE(config.eligible_leader_replicas);
  EXPECT_EQ(config.controller.placement, Placement::Dedicated);
  EXPECT_EQ(config.faults.max_crashes, 2);
  EXPECT_EQ(config.faults.max_lossy_crashes, 2);
  EXPECT_EQ(config.faults.max_disk_losses, 0);
  EXPECT_FALSE(config.consumer);
  EXPECT_EQ(config.properties, (std::vector<std::string>{"no-acked-loss", "no-committed-loss-globally"}));
  // Bounds come from the base; keys the matrix sweeps cannot be overridden.
  const auto bounded = isr::analysis::matrix_cell_config(nlohmann::json::object(), {"bounds.max_records=2"}, c);
  EXPECT_EQ(bounded.bounds.max_records, 2);
  EXPECT_THROW(isr::analysis::matrix_cell_config(nlohmann::json::object(), {"faults.max_crashes=1"}, c),
               isr::spec::ConfigError);
  EXPECT_THROW(isr::analysis::matrix_cell_config(nlohmann::json::object(), {"replication_factor=2"}, c),
               isr::spec::ConfigError);
  // ELR needs kip-966.
  EXPECT_THROW(isr::analysis::matrix_cell_config(nlohmann::json{{"protocol", "kip-497"}}, {},
                                                 cell(2, 1, Acks::All, true, 0, false)),
               isr::spec::ConfigError);
}

TEST(Matrix, SecondRunReadsTheCacheAndAModelChangeInvalidatesIt) {
  const std::vector<MatrixCell> cells = {cell(1, 1, Acks::All, false, 1, true), cell(2, 1, Acks::One, true, 1, false),
                                         cell(2, 2, Acks::All, true, 0, false)};
  MatrixOptions options;
  options.jobs = 2;
  options.cache_dir = temp_dir();
  options.salt = "test-salt-1";
  const MatrixResult first = isr::analysis::run_matrix(cells, options);
  EXPECT_EQ(first.computed, 3);
  EXPECT_EQ(first.cache_hits, 0);
  const MatrixResult second = isr::analysis::run_matrix(cells, options);
  EXPECT_EQ(second.computed, 0);
  EXPECT_EQ(second.cache_hits, 3);
  for (size_t i = 0; i < cells.size(); ++i) {
    EXPECT_FALSE(first.cells[i].from_cache);
    EXPECT_TRUE(second.cells[i].from_cache);
    EXPECT_EQ(first.cells[i].durability, second.cells[i].durability);
    EXPECT_EQ(first.cells[i].trace, second.cells[i].trace);
    EXPECT_EQ(first.cells[i].availability, second.cells[i].availability);
    EXPECT_EQ(first.cells[i].durability_states, second.cells[i].durability_states);
  }
  // Another salt (another build of the model) or another state limit: recomputed.
  options.salt = "test-salt-2";
  EXPECT_EQ(isr::analysis::run_matrix(cells, options).computed, 3);
  options.max_states = 12345;
  EXPECT_EQ(isr::analysis::run_matrix(cells, options).computed, 3);
  // A corrupt entry is recomputed, not trusted.
  for (const auto& entry : std::filesystem::directory_iterator(options.cache_dir)) {
    std::ofstream(entry.path()) << "{not json";
  }
  EXPECT_EQ(isr::analysis::run_matrix(cells, options).computed, 3);
  // The default salt fingerprints the executable.
  EXPECT_TRUE(isr::analysis::matrix_model_salt().starts_with("isrcheck-matrix-cache-v2:"));
  EXPECT_GT(isr::analysis::matrix_model_salt().size(), 30u);
  std::filesystem::remove_all(options.cache_dir);
}

TEST(Matrix, StateLimitGivesIncompleteNeverAGuess) {
  MatrixOptions options;
  options.max_states = 50;
  const MatrixResult r = isr::analysis::run_matrix({cell(2, 2, Acks::All, true, 1, false)}, options);
  EXPECT_EQ(r.cells[0].durability, Durability::Incomplete);
  EXPECT_EQ(r.cells[0].availability, "incomplete");
  EXPECT_EQ(r.incomplete, 1);
  EXPECT_EQ(r.red, 0);
  const std::string text = isr::analysis::render_matrix_table(r, isr::analysis::MatrixFormat::Text);
  EXPECT_NE(text.find("? ?"), std::string::npos) << text;
}

TEST(Matrix, ReportsShowTheGridAndLinkEveryRedCell) {
  const std::vector<MatrixCell> cells = {cell(1, 1, Acks::All, false, 1, true), cell(1, 1, Acks::All, true, 1, true),
                                         cell(2, 2, Acks::One, false, 1, false), cell(2, 2, Acks::All, true, 0, false)};
  const MatrixResult r = run(cells);
  // Three red cells: RF 1 with a power loss loses the write with ELR too, since Kafka 4.x
  // elects the last known leader once it is back (PartitionChangeBuilder.canElectLastKnownLeader),
  // and acks=1 loses it with one kill.
  ASSERT_EQ(r.red, 3);
  EXPECT_TRUE(r.cells[1].red()) << "RF 1, ELR, one power loss";
  const std::string html = isr::analysis::render_matrix_html(r);
  EXPECT_NE(html.find("<table class=\"grid\">"), std::string::npos);
  EXPECT_NE(html.find("<style>"), std::string::npos);
  int red_cells = 0;
  for (const CellResult& c : r.cells) {
    const std::string link = "<a href=\"#" + c.cell.id() + "\">";
    const std::string anchor = "id=\"" + c.cell.id() + "\"";
    if (c.red()) {
      ++red_cells;
      EXPECT_NE(html.find(link), std::string::npos) << c.cell.id();
      EXPECT_NE(html.find(anchor), std::string::npos) << c.cell.id();
    } else {
      EXPECT_EQ(html.find(link), std::string::npos) << c.cell.id();
    }
  }
  EXPECT_EQ(red_cells, 3);
  size_t diagrams = 0;
  for (size_t at = html.find("<pre class=\"mermaid\">"); at != std::string::npos;
       at = html.find("<pre class=\"mermaid\">", at + 1)) {
    ++diagrams;
    EXPECT_EQ(html.compare(at + 22, 15, "sequenceDiagram"), 0) << html.substr(at, 80);
  }
  EXPECT_EQ(diagrams, 3u);
  // Nothing from the network (the diagrams stay as source without a renderer) ...
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("cdn."), std::string::npos);
  // ... and a given renderer is embedded in the page, then run on the diagrams.
  const std::string renderer = "globalThis.mermaid = { /* stand-in */ };";
  const std::string embedded = isr::analysis::render_matrix_html(r, renderer);
  EXPECT_NE(embedded.find("<script>\n" + renderer + "\n</script>"), std::string::npos);
  EXPECT_NE(embedded.find("mermaid.run({ querySelector: 'pre.mermaid' })"), std::string::npos);
  EXPECT_EQ(embedded.find("<script src="), std::string::npos);
  EXPECT_EQ(embedded.find("import "), std::string::npos);
  // A script that would end the <script> element early is refused, not mangled.
  EXPECT_THROW(isr::analysis::render_matrix_html(r, "let s = '</SCRIPT>';"), std::invalid_argument);

  const std::string markdown = isr::analysis::render_matrix_table(r, isr::analysis::MatrixFormat::Markdown);
  EXPECT_NE(markdown.find("| RF | min ISR |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("**LOSS/"), std::string::npos) << markdown;
  const nlohmann::json j = isr::analysis::matrix_to_json(r);
  EXPECT_EQ(j.at("format"), "isrcheck-matrix");
  EXPECT_EQ(j.at("summary").at("red"), 3);
  ASSERT_EQ(j.at("cells").size(), cells.size());
  EXPECT_EQ(j.at("cells")[0].at("durability").at("verdict"), "acked-loss");
  EXPECT_TRUE(j.at("cells")[0].at("durability").contains("trace"));
}

// Issue 12 point 7: RF 1 and a power loss, without KIP-966's LastKnownELR (Kafka before
// 3.7): no leader is ever elected without the acked write, because the partition stays
// offline, so no-acked-loss holds; but the write is on no replica. The grid says GONE,
// not "ok", and links the trace like a red cell's.
TEST(Matrix, SaysWhenDataIsGoneThoughNoAckedWriteWasLost) {
  MatrixOptions options;
  options.jobs = 1;
  options.max_states = 200'000;
  options.overrides = {"fixes.last_known_elr=false"};
  const MatrixResult r = isr::analysis::run_matrix({cell(1, 1, Acks::All, true, 1, true)}, options);
  ASSERT_EQ(r.cells.size(), 1u);
  const CellResult& c = r.cells[0];
  EXPECT_EQ(c.durability, isr::analysis::Durability::DataGone);
  EXPECT_FALSE(c.red());
  EXPECT_EQ(r.red, 0);
  EXPECT_EQ(r.gone, 1);
  EXPECT_EQ(c.trace.at("property"), "no-committed-loss-globally");
  const std::string text = isr::analysis::render_matrix_table(r, isr::analysis::MatrixFormat::Text);
  EXPECT_NE(text.find("GONE/" + std::to_string(c.trace_steps)), std::string::npos) << text;
  EXPECT_NE(text.find("1 data gone"), std::string::npos) << text;
  const std::string html = isr::analysis::render_matrix_html(r);
  EXPECT_NE(html.find("<td class=\"gone\""), std::string::npos);
  EXPECT_NE(html.find("<a href=\"#" + c.cell.id() + "\">"), std::string::npos);
  EXPECT_NE(html.find("the data is physically gone"), std::string::npos);
  const nlohmann::json j = isr::analysis::matrix_to_json(r);
  EXPECT_EQ(j.at("cells")[0].at("durability").at("verdict"), "data-gone");
  EXPECT_TRUE(j.at("cells")[0].at("durability").contains("trace"));

  // With Kafka 4.x's rules the same cell is an acked loss (the last known leader is
  // elected once back), and a cell that keeps its data stays "ok".
  options.overrides.clear();
  const MatrixResult now = isr::analysis::run_matrix(
      {cell(1, 1, Acks::All, true, 1, true), cell(2, 2, Acks::All, true, 1, true)}, options);
  EXPECT_TRUE(now.cells[0].red());
  EXPECT_EQ(now.cells[1].durability, isr::analysis::Durability::NoAckedLoss);
}

TEST(MatrixCli, RunsASmallSweepAndRejectsBadFlagsWithExitTwo) {
  const std::string cache = temp_dir();
  const std::string html = isr::trace_test::temp_path(".html");
  const std::string json_file = isr::trace_test::temp_path(".json");
  const std::string small = "matrix --rf 1-2 --min-isr 1 --acks all --unclean off --elr off --failures 1 --lossy on "
                            "--jobs 2 --cache '" + cache + "'";
  // A stand-in renderer: the real one (scripts/fetch-mermaid.sh) is tested in a browser
  // (tests/browser/matrix_report.sh).
  const std::string renderer = isr::trace_test::write_temp("globalThis.mermaid = {};", ".js");
  const auto ok = isr::trace_test::run_isrcheck(small + " --html '" + html + "' --mermaid-js '" + renderer +
                                                "' --json '" + json_file + "'");
  ASSERT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("LOSS/"), std::string::npos) << ok.out;
  EXPECT_NE(ok.err.find("2/2 cells"), std::string::npos) << ok.err;  // the progress bar
  const auto j = nlohmann::json::parse(isr::trace_test::slurp(json_file));
  EXPECT_EQ(j.at("summary").at("computed"), 2);
  EXPECT_NE(isr::trace_test::slurp(html).find("<table class=\"grid\">"), std::string::npos);
  EXPECT_NE(isr::trace_test::slurp(html).find("<script>\nglobalThis.mermaid = {};\n</script>"), std::string::npos);
  // A missing renderer is bad input, named before the sweep runs.
  const auto no_renderer = isr::trace_test::run_isrcheck(small + " --quiet --html '" + html +
                                                         "' --mermaid-js /nonexistent/mermaid.min.js");
  EXPECT_EQ(no_renderer.exit_code, 2) << no_renderer.err;
  EXPECT_NE(no_renderer.err.find("--mermaid-js"), std::string::npos) << no_renderer.err;
  EXPECT_NE(no_renderer.err.find("scripts/fetch-mermaid.sh"), std::string::npos) << no_renderer.err;
  const auto again = isr::trace_test::run_isrcheck(small + " --quiet --format markdown --json '" + json_file + "'");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(isr::trace_test::slurp(json_file)).at("summary").at("cache_hits"), 2);
  EXPECT_TRUE(again.err.empty()) << again.err;
  EXPECT_NE(again.out.find("| RF |"), std::string::npos);

  const std::pair<std::string, std::string> bad[] = {
      {"--rf 0", "--rf"},           {"--rf 1-9", "--rf"},       {"--rf x", "--rf"},
      {"--min-isr 0", "--min-isr"}, {"--acks 2", "--acks"},     {"--unclean maybe", "--unclean"},
      {"--elr yes", "--elr"},       {"--placement split", "--placement"},
      {"--failures 8", "--failures"}, {"--lossy 1", "--lossy"}, {"--format html", "--format"},
      {"--jobs 0", "--jobs"},       {"--set faults.max_crashes=2", "faults.max_crashes"},
      {"--rf 1 --min-isr 2", "--min-isr"}, {"--copies-lost maybe", "--copies-lost"},
  };
  for (const auto& [flags, named] : bad) {
    const auto r = isr::trace_test::run_isrcheck("matrix --no-cache --quiet " + flags);
    EXPECT_EQ(r.exit_code, 2) << flags << "\n" << r.err;
    EXPECT_NE(r.err.find(named), std::string::npos) << flags << "\n" << r.err;
  }
  std::filesystem::remove_all(cache);
  std::remove(html.c_str());
  std::remove(json_file.c_str());
  std::remove(renderer.c_str());
}

}  // namespace
