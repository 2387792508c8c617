#!/usr/bin/env bash
# Tests scripts/ctest_failures.sh on the records of a real ctest run (a throwaway CMake
# project of four tests: one passes, one fails with output, one times out, one fails with
# a name that is a prefix of another's): it names exactly the failed ones and repeats the
# end of each one's own output, not its neighbours'.
# Usage: ctest_failures_test.sh REPO_ROOT.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/check_support.sh"

cat >"$work/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(ctest_failures_probe NONE)
enable_testing()
add_test(NAME passes COMMAND sh -c "echo passing output")
add_test(NAME Fails.One COMMAND sh -c "for i in 1 2 3 4 5 6 7 8; do echo fails-line-$i; done; exit 3")
add_test(NAME Fails.OneMore COMMAND sh -c "echo the-longer-name; exit 1")
add_test(NAME hangs COMMAND sh -c "echo before-the-hang; sleep 30")
set_tests_properties(hangs PROPERTIES TIMEOUT 1)
CMAKE
cmake -S "$work" -B "$work/b" >/dev/null || fail "cmake failed"
ctest --test-dir "$work/b" -j 4 >/dev/null 2>&1 && fail "the probe's ctest passed"
out="$("$root/scripts/ctest_failures.sh" "$work/b" 3)"
status=$?
[[ $status -eq 0 ]] || fail "ctest_failures.sh exited $status"
head -1 <<<"$out" | grep -q '^ctest_failures: 3 test(s) failed in .*/b: ' || fail "the count: $(head -1 <<<"$out")"
for name in Fails.One Fails.OneMore hangs; do
  grep -q "^----- the last 3 lines of $name's output -----$" <<<"$out" || fail "$name is not named: $out"
done
grep -q passing <<<"$out" && fail "a passed test's output is repeated: $out"
# The last 3 lines of Fails.One's output only, then ctest's verdict.
section() { sed -n "/^----- the last 3 lines of $1's output/,/^-----/p" <<<"$out" | grep -v '^-----'; }
[[ "$(section Fails.One | grep -v '^ctest: ')" == $'fails-line-6\nfails-line-7\nfails-line-8' ]] ||
  fail "Fails.One's tail: $(section Fails.One)"
section Fails.One | grep -qx 'ctest: Test Failed.' || fail "no verdict for Fails.One: $(section Fails.One)"
[[ "$(section Fails.OneMore | grep -v '^ctest: ')" == the-longer-name ]] || fail "Fails.OneMore: $(section Fails.OneMore)"
[[ "$(section hangs | grep -v '^ctest: ')" == before-the-hang ]] || fail "hangs: $(section hangs)"
# No failure recorded: says so, exits 0.
rm "$work/b/Testing/Temporary/LastTestsFailed.log"
"$root/scripts/ctest_failures.sh" "$work/b" | grep -q '^ctest_failures: no failed test recorded' ||
  fail "nothing failed: not said"

finish ctest_failures_test "ctest_failures.sh repeats the failed tests' names and their own output's end"
