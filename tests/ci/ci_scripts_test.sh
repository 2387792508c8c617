#!/usr/bin/env bash
# Tests of the helpers CI's scripts source: scripts/phase_time.sh (each phase's wall
# and CPU seconds in the log), scripts/lanes.sh (fuzz.sh --all running its targets
# N at a time) and scripts/beside.sh (test.sh's installs beside its build and its
# sanitizer build beside the plain tests, .ci/run's fuzz build beside test.sh).
# Usage: ci_scripts_test.sh REPO_ROOT. Exit 0 when every check passes.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/check_support.sh"
source "$root/scripts/phase_time.sh"
source "$root/scripts/lanes.sh"
source "$root/scripts/beside.sh"

# --- phase: a line before, a line after with wall and CPU seconds; the status passes through.
phase "burn" bash -c 'i=0; while ((i < 300000)); do i=$((i + 1)); done' 2>"$work/phase.err"
status=$?
[[ $status -eq 0 ]] || fail "phase of a passing command returned $status"
grep -Eq '^phase: burn: start [0-9:]{8}, load [0-9.]+ [0-9.]+ [0-9.]+, [0-9]+ cores$' "$work/phase.err" ||
  fail "no start line with the load: $(cat "$work/phase.err")"
grep -Eq '^phase: burn: [0-9]+ s wall, [0-9]+ s user \+ [0-9]+ s sys CPU$' "$work/phase.err" ||
  fail "no wall/CPU line: $(cat "$work/phase.err")"
phase "failing" bash -c 'exit 7' 2>"$work/fail.err"
status=$?
[[ $status -eq 7 ]] || fail "phase of a command exiting 7 returned $status"
grep -q '^phase: failing: .* s wall' "$work/fail.err" || fail "a failing phase printed no times: $(cat "$work/fail.err")"

# --- run_in_lanes: every item once; two lanes really run at once; never more than N.
record() {
  local item="$1"
  mkdir "$work/running.$item"
  echo "$item" >>"$work/ran"
  local now
  now=$(find "$work" -maxdepth 1 -name 'running.*' | wc -l)
  echo "$now" >>"$work/concurrency"
  # Item a (lane 0) waits for item b (lane 1) to start: with the lanes run one after the
  # other it would wait the whole 60 s and fail.
  if [[ "$item" == a ]]; then
    local waited=0
    until [[ -e "$work/started.b" ]]; do
      sleep 0.1
      waited=$((waited + 1))
      ((waited < 600)) || { rmdir "$work/running.$item"; return 1; }
    done
  fi
  touch "$work/started.$item"
  sleep 0.2
  rmdir "$work/running.$item"
}
run_in_lanes 2 record a b c d e
status=$?
[[ $status -eq 0 ]] || fail "run_in_lanes 2 over a..e returned $status (item a never saw item b start?)"
[[ "$(sort "$work/ran" | tr '\n' ' ')" == "a b c d e " ]] || fail "items run: $(sort "$work/ran" | tr '\n' ' ')"
max=$(sort -n "$work/concurrency" | tail -n 1)
((max <= 2)) || fail "$max items ran at once with 2 lanes"

# A failure: its lane stops (d, after b in lane 1, never runs), the other lane finishes,
# and the result is 1.
rm -f "$work/ran2"
fail_on_b() { echo "$1" >>"$work/ran2"; [[ "$1" != b ]]; }
run_in_lanes 2 fail_on_b a b c d e
status=$?
[[ $status -eq 1 ]] || fail "a failing item gave status $status, not 1"
[[ "$(sort "$work/ran2" | tr '\n' ' ')" == "a b c e " ]] || fail "items run with b failing: $(sort "$work/ran2" | tr '\n' ' ')"

# One lane: strictly in order.
rm -f "$work/ran3"
in_order() { echo "$1" >>"$work/ran3"; }
run_in_lanes 1 in_order x y z || fail "run_in_lanes 1 failed"
[[ "$(tr '\n' ' ' <"$work/ran3")" == "x y z " ]] || fail "one lane ran: $(tr '\n' ' ' <"$work/ran3")"

# --- beside: the command runs while the caller works (it waits for a file the caller
# writes after the start: run first, it would time out), at the priority asked for; its
# output comes at beside_wait, with its exit status.
in_background() {
  local waited=0
  until [[ -e "$work/go" ]]; do
    sleep 0.1
    waited=$((waited + 1))
    ((waited < 600)) || { echo "never saw go"; return 1; }
  done
  echo "niceness $(nice)"
  return 7
}
beside_start -n 19 in_background
touch "$work/go"
beside_wait 2>"$work/beside.err"
status=$?
[[ $status -eq 7 ]] || fail "beside_wait returned $status, not the command's 7: $(cat "$work/beside.err")"
grep -qx 'niceness 19' "$work/beside.err" || fail "not run at nice 19, or its output lost: $(cat "$work/beside.err")"
[[ -z "$beside_pid" && -z "$beside_log" ]] || fail "beside_wait left its pid or log behind"

# beside_stop ends the command and what it started (a grandchild too), and is a no-op after.
beside_start bash -c "sleep 300 & echo \$! >'$work/grandchild'; sleep 300"
waited=0
until [[ -s "$work/grandchild" ]] || ((waited >= 600)); do sleep 0.1; waited=$((waited + 1)); done
child="$beside_pid"
grandchild="$(cat "$work/grandchild")"
beside_stop
sleep 0.2
# Running: it exists and is no zombie (an orphan's exit status waits for a PID 1 that may
# never collect it, in a container).
running() { local state; state="$(ps -o stat= -p "$1")" && [[ "$state" != Z* ]]; }
running "$child" && { fail "beside_stop left the command ($child) running"; kill "$child"; }
running "$grandchild" && { fail "beside_stop left a grandchild ($grandchild) running"; kill "$grandchild"; }
beside_stop || fail "a second beside_stop failed"

finish ci_scripts_test "phase_time.sh, lanes.sh and beside.sh behave"
