// Replays inputs through a fuzz target without libFuzzer: `fuzz_<kind>_replay FILE|DIR...`
// calls LLVMFuzzerTestOneInput once per file (a directory: each file in it, in name
// order). The regression inputs and the seed corpora run this way in every build
// (ctest fuzz_replay_<kind>), so that a fixed bug stays fixed without clang.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/harness.h"

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg = argv[i];
    if (fs::is_directory(arg)) {
      std::vector<fs::path> in_dir;
      for (const auto& entry : fs::directory_iterator(arg))
        if (entry.is_regular_file()) in_dir.push_back(entry.path());
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else if (fs::is_regular_file(arg)) {
      files.push_back(arg);
    } else {
      std::fprintf(stderr, "%s: no such file or directory\n", argv[i]);
      return 2;
    }
  }
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "replaying %s (%zu bytes)\n", file.c_str(), bytes.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::fprintf(stderr, "%zu inputs replayed, none ended in an internal error or a crash\n", files.size());
  return files.empty() ? 2 : 0;
}
