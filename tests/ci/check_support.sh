# Sourced by the tests of CI's scripts (tests/ci/*_test.sh) after `set -uo pipefail`,
# with the repository root as the test's first argument: `root`, a work directory
# removed on exit, `fail MESSAGE` to count a failed check, and `finish NAME MESSAGE` to
# end the test (exit 1 naming how many checks failed, else print MESSAGE).
root="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
finish() {
  if ((failures > 0)); then
    echo "$1: $failures check(s) failed" >&2
    exit 1
  fi
  echo "$1: $2"
}
