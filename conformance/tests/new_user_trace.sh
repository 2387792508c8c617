#!/usr/bin/env bash
# Issue 28: the first counterexample a new user finds, run as the user would: `check` with
# unclean election on writes the trace, `conform` runs the trace itself (exported on the
# fly) on Kafka. It restarts N0 and keeps it unregistered while N1 leads alone, which a
# real cluster does only with N0's registration held: conform must say `conforms` and
# report that hold, and leave no node of its work directory running.
#   new_user_trace.sh ISRCHECK DRIVER_DIR WORK_DIR
set -euo pipefail
isrcheck="$1" driver="$2" work="$3"
rm -rf "$work" && mkdir -p "$work"
set +e
"$isrcheck" check --set unclean_leader_election=true --set consumer=false --set faults.max_crashes=2 \
  --set faults.max_lossy_crashes=0 --quiet --trace-out "$work/u.json" > "$work/check.txt" 2>&1
rc=$?
set -e
[[ $rc -eq 1 && -s "$work/u.json" ]] || { cat "$work/check.txt"; echo "new_user_trace.sh: check gave exit $rc, no trace" >&2; exit 1; }
set +e
timeout 600 "$isrcheck" conform "$work/u.json" --driver "$driver" --work-dir "$work/run" > "$work/out.txt" 2>&1
rc=$?
set -e
cat "$work/out.txt"
[[ $rc -eq 0 ]] || { echo "new_user_trace.sh: expected exit 0, got $rc" >&2; exit 1; }
grep -q '^u: conforms' "$work/out.txt" || { echo "new_user_trace.sh: the trace does not conform" >&2; exit 1; }
grep -q "held N0's registration" "$work/out.txt" ||
  { echo "new_user_trace.sh: the registration hold is not reported" >&2; exit 1; }
if pgrep -f "kafka.Kafka.*$work/run" >/dev/null; then
  echo "new_user_trace.sh: a Kafka node of $work/run outlived the run" >&2
  exit 1
fi
echo "new_user_trace.sh: passed"
