# Sourced by conform_and_validate.sh (the KRaft suite) and zookeeper_suite.sh: validates
# the recordings a conform run wrote against the model (`isrcheck validate`,
# docs/validation.md); each must be `explained`.
#   validate_recordings NAME ISRCHECK RECORDING...
# Prints each recording's result and a summary line starting with NAME; returns 1 when a
# recording is not explained, or when its header says the controller's decisions could not
# be read (`decisions.error`, docs/recording.md): validated without them, a recording is
# checked against less than Kafka decided (the 3.4.1 and 3.5.2 recordings were, until the
# metadata reader stopped linking the fields those releases lack).
validate_recordings() {
  local name="$1" isrcheck="$2"
  shift 2
  local failed=0 unread=0 r bound out rc
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
    local error=""
    [[ -s "$r" ]] && error="$(head -1 "$r" | python3 -c \
      'import json, sys; d = json.load(sys.stdin).get("decisions"); print(d.get("error", "") if isinstance(d, dict) else "")')"
    if [[ -n "$error" ]]; then
      echo "$(basename "$r"): the controller's decisions were not read: $error"
      unread=$((unread + 1))
    fi
  done
  echo "$name: $# recording(s) validated, $failed not explained, $unread with the controller's decisions unread"
  [[ $failed -eq 0 && $unread -eq 0 ]]
}
