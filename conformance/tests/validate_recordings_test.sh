#!/usr/bin/env bash
# Tests of validate_recordings.sh (the recording check of the kafka conformance tests)
# without Kafka: committed recordings through the real `isrcheck validate`, and a stand-in
# binary for the retry with the larger bound.
#   validate_recordings_test.sh ISRCHECK SOURCE_DIR
set -uo pipefail
isrcheck="$1" source_dir="$2"
. "$source_dir/conformance/tests/validate_recordings.sh"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
recordings="$source_dir/tests/data/recordings"
for r in e-unclean-off-offline j-acks1-pause-loss e-unclean-off-offline-corrupted; do
  cp "$recordings/$r.jsonl" "$work/"
done

# Two explained recordings: status 0, each explanation written beside its recording.
validate_recordings check "$isrcheck" "$work/e-unclean-off-offline.jsonl" "$work/j-acks1-pause-loss.jsonl" >"$work/ok.out"
status=$?
[[ $status -eq 0 ]] || fail "two explained recordings gave status $status: $(cat "$work/ok.out")"
grep -qx "check: 2 recording(s) validated, 0 not explained, 0 with the controller's decisions unread" "$work/ok.out" || fail "no summary line: $(cat "$work/ok.out")"
[[ -s "$work/j-acks1-pause-loss.explained.json" ]] || fail "no explanation written for j-acks1-pause-loss"

# With an unexplained one (the corrupted copy): status 1, tried at both bounds, counted.
validate_recordings check "$isrcheck" "$work"/*.jsonl >"$work/bad.out"
status=$?
[[ $status -eq 1 ]] || fail "an unexplained recording gave status $status"
grep -qx "check: 3 recording(s) validated, 1 not explained, 0 with the controller's decisions unread" "$work/bad.out" || fail "wrong summary: $(cat "$work/bad.out")"
[[ "$(grep -c '^e-unclean-off-offline-corrupted.jsonl: unexplained' "$work/bad.out")" -eq 2 ]] ||
  fail "the unexplained recording was not retried at the larger bound: $(cat "$work/bad.out")"

# Explained, but its header says the controller's decisions could not be read (as the
# 3.4.1 recordings said before the metadata reader stopped linking ELR fields): fails.
python3 - "$work/e-unclean-off-offline.jsonl" "$work/unread/e-unclean-off-offline.jsonl" <<'PY'
import json, os, sys
lines = open(sys.argv[1]).read().splitlines()
header = json.loads(lines[0])
header["decisions"] = {"source": "__cluster_metadata", "error": "internal: reading the metadata log failed"}
os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
open(sys.argv[2], "w").write("\n".join([json.dumps(header)] + lines[1:]) + "\n")
PY
validate_recordings check "$isrcheck" "$work/unread/e-unclean-off-offline.jsonl" >"$work/unread.out"
status=$?
[[ $status -eq 1 ]] || fail "a recording without its decisions gave status $status: $(cat "$work/unread.out")"
grep -q "^e-unclean-off-offline.jsonl: the controller's decisions were not read: internal: reading" "$work/unread.out" ||
  fail "the unread decisions are not named: $(cat "$work/unread.out")"
grep -qx "check: 1 recording(s) validated, 0 not explained, 1 with the controller's decisions unread" "$work/unread.out" ||
  fail "wrong summary: $(cat "$work/unread.out")"

# Unexplained at 8, explained at 16 (a stand-in for isrcheck): passes; an error (exit 2)
# is not retried and fails.
cat >"$work/fake" <<'FAKE'
#!/usr/bin/env bash
case "$2:$4" in
  *retry*:8) echo "unexplained at event 3"; exit 1 ;;
  *retry*:16) echo "explained"; exit 0 ;;
  *) echo "error: cannot read"; exit 2 ;;
esac
FAKE
chmod +x "$work/fake"
validate_recordings fake "$work/fake" "$work/retry.jsonl" >"$work/retry.out" ||
  fail "a recording explained at the larger bound failed: $(cat "$work/retry.out")"
validate_recordings fake "$work/fake" "$work/broken.jsonl" >"$work/broken.out" && fail "an exit 2 of validate passed"
[[ "$(grep -c '^broken.jsonl:' "$work/broken.out")" -eq 1 ]] || fail "an exit 2 was retried: $(cat "$work/broken.out")"

if ((failures > 0)); then
  echo "validate_recordings_test: $failures check(s) failed" >&2
  exit 1
fi
echo "validate_recordings_test: validate_recordings.sh behaves"
