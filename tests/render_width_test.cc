// Traces for people on a terminal and in a diagram (issue 12 point 6), over every trace
// of the shipped corpus: text fits 120 columns (wider node tables fold, each part
// starting with the node column, and lose no cell); mermaid draws no reply for an
// acks=all produce still waiting for the ISR, has no Consumer lane when the
// configuration has no consumer, and wraps long notes.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "counterexamples/render/render.h"
#include "tests/trace_test_support.h"

namespace {

using nlohmann::json;
using isr::counterexamples::render_mermaid;
using isr::counterexamples::render_text;

// Every trace under counterexamples/corpus/ (in any sub-folder) and the test fixtures.
std::vector<std::pair<std::string, json>> corpus_traces() {
  std::vector<std::pair<std::string, json>> traces;
  const std::filesystem::path source(ISRCHECK_SOURCE_DIR);
  for (const auto& root : {source / "counterexamples" / "corpus", source / "tests" / "data"})
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
    const json j = json::parse(isr::trace_test::slurp(entry.path().string()), nullptr, false);
    if (j.is_object() && j.value("format", "") == "isrcheck-trace") {
      traces.emplace_back(entry.path().filename().string(), j);
    }
  }
  return traces;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> words_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

TEST(RenderWidth, CorpusIsNotEmpty) { EXPECT_GE(corpus_traces().size(), 10u); }

TEST(RenderWidth, TextFitsA120ColumnTerminal) {
  size_t widest_unfolded = 0;
  for (const auto& [name, trace] : corpus_traces()) {
    for (const std::string& line : lines_of(render_text(trace))) {
      EXPECT_LE(line.size(), 120u) << name << ": " << line;
    }
    for (const std::string& line : lines_of(render_text(trace, 0))) widest_unfolded = std::max(widest_unfolded, line.size());
  }
  EXPECT_GT(widest_unfolded, 200u);  // the corpus has tables and lines that need folding
}

TEST(RenderWidth, FoldingLosesNoWord) {
  // The same words in the same order; only line breaks, padding and the repeated node
  // column and table headings of a folded table differ.
  for (const auto& [name, trace] : corpus_traces()) {
    std::multiset<std::string> folded;
    for (const std::string& w : words_of(render_text(trace))) folded.insert(w);
    for (const std::string& w : words_of(render_text(trace, 0))) {
      const auto it = folded.find(w);
      ASSERT_NE(it, folded.end()) << name << ": the word '" << w << "' is lost by folding";
      folded.erase(it);
    }
  }
}

TEST(RenderWidth, FoldedTablesRepeatTheNodeColumn) {
  int folded_tables = 0;
  for (const auto& [name, trace] : corpus_traces()) {
    const std::vector<std::string> lines = lines_of(render_text(trace));
    for (size_t i = 0; i + 1 < lines.size(); ++i) {
      const bool rule = lines[i + 1].find_first_not_of(" -") == std::string::npos &&
                        lines[i + 1].find('-') != std::string::npos;
      if (!rule) continue;
      // Every table part (a heading line above a rule) starts with the node's column.
      const std::string heading = lines[i].substr(lines[i].find_first_not_of(' '));
      if (heading.rfind("node ", 0) == 0 && i >= 2 && lines[i - 1].rfind("  N", 0) == 0) ++folded_tables;
      EXPECT_TRUE(heading.rfind("node ", 0) == 0 || heading.rfind("voter ", 0) == 0 ||
                  heading.rfind("broker ", 0) == 0)
          << name << ": " << lines[i];
    }
  }
  EXPECT_GT(folded_tables, 0);  // some table of the corpus is wider than 120 columns
}

TEST(RenderWidth, MermaidDrawsNoReplyForAProduceWaitingForTheIsr) {
  int waiting = 0;
  for (const auto& [name, trace] : corpus_traces()) {
    const std::string diagram = render_mermaid(trace);
    for (const std::string& line : lines_of(diagram)) {
      if (line.find("-->>Producer") != std::string::npos) {
        EXPECT_EQ(line.find("waiting for acks"), std::string::npos) << name << ": " << line;
      }
      if (line.rfind("  Note over N", 0) == 0 && line.find("waits for the ISR's acks (no response yet)") != std::string::npos) {
        ++waiting;
      }
    }
  }
  EXPECT_GT(waiting, 0);  // acks=all traces of the corpus have a produce waiting for the ISR
}

TEST(RenderWidth, MermaidHasAConsumerLaneOnlyWithAConsumer) {
  int without = 0;
  int with = 0;
  for (const auto& [name, trace] : corpus_traces()) {
    if (trace.value("model", "") != "partition") continue;
    const bool consumer = trace.at("config").value("consumer", true);
    const bool lane = render_mermaid(trace).find("  participant Consumer\n") != std::string::npos;
    EXPECT_EQ(lane, consumer) << name;
    ++(consumer ? with : without);
  }
  EXPECT_GT(without, 0);
  EXPECT_GT(with, 0);
}

TEST(RenderWidth, MermaidWrapsLongNotes) {
  for (const auto& [name, trace] : corpus_traces()) {
    for (const std::string& line : lines_of(render_mermaid(trace))) {
      if (line.rfind("  Note over ", 0) != 0) continue;
      const bool span = line.substr(0, line.find(':')).find(',') != std::string::npos;
      const size_t limit = span ? 100 : 60;
      std::string text = line.substr(line.find(": ") + 2);
      size_t at = 0;
      while (at <= text.size()) {
        const size_t end = std::min(text.find("<br/>", at), text.size());
        const std::string piece = text.substr(at, end - at);
        // A piece may pass the limit only when it is a single word.
        if (piece.size() > limit) {
          EXPECT_EQ(piece.find(' '), std::string::npos) << name << ": " << piece;
        }
        at = end + 5;
      }
    }
  }
}

}  // namespace
