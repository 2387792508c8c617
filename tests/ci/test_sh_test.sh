#!/usr/bin/env bash
# Tests scripts/test.sh's order of work on stand-ins for the scripts it runs and for ctest
# (nothing is built): the plain build with `--tests plain`, the installs beside it, then
# the plain pass (labels slow, mpi, kafka, plain) with the sanitizer build beside it at
# nice 19 (each stand-in waits for the other to start: run one after the other, either
# would time out), then the sanitizer pass under ASAN_OPTIONS; ctest's arguments go to both
# passes; a failed plain pass still runs the sanitizer pass, fails the run and repeats at
# the end what failed (scripts/ctest_failures.sh); --sanitize
# runs the sanitizer pass alone, with Chromium installed beside its build.
# Usage: test_sh_test.sh REPO_ROOT.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/check_support.sh"

tree="$work/tree"
mkdir -p "$tree/scripts" "$work/bin"
cp "$root/scripts/test.sh" "$root/scripts/phase_time.sh" "$root/scripts/beside.sh" \
  "$root/scripts/ctest_failures.sh" "$tree/scripts/"
calls="$work/calls"
for s in install-deps install-browser install-kafka; do
  cat >"$tree/scripts/$s.sh" <<STUB
#!/usr/bin/env bash
echo "$s.sh \$* (nice \$(nice))" >>"$calls"
STUB
done
cat >"$tree/scripts/build.sh" <<STUB
#!/usr/bin/env bash
echo "build.sh \$* (nice \$(nice))" >>"$calls"
if [[ "\$1" == --sanitize && ! -e "$work/sanitize-only" ]]; then
  touch "$work/asan-build-started"
  # Beside the plain pass: it must have started before this build ends.
  for i in \$(seq 600); do [[ -e "$work/plain-started" ]] && break; sleep 0.1; done
  [[ -e "$work/plain-started" ]]
fi
STUB
cat >"$work/bin/ctest" <<STUB
#!/usr/bin/env bash
echo "ctest \$* (nice \$(nice)) ASAN_OPTIONS=\${ASAN_OPTIONS:-}" >>"$calls"
case "\$*" in
  *"$work/build "*)
    touch "$work/plain-started"
    for i in \$(seq 600); do [[ -e "$work/asan-build-started" ]] && break; sleep 0.1; done
    [[ -e "$work/asan-build-started" ]] || exit 1
    if [[ -e "$work/fail-plain" ]]; then
      # ctest's records of a failed run, as ctest_failures.sh reads them.
      mkdir -p "$work/build/Testing/Temporary"
      echo "7:Kafka.SomeScenario" >"$work/build/Testing/Temporary/LastTestsFailed.log"
      printf '%s\n' "7/9 Testing: Kafka.SomeScenario" "Output:" "-----" "the broker said no" \
        "<end of output>" "Test time =   3.00 sec" "-----" "Test Failed." \
        >"$work/build/Testing/Temporary/LastTest.log"
      exit 8
    fi ;;
esac
STUB
chmod +x "$tree/scripts/"*.sh "$work/bin/ctest"
run() { env PATH="$work/bin:$PATH" ISRCHECK_BUILD_ROOT="$work" ASAN_OPTIONS= UBSAN_OPTIONS= "$tree/scripts/test.sh" "$@"; }
n="$(nice)"

run -LE kafka >"$work/out" 2>&1
status=$?
[[ $status -eq 0 ]] || fail "test.sh exited $status: $(tail -20 "$work/out")"
[[ "$(head -1 "$calls")" == "install-deps.sh  (nice $n)" ]] || fail "not install-deps first: $(cat "$calls")"
[[ "$(grep -m1 '^build.sh' "$calls")" == "build.sh --tests plain (nice $n)" ]] ||
  fail "the first build is not the plain one: $(cat "$calls")"
grep -qx "install-browser.sh  (nice $n)" "$calls" || fail "no install-browser: $(cat "$calls")"
grep -q "^install-kafka.sh --kafka-version 4.4.0" "$calls" || fail "no install-kafka: $(cat "$calls")"
# The installs are done before any test runs; the sanitizer build waits for the plain build.
last_install=$(grep -n '^install-\(browser\|kafka\)' "$calls" | tail -1 | cut -d: -f1)
first_ctest=$(grep -n '^ctest' "$calls" | head -1 | cut -d: -f1)
plain_build=$(grep -n '^build.sh --tests plain' "$calls" | cut -d: -f1)
asan_build=$(grep -n '^build.sh --sanitize' "$calls" | cut -d: -f1)
((last_install < first_ctest)) || fail "a test ran before the installs ended: $(cat "$calls")"
((plain_build < asan_build)) || fail "the sanitizer build started before the plain build: $(cat "$calls")"
grep -qx "build.sh --sanitize (nice 19)" "$calls" || fail "the sanitizer build is not at nice 19: $(cat "$calls")"
grep -qx "ctest --test-dir $work/build --output-on-failure -j 2 -L ^(slow|mpi|kafka|plain)\$ -LE kafka (nice $n) ASAN_OPTIONS=" "$calls" ||
  fail "the plain pass's ctest: $(grep ctest "$calls")"
[[ "$(tail -1 "$calls")" == "ctest --test-dir $work/build-asan --output-on-failure -j 2 -LE kafka (nice $n) ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:strict_string_checks=1" ]] ||
  fail "the sanitizer pass is not last, or not under ASAN_OPTIONS: $(tail -1 "$calls")"
grep -q '^phase: test.sh: build .*/build-asan beside the plain tests (nice 19): [0-9]* s wall' "$work/out" ||
  fail "the sanitizer build's phase line is missing"

# A failed plain pass: the sanitizer pass still runs, and the run fails naming the pass.
rm -f "$calls" "$work/plain-started" "$work/asan-build-started"
touch "$work/fail-plain"
run >"$work/out2" 2>&1
status=$?
[[ $status -ne 0 ]] || fail "test.sh passed with a failed plain pass"
grep -q "^ctest --test-dir $work/build-asan" "$calls" || fail "no sanitizer pass after a failed plain pass"
grep -q '^test.sh: the plain pass failed' "$work/out2" || fail "no message for the failed pass: $(tail -5 "$work/out2")"
# The failed test and its output are repeated after the sanitizer pass, at the end.
after_asan="$(sed -n '/phase: test.sh: sanitizer pass/,$p' "$work/out2")"
grep -q '^ctest_failures: 1 test(s) failed in .*/build: Kafka.SomeScenario$' <<<"$after_asan" ||
  fail "the failed test is not named at the end: $(tail -8 "$work/out2")"
grep -qx 'the broker said no' <<<"$after_asan" || fail "its output is not repeated at the end: $(tail -8 "$work/out2")"
rm -f "$work/fail-plain"

# --sanitize: the sanitizer build with Chromium installed beside it (the browser tests are
# in that pass), then its pass; no plain build, no Kafka.
rm -f "$calls"
touch "$work/sanitize-only"
run --sanitize -R config >"$work/out3" 2>&1
status=$?
[[ $status -eq 0 ]] || fail "test.sh --sanitize exited $status: $(tail -20 "$work/out3")"
[[ "$(head -1 "$calls")" == "install-deps.sh  (nice $n)" ]] || fail "--sanitize: not install-deps first: $(cat "$calls")"
[[ "$(sed -n 2,3p "$calls" | sort)" == "build.sh --sanitize (nice $n)
install-browser.sh  (nice $n)" ]] || fail "--sanitize: not the sanitizer build beside install-browser: $(cat "$calls")"
[[ "$(tail -1 "$calls")" == "ctest --test-dir $work/build-asan --output-on-failure -j 2 -R config (nice $n) ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:strict_string_checks=1" ]] ||
  fail "--sanitize: the pass is not last: $(cat "$calls")"
[[ "$(wc -l <"$calls")" -eq 4 ]] || fail "--sanitize calls: $(cat "$calls")"

finish test_sh_test "test.sh builds, installs and runs both passes in order, each test once"
