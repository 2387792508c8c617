#!/usr/bin/env bash
# A deliberately wrong expectation must make `isrcheck conform` exit 1 naming the step:
# scenario b (acks=1 loss) with step 1's expected send result changed from "acked" to
# NOT_ENOUGH_REPLICAS. Kafka acks the record, so the run must diverge at step 1.
#   wrong_expectation.sh ISRCHECK SUITE_DIR DRIVER_DIR WORK_DIR
set -euo pipefail
isrcheck="$1" suite="$2" driver="$3" work="$4"
rm -rf "$work" && mkdir -p "$work"
sed 's/"expect": "acked"/"expect": "NOT_ENOUGH_REPLICAS"/' "$suite/b-acks1-leader-loss.json" > "$work/wrong.json"
grep -q NOT_ENOUGH_REPLICAS "$work/wrong.json" || { echo "could not plant the wrong expectation" >&2; exit 1; }
set +e
timeout 600 "$isrcheck" conform "$work/wrong.json" --driver "$driver" --work-dir "$work/run" > "$work/out.txt" 2>&1
rc=$?
set -e
cat "$work/out.txt"
[[ $rc -eq 1 ]] || { echo "wrong_expectation.sh: expected exit 1, got $rc" >&2; exit 1; }
grep -q 'diverges at step 1 ' "$work/out.txt" || { echo "wrong_expectation.sh: the divergence does not name step 1" >&2; exit 1; }
grep -q 'expected send of record 1 NOT_ENOUGH_REPLICAS, observed send of record 1 acked' "$work/out.txt" ||
  { echo "wrong_expectation.sh: expected and observed not reported" >&2; exit 1; }
echo "wrong_expectation.sh: passed"
