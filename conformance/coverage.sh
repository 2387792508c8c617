#!/usr/bin/env bash
# The conformance rate over what the checker produces by itself (issue 28 item 2), not
# over chosen scenarios: every counterexample of the corpus, the counterexample of every
# red cell of a matrix sweep, and the counterexamples of `simulate` with fixed seeds, each
# exported to a scenario and run with `isrcheck conform` (one driver, clusters reused),
# then one table: conforms / diverges / not executable (reason) / not exportable (reason).
# Whether a divergence is the harness's or the model's is a judgement made by reading the
# run (docs/conformance.md "Coverage" records it), not something this script can tell.
#
#   conformance/coverage.sh [--corpus] [--matrix] [--simulate N] [--seed-base S] [--walks W]
#                           [--simulate-set "k=v ..."] [--kafka-version V] [--work DIR]
#                           [--isrcheck BIN] [--driver DIR] [--export-only]
# Without a source option: --corpus. --matrix runs the durability sweep (no availability,
# no copies-lost column, one job: a few minutes of one core). --simulate N: seeds S..S+N-1
# (S default 1), W walks each (default 1000), over the default model with the settings of
# --simulate-set (default "acks=1": the default model itself holds in simulate, so its
# family is taken with the one setting README's first example breaks it with). A trace
# taking the same actions as an earlier one (seeds that shrink to one trace; matrix cells
# differing in a setting the trace never exercises) runs once, its row names the first:
# for the matrix that is a sample, each distinct action sequence run in its first cell's
# configuration. --export-only stops
# before Kafka (the table then has the export column only). Output: DIR/table.md (default
# DIR build/coverage), DIR/conform.json, the exported scenarios in DIR/scenarios/.
# Exit status: 0 the table was made (whatever the verdicts), 2 bad arguments, 3 conform
# interrupted, 4 an internal error of conform.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
isrcheck="$repo/build/isrcheck" driver="" work="$repo/build/coverage" version=4.4.0
corpus=0 matrix=0 sims=0 seed_base=1 walks=1000 export_only=0 sim_set="acks=1"
need() { [[ $# -ge 2 && -n "$2" ]] || { echo "coverage.sh: $1 needs a value" >&2; exit 2; }; }
while (($#)); do
  case "$1" in
    --corpus) corpus=1; shift ;;
    --matrix) matrix=1; shift ;;
    --simulate) need "$@"; sims="$2"; shift 2 ;;
    --seed-base) need "$@"; seed_base="$2"; shift 2 ;;
    --walks) need "$@"; walks="$2"; shift 2 ;;
    --simulate-set) need "$@"; sim_set="$2"; shift 2 ;;
    --kafka-version) need "$@"; version="$2"; shift 2 ;;
    --work) need "$@"; work="$2"; shift 2 ;;
    --isrcheck) need "$@"; isrcheck="$2"; shift 2 ;;
    --driver) need "$@"; driver="$2"; shift 2 ;;
    --export-only) export_only=1; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "coverage.sh: unknown argument '$1' (allowed: --corpus --matrix --simulate N --seed-base S --walks W --simulate-set S --kafka-version V --work DIR --isrcheck BIN --driver DIR --export-only)" >&2; exit 2 ;;
  esac
done
for n in "$sims" "$seed_base" "$walks"; do
  [[ "$n" =~ ^[0-9]+$ ]] || { echo "coverage.sh: --simulate, --seed-base and --walks take a whole number, not '$n'" >&2; exit 2; }
done
((corpus + matrix + sims)) || corpus=1
[[ -x "$isrcheck" ]] || { echo "coverage.sh: --isrcheck: $isrcheck is not an executable (build it: scripts/build.sh)" >&2; exit 2; }

rm -rf "$work/scenarios" "$work/traces" && mkdir -p "$work/scenarios" "$work/traces"
sources="$work/sources.tsv"   # name, source, export result ("ok" or the reason)
: > "$sources"

# Export options a corpus entry needs that steering does not derive (the timers of the
# suite's k-reelected-leader-stale-follower entry, conformance/suite/generate.sh: no leader
# may shrink a follower held for seconds, and the parked produce must outlive the faults).
declare -A corpus_export=([reelected-leader-stale-follower]="--request-timeout-ms 30000 --broker-config replica.lag.time.max.ms=30000")

# Exports trace $1 as scenario $2 (source text $3, export options $4); a trace the exporter
# refuses (another model, a fault no scenario op expresses) is a row of its own with the
# exporter's reason.
export_one() {
  local trace="$1" name="$2" source="$3" options="${4:-}" err
  # shellcheck disable=SC2086  # options is a list of options
  if err=$("$isrcheck" export "$trace" --format scenario --name "$name" --out "$work/scenarios/$name.json" $options 2>&1 >/dev/null); then
    printf '%s\t%s\tok\n' "$name" "$source" >> "$sources"
  else
    printf '%s\t%s\t%s\n' "$name" "$source" "$(tr '\n\t' '  ' <<<"$err" | cut -c1-200)" >> "$sources"
  fi
}

# Exports trace $1 as $2 unless an earlier trace of this run took the same actions (its
# rendered steps): then a row "same actions as <first>" (simulate seeds often shrink to
# one trace; matrix cells differing only in a setting the trace never exercises, too).
declare -A seen_trace=()
export_distinct() {
  local trace="$1" name="$2" source="$3" sig
  sig="$("$isrcheck" render "$trace" | grep -E '^Step [0-9]+:' | md5sum | cut -c1-32)"
  if [[ -n "${seen_trace[$sig]:-}" ]]; then
    printf '%s\t%s\t%s\n' "$name" "$source" "same actions as ${seen_trace[$sig]}" >> "$sources"
    return
  fi
  seen_trace[$sig]="$name"
  export_one "$trace" "$name" "$source"
}

if ((corpus)); then
  for f in "$repo"/counterexamples/corpus/*.json; do
    base="$(basename "$f" .json)"
    [[ "$base" == manifest ]] && continue
    options="${corpus_export[$base]:-}"
    export_one "$f" "corpus-$base" "corpus${options:+, export $options}" "$options"
  done
fi
if ((matrix)); then
  "$isrcheck" matrix --no-availability --copies-lost off --jobs 1 --quiet --json "$work/matrix.json" >/dev/null || true
  [[ -s "$work/matrix.json" ]] || { echo "coverage.sh: matrix wrote no JSON" >&2; exit 4; }
  python3 - "$work/matrix.json" "$work/traces" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
for c in m["cells"]:
    d = c.get("durability") or {}
    if "trace" not in d:
        continue
    name = "matrix-" + c.get("id", "rf%s-isr%s-acks%s-%s-%s-%s-f%s-%s" % (
        c.get("rf"), c.get("min_isr"), c.get("acks"), c.get("unclean"), c.get("elr"), c.get("placement"),
        c.get("failures"), c.get("lossy")))
    json.dump(d["trace"], open("%s/%s.json" % (sys.argv[2], name), "w"))
EOF
  for t in "$work"/traces/matrix-*.json; do
    [[ -e "$t" ]] && export_distinct "$t" "$(basename "$t" .json)" "matrix red cell"
  done
fi
sim_args=()
for s in $sim_set; do sim_args+=(--set "$s"); done
for ((i = 0; i < sims; i++)); do
  seed=$((seed_base + i))
  t="$work/traces/sim-$seed.json"
  what="simulate ${sim_set:+$sim_set }--seed $seed --walks $walks"
  "$isrcheck" simulate "${sim_args[@]}" --seed "$seed" --walks "$walks" --threads 1 --quiet --trace-out "$t" >/dev/null 2>&1 || true
  if [[ ! -s "$t" ]]; then
    printf '%s\t%s\t%s\n' "sim-$seed" "$what" "no counterexample found" >> "$sources"
    continue
  fi
  export_distinct "$t" "sim-$seed" "$what"
done

conform_json="$work/conform.json"
rm -f "$conform_json"
rc=0
if ((!export_only)) && compgen -G "$work/scenarios/*.json" >/dev/null; then
  args=(--kafka-version "$version" --work-dir "$work/run" --json "$conform_json")
  [[ -n "$driver" ]] && args+=(--driver "$driver")
  set +e
  "$isrcheck" conform "$work"/scenarios/*.json "${args[@]}" > "$work/conform.txt" 2>&1
  rc=$?
  set -e
  ((rc == 3 || rc == 4)) && { tail -5 "$work/conform.txt" >&2; echo "coverage.sh: conform exited $rc" >&2; }
fi

python3 - "$sources" "$conform_json" "$version" > "$work/table.md" <<'EOF'
import json, os, sys
sources, conform_json, version = sys.argv[1:4]
results = {}
if os.path.exists(conform_json):
    for r in json.load(open(conform_json))["scenarios"]:
        results[r["name"]] = r
rows, counts = [], {}
for line in open(sources):
    name, source, exported = line.rstrip("\n").split("\t")
    if exported != "ok":
        verdict = ("no counterexample" if exported == "no counterexample found" else
                   "duplicate" if exported.startswith("same actions as") else "not exportable")
        detail = exported
    elif name not in results:
        verdict, detail = "not run", ""
    else:
        r = results[name]
        verdict = r["verdict"]
        if verdict == "diverges":
            where = "the end" if r["step"] == -1 else "setup" if r["step"] == 0 else "step %s" % r["step"]
            detail = "%s: expected %s, observed %s" % (where, r["expected"], r["observed"])
        elif verdict in ("not executable here", "error", "interrupted"):
            detail = r["reason"]
        else:
            detail = "%.1f s setup / %.1f s run" % (r["setup_seconds"], r["run_seconds"])
    counts[verdict] = counts.get(verdict, 0) + 1
    detail = " ".join(detail.replace("|", "/").split())  # one line per row
    rows.append("| %s | %s | %s | %s |" % (name, source, verdict, detail[:300]))
executable = counts.get("conforms", 0) + counts.get("diverges", 0)
print("Kafka %s: %d traces; %s" % (version, len(rows), ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
if executable:
    print("rate: %d of %d executed traces conform (%.0f%%)" % (counts.get("conforms", 0), executable,
                                                             100.0 * counts.get("conforms", 0) / executable))
print()
print("| trace | source | verdict | step, reason or time |")
print("|---|---|---|---|")
print("\n".join(rows))
EOF
cat "$work/table.md"
((rc == 3 || rc == 4)) && exit "$rc"
exit 0
