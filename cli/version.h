// What `isrcheck --version` prints: the project's version (CMakeLists.txt), the git
// revision the binary was built from (written at build time by scripts/revision.cmake,
// "-dirty" when tracked files had changed) and the build type; and where this build
// keeps the diagram renderer of the matrix HTML report.
#pragma once

#include <string>

namespace isr::cli {

extern const char* const kVersion;
extern const char* const kRevision;
extern const char* const kBuildType;
// The mermaid.min.js `matrix --html` embeds by default (CMake's ISRCHECK_MERMAID_JS).
extern const char* const kMermaidJs;
// The vega.min.js `research unclean --html` embeds by default (CMake's ISRCHECK_VEGA_JS).
extern const char* const kVegaJs;

// "isrcheck 0.1.0 (revision 1916dc3a1b2c, Release build)".
inline std::string version_text() {
  return std::string("isrcheck ") + kVersion + " (revision " + kRevision + ", " + kBuildType + " build)";
}

}  // namespace isr::cli
