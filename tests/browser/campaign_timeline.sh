#!/usr/bin/env bash
# A campaign run's HTML timeline in a real browser with the network off (ctest label
# `browser`, issue 25 item 3): `isrcheck campaign --timeline` validates a committed real
# campaign run again and draws it. The run (a leader cut from the brokers: both followers
# shrunk at once into the ELR, docs/validation.md finding 7) is explained since the model's
# set shrink, so the test draws a copy whose event 6 records an empty ELR, which no model
# state has (unexplained at event 6); headless Chromium (scripts/install-browser.sh) must
# show the lane chart (a lane per node and the producer's, the cut drawn on N0's lane,
# every send as a dot), the event table with a row per recorded event, and the parting
# event's row marked with what differed. A screenshot is kept as an artifact.
# Usage: campaign_timeline.sh ISRCHECK_BINARY SOURCE_DIR ARTIFACT_DIR
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/offline_chromium.sh"

isrcheck="$1"
source_dir="$2"
artifacts="$3"
setup_browser_test "$artifacts"
recording="$source_dir/tests/data/recordings/campaign-elr-shrink-together-corrupted.jsonl"
rc=0
"$isrcheck" campaign --timeline "$recording" --out "$artifacts" --retry-max-internal 0 || rc=$?
[[ $rc -eq 1 ]] || { echo "FAIL: expected exit 1 (unexplained), got $rc" >&2; exit 1; }
page="$artifacts/campaign-elr-shrink-together-corrupted.html"
if grep -Eq "(src|href)=\"(https?:)?//|<script|<link" "$page"; then
  echo "FAIL: the timeline loads something (a script, a style sheet, a network resource)" >&2
  exit 1
fi

render_offline "$browser" "$work" "$page" 10000 1100,1400 "$artifacts/campaign-timeline.png"

python3 - "$work/dom.html" "$recording" <<'PY'
import json, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
events = [json.loads(l) for l in open(sys.argv[2]) if l.strip()][1:]
def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)
svg = re.search(r"<svg[^>]*>(.*?)</svg>", dom, re.S)
if not svg:
    fail("no lane chart")
lanes = re.findall(r"<text[^>]*>(N[0-2]|producer)</text>", svg.group(1))
if lanes != ["N0", "N1", "N2", "producer"]:
    fail("lanes: %s" % lanes)
if not re.search(r"<rect[^>]*><title>N0 cut brokers", svg.group(1)):
    fail("the cut of N0 from the brokers is not drawn on its lane")
sends = [e for e in events if e.get("op") in ("produce", "expire_send")]
if len(re.findall(r"<circle[^>]*r=\"6\"", svg.group(1))) != len(sends):
    fail("expected a dot per send (%d)" % len(sends))
rows = re.findall(r"<tr class=\"[^\"]*\"", dom)
if len(rows) != len(events):
    fail("expected %d event rows, found %d" % (len(events), len(rows)))
if not re.search(r'<tr class="observe parted" id="parted"><td>6</td>', dom):
    fail("event 6 is not marked as where the model and Kafka part")
if "elr: recorded [], model [1,2]" not in dom or "unexplained</b> at event 6" not in dom:
    fail("the verdict and the difference are not shown")
print("campaign_timeline.sh: %d lanes, %d sends, %d event rows, the parting event marked" % (len(lanes), len(sends), len(rows)))
PY
