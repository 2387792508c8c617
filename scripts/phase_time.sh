# Sourced by .ci/run, scripts/test.sh and scripts/fuzz.sh: `phase NAME COMMAND...` runs
# COMMAND and prints, on stderr, its wall time and the CPU seconds it and its children
# used (bash's `time` keyword: no /usr/bin/time needed on a fresh machine), with the load
# at its start. CI keeps no log of a passing run, so a failing or slow run's log must show
# itself where the time went; on a shared machine wall time alone says little, hence the
# CPU seconds and the load beside it.
phase() {
  local name="$1"
  shift
  echo "phase: $name: start $(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores" >&2
  local TIMEFORMAT="phase: $name: %0R s wall, %0U s user + %0S s sys CPU" status=0
  # `|| status=$?`: a failure must not end a `set -e` shell here, under this TIMEFORMAT
  # (an enclosing `time` would then report with it); the caller's `set -e` acts on return.
  time "$@" || status=$?
  return "$status"
}
