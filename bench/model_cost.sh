#!/usr/bin/env bash
# The Kafka models' cost per state against a base revision (issue 27, item 1): generated
# states per CPU-second of `isrcheck check`, this tree's binary and the base revision's,
# side by side in one run (alternating, so that both see the same machine load), on the
# default partition model and on the composed RF 3 model.
#
#   bench/model_cost.sh [--base e91e1b3] [--base-binary PATH] [--binary build/isrcheck]
#                       [--repeats 2] [--threads 1] [--max-states N] [--quick]
#                       [--allow-model-change]
#
# Without --base-binary the base revision is checked out as a detached git worktree in
# /work/wt/isrcheck-base-REV (or $ISRCHECK_BASE_DIR) and its isrcheck target built there
# (scripts/build.sh; ccache is used when CMAKE_CXX_COMPILER_LAUNCHER says so). Each row
# is one process under /usr/bin/time: CPU = user + system of the whole process, so the
# rate compared is generated states per CPU-second, which a shared machine disturbs far
# less than wall time. Rows are checked to generate the same states and reach the same
# distinct count as the base (exit 1 otherwise: the change would not be a pure speed-up).
# The composed model does not finish in minutes, so both binaries stop at the same
# --max-states (exact and deterministic: the same states are generated).
# --allow-model-change: the model itself changed since the base revision (new rules or
# toggles: the binaries then generate different states), so the counts are reported but
# not required equal; the rates compare the cost of a generated state of two different
# state spaces, which the summary says. Run it also against a binary of the same model
# (--base-binary of the last merged main) for a pure speed-up.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
base=e91e1b3
base_binary=""
binary="$root/build/isrcheck"
repeats=2
threads=1
cluster_states=3000000
default_states=0
allow_model_change=0
while (($#)); do
  case "$1" in
    --base) base="$2"; shift 2 ;;
    --base-binary) base_binary="$2"; shift 2 ;;
    --binary) binary="$2"; shift 2 ;;
    --repeats) repeats="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --max-states) cluster_states="$2"; default_states="$2"; shift 2 ;;
    --quick) cluster_states=500000; default_states=1000000; repeats=1; shift ;;
    --allow-model-change) allow_model_change=1; shift ;;
    *) echo "model_cost: unknown option $1 (allowed: --base REV, --base-binary PATH, --binary PATH, --repeats N, --threads N, --max-states N, --quick, --allow-model-change)" >&2
       exit 2 ;;
  esac
done
[[ "$repeats" =~ ^[1-9][0-9]*$ ]] || { echo "model_cost: --repeats must be a positive integer, got '$repeats'" >&2; exit 2; }
[[ "$threads" =~ ^[1-9][0-9]*$ ]] || { echo "model_cost: --threads must be a positive integer, got '$threads'" >&2; exit 2; }
[[ -x "$binary" ]] || { echo "model_cost: $binary is not built (scripts/build.sh --target isrcheck)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "model_cost: needs /usr/bin/time (GNU time) for CPU time" >&2; exit 2; }

if [[ -z "$base_binary" ]]; then
  rev="$(git -C "$root" rev-parse --short "$base^{commit}")" ||
    { echo "model_cost: --base: '$base' is not a revision of this repository" >&2; exit 2; }
  dir="${ISRCHECK_BASE_DIR:-/work/wt/isrcheck-base-$rev}"
  if [[ ! -d "$dir" ]]; then
    git -C "$root" worktree add --detach "$dir" "$rev" >&2
  fi
  if [[ ! -x "$dir/build/isrcheck" ]]; then
    echo "model_cost: building isrcheck at $rev in $dir" >&2
    "$dir/scripts/build.sh" --target isrcheck >&2
  fi
  base_binary="$dir/build/isrcheck"
fi
[[ -x "$base_binary" ]] || { echo "model_cost: $base_binary is not an executable" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "# model cost: $(date -u +%FT%TZ), $(nproc) cores, --threads $threads, --repeats $repeats"
echo "# this: $("$binary" --version | head -1)"
echo "# base: $("$base_binary" --version | head -1)"
printf '| %-34s | %-5s | %10s | %10s | %7s | %7s | %12s | %-16s |\n' row binary distinct generated "wall s" "cpu s" "gen per CPU-s" "load before->after"
printf '|%s|\n' "------------------------------------|-------|------------|------------|---------|---------|--------------|-------------------"

# run ROW WHICH BINARY ARGS...: one `check` run; appends "row which distinct generated cpu" to rates.tsv.
run() {
  local row="$1" which="$2" bin="$3"
  shift 3
  local json="$work/r.json" timing="$work/time.txt" load_before
  load_before="$(cut -d' ' -f1 /proc/loadavg)"
  rm -f "$json"
  /usr/bin/time -f '%e %U %S' -o "$timing" "$bin" check --quiet --threads "$threads" --json "$json" "$@" \
    >/dev/null 2>&1 || true
  python3 - "$row" "$which" "$json" "$timing" "$load_before" "$(cut -d' ' -f1 /proc/loadavg)" "$work/rates.tsv" <<'EOF'
import json, sys
row, which, path, timing, before, after, out = sys.argv[1:8]
wall, user, system = open(timing).read().split()[-3:]
r = json.load(open(path))
cpu = float(user) + float(system)
gen, dist = r["states_generated"], r["distinct_states"]
print(f"| {row:<34} | {which:<5} | {dist:>10} | {gen:>10} | {float(wall):>7.2f} | {cpu:>7.2f} | {gen / cpu / 1e6:>11.3f}M | {before} -> {after:<8} |")
open(out, "a").write(f"{row}\t{which}\t{dist}\t{gen}\t{cpu}\n")
EOF
}

rows=(default cluster)
for ((i = 0; i < repeats; ++i)); do
  for row in "${rows[@]}"; do
    if [[ "$row" == default ]]; then
      label="default model"
      args=(--max-states "$default_states")
    else
      label="--model cluster, RF 3, min ISR 2"
      args=(--model cluster --set replication_factor=3 --set min_insync_replicas=2 --max-states "$cluster_states")
    fi
    # Alternate which binary goes first, so that a load change does not favour one.
    if ((i % 2 == 0)); then order=(base this); else order=(this base); fi
    for which in "${order[@]}"; do
      if [[ "$which" == base ]]; then run "$label" base "$base_binary" "${args[@]}"; else run "$label" this "$binary" "${args[@]}"; fi
    done
  done
done

python3 - "$work/rates.tsv" "$allow_model_change" <<'EOF'
import collections, sys
allow_model_change = sys.argv[2] == "1"
rows = collections.OrderedDict()
counts = {}
for line in open(sys.argv[1]):
    row, which, dist, gen, cpu = line.rstrip("\n").split("\t")
    rows.setdefault(row, {"base": [0, 0.0], "this": [0, 0.0]})
    rows[row][which][0] += int(gen)
    rows[row][which][1] += float(cpu)
    counts.setdefault(row, set()).add((which, dist, gen))
ok = True
print()
print("| row | base gen/CPU-s | this gen/CPU-s | speed-up (target 2x) |")
print("|---|---|---|---|")
for row, r in rows.items():
    base = r["base"][0] / r["base"][1]
    this = r["this"][0] / r["this"][1]
    print(f"| {row} | {base / 1e6:.3f}M | {this / 1e6:.3f}M | {this / base:.2f}x |")
    if len({(d, g) for _, d, g in counts[row]}) != 1:
        if allow_model_change:
            print(f"model_cost: {row}: the counts differ (--allow-model-change: the models differ, so this compares "
                  f"the cost per generated state of two state spaces): {sorted(counts[row])}", file=sys.stderr)
        else:
            print(f"model_cost: {row}: the counts differ between the two binaries: {sorted(counts[row])}", file=sys.stderr)
            ok = False
sys.exit(0 if ok else 1)
EOF
echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
