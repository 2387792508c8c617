#!/usr/bin/env bash
# Installs dependencies, builds isrcheck and runs the main job: an exhaustive check of
# the default model (`isrcheck describe` shows it), with partial-order reduction on as
# `check` has it by default (`scripts/run.sh --por off` expands every action, to compare
# counts with earlier runs). Further arguments go to `isrcheck check`, for instance
# `scripts/run.sh --set faults.max_crashes=2`.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" --target isrcheck
exec "${ISRCHECK_BUILD_ROOT:-$root}/build/isrcheck" check "$@"
