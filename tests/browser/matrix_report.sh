#!/usr/bin/env bash
# The matrix HTML report in a real browser with the network off (ctest label `browser`,
# issue 12 point 7): headless Chromium from Debian (scripts/install-browser.sh) loads a
# report of a small sweep with red cells and must draw every counterexample's mermaid
# diagram as an SVG sequence diagram, from the renderer embedded in the page alone. A
# screenshot is kept as a test artifact.
# Usage: matrix_report.sh ISRCHECK_BINARY ARTIFACT_DIR
set -euo pipefail

isrcheck="$1"
artifacts="$2"
mkdir -p "$artifacts"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

browser="$(command -v chromium || true)"
if [[ -z "$browser" ]]; then
  echo "FAIL: no chromium; scripts/install-browser.sh installs it (scripts/test.sh runs it)" >&2
  exit 1
fi

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

# The network off: a network namespace of our own when we may make one (root in CI),
# and in any case a proxy that refuses and a resolver that resolves nothing.
isolate=()
if unshare -n true 2>/dev/null; then
  isolate=(unshare -n)
fi
chrome=("${isolate[@]}" "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage
        --no-first-run --user-data-dir="$work/profile"
        --proxy-server=http://127.0.0.1:9 --host-resolver-rules="MAP * ~NOTFOUND"
        --virtual-time-budget=30000)
timeout 120 "${chrome[@]}" --dump-dom "file://$report" >"$work/dom.html" 2>"$work/chromium.log" || {
  echo "FAIL: chromium --dump-dom failed" >&2
  tail -20 "$work/chromium.log" >&2
  exit 1
}
timeout 120 "${chrome[@]}" --window-size=1400,2200 --screenshot="$artifacts/matrix-report.png" \
  "file://$report" >/dev/null 2>>"$work/chromium.log" || true

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
