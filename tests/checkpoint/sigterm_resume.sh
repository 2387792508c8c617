#!/usr/bin/env bash
# `isrcheck check --checkpoint DIR` stopped by SIGTERM and resumed with `--resume DIR`
# (ctest checkpoint_sigterm_resume, label fast; docs/checker.md, "Checkpoint and resume"):
#   - the signalled run exits 3, says it is incomplete, names the checkpoint and how to
#     go on, and its --json says "incomplete" with the checkpoint written;
#   - the resumed run (1 thread, where the first had 2) ends with the verdict, distinct
#     and generated states, depth and level sizes of an uninterrupted run;
#   - resuming with another configuration, or from a directory without a checkpoint,
#     exits 2 naming what differs; a corrupted checkpoint exits 2 too; so do --continue,
#     --spill (not supported yet) and --checkpoint-every alone or malformed.
#     (--distributed under mpirun: tests/checkpoint_mpi_test.cc.)
# Usage: sigterm_resume.sh ISRCHECK_BINARY WORK_DIR
set -euo pipefail

binary="$1"
work="$2"
rm -rf "$work"
mkdir -p "$work"

# A search of a few seconds (about 40 levels), long enough to be signalled midway.
config=(--set faults.max_lossy_crashes=0 --set bounds.max_leader_epoch=4 --set bounds.max_partition_epoch=5 --por off)

status=0
"$binary" check "${config[@]}" --threads 2 --quiet --json "$work/whole.json" >"$work/whole.txt" || status=$?
[ "$status" -eq 0 ] || { echo "FAIL: the uninterrupted run exited $status"; cat "$work/whole.txt"; exit 1; }

# Started in the background, a checkpoint after every level; SIGTERM once the first exists.
"$binary" check "${config[@]}" --threads 2 --quiet --checkpoint "$work/ckpt" --checkpoint-every 0 \
  --json "$work/first.json" >"$work/first.txt" 2>&1 &
pid=$!
for _ in $(seq 1 1200); do
  [ -s "$work/ckpt/checkpoint.bin" ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
[ -s "$work/ckpt/checkpoint.bin" ] || { echo "FAIL: no checkpoint appeared within 120 s"; kill -TERM "$pid" || true; wait "$pid" || true; exit 1; }
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
cat "$work/first.txt"
[ "$status" -eq 3 ] || { echo "FAIL: the signalled run exited $status, not 3"; exit 1; }
grep -q "incomplete because it was interrupted" "$work/first.txt" || { echo "FAIL: no 'incomplete' line"; exit 1; }
grep -q "to go on: the same command with --resume $work/ckpt" "$work/first.txt" ||
  { echo "FAIL: no line saying how to resume"; exit 1; }

"$binary" check "${config[@]}" --threads 1 --quiet --resume "$work/ckpt" --json "$work/resumed.json" \
  >"$work/resumed.txt" || status=$?
cat "$work/resumed.txt"
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
whole = json.load(open(f"{work}/whole.json"))
first = json.load(open(f"{work}/first.json"))
resumed = json.load(open(f"{work}/resumed.json"))
errors = []
if first["verdict"] != "incomplete" or first.get("stop_reason") != "interrupted":
    errors.append(f"the signalled run's JSON: {first['verdict']}, {first.get('stop_reason')}")
if first["checkpoint"]["written"] < 1:
    errors.append("the signalled run's JSON names no checkpoint written")
if not resumed["checkpoint"]["resumed"]:
    errors.append("the resumed run's JSON does not say it resumed")
if first["distinct_states"] >= whole["distinct_states"]:
    errors.append("the signal came after the search had finished: nothing was resumed")
for key in ("verdict", "distinct_states", "states_generated", "depth", "level_sizes", "bounds_reached"):
    if resumed[key] != whole[key]:
        errors.append(f"{key}: {resumed[key]} resumed, {whole[key]} uninterrupted")
if errors:
    print("FAIL:", *errors, sep="\n  ")
    sys.exit(1)
print(f"resumed at depth {resumed['checkpoint']['resumed_depth']}: "
      f"{resumed['distinct_states']} states, as uninterrupted")
PY

# Another configuration: refused, naming the key.
status=0
"$binary" check "${config[@]}" --set acks=1 --quiet --resume "$work/ckpt" >"$work/other.txt" 2>&1 || status=$?
[ "$status" -eq 2 ] || { echo "FAIL: another configuration resumed with exit $status"; cat "$work/other.txt"; exit 1; }
grep -q "config.acks" "$work/other.txt" || { echo "FAIL: the refusal does not name config.acks"; cat "$work/other.txt"; exit 1; }

# No checkpoint there.
status=0
mkdir -p "$work/empty"
"$binary" check "${config[@]}" --quiet --resume "$work/empty" >"$work/empty.txt" 2>&1 || status=$?
[ "$status" -eq 2 ] || { echo "FAIL: an empty directory resumed with exit $status"; exit 1; }
grep -q "no checkpoint to resume" "$work/empty.txt" || { echo "FAIL: no message for a missing checkpoint"; cat "$work/empty.txt"; exit 1; }

# Corrupted: one byte flipped in the middle.
python3 - "$work/ckpt/checkpoint.bin" <<'PY'
import sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
data[len(data) // 2] ^= 0x40
open(path, "wb").write(data)
PY
status=0
"$binary" check "${config[@]}" --quiet --resume "$work/ckpt" >"$work/corrupt.txt" 2>&1 || status=$?
[ "$status" -eq 2 ] || { echo "FAIL: a corrupted checkpoint resumed with exit $status"; cat "$work/corrupt.txt"; exit 1; }
grep -q "checksum" "$work/corrupt.txt" || { echo "FAIL: no checksum message"; cat "$work/corrupt.txt"; exit 1; }
# What a checkpoint does not hold yet is refused before any search, naming the option.
refused() {  # refused EXPECTED_TEXT ARGS...
  local expected="$1"
  shift
  local status=0
  "$binary" check "$@" >"$work/refused.txt" 2>&1 || status=$?
  [ "$status" -eq 2 ] || { echo "FAIL: check $* exited $status, not 2"; cat "$work/refused.txt"; exit 1; }
  grep -q -- "$expected" "$work/refused.txt" || { echo "FAIL: check $*: no '$expected'"; cat "$work/refused.txt"; exit 1; }
}
refused "--checkpoint: is not supported with --continue" --continue --checkpoint "$work/c2"
refused "--checkpoint: is not supported with --spill" --spill "$work" --checkpoint "$work/c2"
refused "--checkpoint-every: is used only with --checkpoint" --checkpoint-every 5m
refused "--checkpoint-every" --checkpoint "$work/c2" --checkpoint-every soon
echo "PASS"
