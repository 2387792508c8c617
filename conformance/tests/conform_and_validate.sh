#!/usr/bin/env bash
# Runs `isrcheck conform` with --record, then validates every recording it wrote against
# the model (`isrcheck validate`, docs/validation.md): each must be `explained`. So every
# conformance run in CI also checks the other direction, that what Kafka did is a
# behaviour of the model, not only that Kafka can follow the model's path.
#   conform_and_validate.sh ISRCHECK RECORD_DIR CONFORM_ARGS...
# Exit: conform's own exit status when it failed, else 1 when a recording is not
# explained (or none was written), else 0.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/validate_recordings.sh"
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
validate_recordings conform_and_validate.sh "$isrcheck" "${recordings[@]}"
