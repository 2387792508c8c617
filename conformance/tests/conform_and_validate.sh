#!/usr/bin/env bash
# Runs `isrcheck conform` with --record, then validates every recording it wrote against
# the model (`isrcheck validate`, docs/validation.md): each must be `explained`. So every
# conformance run in CI also checks the other direction, that what Kafka did is a
# behaviour of the model, not only that Kafka can follow the model's path.
#   conform_and_validate.sh ISRCHECK RECORD_DIR CONFORM_ARGS...
# Exit: conform's own exit status when it failed, else 1 when a recording is not
# explained (or none was written), else 0.
set -euo pipefail
isrcheck="$1" record="$2"
shift 2
rm -rf "$record"
set +e
"$isrcheck" conform "$@" --record "$record"
conform_rc=$?
set -e
[[ $conform_rc -eq 0 ]] || { echo "conform_and_validate.sh: conform exited $conform_rc" >&2; exit "$conform_rc"; }
shopt -s nullglob
recordings=("$record"/*.jsonl)
((${#recordings[@]})) || { echo "conform_and_validate.sh: no recording written in $record" >&2; exit 1; }
failed=0
for r in "${recordings[@]}"; do
  # At the default bound of internal actions between events first; a recording that is
  # unexplained there is retried with a larger one (docs/validation.md: a larger bound can
  # only explain more; restarts that bring two followers back into the ISR need ~12).
  for bound in 8 16; do
    set +e
    out="$("$isrcheck" validate "$r" --max-internal "$bound" --trace-out "${r%.jsonl}.explained.json" 2>&1)"
    rc=$?
    set -e
    echo "$(basename "$r"): $out"
    [[ $rc -eq 1 ]] || break
  done
  [[ $rc -eq 0 ]] || failed=$((failed + 1))
done
echo "conform_and_validate.sh: ${#recordings[@]} recording(s) validated, $failed not explained"
[[ $failed -eq 0 ]]
