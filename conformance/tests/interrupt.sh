#!/usr/bin/env bash
# Interrupting `isrcheck conform` (SIGINT, then in a second run SIGTERM) once its cluster
# is up must end the run with exit 3 and leave no process behind: every PID the driver
# recorded in the run's pids files is checked to be gone.
#   interrupt.sh ISRCHECK SCENARIO DRIVER_DIR WORK_DIR
set -euo pipefail
isrcheck="$1" scenario="$2" driver="$3" work="$4"
rm -rf "$work" && mkdir -p "$work"
for sig in INT TERM; do
  run="$work/$sig"
  "$isrcheck" conform "$scenario" --driver "$driver" --work-dir "$run" > "$work/$sig.out" 2>&1 &
  pid=$!
  # Wait (bounded) until the nodes are up: three node lines in the pids file.
  for _ in $(seq 1 600); do
    n=$(cat "$run"/cluster-*/pids 2>/dev/null | grep -vc driver || true)
    [[ "$n" -ge 3 ]] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  sleep 2
  kill -s "$sig" "$pid"
  rc=0
  for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  if kill -0 "$pid" 2>/dev/null; then echo "interrupt.sh: conform still running 60 s after SIG$sig" >&2; kill -9 "$pid"; exit 1; fi
  wait "$pid" || rc=$?
  cat "$work/$sig.out"
  [[ $rc -eq 3 ]] || { echo "interrupt.sh: SIG$sig: expected exit 3, got $rc" >&2; exit 1; }
  left=()
  while read -r p what; do
    [[ -n "$p" ]] || continue
    if [[ -e /proc/$p ]] && ! grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null; then left+=("$p ($what)"); fi
  done < <(cat "$run"/cluster-*/pids "$run"/pids 2>/dev/null || true)
  [[ ${#left[@]} -eq 0 ]] || { echo "interrupt.sh: SIG$sig left processes: ${left[*]}" >&2; exit 1; }
  echo "interrupt.sh: SIG$sig: exit 3, no process left ($(cat "$run"/cluster-*/pids | wc -l) PIDs checked)"
done
