#!/usr/bin/env bash
# Installs dependencies, builds everything and runs every test. With --sanitize the
# build and the tests use AddressSanitizer + UBSan (build-asan/). With --build-only it
# stops after the build (.ci/run then runs the tests itself, beside its instrumented
# builds). Further arguments go to ctest, for instance `scripts/test.sh --sanitize -LE slow`
# or `-R config`.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_root="${ISRCHECK_BUILD_ROOT:-$root}"  # where build/ and build-asan/ go
build_dir="$build_root/build"
build_args=()
build_only=0
while [[ "${1:-}" == --sanitize || "${1:-}" == --build-only ]]; do
  if [[ "$1" == --sanitize ]]; then
    build_dir="$build_root/build-asan"
    build_args=(--sanitize)
    # Stop at the first report, with a stack, so that a finding fails its test.
    export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1}"
    export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
  else
    build_only=1
  fi
  shift
done

source "$root/scripts/phase_time.sh"
pass="test.sh${build_args[*]:+ ${build_args[*]}}"
phase "$pass: install-deps" "$root/scripts/install-deps.sh"
# What only the tests need is downloaded and installed beside the build, which needs none
# of it: on a fresh machine these steps wait on the network, the build on the CPU
# (.ci/README.md: the budget). Their output is printed after the build.
installs() {
  # Headless Chromium for the browser tests of the HTML reports and explore (label `browser`).
  phase "$pass: install-browser" "$root/scripts/install-browser.sh"
  # The conformance tests (ctest label `kafka`) run real Apache Kafka: a JDK, Maven, the
  # driver jar and Kafka's jars (scripts/install-kafka.sh, idempotent). The sanitizer pass
  # excludes them (.ci/run: -LE 'slow|kafka'): nothing of ours is instrumented in a JVM.
  if [[ -z "${build_args[*]}" ]]; then
    # 3.9.1 too: the release pair (issue 16 point 7) runs its 3.9 half on it; 3.4.1 and
    # 3.5.2 for KIP-903's generation step (issue 28 item 5; kafka_2.13 and its dependencies
    # through conformance/kafka-legacy, from Maven Central once, then ~/.m2).
    phase "$pass: install-kafka" "$root/scripts/install-kafka.sh" --kafka-version 4.4.0 --kafka-version 3.9.1 \
      --kafka-version 3.4.1 --kafka-version 3.5.2
  fi
}
source "$root/scripts/beside.sh"
trap beside_stop EXIT
beside_start installs
# Build and test times are printed apart, wall and CPU (.ci/README.md: the budget).
build_status=0
phase "$pass: build $build_dir" "$root/scripts/build.sh" "${build_args[@]}" || build_status=$?
installs_status=0
beside_wait || installs_status=$?
((build_status == 0)) || exit "$build_status"
((installs_status == 0)) || { echo "test.sh: installing the test dependencies failed (above)" >&2; exit "$installs_status"; }
((build_only == 0)) || exit 0
phase "$pass: ctest" ctest --test-dir "$build_dir" --output-on-failure -j "${ISRCHECK_TEST_JOBS:-2}" "$@"
