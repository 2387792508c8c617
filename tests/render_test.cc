// Rendering traces for people (counterexamples/render/render.h) on hand-written fixtures in
// tests/data/: the text names every action, marks changed fields and states the
// violation; mermaid and dot are structurally valid; unknown fields render generically;
// malformed traces are refused naming the field. The CLI part runs the built binary
// (ISRCHECK_BINARY) for `isrcheck render`. Traces of the KRaft and cluster models come
// from the corpus (counterexamples/corpus) or are built from the model at run time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "counterexamples/render/render.h"
#include "counterexamples/render/render_words.h"
#include "counterexamples/trace/json_diff.h"
#include "counterexamples/trace/trace_reader.h"
#include "counterexamples/trace/trace_writer.h"
#include "spec/cluster/cluster_model.h"
#include "tests/trace_test_support.h"

namespace isr::counterexamples {
namespace {

using nlohmann::json;
using trace_test::load_fixture;

const char* kLossTrace = "trace_acks1_leader_loss.json";
const char* kGenericTrace = "trace_generic_model.json";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The text between "Step <n>:" and the next step (or the end).
std::string step_section(const std::string& text, int n) {
  const std::string start = "Step " + std::to_string(n) + ":";
  const size_t begin = text.find(start);
  if (begin == std::string::npos) return {};
  const size_t end = text.find("\nStep " + std::to_string(n + 1) + ":", begin);
  return text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

std::string line_starting(const std::string& text, const std::string& prefix) {
  for (const std::string& line : lines_of(text)) {
    const size_t first = line.find_first_not_of(' ');
    if (first != std::string::npos && line.compare(first, prefix.size(), prefix) == 0) return line;
  }
  return {};
}

TEST(RenderText, HeaderNamesThePropertyAndTheKeyConfiguration) {
  const std::string text = render_text(load_fixture(kLossTrace), 0);  // unfolded: one line per item
  EXPECT_NE(text.find("Counterexample: no-acked-loss"), std::string::npos);
  EXPECT_NE(text.find("a write acknowledged to a producer"), std::string::npos);
  const std::string config = line_starting(text, "config:");
  for (const char* key : {"RF 3", "min ISR 2", "acks 1", "protocol kip-966", "unclean election no",
                          "ELR yes", "placement combined (3 voters)", "flush none"}) {
    EXPECT_NE(config.find(key), std::string::npos) << key << " missing in: " << config;
  }
  EXPECT_NE(line_starting(text, "fault budget:").find("crashes 1"), std::string::npos);
}

// A counterexample opens with what was lost and why, in Kafka's terms, before the tables
// (issue 12: what was acknowledged, what failed, which replica ended without it, why).
TEST(RenderText, OpensWithWhatWasLostAndWhy) {
  const json trace =
      json::parse(trace_test::slurp(std::string(ISRCHECK_SOURCE_DIR) + "/counterexamples/corpus/unclean-leader-election.json"));
  const std::string text = render_text(trace, 0);
  const size_t tables = text.find("Step 0:");
  ASSERT_NE(tables, std::string::npos);
  const std::string acknowledged = line_starting(text, "acknowledged:");
  const std::string faults = line_starting(text, "faults and elections:");
  const std::string without = line_starting(text, "without it:");
  const std::string why = line_starting(text, "why:");
  for (const std::string* line : {&acknowledged, &faults, &without, &why}) {
    ASSERT_FALSE(line->empty()) << text;
    EXPECT_LT(text.find(*line), tables) << *line;
  }
  EXPECT_NE(acknowledged.find("record 1 at step"), std::string::npos) << acknowledged;
  EXPECT_NE(faults.find("Crash(node=0, kill)"), std::string::npos) << faults;
  EXPECT_NE(faults.find("N2 elected uncleanly"), std::string::npos) << faults;
  EXPECT_NE(without.find("record 1 missing from N2 (leader)"), std::string::npos) << without;
  EXPECT_NE(why.find("no-acked-loss"), std::string::npos) << why;
}

// The KRaft quorum alone has no producer: its opening names the faults and the reason.
TEST(RenderText, KraftOpeningNamesTheFaultsAndTheReason) {
  const json trace =
      json::parse(trace_test::slurp(std::string(ISRCHECK_SOURCE_DIR) + "/counterexamples/corpus/kraft-vote-not-persisted.json"));
  const std::string text = render_text(trace, 0);
  EXPECT_TRUE(line_starting(text, "acknowledged:").empty());
  EXPECT_NE(line_starting(text, "faults and elections:").find("Crash(voter=2)"), std::string::npos) << text;
  EXPECT_NE(line_starting(text, "why:").find("single-controller-per-epoch"), std::string::npos) << text;
}

TEST(RenderText, EveryStepNamesItsAction) {
  const json trace = load_fixture(kLossTrace);
  const std::string text = render_text(trace, 0);  // unfolded: one line per item
  for (const json& step : trace["steps"]) {
    const std::string heading =
        "Step " + step["index"].dump() + ": " + step["action_name"].get<std::string>();
    EXPECT_NE(text.find(heading), std::string::npos) << heading;
  }
}

TEST(RenderText, MarksChangedFieldsAndOnlyThose) {
  const std::string text = render_text(load_fixture(kLossTrace), 0);  // unfolded: one line per item
  // Step 0 has nothing to compare with.
  const std::string step0 = step_section(text, 0);
  ASSERT_FALSE(step0.empty());
  EXPECT_EQ(step0.find('*'), std::string::npos) << step0;
  // Step 1 appends record 1 at N0 and acks it; N1's row does not change.
  const std::string step1 = step_section(text, 1);
  EXPECT_NE(line_starting(step1, "N0").find("| 1:r1*"), std::string::npos) << step1;
  EXPECT_EQ(line_starting(step1, "N1").find('*'), std::string::npos) << step1;
  EXPECT_NE(line_starting(step1, "producer:").find("record 1 acked*"), std::string::npos);
  // Step 3 crashes N0; step 4 changes the controller's leader and ISR.
  EXPECT_NE(line_starting(step_section(text, 3), "N0").find("down (kill)*"), std::string::npos);
  const std::string controller = line_starting(step_section(text, 4), "controller:");
  EXPECT_NE(controller.find("leader N1*"), std::string::npos) << controller;
  EXPECT_NE(controller.find("ISR [1,2]*"), std::string::npos) << controller;
  EXPECT_EQ(controller.find("active N0*"), std::string::npos) << controller;
}

TEST(RenderText, SaysWhatChangedInWords) {
  const std::string text = render_text(load_fixture(kLossTrace), 0);  // unfolded: one line per item
  EXPECT_NE(line_starting(step_section(text, 1), "changed:").find("record 1: acked"), std::string::npos);
  EXPECT_NE(line_starting(step_section(text, 3), "changed:").find("node 0: crashed (kill -9"),
            std::string::npos);
  const std::string step4 = line_starting(step_section(text, 4), "changed:");
  EXPECT_NE(step4.find("controller: leader N0 -> N1 (leader epoch 2)"), std::string::npos) << step4;
  EXPECT_NE(step4.find("ISR [0,1,2] -> [1,2]"), std::string::npos) << step4;
  EXPECT_NE(step4.find("fenced N0"), std::string::npos) << step4;
}

TEST(RenderText, ShowsTheLogWithTheHighWatermark) {
  const std::string text = render_text(load_fixture(kLossTrace), 0);  // unfolded: one line per item
  EXPECT_NE(text.find("log (epoch:record, | = HW)"), std::string::npos);
  EXPECT_NE(line_starting(step_section(text, 2), "N0").find("| 1:r1"), std::string::npos);
  // The in-flight fetch response is visible at the follower.
  EXPECT_NE(line_starting(step_section(text, 2), "N1").find("fetch response from N0: 1:r1"),
            std::string::npos);
}

TEST(RenderText, EndsWithTheViolationInOneSentence) {
  const std::string text = render_text(load_fixture(kLossTrace), 0);  // unfolded: one line per item
  const std::vector<std::string> lines = lines_of(text);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(),
            "VIOLATION: Property no-acked-loss is violated at step 5: record 1 was acknowledged to "
            "the producer but is not in the log of the leader N1 (leader epoch 2, log (empty)).");
}

TEST(RenderText, LogTextMarksTheHighWatermarkAtEveryPosition) {
  const json log = json::array({json::array({1, 1}), json::array({1, 2}), json::array({2, 3})});
  EXPECT_EQ(log_text({{"log", log}, {"hw", 0}}), "| 1:r1 1:r2 2:r3");
  EXPECT_EQ(log_text({{"log", log}, {"hw", 2}}), "1:r1 1:r2 | 2:r3");
  EXPECT_EQ(log_text({{"log", log}, {"hw", 3}}), "1:r1 1:r2 2:r3 |");
  EXPECT_EQ(log_text({{"log", json::array()}, {"hw", 0}}), "(empty)");
}

TEST(RenderText, DescribesTruncationAndAppendInOnePhrase) {
  const json before = {{"nodes", {{{"id", 1}, {"alive", true}, {"replica",
      {{"log", {{1, 1}, {1, 2}}}, {"leo", 2}, {"hw", 1}}}}}}};
  json after = before;
  after["nodes"][0]["replica"]["log"] = {{1, 1}, {2, 3}};
  const std::vector<std::string> changes = describe_changes(before, after);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0], "node 1: truncated to offset 1 (dropped 1:r2), appended 2:r3 at offset 1");
}

TEST(RenderText, RendersUnknownFieldsGenerically) {
  json trace = load_fixture(kLossTrace);
  // Fields a later model might add: a node field, a replica field, a state section.
  for (json& step : trace["steps"]) {
    step["state"]["nodes"][0]["rack"] = "rack-a";
    step["state"]["nodes"][1]["replica"]["segment_count"] = 1;
    step["state"]["transactions"] = {{"open", 0}};
  }
  trace["steps"][2]["state"]["nodes"][1]["replica"]["segment_count"] = 2;
  trace["steps"][3]["state"]["transactions"]["open"] = 1;
  const std::string text = render_text(trace, 0);  // unfolded: one line per item
  EXPECT_NE(text.find("rack-a"), std::string::npos);
  EXPECT_NE(text.find("segment_count"), std::string::npos);  // a column of its own
  const std::string changed = line_starting(step_section(text, 2), "changed:");
  EXPECT_NE(changed.find("node 1: "), std::string::npos) << changed;
  EXPECT_NE(changed.find("segment_count 1 -> 2"), std::string::npos) << changed;
  EXPECT_NE(line_starting(step_section(text, 3), "transactions:").find("open 1*"),
            std::string::npos);
}

TEST(RenderText, RendersAModelItKnowsNothingAbout) {
  const std::string text = render_text(load_fixture(kGenericTrace), 0);  // unfolded: one line per item
  EXPECT_NE(text.find("Counterexample: sum-below-limit"), std::string::npos);
  // No action_name in the file: built from the action JSON.
  EXPECT_NE(text.find("Step 1: IncX(by=2)"), std::string::npos);
  EXPECT_NE(line_starting(step_section(text, 1), "changed:"), "");
  EXPECT_NE(line_starting(step_section(text, 1), "changed:").find("x 0 -> 2"), std::string::npos);
  EXPECT_NE(line_starting(step_section(text, 2), "changed:").find("flags.armed false -> true"),
            std::string::npos);
  EXPECT_NE(text.find("other: limit=3, mode=fast"), std::string::npos);
  EXPECT_NE(text.find("VIOLATION: Property sum-below-limit is violated at step 3"), std::string::npos);
}

TEST(RenderMarkdown, UsesHeadingsTablesAndBoldForChanges) {
  const std::string md = render_markdown(load_fixture(kLossTrace));
  EXPECT_EQ(md.rfind("# Counterexample: `no-acked-loss`", 0), 0u);
  EXPECT_NE(md.find("## Step 3: `Crash(node=0, kill)`"), std::string::npos);
  EXPECT_NE(md.find("| node | process |"), std::string::npos);
  EXPECT_NE(md.find("**down (kill)**"), std::string::npos);
  // The HW bar inside a table cell is escaped, or it would split the cell.
  EXPECT_NE(md.find("**\\| 1:r1**"), std::string::npos);
  EXPECT_NE(md.find("**changed:** node 0: crashed (kill -9"), std::string::npos);
  EXPECT_NE(md.find("**Violation:** Property no-acked-loss is violated at step 5"), std::string::npos);
  // Every table row has as many cells as its header.
  size_t header_cells = 0;
  for (const std::string& line : lines_of(md)) {
    const std::string unescaped = std::regex_replace(line, std::regex("\\\\\\|"), "");
    const size_t bars = std::count(unescaped.begin(), unescaped.end(), '|');
    if (line.rfind("| node |", 0) == 0) header_cells = bars;
    if (line.rfind("| N", 0) == 0) {
      EXPECT_EQ(bars, header_cells) << line;
    }
  }
  EXPECT_GT(header_cells, 10u);
}

TEST(RenderMermaid, IsASequenceDiagramWithEveryParticipant) {
  const std::string diagram = render_mermaid(load_fixture(kLossTrace));
  const std::vector<std::string> lines = lines_of(diagram);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "sequenceDiagram");
  for (const char* participant : {"Producer", "Consumer", "Controller", "N0", "N1", "N2"}) {
    EXPECT_NE(diagram.find(std::string("  participant ") + participant + "\n"), std::string::npos)
        << participant;
  }
  EXPECT_NE(diagram.find("Producer->>N0: 1. Produce(record 1)"), std::string::npos);
  EXPECT_NE(diagram.find("N0-->>Producer: record 1: acked"), std::string::npos);
  EXPECT_NE(diagram.find("N1->>N0: 2. Fetch(offset 0, epoch 1)"), std::string::npos);
  EXPECT_NE(diagram.find("N0-->>N1: 1:r1 @0, leader HW 0"), std::string::npos);
  EXPECT_NE(diagram.find("Note over N0: 3. Crash(node=0, kill)"), std::string::npos);
  EXPECT_NE(diagram.find("Note over Controller: 4. FenceBroker(broker=0, leader_after=1)"),
            std::string::npos);
  EXPECT_NE(diagram.find("Controller-->>N1: 5. metadata: leader N1, epoch 2, ISR [1,2]"),
            std::string::npos);
  EXPECT_NE(lines.back().find("Note over Producer,N2: VIOLATED Property no-acked-loss"),
            std::string::npos);
}

TEST(RenderMermaid, DrawsTheResponseOfAFetchHandledInTheSameStep) {
  json trace = load_fixture(kLossTrace);
  // Models with atomic fetches append at the follower in the Fetch step itself.
  json& follower = trace["steps"][2]["state"]["nodes"][1]["replica"];
  follower["fetch_response"] = nullptr;
  follower["log"] = {{1, 1}};
  follower["leo"] = 1;
  for (size_t i = 3; i < trace["steps"].size(); ++i) {
    trace["steps"][i]["state"]["nodes"][1]["replica"]["log"] = {{1, 1}};
  }
  const std::string diagram = render_mermaid(trace);
  EXPECT_NE(diagram.find("N1->>N0: 2. Fetch(offset 0, epoch 1)\n  N0-->>N1: response: 1:r1, HW 0\n"),
            std::string::npos)
      << diagram;
}

// A ShrinkIsr of several followers ("followers": [1, 2], one AlterPartition) names them
// all on the leader's request arrow; a one-follower shrink names its follower.
TEST(RenderMermaid, ASetShrinkNamesEveryRemovedFollower) {
  const json trace =
      json::parse(trace_test::slurp(std::string(ISRCHECK_SOURCE_DIR) + "/counterexamples/corpus/min-isr-1-single-copy.json"));
  ASSERT_EQ(trace["steps"][2]["action"]["followers"], (json{1, 2}));
  const std::string diagram = render_mermaid(trace);
  EXPECT_NE(diagram.find("N0->>Controller: 2. AlterPartition(ISR [0], removing [1,2])"), std::string::npos) << diagram;
  json single = trace;
  single["steps"][2]["action"].erase("followers");
  single["steps"][2]["action"]["follower"] = 1;
  EXPECT_NE(render_mermaid(single).find("2. AlterPartition(ISR [0], removing N1)"), std::string::npos);
}

// Every line is a statement mermaid's sequence-diagram grammar accepts (arrows: ->>
// request, -->> response, --x a response lost on the way), and no message
// text holds the characters that end a statement (';') or start an entity ('#').
void expect_valid_mermaid(const std::string& diagram) {
  const std::regex statement(
      "  (participant [A-Za-z0-9]+|Note over [A-Za-z0-9]+(,[A-Za-z0-9]+)?: [^;#]+|"
      "[A-Za-z0-9]+(-?->>|--x)[A-Za-z0-9]+: [^;#]+)");
  const std::vector<std::string> lines = lines_of(diagram);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "sequenceDiagram");
  std::set<std::string> participants;
  for (size_t i = 1; i < lines.size(); ++i) {
    EXPECT_TRUE(std::regex_match(lines[i], statement)) << "line " << i << ": " << lines[i];
    if (lines[i].rfind("  participant ", 0) == 0) participants.insert(lines[i].substr(14));
  }
  // Arrows and notes only name declared participants.
  const std::regex names("^  (?:Note over ([A-Za-z0-9]+)(?:,([A-Za-z0-9]+))?|([A-Za-z0-9]+)(?:-?->>|--x)([A-Za-z0-9]+)):");
  for (const std::string& line : lines) {
    std::smatch m;
    if (!std::regex_search(line, m, names)) continue;
    for (size_t g = 1; g < m.size(); ++g) {
      if (m[g].matched) {
        EXPECT_TRUE(participants.count(m[g].str())) << m[g].str() << " in " << line;
      }
    }
  }
}

TEST(RenderMermaid, EveryLineIsValidSyntax) {
  expect_valid_mermaid(render_mermaid(load_fixture(kLossTrace)));
  expect_valid_mermaid(render_mermaid(load_fixture(kGenericTrace)));
}

TEST(RenderMermaid, NeutralizesCharactersThatWouldBreakTheDiagram) {
  json trace = load_fixture(kGenericTrace);
  trace["steps"][1]["action_name"] = "IncX(by=2; #3)";
  const std::string diagram = render_mermaid(trace);
  expect_valid_mermaid(diagram);
  EXPECT_NE(diagram.find("IncX(by=2, no.3)"), std::string::npos) << diagram;
}

// Structure of the dot output: one node per state, one edge per step, balanced quotes.
void expect_dot_structure(const std::string& dot, size_t states) {
  EXPECT_EQ(dot.rfind("digraph trace {\n", 0), 0u);
  ASSERT_GE(dot.size(), 2u);
  EXPECT_EQ(dot.substr(dot.size() - 2), "}\n");
  for (size_t i = 0; i < states; ++i) {
    EXPECT_NE(dot.find("  s" + std::to_string(i) + " [label=\""), std::string::npos) << i;
    if (i > 0) {
      EXPECT_NE(dot.find("  s" + std::to_string(i - 1) + " -> s" + std::to_string(i) + " [label=\""),
                std::string::npos)
          << i;
    }
  }
  EXPECT_EQ(dot.find("  s" + std::to_string(states) + " "), std::string::npos);
  // Every line's quotes pair up once escaped ones (\") are skipped.
  for (const std::string& line : lines_of(dot)) {
    int quotes = 0;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '\\') ++i;
      else if (line[i] == '"') ++quotes;
    }
    EXPECT_EQ(quotes % 2, 0) << line;
  }
}

// When Graphviz is installed, `dot` must accept the output as well.
void expect_dot_parses_if_available(const std::string& dot) {
  if (trace_test::run_shell("command -v dot").exit_code != 0) return;
  const std::string path = trace_test::write_temp(dot, ".dot");
  const trace_test::Run r = trace_test::run_shell("dot -Tsvg '" + path + "'");
  std::remove(path.c_str());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("<svg"), std::string::npos);
}

TEST(RenderDot, OneNodePerStateOneEdgePerAction) {
  const json trace = load_fixture(kLossTrace);
  const std::string dot = render_dot(trace);
  expect_dot_structure(dot, trace["steps"].size());
  EXPECT_NE(dot.find("s2 -> s3 [label=\"Crash(node=0, kill)\""), std::string::npos);
  EXPECT_NE(dot.find("s5 [label=\""), std::string::npos);
  EXPECT_NE(dot.find("VIOLATED: Property no-acked-loss"), std::string::npos);
  EXPECT_NE(dot.find("color=red"), std::string::npos);
  expect_dot_parses_if_available(dot);
}

TEST(RenderDot, EscapesQuotesAndRendersUnknownModels) {
  json trace = load_fixture(kGenericTrace);
  trace["steps"][2]["action_name"] = "Arm(\"now\")";
  const std::string dot = render_dot(trace);
  expect_dot_structure(dot, trace["steps"].size());
  EXPECT_NE(dot.find("label=\"Arm(\\\"now\\\")\""), std::string::npos) << dot;
  expect_dot_parses_if_available(dot);
}

// --- KRaft traces: the columns and words come from the trace's "model" -------------------

// A real KRaft trace from the corpus (counterexamples/corpus, regenerated from the model):
// Raft's figure 8 without the epoch-start rule for the HW.
json kraft_trace(const std::string& name = "kraft-hw-older-epoch") {
  return json::parse(trace_test::slurp(std::string(ISRCHECK_SOURCE_DIR) + "/counterexamples/corpus/" + name + ".json"));
}

TEST(RenderKraft, TextShowsEachVoterInKraftTerms) {
  const json trace = kraft_trace();
  ASSERT_EQ(trace.at("model"), "kraft");
  const std::string text = render_text(trace, 0);  // unfolded: one line per item
  EXPECT_NE(text.find("model kraft, found by bfs, 13 steps"), std::string::npos) << text;
  EXPECT_NE(text.find("log entries are epoch:writer"), std::string::npos);
  // The KRaft column set, none of the partition model's.
  const std::string titles = line_starting(step_section(text, 0), "voter");
  for (const char* title : {"process", "role", "epoch", "vote", "leader", "log (epoch:writer, | = HW)", "HW",
                            "as leader"}) {
    EXPECT_NE(titles.find(title), std::string::npos) << title << " in " << titles;
  }
  for (const char* partition_title : {"b.epoch", "view ISR", "HW ckpt", "in flight", "LEO"}) {
    EXPECT_EQ(text.find(partition_title), std::string::npos) << partition_title;
  }
  const std::vector<std::string> n0_at_start = {"N0", "up", "unattached", "0", "-", "-", "(empty)", "0", "-"};
  std::stringstream cells(line_starting(step_section(text, 0), "N0"));
  for (const std::string& expected : n0_at_start) {
    std::string cell;
    cells >> cell;
    EXPECT_EQ(cell, expected);
  }
  // Step 2: an election, in words and in the table (changes marked).
  const std::string step2 = step_section(text, 2);
  EXPECT_NE(step2.find("changed: voter 0: elected leader of epoch 1, appended 1:N0 at offset 0, epoch start "
                       "offset 0; voter 1: voted for N0 in epoch 1"),
            std::string::npos)
      << step2;
  EXPECT_NE(line_starting(step2, "N0").find("leader*"), std::string::npos) << step2;
  EXPECT_NE(line_starting(step2, "N1").find("voted*"), std::string::npos) << step2;
  // Step 12: the leader counts the follower whose response is lost and commits (1,0).
  const std::string step12 = step_section(text, 12);
  EXPECT_NE(step12.find("voter 0: HW 0 -> 1, sees N2 at end offset 1; quorum: committed 1:N0 from offset 0"),
            std::string::npos)
      << step12;
  EXPECT_NE(line_starting(step12, "N0").find("1:N0 | 3:N0"), std::string::npos) << step12;
  EXPECT_NE(step12.find("history: elected epoch 1 N0, epoch 2 N1, epoch 3 N0; committed 1:N0 (in epoch 3)"),
            std::string::npos)
      << step12;
  EXPECT_NE(text.find("VIOLATION: Property metadata-leader-completeness is violated at step 13: the leader N1 of "
                      "epoch 4 lacks the entry 1:N0 at offset 0, committed in epoch 3 (its log: 2:N1 4:N1)."),
            std::string::npos)
      << text;
}

TEST(RenderKraft, TheDoubleVoteNamesBothLeadersOfTheEpoch) {
  const std::string text = render_text(kraft_trace("kraft-vote-not-persisted"), 0);  // unfolded: one line per item
  EXPECT_NE(text.find("crashed (log and quorum-state file kept, in-memory state gone)"), std::string::npos) << text;
  EXPECT_NE(text.find("quorum: 2 leaders elected in epoch 1"), std::string::npos) << text;
  EXPECT_NE(text.find("were both elected leader (active controller) of epoch 1."), std::string::npos) << text;
}

TEST(RenderKraft, MarkdownMermaidAndDotUseKraftTermsToo) {
  const json trace = kraft_trace();
  const std::string markdown = render_markdown(trace);
  EXPECT_NE(markdown.find("| voter | process | role | epoch | vote | leader |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("**leader**"), std::string::npos);
  EXPECT_NE(markdown.find("`|` marks the high watermark"), std::string::npos);

  const std::string diagram = render_mermaid(trace);
  expect_valid_mermaid(diagram);
  EXPECT_EQ(diagram.find("participant Producer"), std::string::npos) << "a quorum has no clients";
  EXPECT_NE(diagram.find("  participant N2\n"), std::string::npos);
  EXPECT_NE(diagram.find("N0->>N1: 2. Vote(epoch 1)"), std::string::npos) << diagram;
  EXPECT_NE(diagram.find("N1-->>N0: vote granted"), std::string::npos) << diagram;
  EXPECT_NE(diagram.find("N0->>N2: 10. BeginQuorumEpoch(epoch 3)"), std::string::npos) << diagram;
  EXPECT_NE(diagram.find("N0-->>N2: response: 1:N0, HW 0"), std::string::npos) << diagram;
  EXPECT_NE(diagram.find("N0--xN2: response lost"), std::string::npos) << diagram;

  const std::string dot = render_dot(trace);
  expect_dot_structure(dot, trace["steps"].size());
  EXPECT_NE(dot.find("N0 up leader e3 vote 0 log 1:N0 | 3:N0"), std::string::npos) << dot;
  EXPECT_NE(dot.find("VIOLATED: Property metadata-leader-completeness"), std::string::npos);
  expect_dot_parses_if_available(dot);
}

// --- cluster traces: partition, KRaft voters and metadata records ------------------------

// The text must be for people: no JSON object, no JSON string, no raw log array.
void expect_no_raw_json(const std::string& text) {
  EXPECT_EQ(text.find('{'), std::string::npos) << text;
  EXPECT_EQ(text.find('"'), std::string::npos) << text;
  EXPECT_EQ(text.find("[["), std::string::npos) << text;
  EXPECT_EQ(text.find("records\": ["), std::string::npos);
}

TEST(RenderCluster, TextShowsTheAppendedRecordAndWhyItIsNotCommitted) {
  const json trace = kraft_trace("cluster-uncommitted-metadata");
  ASSERT_EQ(trace.at("model"), "cluster");
  const std::string text = render_text(trace, 0);  // unfolded: one line per item
  expect_no_raw_json(text);
  EXPECT_NE(text.find("KRaft bounds: epoch 2, lost responses 0, records 1"), std::string::npos) << text;
  // The partition part keeps the partition columns; the quorum is a table of voters.
  const std::string step0 = step_section(text, 0);
  EXPECT_NE(line_starting(step0, "node").find("view ISR"), std::string::npos) << step0;
  EXPECT_NE(step0.find("KRaft voters:"), std::string::npos) << step0;
  EXPECT_NE(line_starting(step0, "voter").find("metadata records"), std::string::npos) << step0;
  // Voter rows come after the node rows: the second "N2" line is voter N2, the leader.
  const size_t voters = step0.find("KRaft voters:");
  EXPECT_NE(line_starting(step0.substr(voters), "N2").find("leader"), std::string::npos) << step0;
  EXPECT_NE(step0.find("quorum: elected epoch 1 N2; committed 1:N2 (in epoch 1)"), std::string::npos) << step0;
  EXPECT_NE(step0.find("metadata: committed below offset 1 (image: leader N0, leader epoch 0, ISR [0,1], "
                       "partition epoch 0); records: none"),
            std::string::npos)
      << step0;
  // Step 3: the decision in protocol words, who appended it, where, and that it is not committed.
  const std::string step3 = step_section(text, 3);
  EXPECT_NE(step3.find("changed: controller N2: appended AlterPartition record PartitionChange(ISR [0,1] -> [0], "
                       "partition epoch 0 -> 1) at offset 1"),
            std::string::npos)
      << step3;
  EXPECT_NE(step3.find("node 0: HW 0 -> 1"), std::string::npos) << step3;
  EXPECT_NE(step3.find("records: AlterPartition record at offset 1 of N2 (uncommitted)"), std::string::npos)
      << step3;
  EXPECT_NE(line_starting(step3.substr(step3.find("KRaft voters:")), "N2").find("1: AlterPartition*"),
            std::string::npos)
      << step3;
  EXPECT_NE(text.find("VIOLATION: Property committed-metadata-only is violated at step 3: broker N0 acts on "
                      "partition epoch 1 (leader N0, leader epoch 0, ISR [0]), which no committed metadata record "
                      "produced: it comes from the AlterPartition record at offset 1 of N2 (uncommitted); the "
                      "quorum has committed only offsets below 1."),
            std::string::npos)
      << text;
}

// The same decision with the fix on (Kafka), carried on until the quorum commits it:
// built from the model, so the words follow what the model really does.
json committed_decision_trace() {
  using isr::spec::cluster::ClusterAction;
  using isr::spec::cluster::ClusterModel;
  using isr::spec::cluster::ClusterState;
  const ClusterModel model(isr::spec::cluster::default_config());
  std::vector<ClusterState> states = {model.initial_states().front()};
  std::vector<ClusterAction> actions;
  auto take = [&](const std::string& prefix) {
    std::vector<ClusterAction> enabled;
    model.for_each_action(states.back(), [&](const ClusterAction& a) { enabled.push_back(a); });
    for (const ClusterAction& a : enabled) {
      if (model.action_name(a).rfind(prefix, 0) != 0) continue;
      actions.push_back(a);
      states.push_back(model.next_state(states.back(), a));
      return true;
    }
    return false;
  };
  auto committed_offset = [&] { return model.state_to_json(states.back())["metadata"]["committed_offset"]; };
  for (const char* prefix : {"Produce(broker=0", "ShrinkIsr(leader=0, follower=1)",
                             "AlterPartition(leader=0) by controller 2"}) {
    EXPECT_TRUE(take(prefix)) << prefix;
  }
  for (int i = 0; i < 3 && committed_offset() == 1; ++i) EXPECT_TRUE(take("KraftFetch(follower=0"));
  EXPECT_EQ(committed_offset(), 2);
  EXPECT_TRUE(take("MetadataUpdate(broker=1)"));
  json steps = json::array();
  for (size_t i = 0; i < states.size(); ++i) {
    json step = {{"index", i}, {"action", nullptr}, {"action_name", "Init"}};
    if (i > 0) {
      step["action"] = model.action_to_json(actions[i - 1]);
      step["action_name"] = model.action_name(actions[i - 1]);
    }
    step["state"] = model.state_to_json(states[i]);
    steps.push_back(std::move(step));
  }
  return make_trace("cluster", model.config_json(), "committed-metadata-only", "", "simulate", std::move(steps));
}

TEST(RenderCluster, ACommitSaysWhatBrokersMayNowSeeAndAnswersTheLeader) {
  const json trace = committed_decision_trace();
  ASSERT_NO_THROW(check_trace(trace));
  const std::string text = render_text(trace, 0);  // unfolded: one line per item
  expect_no_raw_json(text);
  const std::string step3 = step_section(text, 3);
  EXPECT_NE(step3.find("controller N2: appended AlterPartition record PartitionChange(ISR [0,1] -> [0], "
                       "partition epoch 0 -> 1) at offset 1"),
            std::string::npos)
      << step3;
  EXPECT_NE(step3.find("metadata: the alter-partition answer to N0 waits until the AlterPartition record commits"),
            std::string::npos)
      << step3;
  // Nothing changes for the brokers at the append: the leader still has ISR [0,1].
  EXPECT_EQ(step3.find("node 0: HW"), std::string::npos) << step3;
  EXPECT_EQ(step3.find("controller: partition epoch"), std::string::npos) << step3;
  const size_t commit = text.find("quorum: committed offset 1 (AlterPartition record): brokers may now see partition "
                                  "epoch 1 (leader N0, leader epoch 0, ISR [0])");
  ASSERT_NE(commit, std::string::npos) << text;
  const std::string commit_step = text.substr(text.rfind("\nStep ", commit));
  EXPECT_NE(text.find("voter 0: appended AlterPartition record PartitionChange(ISR [0,1] -> [0], partition epoch 0 "
                      "-> 1) at offset 1"),
            std::string::npos)
      << text;
  EXPECT_NE(commit_step.find("metadata: N0 gets its alter-partition answer (AlterPartition record (partition epoch 1))"),
            std::string::npos)
      << commit_step;
  EXPECT_NE(commit_step.find("controller: partition epoch 0 -> 1, ISR [0,1] -> [0]"), std::string::npos)
      << commit_step;
  EXPECT_NE(text.find("records: AlterPartition record at offset 1 of N0, offset 1 of N2 (committed)"),
            std::string::npos)
      << text;
}

TEST(RenderCluster, MarkdownMermaidAndDotShowTheQuorumAndRecordsToo) {
  const json trace = kraft_trace("cluster-uncommitted-metadata");
  const std::string markdown = render_markdown(trace);
  EXPECT_NE(markdown.find("KRaft voters:\n\n| voter | process | role | epoch |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("**changed:** controller N2: appended AlterPartition record"), std::string::npos)
      << markdown;
  EXPECT_EQ(markdown.find('{'), std::string::npos) << markdown;

  const std::string diagram = render_mermaid(trace);
  expect_valid_mermaid(diagram);
  EXPECT_NE(diagram.find("Note over Controller: 3. AlterPartition(leader=0) by controller 2<br/>controller N2: "
                         "appended AlterPartition record"),
            std::string::npos)
      << diagram;
  EXPECT_EQ(diagram.find('{'), std::string::npos) << diagram;

  const std::string dot = render_dot(trace);
  expect_dot_structure(dot, trace["steps"].size());
  EXPECT_NE(dot.find("quorum:\\lN0 up follower e1 vote 2 log 1:N2 |"), std::string::npos) << dot;
  EXPECT_NE(dot.find("records: AlterPartition record at offset 1 of N2 (uncommitted)"), std::string::npos) << dot;
  EXPECT_NE(dot.find("VIOLATED: Property committed-metadata-only"), std::string::npos);
  expect_dot_parses_if_available(dot);
}

TEST(RenderFormats, ParseByNameAndDispatch) {
  const json trace = load_fixture(kLossTrace);
  for (RenderFormat format : all_render_formats()) {
    const auto parsed = parse_render_format(render_format_name(format));
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(*parsed, format);
  }
  EXPECT_FALSE(parse_render_format("svg").has_value());
  EXPECT_EQ(render_trace(trace, RenderFormat::Mermaid), render_mermaid(trace));
  EXPECT_EQ(render_trace(trace, RenderFormat::Dot), render_dot(trace));
}

// check_trace names the field at fault.
std::string check_error(const json& trace) {
  try {
    check_trace(trace);
  } catch (const TraceFormatError& e) {
    return e.field;
  }
  return "(accepted)";
}

TEST(TraceCheck, AcceptsTheFixtures) {
  EXPECT_EQ(check_error(load_fixture(kLossTrace)), "(accepted)");
  EXPECT_EQ(check_error(load_fixture(kGenericTrace)), "(accepted)");
}

TEST(TraceCheck, NamesTheMissingOrWrongField) {
  const json good = load_fixture(kLossTrace);
  auto without = [&](const json::json_pointer& pointer) {
    json t = good;
    t.at(pointer.parent_pointer()).erase(pointer.back());
    return t;
  };
  EXPECT_EQ(check_error(without(json::json_pointer("/format"))), "format");
  EXPECT_EQ(check_error(without(json::json_pointer("/version"))), "version");
  EXPECT_EQ(check_error(without(json::json_pointer("/model"))), "model");
  EXPECT_EQ(check_error(without(json::json_pointer("/config"))), "config");
  EXPECT_EQ(check_error(without(json::json_pointer("/property"))), "property");
  EXPECT_EQ(check_error(without(json::json_pointer("/steps"))), "steps");
  EXPECT_EQ(check_error(without(json::json_pointer("/steps/3/state"))), "steps[3].state");
  EXPECT_EQ(check_error(without(json::json_pointer("/steps/2/action"))), "steps[2].action");
  EXPECT_EQ(check_error(without(json::json_pointer("/steps/1/index"))), "steps[1].index");

  json t = good;
  t["version"] = 2;
  EXPECT_EQ(check_error(t), "version");
  t = good;
  t["format"] = "something-else";
  EXPECT_EQ(check_error(t), "format");
  t = good;
  t["steps"] = json::array();
  EXPECT_EQ(check_error(t), "steps");
  t = good;
  t["steps"][4]["index"] = 7;
  EXPECT_EQ(check_error(t), "steps[4].index");
  t = good;
  t["steps"][0]["action"] = {{"kind", "Produce"}};
  EXPECT_EQ(check_error(t), "steps[0].action");
  t = good;
  t["steps"][2]["action"] = {{"broker", 0}};
  EXPECT_EQ(check_error(t), "steps[2].action");
  EXPECT_EQ(check_error(json::array()), "(document)");
}

TEST(JsonDiff, ReportsLeafPathsWithExpectedAndFound) {
  const json expected = {{"a", {{"b", 1}, {"c", {1, 2}}}}, {"list", {{{"x", 1}}, {{"x", 2}}}}};
  json found = expected;
  found["a"]["b"] = 2;
  found["list"][1]["x"] = 3;
  found["new"] = true;
  const json report = json_diff_report(expected, found);
  EXPECT_EQ(report.size(), 3u) << report.dump();
  EXPECT_EQ(report["a.b"], json({{"expected", 1}, {"found", 2}}));
  EXPECT_EQ(report["list[1].x"], json({{"expected", 2}, {"found", 3}}));
  EXPECT_EQ(report["new"], json({{"expected", "<absent>"}, {"found", true}}));
  EXPECT_TRUE(json_diff(expected, expected).empty());
}

// `isrcheck render` end to end (ISRCHECK_BINARY).
TEST(RenderCli, WritesEachFormatAndHonoursOut) {
  const std::string fixture = trace_test::fixture_path(kLossTrace);
  const trace_test::Run text = trace_test::run_isrcheck("render '" + fixture + "'");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out, render_text(load_fixture(kLossTrace)));

  const std::string out = trace_test::temp_path(".mmd");
  const trace_test::Run mermaid =
      trace_test::run_isrcheck("render '" + fixture + "' --format mermaid --out '" + out + "'");
  ASSERT_EQ(mermaid.exit_code, 0) << mermaid.err;
  EXPECT_EQ(mermaid.out, "");
  EXPECT_EQ(trace_test::slurp(out), render_mermaid(load_fixture(kLossTrace)));
  std::remove(out.c_str());

  const trace_test::Run markdown = trace_test::run_isrcheck("render '" + fixture + "' --format markdown");
  EXPECT_EQ(markdown.exit_code, 0);
  EXPECT_EQ(markdown.out, render_markdown(load_fixture(kLossTrace)));
  const trace_test::Run dot = trace_test::run_isrcheck("render '" + fixture + "' --format dot");
  EXPECT_EQ(dot.exit_code, 0);
  EXPECT_EQ(dot.out, render_dot(load_fixture(kLossTrace)));
}

TEST(RenderCli, BadInputExitsWithTwoNamingTheField) {
  const std::string fixture = trace_test::fixture_path(kLossTrace);
  trace_test::Run r = trace_test::run_isrcheck("render '" + fixture + "' --format svg");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--format"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("mermaid"), std::string::npos) << r.err;

  r = trace_test::run_isrcheck("render /nonexistent/trace.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/trace.json"), std::string::npos) << r.err;

  json trace = load_fixture(kLossTrace);
  trace["steps"][3].erase("state");
  const std::string broken = trace_test::write_temp(trace.dump());
  r = trace_test::run_isrcheck("render '" + broken + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("steps[3].state: missing"), std::string::npos) << r.err;
  std::remove(broken.c_str());

  const std::string not_json = trace_test::write_temp("{\"format\": ");
  r = trace_test::run_isrcheck("render '" + not_json + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not valid JSON"), std::string::npos) << r.err;
  std::remove(not_json.c_str());
}

}  // namespace
}  // namespace isr::counterexamples
