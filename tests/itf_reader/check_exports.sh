#!/usr/bin/env bash
# ctest itf_typed_reader: exports traces of every model as ITF and reads them with the
# typed reader (src/main.rs, the Rust crate `itf`). Traces: every stored trace under
# counterexamples/ (the corpus: partition, kraft and cluster models) and tests/data/,
# and fresh ones from `check` of each model. Every export must read; every fixture in
# fixtures/ (a variable whose type changes between states, as issue 12 found in the
# kraft and cluster exports) must be rejected, so the reader is known to be strict.
#   check_exports.sh ISRCHECK SOURCE_DIR WORK_DIR
set -euo pipefail

isrcheck="$1"
src="$2"
work="$3"
rm -rf "$work"
mkdir -p "$work/traces" "$work/itf"
reader="$("$src/scripts/install-itf-reader.sh")"

n=0
while IFS= read -r trace; do
  grep -q '"format": *"isrcheck-trace"' "$trace" || continue
  n=$((n + 1))
  cp "$trace" "$work/traces/$n-$(basename "$trace")"
done < <(find "$src/counterexamples" "$src/tests/data" -name '*.json' | sort)
# `check` exits 1 with the counterexample it found.
fresh() {
  local name="$1"
  shift
  "$isrcheck" check "$@" --quiet --trace-out "$work/traces/fresh-$name.json" >/dev/null || [[ $? -eq 1 ]]
}
fresh partition --set acks=1
fresh kraft --model kraft --set fixes.persist_vote=false
# KIP-853 voter changes add their fields (VotersRecords, the leader's observers).
fresh kraft-voters --model kraft --set fixes.one_voter_change=false --set bounds.max_voter_changes=2 \
  --set bounds.max_epoch=2 --set faults.max_crashes=0
fresh cluster --model cluster --set acks=1
# The fields only some traces have: a process pause (the suite's j script) and a replica
# back on a new disk (KIP-858's directory assignment).
"$isrcheck" witness --set acks=1 --set brokers=3 --set replication_factor=2 --set min_insync_replicas=1 \
  --set faults.max_pauses=1 --set faults.max_lossy_crashes=0 --set consumer=false \
  --script "pause 1; produce; kill leader; resume 1" --trace-out "$work/traces/fresh-pause.json" >/dev/null
"$isrcheck" witness --set protocol=kip-966 --set controller.placement=dedicated --set controller.voters=1 \
  --set faults.max_crashes=3 --set faults.max_disk_losses=1 --set faults.max_lossy_crashes=0 --set consumer=false \
  --set bounds.max_partition_epoch=8 --set bounds.max_leader_epoch=4 \
  --script "produce; kill 1; kill 2; disk 0; restart 0" --trace-out "$work/traces/fresh-new-disk.json" >/dev/null
for trace in "$work"/traces/*.json; do
  model="$(sed -n 's/.*"model": *"\([a-z-]*\)".*/\1/p' "$trace" | head -n 1)"
  case "$model" in partition | kraft | cluster) ;; *) continue ;; esac  # toy models: no Rust types
  "$isrcheck" export "$trace" --format itf --out "$work/itf/$(basename "$trace" .json).itf.json"
done

"$reader" "$work"/itf/*.itf.json | tee "$work/reader.txt"
for model in partition kraft cluster; do
  grep -q "^ok: .*: isrcheck $model model" "$work/reader.txt" || {
    echo "no $model trace was read" >&2
    exit 1
  }
done

status=0
"$reader" "$src"/tests/itf_reader/fixtures/*.itf.json > "$work/fixtures.txt" || status=$?
grep '^FAILED' "$work/fixtures.txt" | sed 's/^FAILED/rejected as it must be/'
if [[ $status -ne 1 ]] || grep -q '^ok:' "$work/fixtures.txt"; then
  echo "the reader accepted a trace whose variable changes type between states" >&2
  exit 1
fi
