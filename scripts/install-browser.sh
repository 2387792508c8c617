#!/usr/bin/env bash
# Installs headless Chromium from Debian (packages chromium and chromium-driver) for the
# browser tests of the matrix HTML report and of `isrcheck explore` (ctest label `browser`): the package list and the
# idempotent apt logic are install-deps.sh's (--browser).
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/install-deps.sh" --browser
