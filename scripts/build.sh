#!/usr/bin/env bash
# Configures and builds isrcheck: build/ (Release), or build-asan/ with --sanitize
# (AddressSanitizer + UBSan). `--tests plain` compiles in build/ only the tests that the
# plain pass of scripts/test.sh runs (CMakeLists.txt, ISRCHECK_TESTS; default: every
# test). Further arguments go to `cmake --build`, for instance
# `scripts/build.sh --target isrcheck`. ISRCHECK_JOBS sets the parallelism.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_root="${ISRCHECK_BUILD_ROOT:-$root}"  # where build/ and build-asan/ go
build_dir="$build_root/build"
sanitize=OFF
tests=all
while [[ "${1:-}" == --sanitize || "${1:-}" == --tests ]]; do
  if [[ "$1" == --sanitize ]]; then
    build_dir="$build_root/build-asan"
    sanitize=ON
    shift
  else
    [[ "${2:-}" == all || "${2:-}" == plain ]] ||
      { echo "build.sh: --tests must be all or plain, not '${2:-}'" >&2; exit 2; }
    tests="$2"
    shift 2
  fi
done
jobs="${ISRCHECK_JOBS:-$(nproc)}"

configure=(-S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DISRCHECK_SANITIZE="$sanitize"
           -DISRCHECK_TESTS="$tests")
# The generator is fixed at the first configure; pick Ninja when there is one.
if [[ ! -f "$build_dir/CMakeCache.txt" ]] && command -v ninja >/dev/null; then
  configure+=(-G Ninja)
fi
# The renderer `isrcheck matrix --html` embeds (pinned, from the npm registry; idempotent).
# Without it everything builds, and `matrix --html` says how to get it.
if mermaid_js="$("$root/scripts/fetch-mermaid.sh")"; then
  configure+=(-DISRCHECK_MERMAID_JS="$mermaid_js")
else
  echo "build.sh: warning: scripts/fetch-mermaid.sh failed: matrix --html will say how to get mermaid" >&2
fi
# The plotting library `isrcheck research unclean --html` embeds (pinned, npm; idempotent).
if vega_js="$("$root/scripts/fetch-vega.sh")"; then
  configure+=(-DISRCHECK_VEGA_JS="$vega_js")
else
  echo "build.sh: warning: scripts/fetch-vega.sh failed: research --html will say how to get vega" >&2
fi
cmake "${configure[@]}" >/dev/null
cmake --build "$build_dir" -j "$jobs" "$@"
