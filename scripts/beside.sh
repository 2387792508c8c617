# Sourced by scripts/test.sh and .ci/run: one command run beside the caller's work, for
# work that leaves the CPU idle (downloads beside a build; compiles beside the kafka tests,
# which wait on their JVMs). Its output is kept apart and printed when it is waited for,
# so that the log reads in order.
#   beside_start [-n NICE] COMMAND...   start it (a command or a function; NICE: its
#                                       priority, default 0)
#   beside_wait                         wait for it, print its output; its exit status
#   beside_stop                         end it and every process under it (trap EXIT:
#                                       a failed or interrupted caller leaves nothing behind)
# One at a time per shell. Tested by tests/ci/ci_scripts_test.sh.
beside_pid=""
beside_log=""
beside_start() {
  local niceness=0
  if [[ "$1" == -n ]]; then
    niceness="$2"
    shift 2
  fi
  beside_log="$(mktemp)"
  # A subshell, so that COMMAND may be a function of the caller; children inherit its
  # priority.
  (
    if ((niceness != 0)); then renice -n "$niceness" -p "$BASHPID" >/dev/null; fi
    "$@"
  ) >"$beside_log" 2>&1 &
  beside_pid=$!
}
beside_wait() {
  local status=0
  wait "$beside_pid" || status=$?
  beside_pid=""
  cat "$beside_log" >&2
  rm -f "$beside_log"
  beside_log=""
  return "$status"
}
# The process and its descendants, parents first: listed before any is signalled, since a
# child whose parent has gone is no longer found under it.
beside_tree() {
  local child
  echo "$1"
  for child in $(pgrep -P "$1"); do beside_tree "$child"; done
}
beside_stop() {
  if [[ -n "$beside_pid" ]]; then
    # shellcheck disable=SC2046
    kill -TERM $(beside_tree "$beside_pid") 2>/dev/null || true
    wait "$beside_pid" 2>/dev/null || true
    beside_pid=""
  fi
  if [[ -n "$beside_log" ]]; then
    rm -f "$beside_log"
    beside_log=""
  fi
}
