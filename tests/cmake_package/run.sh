#!/usr/bin/env bash
# Installs isrcheck's build into a fresh prefix, then configures, builds and runs the
# separate project beside this script against it (find_package(isrcheck)), with a test
# that `isrcheck export --format gtest` wrote. Passes when the user's test, linked in one
# line, passes on the model adapter. CXX_FLAGS (optional): the flags the installed
# libraries need at the user's compile and link (a sanitizer build's -fsanitize=...).
# Usage: run.sh BUILD_DIR GENERATED_TEST.cc WORK_DIR [CXX_FLAGS]
set -euo pipefail
if (($# < 3 || $# > 4)); then
  echo "usage: $0 BUILD_DIR GENERATED_TEST.cc WORK_DIR [CXX_FLAGS]" >&2
  exit 2
fi
build_dir=$1 test_source=$2 work=$3 flags=${4:-}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build_dir" --prefix "$work/prefix" >"$work/install.log"
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
cmake -S "$here" -B "$work/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DSCENARIO_TEST="$test_source" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="$flags" >"$work/configure.log"
cmake --build "$work/build" >"$work/build.log"
"$work/build/user_scenario_test"
