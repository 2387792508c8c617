# Sourced by conform_and_validate.sh (the KRaft suite) and zookeeper_suite.sh: validates
# the recordings a conform run wrote against the model (`isrcheck validate`,
# docs/validation.md); each must be `explained`.
#   validate_recordings NAME ISRCHECK RECORDING...
# Prints each recording's result and a summary line starting with NAME; returns 1 when a
# recording is not explained.
validate_recordings() {
  local name="$1" isrcheck="$2"
  shift 2
  local failed=0 r bound out rc
  for r in "$@"; do
    # At the default bound of internal actions between events first; a recording that is
    # unexplained there is retried with a larger one (docs/validation.md: a larger bound can
    # only explain more; restarts that bring two followers back into the ISR need ~12).
    for bound in 8 16; do
      rc=0
      out="$("$isrcheck" validate "$r" --max-internal "$bound" --trace-out "${r%.jsonl}.explained.json" 2>&1)" || rc=$?
      echo "$(basename "$r"): $out"
      [[ $rc -eq 1 ]] || break
    done
    [[ $rc -eq 0 ]] || failed=$((failed + 1))
  done
  echo "$name: $# recording(s) validated, $failed not explained"
  [[ $failed -eq 0 ]]
}
