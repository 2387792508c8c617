#!/usr/bin/env bash
# Repeats, at the end of a run, what ctest said of the tests that failed in one build
# directory: their names, then the last lines of each one's output. ctest prints a failed
# test's output where it ends, hundreds of lines before the end of a run, and a CI log is
# often shown by its tail alone; without this, the tail says only that a pass failed.
# Reads ctest's own records of its last run: Testing/Temporary/LastTestsFailed.log
# ("N:name" lines) and LastTest.log (each test's output between "Output:" and
# "<end of output>").
# Usage: ctest_failures.sh BUILD_DIR [LINES]   (LINES of output per test, default 60)
set -euo pipefail

dir="$1/Testing/Temporary"
lines="${2:-60}"
if ! [[ "$lines" =~ ^[1-9][0-9]*$ ]]; then
  echo "ctest_failures: LINES must be a positive whole number, not '$lines'" >&2
  exit 2
fi
failed="$dir/LastTestsFailed.log"
if [[ ! -s "$failed" ]]; then
  echo "ctest_failures: no failed test recorded in $failed"
  exit 0
fi
names=()
while IFS= read -r line; do names+=("${line#*:}"); done <"$failed"
echo "ctest_failures: ${#names[@]} test(s) failed in $1: ${names[*]}"
for name in "${names[@]}"; do
  echo "----- the last $lines lines of $name's output -----"
  # The block of a test starts at its "N/M Testing: name" line; its output runs from the
  # dashes after "Output:" to "<end of output>"; the verdict ("Test Failed.", "Exception:
  # ...", a timeout) follows within a few lines.
  awk -v name="$name" -v keep="$lines" '
    $0 ~ /^[0-9]+\/[0-9]+ Testing: / { mine = (substr($0, index($0, "Testing: ") + 9) == name); state = 0 }
    !mine { next }
    state == 0 && $0 == "Output:" { state = 1; n = 0; next }
    state == 1 { state = 2; next }  # the dashes under "Output:"
    state == 2 && $0 == "<end of output>" {
      for (i = (n > keep ? n - keep : 0); i < n; i++) print kept[i % keep]
      state = 3; next
    }
    state == 2 { kept[n++ % keep] = $0; next }
    state == 3 && /^(Test time|Test Failed|Exception|Other)/ { print "ctest: " $0 }
  ' "$dir/LastTest.log"
done
