#!/usr/bin/env bash
# `isrcheck explore` in a real browser (ctest label `browser`, issue 29 point 1): starts
# the explorer on a free port of 127.0.0.1, and headless Chromium (scripts/install-browser.sh)
# opens the start page, follows two actions by their links, reopens the URL it ended on
# (the same state), gets a 400 page for a path that does not replay, loads a
# counterexample through the page's form and with --trace and steps to its violation.
# Every page must draw its diagram with the renderer the explorer serves, and nothing may
# come from the network. The servers it started are stopped by PID (SIGTERM: exit 0).
# Usage: explore.sh ISRCHECK_BINARY ARTIFACT_DIR
set -euo pipefail

isrcheck="$1"
artifacts="$2"
mkdir -p "$artifacts"
work="$(mktemp -d)"
servers=()
cleanup() {
  for pid in "${servers[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

browser="$(command -v chromium || true)"
[[ -n "$browser" ]] || fail "no chromium; scripts/install-browser.sh installs it (scripts/test.sh runs it)"

# The counterexample to load: acks=1 loses an acknowledged write (exit 1 by design).
"$isrcheck" check --set acks=1 --quiet --trace-out "$work/t.json" >/dev/null || true
[[ -s "$work/t.json" ]] || fail "check wrote no trace"
trace_steps="$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["steps"]) - 1)' "$work/t.json")"
property="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["property"])' "$work/t.json")"

# Starts `isrcheck explore --port 0 ARGS...` and sets $base to its URL (without the slash).
start_server() {
  local name="$1"
  shift
  "$isrcheck" explore --port 0 "$@" >"$work/$name.out" 2>"$work/$name.err" &
  servers+=("$!")
  base=""
  for _ in $(seq 1 300); do
    base="$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$work/$name.out" || true)"
    [[ -n "$base" ]] && return 0
    kill -0 "${servers[-1]}" 2>/dev/null || break
    sleep 0.1
  done
  cat "$work/$name.err" >&2
  fail "explore $* printed no URL"
}

# Loopback is never proxied; everything else meets a proxy that refuses and a resolver
# that resolves nothing.
profile=0
dump() {  # URL OUT: the DOM once the page's scripts have run, in a fresh profile
  profile=$((profile + 1))
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --user-data-dir="$work/profile$profile" --proxy-server=http://127.0.0.1:9 \
    --host-resolver-rules="MAP * ~NOTFOUND, EXCLUDE 127.0.0.1" --virtual-time-budget=20000 \
    --dump-dom "$1" >"$2" 2>>"$work/chromium.log" || {
    tail -20 "$work/chromium.log" >&2
    fail "chromium --dump-dom $1 failed"
  }
}
attr() {  # FILE NAME: the value of the body's data-NAME
  grep -o "data-$2=\"[^\"]*\"" "$1" | head -1 | cut -d'"' -f2 || true
}
nth_action() {  # FILE N: the link of the N-th enabled action (1-based)
  grep -o '<a href="[^"]*" class="action"' "$1" | sed -n "$2p" | cut -d'"' -f2 | sed 's/&amp;/\&/g'
}
state_of() {  # FILE: the state section alone
  sed -n '/<section id="state">/,/<\/section>/p' "$1"
}
expect_drawn() {  # FILE WHAT
  [[ "$(attr "$1" diagrams)" == "rendered" ]] || fail "$2: the diagram was not drawn (data-diagrams=\"$(attr "$1" diagrams)\")"
  grep -q '<svg aria-roledescription="sequence"' "$1" || fail "$2: no SVG sequence diagram"
  if grep -Eq "(src|href)=\"(https?:)?//" "$1"; then
    fail "$2 loads something from elsewhere: $(grep -Eo "(src|href)=\"(https?:)?//[^\"]*" "$1" | head -3)"
  fi
}

start_server main --set acks=1
grep -q "no diagram renderer" "$work/main.err" && fail "the explorer has no mermaid.min.js: $(cat "$work/main.err")"

# The start page: the initial state, its enabled actions as links.
dump "$base/" "$work/start.html"
[[ "$(attr "$work/start.html" step)" == "0" ]] || fail "the start page is not step 0"
actions="$(grep -c 'class="action"' "$work/start.html" || true)"
((actions >= 2)) || fail "the start page shows $actions enabled actions"
grep -q '<table class="nodes">' "$work/start.html" || fail "the start page has no node table"
grep -q 'id="properties"' "$work/start.html" || fail "the start page has no properties"
expect_drawn "$work/start.html" "the start page"

# Two actions followed by their links.
first="$(nth_action "$work/start.html" 1)"
[[ -n "$first" ]] || fail "no action link on the start page"
dump "$base$first" "$work/step1.html"
[[ "$(attr "$work/step1.html" step)" == "1" ]] || fail "the first action's link did not lead to step 1"
second="$(nth_action "$work/step1.html" 2)"
[[ -n "$second" ]] || fail "no second action link after step 1"
dump "$base$second" "$work/step2.html"
[[ "$(attr "$work/step2.html" step)" == "2" ]] || fail "the second action's link did not lead to step 2"
grep -q '<b>changed:</b>' "$work/step2.html" || fail "step 2 does not say what changed"
grep -q 'id="trace-file"' "$work/step2.html" || fail "step 2 has no link to download its path as a trace"
grep -q 'id="back"' "$work/step2.html" || fail "step 2 has no back link"
expect_drawn "$work/step2.html" "step 2"

# The URL the page names reopens the same state (another profile: nothing remembered).
url="$(attr "$work/step2.html" url | sed 's/&amp;/\&/g')"
[[ "$url" == "$second" ]] || fail "step 2 names its URL as $url, not $second"
dump "$base$url" "$work/step2-again.html"
diff <(state_of "$work/step2.html") <(state_of "$work/step2-again.html") >/dev/null ||
  fail "reopening $url showed another state"
[[ -n "$(state_of "$work/step2.html")" ]] || fail "no state section on step 2"

# A path that does not replay: a 400 page saying which step and what is enabled.
dump "$base/state?path=NoSuchAction(node%3D1)" "$work/bad.html"
[[ "$(attr "$work/bad.html" error)" == "400" ]] || fail "a path that does not replay gave no 400 page"
grep -q 'is not enabled here' "$work/bad.html" || fail "the 400 page does not say why"

# A trace loaded through the page's form (pasted), then stepped to its end.
python3 - "$work/t.json" "$base" >"$work/submit.html" <<'PY'
import html, sys
trace = open(sys.argv[1]).read()
print('<!DOCTYPE html><html><body>'
      f'<form method="post" action="{sys.argv[2]}/trace" enctype="multipart/form-data">'
      f'<textarea name="trace">{html.escape(trace)}</textarea></form>'
      '<script>document.forms[0].submit();</script></body></html>')
PY
dump "file://$work/submit.html" "$work/loaded.html"
[[ "$(attr "$work/loaded.html" step)" == "0" ]] || fail "the loaded trace did not open at its step 0"
[[ "$(attr "$work/loaded.html" steps)" == "$trace_steps" ]] ||
  fail "the loaded trace has $(attr "$work/loaded.html" steps) steps ahead, not $trace_steps"
forward="$(grep -o '<a href="[^"]*" id="forward"' "$work/loaded.html" | cut -d'"' -f2 | sed 's/&amp;/\&/g')"
[[ -n "$forward" ]] || fail "the loaded trace has no forward link"
dump "$base$forward" "$work/loaded-step1.html"
[[ "$(attr "$work/loaded-step1.html" step)" == "1" ]] || fail "forward did not step the trace"
last="$(grep -o '<a href="[^"]*" id="last"' "$work/loaded.html" | cut -d'"' -f2 | sed 's/&amp;/\&/g')"
dump "$base$last" "$work/loaded-end.html"
grep -q "<td>$property</td><td class=\"violated\">VIOLATED</td>" "$work/loaded-end.html" ||
  fail "the end of the loaded trace does not show $property violated"
expect_drawn "$work/loaded-end.html" "the loaded trace's end"
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
  --user-data-dir="$work/profile-shot" --proxy-server=http://127.0.0.1:9 \
  --host-resolver-rules="MAP * ~NOTFOUND, EXCLUDE 127.0.0.1" --virtual-time-budget=20000 \
  --window-size=1400,2400 --screenshot="$artifacts/explore.png" "$base$last" >/dev/null 2>>"$work/chromium.log" || true
[[ -s "$artifacts/explore.png" ]] || fail "no screenshot written"

# --trace: the explorer of the trace's own model and configuration starts at its step 0.
start_server traced --trace "$work/t.json"
dump "$base/" "$work/traced.html"
[[ "$(attr "$work/traced.html" step)" == "0" && "$(attr "$work/traced.html" steps)" == "$trace_steps" ]] ||
  fail "explore --trace did not start at the trace's step 0 of $trace_steps"

# Both servers stop on SIGTERM with exit 0 and say so.
for i in "${!servers[@]}"; do
  pid="${servers[$i]}"
  kill -TERM "$pid"
  status=0
  wait "$pid" || status=$?
  [[ "$status" == 0 ]] || fail "explore (PID $pid) exited $status on SIGTERM, not 0"
done
servers=()
grep -q "stopped after" "$work/main.out" || fail "explore did not say it stopped"
echo "browser: explore start page, two actions, the URL reopened, a 400 page, a trace loaded by form and by --trace" \
  "($trace_steps steps, $property violated at the end); screenshot $artifacts/explore.png"
