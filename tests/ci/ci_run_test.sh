#!/usr/bin/env bash
# Tests .ci/run's order of work on stand-ins for scripts/test.sh, build.sh and fuzz.sh
# (nothing is built): the plain build, then the plain tests with the instrumented builds
# beside them at nice 19 (a plain test waits for the sanitizer build to start and the
# build for the tests: run one after the other, either would time out), then the sanitizer pass and fuzzing; a failed
# instrumented build fails CI before the sanitizer pass. Usage: ci_run_test.sh REPO_ROOT.
set -uo pipefail
root="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

tree="$work/tree"
mkdir -p "$tree/.ci" "$tree/scripts"
cp "$root/.ci/run" "$tree/.ci/run"
cp "$root/scripts/phase_time.sh" "$root/scripts/beside.sh" "$tree/scripts/"
calls="$work/calls"
# Each stand-in appends its command line and niceness to $calls.
cat >"$tree/scripts/test.sh" <<STUB
#!/usr/bin/env bash
echo "test.sh \$* (nice \$(nice))" >>"$calls"
if [[ "\${1:-}" == --build-only ]]; then
  mkdir -p "$tree/build"
  # A plain test that passes once the sanitizer build has started beside it.
  cat >"$tree/build/CTestTestfile.cmake" <<'CT'
add_test(waits_for_the_build bash -c "touch $work/tests-started; for i in \$(seq 600); do [ -e $work/asan-started ] && exit 0; sleep 0.1; done; exit 1")
CT
fi
STUB
cat >"$tree/scripts/build.sh" <<STUB
#!/usr/bin/env bash
echo "build.sh \$* (nice \$(nice))" >>"$calls"
touch "$work/asan-started"
# Beside the plain tests: they must have started before this build ends.
for i in \$(seq 600); do [[ -e "$work/tests-started" ]] && break; sleep 0.1; done
[[ -e "$work/tests-started" && ! -e "$work/fail-build" ]]
STUB
cat >"$tree/scripts/fuzz.sh" <<STUB
#!/usr/bin/env bash
echo "fuzz.sh \$* (nice \$(nice))" >>"$calls"
STUB
chmod +x "$tree/.ci/run" "$tree/scripts/"*.sh

"$tree/.ci/run" >"$work/out" 2>&1
status=$?
[[ $status -eq 0 ]] || fail ".ci/run exited $status: $(tail -20 "$work/out")"
n="$(nice)"  # the caller's niceness; the builds run at 19
expected="test.sh --build-only (nice $n)
build.sh --sanitize (nice 19)
fuzz.sh --build (nice 19)
test.sh --sanitize -LE slow|kafka (nice $n)
fuzz.sh --all 30 (nice $n)"
[[ "$(cat "$calls")" == "$expected" ]] || fail "calls, in order:
$(cat "$calls")"
grep -q '^ci: every phase passed$' "$work/out" || fail "no final line: $(tail -5 "$work/out")"
grep -q '^phase: ci: instrumented builds beside the plain tests (nice 19): [0-9]* s wall' "$work/out" ||
  fail "the builds' phase line is missing"

# A failed instrumented build fails CI, and nothing runs after it.
rm -f "$calls" "$work/asan-started" "$work/tests-started"
touch "$work/fail-build"
"$tree/.ci/run" >"$work/out2" 2>&1
status=$?
[[ $status -ne 0 ]] || fail ".ci/run passed with a failed sanitizer build"
grep -q 'test.sh --sanitize' "$calls" && fail "the sanitizer pass ran after a failed build"
grep -q '^ci: the instrumented builds failed' "$work/out2" || fail "no message for the failed builds: $(tail -5 "$work/out2")"

if ((failures > 0)); then
  echo "ci_run_test: $failures check(s) failed" >&2
  exit 1
fi
echo "ci_run_test: .ci/run runs its phases in order, the instrumented builds beside the plain tests"
