// The fix side of every corpus pair (analysis/corpus.h, docs/corpus.md): under the
// fixing configuration the hazard is not found within the entry's bounds. These are
// exhaustive checks that hold, so each explores its whole state space (seconds each,
// tens of seconds for the entries marked slow): hence a slow test, one case per entry.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/corpus.h"

namespace isr::analysis {
namespace {

const Manifest& corpus() {
  static const Manifest manifest =
      load_manifest(std::string(ISRCHECK_SOURCE_DIR) + "/counterexamples/corpus/manifest.json");
  return manifest;
}

std::vector<std::string> entry_names() {
  std::vector<std::string> names;
  for (const CorpusEntry& entry : corpus().entries) names.push_back(entry.name);
  return names;
}

class CorpusFix : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusFix, TheFixRemovesTheHazard) {
  const CorpusEntry& entry = find_entry(corpus(), GetParam());
  const SideResult fixed = run_fix(entry, {.threads = 2});
  EXPECT_EQ(fix_problem(entry, fixed), "");
  EXPECT_EQ(fixed.verdict, entry.fix_expected);
  if (entry.kind == EntryKind::Safety) {
    EXPECT_TRUE(fixed.trace.is_null()) << "a property that holds has no trace";
  }
  // The pair differs only by the fix: the unsafe side still shows the hazard.
  EXPECT_EQ(unsafe_problem(entry, run_unsafe(entry, {.threads = 2})), "");
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusFix, ::testing::ValuesIn(entry_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) c = c == '-' ? '_' : c;
                           return name;
                         });

}  // namespace
}  // namespace isr::analysis
