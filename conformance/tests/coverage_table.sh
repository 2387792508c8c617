#!/usr/bin/env bash
# conformance/coverage.sh makes one table row per source trace: every corpus entry (those of
# another model "not exportable" with the exporter's reason), every simulate seed (a
# counterexample, a duplicate of an earlier seed's, or none). With --kafka it also runs the
# exported scenarios on Kafka (the sampled part CI runs) and requires that none diverges.
#   coverage_table.sh REPO ISRCHECK WORK_DIR [--kafka DRIVER_DIR]
set -euo pipefail
repo="$1" isrcheck="$2" work="$3"
kafka=() mode=--export-only
if [[ "${4:-}" == --kafka ]]; then kafka=(--driver "$5"); mode=""; fi
rm -rf "$work"
# shellcheck disable=SC2086  # mode is empty or one option
"$repo/conformance/coverage.sh" --corpus --simulate 4 --isrcheck "$isrcheck" --work "$work" $mode "${kafka[@]}" > "$work.out"
cat "$work.out"
table="$work/table.md"
fail() { echo "coverage_table.sh: $*" >&2; exit 1; }
corpus_files=$(find "$repo/counterexamples/corpus" -name '*.json' ! -name manifest.json | wc -l)
corpus_rows=$(grep -c '^| corpus-' "$table")
[[ "$corpus_rows" -eq "$corpus_files" ]] || fail "$corpus_rows corpus rows for $corpus_files corpus entries"
[[ $(grep -c '^| sim-' "$table") -eq 4 ]] || fail "not one row per simulate seed"
grep -q '^| corpus-kraft-vote-not-persisted | corpus | not exportable | .*unsupported model "kraft"' "$table" ||
  fail "a kraft-model corpus entry is not reported not exportable with the exporter's reason"
head -1 "$table" | grep -q '^Kafka 4.4.0: .* traces' || fail "no summary line"
if ((${#kafka[@]})); then
  grep -q '^rate: ' "$table" || fail "no rate line"
  if grep -q '| diverges |' "$table"; then fail "a sampled trace diverges"; fi
  grep -q '| conforms |' "$table" || fail "no sampled trace conforms"
fi
echo "coverage_table.sh: passed"
