#!/usr/bin/env bash
# Runs the README's examples as written (ctest readme_examples, label slow; issue 12
# point 6), so that they stay true: every command of the ```sh blocks in the sections
# "Quick start", "Usage" and "Explore", in order, in one fresh directory that sees the checkout's
# files (claims/, conformance/, counterexamples/, tests/data/) and the built binary as build/isrcheck.
# A command passes when it exits 0, or 1 for a finding (a property violated); 2 (bad
# input, for instance a file the README names that does not exist), 3, 4 or a signal
# fail the test. Not run here, each for its reason:
#   scripts/...          install, build and run everything: what CI itself runs
#   build/isrcheck conform   real Kafka: the ctest label `kafka` runs the same suite
#   build/isrcheck campaign  real Kafka for minutes (docs/campaign.md): its pieces are tests/campaign_test.cc
# `build/isrcheck explore` is a server: it runs with --port 0 added, its start page is
# fetched, and SIGTERM must stop it with exit 0.
# After the run, every file the examples left in the directory must be one the checkout's
# .gitignore ignores (they write under out/), so that they leave a clone clean.
# Usage: run_examples.sh SOURCE_DIR ISRCHECK_BINARY [WORK_DIR] [ONLY_REGEX]
#   ONLY_REGEX: run only the commands matching this extended regex (the others are
#   skipped): ctest readme_examples_quick runs the sub-second ones, label fast.
set -euo pipefail

source_dir="$1"
binary="$2"
work="${3:-$(mktemp -d)}"
only="${4:-}"
rm -rf "$work"
mkdir -p "$work/build"
ln -s "$binary" "$work/build/isrcheck"
for dir in claims conformance counterexamples; do ln -s "$source_dir/$dir" "$work/$dir"; done
mkdir -p "$work/tests" && ln -s "$source_dir/tests/data" "$work/tests/data"  # recordings for validate

# The commands: lines of ```sh blocks under "## Quick start", "## Usage" and "## Explore", with a
# trailing backslash joining the next line.
mapfile -t commands < <(awk '
  /^## / { section = $0; next }
  /^```sh$/ { inside = (section == "## Quick start" || section == "## Usage" || section == "## Explore"); next }
  /^```$/ { inside = 0; next }
  inside {
    line = $0
    if (pending != "") { sub(/^ +/, " ", line); line = pending line }
    if (line ~ /\\$/) { sub(/\\$/, "", line); pending = line; next }
    pending = ""
    if (line ~ /^[ \t]*$/) next
    print line
  }' "$source_dir/README.md")

if ((${#commands[@]} < 10)); then
  echo "FAIL: found ${#commands[@]} README examples; expected the quick start and the usage block" >&2
  exit 1
fi
ran=0
failed=0
skipped=0
cd "$work"

# A server example: started on a free port, its start page fetched, stopped by SIGTERM
# (its PID); exit status 0 when all of that worked.
run_server() {
  # --port 0 right after the subcommand: the README's line may end in a comment.
  bash -c "exec ${1/#build\/isrcheck explore/build/isrcheck explore --port 0}" >"$work/out.txt" 2>"$work/err.txt" &
  local pid=$! url="" fetched=1 status=0
  for _ in $(seq 1 600); do
    url="$(grep -o 'http://127\.0\.0\.1:[0-9]*/' "$work/out.txt" || true)"
    [[ -n "$url" ]] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if [[ -n "$url" ]]; then
    python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=60).read()' "$url" && fetched=0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" || status=$?
  ((status == 0 && fetched == 0)) || { echo "no start page served, or exit $status on SIGTERM" >>"$work/err.txt"; return 2; }
}

for command in "${commands[@]}"; do
  case "$command" in
    scripts/*|"build/isrcheck conform"*|"build/isrcheck campaign"*) skipped=$((skipped + 1)); echo "skip: $command"; continue ;;
  esac
  if [[ -n "$only" ]] && ! [[ "$command" =~ $only ]]; then
    skipped=$((skipped + 1))
    continue
  fi
  start=$SECONDS
  set +e
  case "$command" in
    "build/isrcheck explore"*) run_server "$command" ;;
    *) timeout 1200 bash -c "$command" >"$work/out.txt" 2>"$work/err.txt" ;;
  esac
  rc=$?
  set -e
  ran=$((ran + 1))
  if ((rc == 0 || rc == 1)); then
    echo "ok (exit $rc, $((SECONDS - start)) s): $command"
  else
    failed=$((failed + 1))
    echo "FAIL (exit $rc): $command" >&2
    tail -5 "$work/err.txt" >&2
  fi
done
# What the examples left beside the checkout's links and this script's own files must
# be ignored by the checkout's .gitignore (a user runs them from the repository root).
left=0
for entry in "$work"/* "$work"/.[!.]*; do
  [[ -e "$entry" ]] || continue
  name="$(basename "$entry")"
  case "$name" in build|claims|conformance|counterexamples|out.txt|err.txt) continue ;; esac
  # tests/ holds the recordings' link alone, unless an example wrote beside it.
  if [[ "$name" == tests && "$(ls -A "$entry")" == data ]]; then continue; fi
  if ! git -C "$source_dir" check-ignore -q --no-index -- "$name" && \
     ! git -C "$source_dir" check-ignore -q --no-index -- "$name/"; then
    echo "FAIL: the examples left \"$name\", which the checkout's .gitignore does not ignore" >&2
    left=$((left + 1))
  fi
done
echo "readme: $ran examples run, $skipped skipped, $failed failed, $left files left in the tree"
((failed == 0 && left == 0 && ran > 0))
