#!/usr/bin/env bash
# Tests .ci/run's order of work on stand-ins for scripts/install-deps.sh, test.sh and
# fuzz.sh (nothing is built): every package first, then scripts/test.sh with the fuzz
# build beside it at nice 19 (the test stand-in waits for the fuzz build to start and the
# build for the tests: run one after the other, either would time out), then fuzzing; a
# failed fuzz build fails CI before fuzzing, and a failed test.sh fails it at once.
# Usage: ci_run_test.sh REPO_ROOT.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/check_support.sh"

tree="$work/tree"
mkdir -p "$tree/.ci" "$tree/scripts"
cp "$root/.ci/run" "$tree/.ci/run"
cp "$root/scripts/phase_time.sh" "$root/scripts/beside.sh" "$tree/scripts/"
calls="$work/calls"
# Each stand-in appends its command line and niceness to $calls.
cat >"$tree/scripts/install-deps.sh" <<STUB
#!/usr/bin/env bash
echo "install-deps.sh \$* (nice \$(nice))" >>"$calls"
STUB
cat >"$tree/scripts/test.sh" <<STUB
#!/usr/bin/env bash
echo "test.sh \$* (nice \$(nice))" >>"$calls"
touch "$work/tests-started"
# Passes once the fuzz build has started beside it.
for i in \$(seq 600); do [[ -e "$work/fuzz-build-started" ]] && break; sleep 0.1; done
[[ -e "$work/fuzz-build-started" && ! -e "$work/fail-tests" ]]
STUB
cat >"$tree/scripts/fuzz.sh" <<STUB
#!/usr/bin/env bash
echo "fuzz.sh \$* (nice \$(nice))" >>"$calls"
if [[ "\$1" == --build ]]; then
  touch "$work/fuzz-build-started"
  # Beside the tests: they must have started before this build ends.
  for i in \$(seq 600); do [[ -e "$work/tests-started" ]] && break; sleep 0.1; done
  [[ -e "$work/tests-started" && ! -e "$work/fail-build" ]]
fi
STUB
chmod +x "$tree/.ci/run" "$tree/scripts/"*.sh

"$tree/.ci/run" >"$work/out" 2>&1
status=$?
[[ $status -eq 0 ]] || fail ".ci/run exited $status: $(tail -20 "$work/out")"
n="$(nice)"  # the caller's niceness; the fuzz build runs at 19
[[ "$(head -1 "$calls")" == "install-deps.sh --fuzz (nice $n)" ]] || fail "not every package first: $(cat "$calls")"
[[ "$(tail -1 "$calls")" == "fuzz.sh --all 10 (nice $n)" ]] || fail "not fuzzing last: $(cat "$calls")"
# The two beside each other, in either order.
[[ "$(sed -n 2,3p "$calls" | sort)" == "fuzz.sh --build (nice 19)
test.sh  (nice $n)" ]] || fail "calls, in order:
$(cat "$calls")"
[[ "$(wc -l <"$calls")" -eq 4 ]] || fail "calls: $(cat "$calls")"
grep -q '^ci: every phase passed$' "$work/out" || fail "no final line: $(tail -5 "$work/out")"
grep -q '^phase: ci: fuzz build beside scripts/test.sh (nice 19): [0-9]* s wall' "$work/out" ||
  fail "the fuzz build's phase line is missing"

# A failed fuzz build fails CI, and nothing runs after it.
rm -f "$calls" "$work/fuzz-build-started" "$work/tests-started"
touch "$work/fail-build"
"$tree/.ci/run" >"$work/out2" 2>&1
status=$?
[[ $status -ne 0 ]] || fail ".ci/run passed with a failed fuzz build"
grep -q 'fuzz.sh --all' "$calls" && fail "fuzzing ran after a failed build"
grep -q '^ci: the fuzz build failed' "$work/out2" || fail "no message for the failed build: $(tail -5 "$work/out2")"

# A failed test.sh fails CI, and the fuzz build beside it is ended (no process left).
rm -f "$calls" "$work/fuzz-build-started" "$work/tests-started" "$work/fail-build"
touch "$work/fail-tests"
"$tree/.ci/run" >"$work/out3" 2>&1
status=$?
[[ $status -ne 0 ]] || fail ".ci/run passed with failed tests"
grep -q 'fuzz.sh --all' "$calls" && fail "fuzzing ran after failed tests"

finish ci_run_test ".ci/run installs every package, runs scripts/test.sh with the fuzz build beside it, then fuzzes"
