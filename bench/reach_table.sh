#!/usr/bin/env bash
# The reach table of issue 14: for each configuration of its table, what `isrcheck check`
# (or `prove`) reaches, with each memory technique on ("after") and off ("before"), in
# one run so that the rows compare as ratios on a shared machine.
#
#   bench/reach_table.sh [--time-limit 180s] [--threads 2] [--binary build/isrcheck]
#                        [--variants after,por,fp64,before] [--no-big] [--no-toy]
#                        [--rows SUBSTRING] [--max-memory SIZE]
#
# Big rows do not finish in minutes: each run stops at --time-limit (check's own
# --time-limit; prove under `timeout -s INT`) and the table says how far it got (depth,
# distinct states) and what it cost. Columns:
#   distinct/depth   states checked and the last level completed
#   wall, cpu        seconds (cpu: user + system of the process, all threads)
#   engine peak      the search's structures at their largest (BfsResult::peak_memory_bytes)
#   rss              the process's maximum resident set (/usr/bin/time)
#   B/state          engine peak / distinct states
#   frontier B/st    encoded bytes per frontier state (checker/store/state_store.h)
#   visited B/fp     visited-set bytes per fingerprint
#   collision        the estimate for the width used (64 or 128 bits)
# Variants: after = defaults (frontier delta, 128-bit fingerprints); por = after with
# --por on (partial-order reduction, docs/checker.md); fp64 = --fingerprint 64; before =
# --frontier reference --fingerprint 64 (the engine's memory before issue 14).
# The toy rows come from bench/bfs_bench --toy-only (64/128 bits, bucket sort/std::sort).
# --variants picks which of them run (all four by default); `--variants por --time-limit
# 30m` runs every row to its end with everything on, which is what issue 14's targets
# are about. Not run in CI: it takes (rows x variants x time limit).
# --rows runs only the check rows whose name contains SUBSTRING (no prove or toy rows);
# --max-memory passes check's own limit (the engine's structures) to every check run.
# The last two rows are issue 27's item 5 (reach with the defaults: POR on), which
# `--rows "issue 27" --variants por` runs alone.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
time_limit=180s
threads=2
binary="$root/build/isrcheck"
big=1
toy=1
rows=""
max_memory=()
variants=",after,por,fp64,before,"
while (($#)); do
  case "$1" in
    --time-limit) time_limit="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --binary) binary="$2"; shift 2 ;;
    --variants) variants=",$2,"; shift 2 ;;
    --no-big) big=0; shift ;;
    --no-toy) toy=0; shift ;;
    --rows) rows="$2"; shift 2 ;;
    --max-memory) max_memory=(--max-memory "$2"); shift 2 ;;
    *) echo "reach_table: unknown option $1 (allowed: --time-limit DURATION, --threads N, --binary PATH, --variants LIST, --no-big, --no-toy, --rows SUBSTRING, --max-memory SIZE)" >&2
       exit 2 ;;
  esac
done
for v in ${variants//,/ }; do
  case "$v" in
    after|por|fp64|before) ;;
    *) echo "reach_table: --variants: unknown variant '$v' (allowed: after, por, fp64, before, comma-separated)" >&2
       exit 2 ;;
  esac
done
wanted() { [[ "$variants" == *",$1,"* ]]; }
[[ -x "$binary" ]] || { echo "reach_table: $binary is not built (scripts/build.sh --target isrcheck)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "reach_table: needs /usr/bin/time (GNU time) for CPU time and RSS" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "# reach table: $(date -u +%FT%TZ), $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg), --threads $threads, --time-limit $time_limit"
echo "# $("$binary" --version)"
printf '| %-44s | %-6s | %-10s | %10s | %5s | %7s | %7s | %11s | %9s | %7s | %13s | %12s | %9s |\n' \
  row variant verdict distinct depth "wall s" "cpu s" "engine peak" "rss" "B/state" "frontier B/st" "visited B/fp" collision
printf '|%s|\n' "----------------------------------------------|--------|------------|------------|-------|---------|---------|-------------|-----------|---------|---------------|--------------|-----------"

# run_check ROW VARIANT ARGS...: one `check` run, one table line.
run_check() {
  local row="$1" variant="$2"
  shift 2
  local json="$work/r.json" timing="$work/time.txt"
  /usr/bin/time -f '%e %U %S %M' -o "$timing" "$binary" check --quiet --threads "$threads" \
    --time-limit "$time_limit" "${max_memory[@]}" --json "$json" "$@" >/dev/null 2>&1 || true
  python3 - "$row" "$variant" "$json" "$timing" "$work/targets.tsv" <<'EOF'
import json, sys
row, variant, path, timing, targets = sys.argv[1:6]
wall, user, system, rss_kb = open(timing).read().split()[-4:]
try:
    r = json.load(open(path))
except (OSError, ValueError):
    print(f"| {row:44} | {variant:6} | error      |")
    sys.exit(0)
with open(targets, "a") as t:
    t.write(f"{row}\t{variant}\t{r['verdict']}\t{r['distinct_states']}\t{wall}\t{int(rss_kb) * 1024}\t"
            f"{r['collision_probability']}\n")
m = r["memory"]
verdict = r["verdict"] + ("" if r["verdict"] != "incomplete" else " (" + r.get("stop_reason", "?") + ")")
mib = lambda b: f"{b / 2**20:.0f} MiB" if b < 2**30 else f"{b / 2**30:.2f} GiB"
per = r["peak_memory_bytes"] / max(1, r["distinct_states"])
print(f"| {row:44} | {variant:6} | {verdict:10} | {r['distinct_states']:10} | {r['depth']:5} | {float(wall):7.1f} | "
      f"{float(user) + float(system):7.1f} | {mib(r['peak_memory_bytes']):>11} | {mib(int(rss_kb) * 1024):>9} | "
      f"{per:7.1f} | {m['frontier_bytes_per_state']:13.1f} | {m['visited_set_bytes_per_fingerprint']:12.1f} | "
      f"{r['collision_probability']:9.2g} |")
EOF
}

# rows: the configurations of issue 14's table (the big ones without the fp64 variant,
# which the default row measures, to keep the run within rows x 3 x the time limit)
check_rows() {
  local name="$1"
  shift
  [[ -z "$rows" || "$name" == *"$rows"* ]] || return 0
  wanted after && run_check "$name" after "$@"
  wanted por && run_check "$name" por --por on "$@"
  [[ "$name" == "default model" ]] && wanted fp64 && run_check "$name" fp64 --fingerprint 64 "$@"
  wanted before && run_check "$name" before --frontier reference --fingerprint 64 "$@"
  return 0
}

check_rows "default model"
if ((big)); then
  check_rows "default, bounds.max_records=2" --set bounds.max_records=2
  check_rows "cluster, RF 3, min ISR 2" --model cluster --set replication_factor=3 --set min_insync_replicas=2
  check_rows "cluster, RF 3, min ISR 2, kraft.max_records=2" --model cluster --set replication_factor=3 \
    --set min_insync_replicas=2 --set kraft.max_records=2
  # Issue 27, item 5: reach with the defaults (POR on).
  check_rows "issue 27: default, bounds.max_records=3" --set bounds.max_records=3
  check_rows "issue 27: cluster RF 3, kraft.max_records=2, 2 crashes" --model cluster --set replication_factor=3 \
    --set min_insync_replicas=2 --set kraft.max_records=2 --set faults.max_crashes=2
  # prove: its searches use the engine's defaults (128-bit, delta); no JSON memory figures.
  run_prove() {
    local variant="$1"
    shift
    local timing="$work/time.txt"
    /usr/bin/time -f '%e %U %S %M' -o "$timing" timeout -s INT "$time_limit" "$binary" prove --threads "$threads" \
      --json "$work/p.json" "$@" "$root/bench/reach/elr-power-and-disk-loss.json" >/dev/null 2>&1 || true
    python3 - "$variant" "$work/p.json" "$timing" <<'EOF'
import json, sys
variant, path, timing = sys.argv[1:4]
wall, user, system, rss_kb = open(timing).read().split()[-4:]
try:
    c = json.load(open(path))["claims"][0]["checks"][0]
    found, states = c["found"], c["states"]
except (OSError, ValueError, KeyError, IndexError):
    found, states = "error", 0
print(f"| {'prove: ELR, power loss + disk loss after ack':44} | {variant:6} | {found:10} | {states:10} | {'-':>5} | "
      f"{float(wall):7.1f} | {float(user) + float(system):7.1f} | {'-':>11} | {int(rss_kb) / 1024:6.0f} MiB | "
      f"{int(rss_kb) * 1024 / max(1, states):7.1f} | {'-':>13} | {'-':>12} | {'-':>9} |")
EOF
  }
  if [[ -z "$rows" ]]; then
    wanted after && run_prove after
    wanted por && run_prove por --por on
  fi
fi

if ((toy)) && [[ -z "$rows" ]]; then
  bench="$(dirname "$binary")/bfs_bench"
  if [[ -x "$bench" ]]; then
    echo
    echo "# toy model (bench/bfs_bench --toy-only): engine cost per state without a protocol"
    "$bench" --toy-only | tee "$work/toy.txt"
  else
    echo "# (toy rows skipped: $bench is not built)"
  fi
fi

# The targets of issue 14, judged from the rows above: met, or by how much they fall short.
echo
echo "# targets (issue 14)"
python3 - "$work/targets.tsv" "$work/toy.txt" <<'EOF'
import sys
targets, toy = sys.argv[1:3]
rows = []
try:
    for line in open(targets):
        row, variant, verdict, distinct, wall, rss, collision = line.rstrip("\n").split("\t")
        rows.append((row, variant, verdict, int(distinct), float(wall), int(rss), float(collision)))
except OSError:
    pass
limit_s, limit_bytes, limit_collision = 15 * 60, 12 * 2**30, 1e-6
for name in ("default, bounds.max_records=2", "cluster, RF 3, min ISR 2, kraft.max_records=2",
             "issue 27: default, bounds.max_records=3", "issue 27: cluster RF 3, kraft.max_records=2, 2 crashes"):
    runs = [r for r in rows if r[0] == name]
    if not runs:
        print(f"- {name}: not run (--no-big, --rows, or no variant selected)")
        continue
    def ok(r):
        return r[2] != "incomplete" and r[4] <= limit_s and r[5] <= limit_bytes and r[6] < limit_collision
    good = [r for r in runs if ok(r)]
    if good:
        r = min(good, key=lambda r: r[4])
        print(f"- {name}: met with variant {r[1]} ({r[2]}, {r[3]} states, {r[4]:.0f} s <= 900 s, "
              f"{r[5] / 2**30:.2f} GiB <= 12 GiB, collision {r[6]:.2g} < 1e-6)")
    for r in runs:
        if ok(r):
            continue
        short = []
        if r[2] == "incomplete":
            short.append(f"incomplete after {r[4]:.0f} s at {r[3]} states")
        elif r[4] > limit_s:
            short.append(f"{r[4] - limit_s:.0f} s over 15 minutes")
        if r[5] > limit_bytes:
            short.append(f"{(r[5] - limit_bytes) / 2**30:.2f} GiB over 12 GiB")
        if r[6] >= limit_collision:
            short.append(f"collision estimate {r[6]:.2g} >= 1e-6")
        print(f"- {name}, variant {r[1]}: not met: " + "; ".join(short))
rate = None
try:
    for line in open(toy):
        t = line.split()
        if t[:6] == ["toy", "counters", "8^8", "fp128", "1", "off"]:
            rate = float(t[14])
except (OSError, IndexError, ValueError):
    pass
if rate is None:
    print("- toy model >= 15M generated states per CPU-second: not run (--no-toy, or bfs_bench not built)")
elif rate >= 15e6:
    print(f"- toy model, 128-bit, 1 thread: met ({rate / 1e6:.1f}M generated per CPU-second)")
else:
    print(f"- toy model, 128-bit, 1 thread: not met: {rate / 1e6:.1f}M generated per CPU-second, "
          f"{(1 - rate / 15e6) * 100:.1f}% short of 15M")
EOF
