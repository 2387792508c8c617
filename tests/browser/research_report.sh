#!/usr/bin/env bash
# The research report in a real browser with the network off (ctest label `browser`,
# issue 26 point 4): headless Chromium from Debian (scripts/install-browser.sh) loads the
# report of a tiny grid (2 cells) and the Vega library embedded in the page alone must
# draw, per property, an SVG plot with one interval bar and one dot per cell; the
# verdict table and the class tables must be there. A screenshot is kept as an artifact.
# Usage: research_report.sh ISRCHECK_BINARY ARTIFACT_DIR
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/offline_chromium.sh"

isrcheck="$1"
artifacts="$2"
setup_browser_test "$artifacts"

# RF 2, min ISR 1, acks=1, unclean on, ELR off, kill and power: both lose acked writes.
report="$artifacts/research-report.html"
"$isrcheck" research unclean --cells 'rf2-isr1-acks1-unclean-noelr-*' --walks 300 --seed 3 --quiet \
  --html "$report" >/dev/null
# Nothing is loaded from elsewhere: no external script, stylesheet, image or module.
if grep -Eq "(src|href)=\"(https?:)?//|import [^;]* from '(https?:)?//" "$report"; then
  echo "FAIL: the report loads something from the network" >&2
  exit 1
fi

render_offline "$browser" "$work" "$report" 30000 1200,1600 "$artifacts/research-report.png"
cp "$work/dom.html" "$artifacts/research-report.dom.html"

python3 - "$work/dom.html" <<'PY'
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)
state = re.search(r'<body[^>]*data-plots="([^"]*)"', dom)
if not state or state.group(1) != "rendered":
    fail("the plots were not rendered offline (data-plots=%s)" % (state.group(1) if state else "absent"))
plots = re.findall(r'<div class="plot" id="(plot-[^"]+)"[^>]*>(.*?)</div>', dom, re.S)
if len(plots) != 2:
    fail("expected 2 plots (no-acked-loss, no-committed-loss-globally), found %d" % len(plots))
for name, body in plots:
    if "<svg" not in body:
        fail(name + ": no SVG drawn")
    # Vega's SVG renderer: a group per named mark, one element per datum.
    bars = re.search(r'<g class="mark-rule role-mark interval"[^>]*>(.*?)</g>', body, re.S)
    dots = re.search(r'<g class="mark-symbol role-mark share"[^>]*>(.*?)</g>', body, re.S)
    if not bars or not dots:
        fail(name + ": the interval and share marks are missing")
    if len(re.findall(r"<line", bars.group(1))) != 2 or len(re.findall(r"<path", dots.group(1))) != 2:
        fail(name + ": expected 2 interval bars and 2 dots (one per cell)")
    if "rf2-isr1-acks1-unclean-noelr-combined-f1-lossy" not in body:
        fail(name + ": the cells are not on the axis")
rows = re.findall(r'<tr data-cell="([^"]+)"', dom)
if rows != ["rf2-isr1-acks1-unclean-noelr-combined-f1", "rf2-isr1-acks1-unclean-noelr-combined-f1-lossy"]:
    fail("verdict table rows: %s" % rows)
if len(re.findall(r'<td class="violated">violated', dom)) != 4:
    fail("expected both properties violated in both cells")
tables = re.findall(r'<table class="classes" data-cell="[^"]+">(.*?)</table>', dom, re.S)
if len(tables) != 2 or "Elect-unclean(A)" not in tables[0]:
    fail("class tables: expected 2, the first with an unclean election class")
print("browser: 2 plots drawn as SVG offline with 2 bars and 2 dots each; tables present")
PY
if [[ ! -s "$artifacts/research-report.png" ]]; then
  echo "FAIL: no screenshot written" >&2
  exit 1
fi
