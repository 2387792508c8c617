// The matrix's copies-lost column (analysis/matrix.h, docs/matrix.md "The copies-lost
// column"): its values agree with the claims proved in tests/claims_test.cc
// (Claims.CopiesLostAfterTheAck), its premise holds kills back, partial-order reduction
// does not change it, the reports carry it, the cache keeps it apart from the cells, and
// the command line validates its flag. The slowest row here (RF 3 / min ISR 2 / ELR on)
// is about 2.2 million states in its k = 2 search: ~6 s of CPU.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/matrix.h"
#include "analysis/verify.h"
#include "tests/trace_test_support.h"

namespace {

using isr::analysis::CopiesLost;
using isr::analysis::MatrixCell;
using isr::analysis::MatrixOptions;
using isr::analysis::MatrixResult;
using isr::analysis::RowResult;
using isr::spec::Acks;
using nlohmann::json;

MatrixCell row(int rf, int min_isr, Acks acks, bool unclean, bool elr) {
  MatrixCell c;
  c.replication_factor = rf;
  c.min_isr = min_isr;
  c.acks = acks;
  c.unclean = unclean;
  c.elr = elr;
  c.failures = 0;
  c.lossy = false;
  return c;
}

MatrixOptions column_only(uint64_t max_states = 3'000'000) {
  MatrixOptions o;
  o.jobs = 2;
  o.availability = false;
  o.copies_lost = true;
  o.max_states = max_states;
  return o;
}

std::vector<std::string> action_names(const json& trace) {
  std::vector<std::string> names;
  const json& steps = trace.at("steps");
  for (size_t i = 1; i < steps.size(); ++i) names.push_back(steps[i].at("action_name").get<std::string>());
  return names;
}

size_t count_prefix(const std::vector<std::string>& names, const std::string& prefix) {
  size_t n = 0;
  for (const auto& name : names) n += name.starts_with(prefix) ? 1 : 0;
  return n;
}

// The step at which record 1 is first acknowledged (0: never).
size_t first_ack_step(const json& trace) {
  const json& steps = trace.at("steps");
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].at("state").at("producer").at("outcomes").value("1", "") == "acked") return i;
  }
  return 0;
}

// Every stop of a trace is a copy loss (power or disk), and none comes before the ack
// (the premise: acknowledged by the full ISR, faults after it).
void expect_premise(const json& trace) {
  const std::vector<std::string> names = action_names(trace);
  const size_t ack = first_ack_step(trace);
  ASSERT_GT(ack, 0u) << "the trace never acknowledges record 1";
  EXPECT_EQ(trace.at("steps")[ack].at("state").at("controller").at("isr").size(),
            trace.at("config").at("replication_factor").get<size_t>())
      << "acknowledged by the full ISR";
  for (size_t i = 0; i < names.size(); ++i) {
    if (!names[i].starts_with("Crash(")) continue;
    EXPECT_TRUE(names[i].ends_with(", power)") || names[i].ends_with(", disk)")) << names[i];
    EXPECT_GT(i + 1, ack) << names[i] << " before the acknowledgement";
  }
}

// tests/claims_test.cc Claims.CopiesLostAfterTheAck proves, for RF 3 / min ISR 2 /
// acks=all / unclean off: with ELR two lost copies lose nothing and three do (8 steps,
// the write on no replica); without ELR (claims/no-elr-one-power-loss-loses-acked-write:
// kip-903, two records, leader epochs up to 5) one power loss does (16 steps). The column
// gives the same numbers on the same configurations.
TEST(CopiesLost, AgreesWithTheClaims) {
  const MatrixResult r = isr::analysis::run_matrix({row(3, 2, Acks::All, false, true)}, column_only());
  ASSERT_EQ(r.rows.size(), 1u);
  const RowResult& elr = r.rows[0];
  ASSERT_EQ(elr.verdict, CopiesLost::Found) << isr::analysis::copies_lost_name(elr.verdict);
  EXPECT_EQ(elr.copies, 3);
  EXPECT_EQ(elr.property, "no-committed-loss-globally");
  EXPECT_EQ(elr.loss(), "data-gone");
  EXPECT_EQ(elr.trace_steps, 8);  // the claim's: produce, four fetches, three stops
  ASSERT_EQ(elr.searches.size(), 3u);
  EXPECT_EQ(elr.searches[0].verdict, isr::checker::Verdict::Holds);
  EXPECT_EQ(elr.searches[1].verdict, isr::checker::Verdict::Holds);
  EXPECT_GT(elr.searches[1].distinct_states, 1'000'000u) << "k = 2 is a real search, not a shortcut";
  EXPECT_EQ(elr.searches[2].verdict, isr::checker::Verdict::Violated);
  EXPECT_EQ(count_prefix(action_names(elr.trace), "Crash("), 3u);
  expect_premise(elr.trace);
  for (const auto& node : elr.trace.at("steps").back().at("state").at("nodes")) {
    EXPECT_EQ(node.at("replica").at("leo"), 0) << node;
  }

  // The claim's configuration without ELR: one power loss, 13 steps, as proved there (16
  // before a ShrinkIsr could remove both followers in one AlterPartition).
  MatrixOptions claim = column_only();
  claim.overrides = {"protocol=kip-903", "bounds.max_records=2", "bounds.max_leader_epoch=5"};
  const MatrixResult no_elr = isr::analysis::run_matrix({row(3, 2, Acks::All, false, false)}, claim);
  ASSERT_EQ(no_elr.rows.size(), 1u);
  const RowResult& one = no_elr.rows[0];
  ASSERT_EQ(one.verdict, CopiesLost::Found);
  EXPECT_EQ(one.copies, 1);
  EXPECT_EQ(one.property, "no-acked-loss");
  EXPECT_EQ(one.trace_steps, 13);
  const std::vector<std::string> names = action_names(one.trace);
  EXPECT_EQ(count_prefix(names, "Crash("), 1u);
  EXPECT_EQ(count_prefix(names, "ShrinkIsr(leader=0, followers=[1,2])"), 1u)
      << "both followers leave the ISR without a fault, in one AlterPartition";
  expect_premise(one.trace);
}

// With one record (the default bounds) a follower that has fetched everything never lags,
// so without ELR the ISR can shrink to one member only after a first leader change: two
// power losses. RF 1 loses its only copy; acks=1 acknowledges before any follower has the
// write, so one lost copy (the leader's) loses it at any RF.
TEST(CopiesLost, TheDefaultBoundsRows) {
  const MatrixResult r = isr::analysis::run_matrix(
      {row(3, 2, Acks::All, false, false), row(1, 1, Acks::All, false, true), row(3, 2, Acks::One, false, true),
       row(2, 2, Acks::All, false, true)},
      column_only(1'000'000));
  ASSERT_EQ(r.rows.size(), 4u);
  const int expected[] = {2, 1, 1, 2};
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const RowResult& x = r.rows[i];
    ASSERT_EQ(x.verdict, CopiesLost::Found) << x.row.row_label();
    EXPECT_EQ(x.copies, expected[i]) << x.row.row_label();
    EXPECT_EQ(static_cast<int>(x.searches.size()), expected[i]) << x.row.row_label();
    EXPECT_EQ(static_cast<int>(x.trace.at("steps").size()), x.trace_steps + 1);
    expect_premise(x.trace);
  }
  EXPECT_EQ(count_prefix(action_names(r.rows[0].trace), "ShrinkIsr("), 1u) << "the new leader drops the follower";
  EXPECT_EQ(r.rows[0].loss(), "acked-loss");
  EXPECT_EQ(r.rows_incomplete, 0);
  // The HTML colours by the share of the partition that must go: 2 of 3 amber, 1 of 3
  // red, 1 of 1 and 2 of 2 green.
  const std::string html = isr::analysis::render_matrix_html(r);
  const char* classes[] = {"copies unavailable", "copies ok", "copies red", "copies ok"};
  for (size_t i = 0; i < r.rows.size(); ++i) {
    EXPECT_NE(html.find("<td class=\"" + std::string(classes[i]) + "\" title=\"" + r.rows[i].row.row_label()),
              std::string::npos)
        << r.rows[i].row.row_label();
  }
}

// The premise holds kill -9 back: it keeps the page cache, so it is not a lost copy.
// acks=1 at RF 2 loses a write with one kill of the leader (matrix_test); with only kills
// in the budget and the premise, no stop happens at all and nothing is lost.
TEST(CopiesLost, KillsAreNotLostCopies) {
  isr::spec::Config config = isr::analysis::matrix_cell_config(json::object(), {}, [] {
    MatrixCell c = row(2, 1, Acks::One, false, true);
    c.failures = 1;
    return c;
  }());
  isr::analysis::VerifyOptions o;
  o.faults_begin = isr::analysis::FaultsBegin::AfterAck;
  const auto with_kills = isr::analysis::verify(config, o);
  EXPECT_EQ(with_kills.verdict, isr::checker::Verdict::Violated);
  EXPECT_NE(with_kills.trace.dump().find("kill)"), std::string::npos);
  o.only_copy_losses = true;
  const auto without = isr::analysis::verify(config, o);
  EXPECT_EQ(without.verdict, isr::checker::Verdict::Holds);
  EXPECT_LT(without.distinct_states, with_kills.distinct_states);
  EXPECT_EQ(without.trace.dump().find("Crash("), std::string::npos);
}

// A lost copy is a power or disk loss of a replica: not a kill, not a clean stop, and
// not a stop of a dedicated controller voter, which holds no copy of the log (the budget
// would otherwise count a controller failover as a lost copy).
TEST(CopiesLost, OnlyReplicasLoseCopies) {
  MatrixCell c = row(2, 1, Acks::All, false, false);
  c.placement = isr::spec::Placement::Dedicated;
  c.failures = 1;
  c.lossy = true;
  const isr::spec::Config config = isr::analysis::matrix_cell_config(json::object(), {}, c);
  ASSERT_GT(config.nodes(), config.replication_factor) << "dedicated voters follow the brokers";
  using isr::spec::ActionKind;
  using isr::spec::StopKind;
  auto stop = [](int node, StopKind kind) {
    return isr::spec::Action{ActionKind::Crash, static_cast<uint8_t>(node), 0, static_cast<uint8_t>(kind)};
  };
  for (int n = 0; n < config.nodes(); ++n) {
    const bool replica = n < config.replication_factor;
    EXPECT_EQ(isr::analysis::copy_loss_allowed(config, stop(n, StopKind::Power)), replica) << "node " << n;
    EXPECT_EQ(isr::analysis::copy_loss_allowed(config, stop(n, StopKind::Disk)), replica) << "node " << n;
    EXPECT_FALSE(isr::analysis::copy_loss_allowed(config, stop(n, StopKind::Kill))) << "node " << n;
    EXPECT_FALSE(isr::analysis::copy_loss_allowed(config, stop(n, StopKind::Clean))) << "node " << n;
    EXPECT_TRUE(isr::analysis::copy_loss_allowed(
        config, isr::spec::Action{ActionKind::Restart, static_cast<uint8_t>(n), 0, 0}));
  }
}

bool holds_record(const json& replica, int record) {
  for (const auto& entry : replica.at("log")) {
    if (entry.at(1) == record) return true;
  }
  return false;
}

// With two records a later write may be acknowledged by a smaller ISR (RF 3, min ISR 1:
// the followers fall behind record 2 and leave the ISR, the leader alone acknowledges it),
// and a power loss of the leader then takes record 2 with it (9 steps; 11 before both
// followers could leave in one AlterPartition). That is not the column's question: it
// judges the write acknowledged by the full ISR, record 1, which the same power loss
// loses too, once the leader is re-elected with an empty log (13 steps; 15 before).
TEST(CopiesLost, JudgesTheWriteAcknowledgedByTheFullIsr) {
  MatrixOptions o = column_only(1'000'000);
  o.overrides = {"bounds.max_records=2"};
  const MatrixCell r = row(3, 1, Acks::All, false, false);
  const MatrixResult m = isr::analysis::run_matrix({r}, o);
  ASSERT_EQ(m.rows.size(), 1u);
  const RowResult& x = m.rows[0];
  ASSERT_EQ(x.verdict, CopiesLost::Found);
  EXPECT_EQ(x.copies, 1);
  EXPECT_EQ(x.property, "no-acked-loss");
  EXPECT_EQ(x.trace_steps, 13);
  expect_premise(x.trace);
  const json& last = x.trace.at("steps").back().at("state");
  const int leader = last.at("controller").at("leader").get<int>();
  EXPECT_FALSE(holds_record(last.at("nodes")[static_cast<size_t>(leader)].at("replica"), 1)) << last.dump();

  // The catalogue's properties over every acknowledged write stop earlier, at record 2.
  isr::analysis::VerifyOptions v;
  v.faults_begin = isr::analysis::FaultsBegin::AfterAck;
  v.only_copy_losses = true;
  v.por = true;
  const auto any = isr::analysis::verify(isr::analysis::copies_lost_config(json::object(), o.overrides, r, 1), v);
  ASSERT_EQ(any.verdict, isr::checker::Verdict::Violated);
  EXPECT_EQ(any.trace_steps, 9);
  bool record_1_somewhere = false;
  for (const auto& node : any.trace.at("steps").back().at("state").at("nodes")) {
    record_1_somewhere = record_1_somewhere || holds_record(node.at("replica"), 1);
  }
  EXPECT_TRUE(record_1_somewhere) << "record 2 is what that trace loses";
}

// Partial-order reduction (the column's default, docs/checker.md) keeps each answer and
// each shortest trace's length, with fewer states.
TEST(CopiesLost, SameAnswerWithAndWithoutPartialOrderReduction) {
  const std::vector<MatrixCell> rows = {row(2, 2, Acks::All, false, true), row(2, 2, Acks::All, true, false),
                                        row(3, 1, Acks::All, false, true), row(2, 1, Acks::One, false, false)};
  MatrixOptions on = column_only(1'000'000);
  MatrixOptions off = on;
  off.copies_lost_por = false;
  const MatrixResult reduced = isr::analysis::run_matrix(rows, on);
  const MatrixResult full = isr::analysis::run_matrix(rows, off);
  ASSERT_EQ(reduced.rows.size(), rows.size());
  ASSERT_EQ(full.rows.size(), rows.size());
  uint64_t reduced_states = 0;
  uint64_t full_states = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const RowResult& a = reduced.rows[i];
    const RowResult& b = full.rows[i];
    EXPECT_EQ(a.verdict, b.verdict) << rows[i].row_label();
    EXPECT_EQ(a.copies, b.copies) << rows[i].row_label();
    EXPECT_EQ(a.trace_steps, b.trace_steps) << rows[i].row_label();
    EXPECT_EQ(a.property, b.property) << rows[i].row_label();
    ASSERT_EQ(a.searches.size(), b.searches.size());
    for (size_t k = 0; k < a.searches.size(); ++k) EXPECT_EQ(a.searches[k].verdict, b.searches[k].verdict);
    EXPECT_NE(a.key, b.key) << "cached apart";
    reduced_states += a.distinct_states();
    full_states += b.distinct_states();
  }
  EXPECT_LT(reduced_states, full_states);
}

// A search cut by the state limit is never a number: the fewer copies that hold are kept
// (">=2 ?"), and a cut first search says "?".
TEST(CopiesLost, StateLimitIsIncompleteNeverAGuess) {
  const MatrixResult r = isr::analysis::run_matrix({row(3, 2, Acks::All, false, true)}, column_only(100'000));
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].verdict, CopiesLost::Incomplete);
  EXPECT_EQ(r.rows[0].copies, 2) << "k = 1 holds in fewer states; k = 2 is cut";
  EXPECT_EQ(r.rows_incomplete, 1);
  EXPECT_TRUE(r.rows[0].trace.is_null());
  const std::string text = isr::analysis::render_matrix_table(r, isr::analysis::MatrixFormat::Text);
  EXPECT_NE(text.find(">=2 ?"), std::string::npos) << text;
  const json j = isr::analysis::matrix_to_json(r);
  EXPECT_EQ(j.at("rows")[0].at("copies_lost").at("verdict"), "incomplete");
  EXPECT_EQ(j.at("rows")[0].at("copies_lost").at("at_least"), 2);
  EXPECT_TRUE(j.at("rows")[0].at("copies_lost").at("copies").is_null());

  const MatrixResult tiny = isr::analysis::run_matrix({row(3, 2, Acks::All, false, true)}, column_only(50));
  EXPECT_EQ(tiny.rows[0].verdict, CopiesLost::Incomplete);
  EXPECT_EQ(tiny.rows[0].copies, 1);
  const std::string tiny_text = isr::analysis::render_matrix_table(tiny, isr::analysis::MatrixFormat::Text);
  const std::string grid_row = tiny_text.substr(0, tiny_text.find('\n', tiny_text.find("combined")));
  EXPECT_TRUE(grid_row.ends_with("  ?")) << tiny_text;
  EXPECT_EQ(grid_row.find(">="), std::string::npos) << tiny_text;
}

// The grid's text, Markdown, JSON and HTML carry the column; a row's number links to its
// trace in the HTML report like a red cell.
TEST(CopiesLost, ReportsCarryTheColumn) {
  std::vector<MatrixCell> cells;
  for (bool elr : {true, false}) {
    for (int f : {0, 1}) {
      MatrixCell c = row(2, 2, Acks::All, false, elr);
      c.failures = f;
      c.lossy = f > 0;
      cells.push_back(c);
    }
  }
  const MatrixResult r = isr::analysis::run_matrix(cells, column_only(1'000'000));
  ASSERT_EQ(r.rows.size(), 2u) << "one per row, not per cell";
  const std::string text = isr::analysis::render_matrix_table(r, isr::analysis::MatrixFormat::Text);
  EXPECT_NE(text.find("copies lost"), std::string::npos) << text;
  EXPECT_NE(text.find("2 GONE/5"), std::string::npos) << text;
  EXPECT_NE(text.find("copies lost: 2 rows, 0 incomplete"), std::string::npos) << text;
  const std::string markdown = isr::analysis::render_matrix_table(r, isr::analysis::MatrixFormat::Markdown);
  EXPECT_NE(markdown.find("| copies lost |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| 2 GONE/5 |"), std::string::npos) << markdown;

  const json j = isr::analysis::matrix_to_json(r);
  EXPECT_TRUE(j.at("copies_lost").get<bool>());
  ASSERT_EQ(j.at("rows").size(), 2u);
  EXPECT_EQ(j.at("summary").at("rows"), 2);
  for (const json& x : j.at("rows")) {
    const json& c = x.at("copies_lost");
    EXPECT_EQ(c.at("verdict"), "found") << x.at("id");
    EXPECT_EQ(c.at("copies"), 2) << x.at("id");
    EXPECT_EQ(c.at("loss"), "data-gone");
    EXPECT_EQ(c.at("trace").at("steps").size(), c.at("trace_steps").get<size_t>() + 1);
    EXPECT_EQ(c.at("searches").size(), 2u);
    EXPECT_EQ(c.at("config").at("faults").at("max_disk_losses"), 2) << "the deciding search's budget";
    EXPECT_FALSE(c.at("cache_key").get<std::string>().empty());
  }
  EXPECT_EQ(j.at("rows")[0].at("id"), "rf2-isr2-acksall-clean-elr-combined");

  const std::string html = isr::analysis::render_matrix_html(r);
  EXPECT_NE(html.find("<th>copies lost</th>"), std::string::npos);
  for (const RowResult& x : r.rows) {
    const std::string anchor = x.row.row_id() + "-copies-lost";
    EXPECT_NE(html.find("<td class=\"copies ok\" title=\"" + x.row.row_label() + ": copies lost\"><a href=\"#" +
                        anchor + "\">2 GONE/5</a>"),
              std::string::npos)
        << anchor << ": both copies of RF 2 must go (green)";
    EXPECT_NE(html.find("id=\"" + anchor + "\""), std::string::npos) << anchor;
  }
  // A diagram per red (or gone) cell, and one per row's trace.
  size_t diagrams = 0;
  for (size_t at = html.find("<pre class=\"mermaid\">"); at != std::string::npos;
       at = html.find("<pre class=\"mermaid\">", at + 1)) {
    ++diagrams;
  }
  EXPECT_EQ(diagrams, static_cast<size_t>(r.red + r.gone) + 2u);

  // Off, nothing of it shows.
  MatrixOptions off = column_only(1'000'000);
  off.copies_lost = false;
  const MatrixResult without = isr::analysis::run_matrix(cells, off);
  EXPECT_TRUE(without.rows.empty());
  EXPECT_EQ(isr::analysis::render_matrix_table(without, isr::analysis::MatrixFormat::Text).find("copies lost"),
            std::string::npos);
  EXPECT_FALSE(isr::analysis::matrix_to_json(without).contains("rows"));
}

// The column is cached as one entry per row, under a key of its own: a run with the
// column on after one with it off reads the cells and computes the rows; a second run
// reads both. The key changes with the state limit, the reduction and the base.
TEST(CopiesLost, CacheKeepsTheColumnApart) {
  const std::string dir = isr::trace_test::temp_path("_copies_cache");
  std::filesystem::remove_all(dir);
  MatrixCell c = row(2, 1, Acks::All, false, false);
  c.failures = 1;
  c.lossy = true;
  MatrixOptions o = column_only(200'000);
  o.cache_dir = dir;
  o.copies_lost = false;
  const MatrixResult first = isr::analysis::run_matrix({c}, o);
  EXPECT_EQ(first.computed, 1);
  o.copies_lost = true;
  const MatrixResult second = isr::analysis::run_matrix({c}, o);
  EXPECT_EQ(second.cache_hits, 1);
  EXPECT_EQ(second.rows_computed, 1);
  EXPECT_EQ(second.rows_from_cache, 0);
  ASSERT_EQ(second.rows.size(), 1u);
  EXPECT_NE(second.rows[0].key, second.cells[0].key);
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dir) / (second.rows[0].key + ".json")));
  const MatrixResult third = isr::analysis::run_matrix({c}, o);
  EXPECT_EQ(third.rows_computed, 0);
  EXPECT_EQ(third.rows_from_cache, 1);
  ASSERT_EQ(third.rows.size(), 1u);
  const RowResult& a = second.rows[0];
  const RowResult& b = third.rows[0];
  EXPECT_TRUE(b.from_cache);
  EXPECT_EQ(a.verdict, b.verdict);
  EXPECT_EQ(a.copies, b.copies);
  EXPECT_EQ(a.trace, b.trace);
  EXPECT_EQ(a.searches.size(), b.searches.size());
  EXPECT_EQ(a.distinct_states(), b.distinct_states());

  MatrixOptions limit = o;
  limit.max_states = 300'000;
  MatrixOptions unreduced = o;
  unreduced.copies_lost_por = false;
  MatrixOptions based = o;
  based.overrides = {"bounds.max_records=2"};
  MatrixOptions salted = o;
  salted.salt = "another build";
  for (const MatrixOptions* other : {&limit, &unreduced, &based, &salted}) {
    const MatrixResult x = isr::analysis::run_matrix({c}, *other);
    EXPECT_NE(x.rows[0].key, a.key);
    EXPECT_EQ(x.rows_computed, 1);
  }
  std::filesystem::remove_all(dir);
}

TEST(CopiesLostCli, FlagAndOutputs) {
  const std::string json_file = isr::trace_test::temp_path(".json");
  const std::string small = "matrix --rf 2 --min-isr 2 --acks all --unclean off --elr on --failures 0 --no-cache --quiet";
  const auto on = isr::trace_test::run_isrcheck(small + " --copies-lost on --json '" + json_file + "'");
  ASSERT_EQ(on.exit_code, 0) << on.err;
  EXPECT_NE(on.out.find("copies lost"), std::string::npos) << on.out;
  EXPECT_NE(on.out.find("2 GONE/5"), std::string::npos) << on.out;
  const json j = json::parse(isr::trace_test::slurp(json_file));
  ASSERT_EQ(j.at("rows").size(), 1u);
  EXPECT_EQ(j.at("rows")[0].at("copies_lost").at("copies"), 2);
  const auto off = isr::trace_test::run_isrcheck(small + " --copies-lost off --format markdown");
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_EQ(off.out.find("copies lost"), std::string::npos) << off.out;
  for (const char* bad : {"maybe", "yes", "1", ""}) {
    const auto r = isr::trace_test::run_isrcheck(small + " --copies-lost '" + bad + "'");
    EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.err;
    EXPECT_NE(r.err.find("--copies-lost"), std::string::npos) << bad << "\n" << r.err;
    EXPECT_NE(r.err.find("\"on\" or \"off\""), std::string::npos) << bad << "\n" << r.err;
  }
  std::remove(json_file.c_str());
}

}  // namespace
