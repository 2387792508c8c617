#!/usr/bin/env bash
# Fetches the diagram renderer that `isrcheck matrix --html` embeds in its report, so
# that the report draws its sequence diagrams with no network: mermaid's prebuilt
# dist/mermaid.min.js, pinned, from the npm registry (scripts/fetch-npm.sh), into
# build/third_party/mermaid-<version>/ or the directory given. Prints the file's path.
set -euo pipefail

version=11.6.0
# The registry's "integrity" of mermaid-11.6.0.tgz (sha512-PE8hGUy1...), in hex for sha512sum.
sha512=3c4f21194cb52c39562075813f4e5215da941c699170270ae08ce938a3c4df978ec3e1bdcd981c9cca72ba72555043a06fffca04e44f8f2b0a9ddc3c6c52ee46

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_root="${ISRCHECK_BUILD_ROOT:-$root}"
exec "$root/scripts/fetch-npm.sh" mermaid "$version" "$sha512" dist/mermaid.min.js \
  "${1:-$build_root/build/third_party/mermaid-$version}"
