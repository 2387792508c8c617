#!/usr/bin/env bash
# Installs dependencies, builds everything and runs every test, each test once, in the
# build that checks the most it can run in (.ci/README.md, "Every test runs once"):
#   - the sanitizer pass (build-asan/: AddressSanitizer + UBSan) runs the fast tests, the
#     browser and FUSE tests, the generated scenario tests and the fuzz regression replays;
#   - the plain pass (build/, Release) runs what cannot or need not run instrumented: the
#     `kafka` tests (the cluster is Java), `mpi` (OpenMPI's allocations read as leaks),
#     `slow` (long exhaustive runs of code the fast tests run), and label `plain` (the
#     ISRCHECK_PLAIN_PASS_ONLY cases of CMakeLists.txt: the largest searches, and tests that
#     cannot start under ASan). build/ then holds only those tests (`--tests plain`).
# The sanitizer build runs beside the plain tests at the lowest priority (nice 19): the
# kafka tests leave CPU idle while they wait on their JVMs.
# With --sanitize, only the sanitizer pass (build-asan/ holds only what it runs). Further
# arguments go to ctest in each pass, for instance
# `scripts/test.sh -LE kafka` or `scripts/test.sh --sanitize -R config`.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_root="${ISRCHECK_BUILD_ROOT:-$root}"  # where build/ and build-asan/ go
sanitize_only=0
if [[ "${1:-}" == --sanitize ]]; then
  sanitize_only=1
  shift
fi
# Stop at the first report, with a stack, so that a finding fails its test.
asan_env=(ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1}"
          UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}")
jobs="${ISRCHECK_TEST_JOBS:-2}"

source "$root/scripts/phase_time.sh"
phase "test.sh: install-deps" "$root/scripts/install-deps.sh"
source "$root/scripts/beside.sh"
trap beside_stop EXIT
sanitizer_ctest() {
  phase "test.sh: sanitizer pass: ctest $build_root/build-asan" \
    env "${asan_env[@]}" ctest --test-dir "$build_root/build-asan" --output-on-failure -j "$jobs" "$@"
}
# After a failed pass: which tests failed and the end of their output, where a CI log
# shown by its tail still shows it (scripts/ctest_failures.sh), then the pass named.
report_failed_pass() {
  "$root/scripts/ctest_failures.sh" "$1" >&2 || true
  echo "test.sh: the $2 pass failed (above)" >&2
}
# What only the tests need is downloaded and installed beside the build, which needs none
# of it: on a fresh machine these steps wait on the network, the build on the CPU
# (.ci/README.md: the budget). Their output is printed after the build.
installs() {
  # Headless Chromium for the browser tests of the HTML reports and explore (label
  # `browser`, in the sanitizer pass).
  phase "test.sh: install-browser" "$root/scripts/install-browser.sh"
  ((sanitize_only)) && return
  # The conformance tests (ctest label `kafka`) run real Apache Kafka: a JDK, Maven, the
  # driver jar and Kafka's jars (scripts/install-kafka.sh, idempotent). 3.9.1 too: the
  # release pair (issue 16 point 7) runs its 3.9 half on it; 3.4.1 and 3.5.2 for KIP-903's
  # generation step (issue 28 item 5; kafka_2.13 and its dependencies through
  # conformance/kafka-legacy, from Maven Central once, then ~/.m2).
  phase "test.sh: install-kafka" "$root/scripts/install-kafka.sh" --kafka-version 4.4.0 --kafka-version 3.9.1 \
    --kafka-version 3.4.1 --kafka-version 3.5.2
}
# The first build of this run (build.sh arguments), with the installs beside it.
first_build() {
  beside_start installs
  local build_status=0 installs_status=0
  phase "test.sh: build $1" "$root/scripts/build.sh" "${@:2}" || build_status=$?
  beside_wait || installs_status=$?
  ((build_status == 0)) || exit "$build_status"
  ((installs_status == 0)) || { echo "test.sh: installing the test dependencies failed (above)" >&2; exit "$installs_status"; }
}
if ((sanitize_only)); then
  first_build "$build_root/build-asan" --sanitize
  sanitizer_status=0
  sanitizer_ctest "$@" || sanitizer_status=$?
  ((sanitizer_status == 0)) || report_failed_pass "$build_root/build-asan" sanitizer
  exit "$sanitizer_status"
fi
first_build "$build_root/build (the plain pass's tests)" --tests plain

beside_start -n 19 phase "test.sh: build $build_root/build-asan beside the plain tests (nice 19)" \
  "$root/scripts/build.sh" --sanitize
plain_status=0
phase "test.sh: plain pass: ctest $build_root/build" \
  ctest --test-dir "$build_root/build" --output-on-failure -j "$jobs" -L '^(slow|mpi|kafka|plain)$' "$@" ||
  plain_status=$?
beside_wait || { echo "test.sh: the sanitizer build failed (above)" >&2; exit 1; }
# Both passes run even when the first fails: one run shows every failure.
sanitizer_status=0
sanitizer_ctest "$@" || sanitizer_status=$?
((plain_status == 0)) || report_failed_pass "$build_root/build" plain
((sanitizer_status == 0)) || report_failed_pass "$build_root/build-asan" sanitizer
((plain_status == 0 && sanitizer_status == 0))
