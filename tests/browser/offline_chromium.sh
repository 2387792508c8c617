# Sourced by the browser tests that open a self-contained HTML page (matrix report,
# research report, campaign timeline): headless Chromium with the network off, so a page
# that needed anything from elsewhere fails. The network is off through a network
# namespace of our own when we may make one (root in CI), and in any case a proxy that
# refuses and a resolver that resolves nothing.
#   setup_browser_test ARTIFACT_DIR
# creates ARTIFACT_DIR and a scratch directory `work` (removed at exit), and sets `browser`
# to Debian's chromium, failing the test when there is none.
#   render_offline BROWSER WORK PAGE BUDGET_MS SIZE SCREENSHOT
# writes the rendered DOM to WORK/dom.html (failing the test when Chromium fails) and a
# screenshot of SIZE (WxH) to SCREENSHOT (best effort: a picture for people, not a check).
setup_browser_test() {
  mkdir -p "$1"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  browser="$(command -v chromium || true)"
  if [[ -z "$browser" ]]; then
    echo "FAIL: no chromium; scripts/install-browser.sh installs it (scripts/test.sh runs it)" >&2
    exit 1
  fi
}

render_offline() {
  local browser="$1" work="$2" page="$3" budget_ms="$4" size="$5" screenshot="$6"
  local isolate=()
  if unshare -n true 2>/dev/null; then
    isolate=(unshare -n)
  fi
  local chrome=("${isolate[@]}" "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage
                --no-first-run --user-data-dir="$work/profile"
                --proxy-server=http://127.0.0.1:9 --host-resolver-rules="MAP * ~NOTFOUND"
                --virtual-time-budget="$budget_ms")
  timeout 120 "${chrome[@]}" --dump-dom "file://$page" >"$work/dom.html" 2>"$work/chromium.log" || {
    echo "FAIL: chromium --dump-dom failed" >&2
    tail -20 "$work/chromium.log" >&2
    exit 1
  }
  timeout 120 "${chrome[@]}" --window-size="$size" --screenshot="$screenshot" \
    "file://$page" >/dev/null 2>>"$work/chromium.log" || true
}
