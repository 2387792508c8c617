#!/usr/bin/env bash
# The matrix HTML report in a real browser with the network off (ctest label `browser`,
# issue 12 point 7): headless Chromium from Debian (scripts/install-browser.sh) loads a
# report of a small sweep with red cells and must draw every counterexample's mermaid
# diagram as an SVG sequence diagram, from the renderer embedded in the page alone. A
# screenshot is kept as a test artifact.
# Usage: matrix_report.sh ISRCHECK_BINARY ARTIFACT_DIR
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/offline_chromium.sh"

isrcheck="$1"
artifacts="$2"
setup_browser_test "$artifacts"

# RF 1-2, acks all and 1, one failure: 5 of the 12 cells lose an acked write (red).
report="$artifacts/matrix-report.html"
"$isrcheck" matrix --rf 1-2 --min-isr 1 --acks all,1 --unclean off --elr on --failures 0-1 \
  --no-cache --quiet --html "$report" >/dev/null
diagrams="$(grep -c '<pre class="mermaid">' "$report")"
if ((diagrams < 5)); then
  echo "FAIL: expected at least 5 diagrams in the report, found $diagrams" >&2
  exit 1
fi
# Nothing is loaded from elsewhere: no external script, stylesheet, image or module.
if grep -Eq "(src|href)=\"(https?:)?//|import [^;]* from '(https?:)?//" "$report"; then
  echo "FAIL: the report loads something from the network:" >&2
  grep -Eo "(src|href)=\"(https?:)?//[^\"]*|import [^;]* from '(https?:)?//[^']*" "$report" | head >&2
  exit 1
fi

render_offline "$browser" "$work" "$report" 30000 1400,2200 "$artifacts/matrix-report.png"

state="$(grep -o 'data-diagrams="[^"]*"' "$work/dom.html" || true)"
if [[ "$state" != 'data-diagrams="rendered"' ]]; then
  echo "FAIL: the diagrams were not rendered offline (${state:-no data-diagrams attribute})" >&2
  exit 1
fi
processed="$(grep -c '<pre class="mermaid" data-processed="true">' "$work/dom.html" || true)"
svgs="$(grep -o '<svg aria-roledescription="sequence"' "$work/dom.html" | wc -l)"
if ((processed != diagrams || svgs != diagrams)); then
  echo "FAIL: $diagrams diagrams, $processed processed, $svgs drawn as SVG sequence diagrams" >&2
  exit 1
fi
# No diagram fell back to its source text (mermaid draws a syntax error as an SVG too).
if grep -q 'aria-roledescription="error"' "$work/dom.html"; then
  echo "FAIL: mermaid reported a syntax error in a diagram" >&2
  exit 1
fi
if [[ ! -s "$artifacts/matrix-report.png" ]]; then
  echo "FAIL: no screenshot written" >&2
  exit 1
fi
echo "browser: $diagrams diagrams drawn as SVG offline; screenshot $artifacts/matrix-report.png"
