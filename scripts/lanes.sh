# Sourced by scripts/fuzz.sh: `run_in_lanes N FUNCTION ITEM...` calls FUNCTION ITEM for
# every ITEM, N at a time. Item i goes to lane i mod N; each lane (a subshell) runs its
# items one after the other and stops at its first failure. Returns 1 when a call failed,
# and only after every lane has ended, so no work outlives the caller's verdict.
# Tested by tests/ci/ci_scripts_test.sh.
run_in_lanes() {
  local lanes="$1" fn="$2"
  shift 2
  local items=("$@") lane pid pids=() failed=0
  for ((lane = 0; lane < lanes; ++lane)); do
    (
      for ((i = lane; i < ${#items[@]}; i += lanes)); do "$fn" "${items[$i]}" || exit 1; done
    ) &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  return "$failed"
}
