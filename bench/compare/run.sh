#!/usr/bin/env bash
# Side by side on one toy model: isrcheck's BFS engine (bench/bfs_bench's toy rows, the
# default 128-bit and the 64-bit fingerprints), Stateright (bench/compare/stateright,
# the stateright crate from crates.io) and TLC (bench/compare/tla/Toy.tla, with a
# tla2tools.jar the user supplies), each with 1 thread and then 2, in one run.
#
#   bench/compare/run.sh [--quick] [--tla2tools JAR] [--no-build]
#     --quick: the 8^7 toy (2.1M states, seconds) instead of 8^8 (16.8M states);
#     --tla2tools JAR: TLC's jar (or set TLA2TOOLS_JAR); without one the TLC rows are
#       skipped and the table says so (TLC is not served by the registries reached here);
#     --no-build: use the binaries already built.
#   Environment: ISRCHECK_BUILD_ROOT (as scripts/build.sh), TLC_JAVA_OPTS (default
#   "-XX:+UseParallelGC"), JAVA (default java).
#
# Builds what it needs: bfs_bench (scripts/build.sh --target bfs_bench) and the
# Stateright program (cargo build --release --locked: crates.io only, the versions of
# Cargo.lock), into build/.
#
# Every row is one process measured by /usr/bin/time: wall seconds, CPU seconds (user +
# system, all threads) and peak RSS. The rate compared is generated states per
# CPU-second: on a shared machine wall time depends on the neighbours, CPU time much
# less (it still grows with the load: caches and memory bandwidth are shared), so only
# rows of the same run compare, which is why one run measures every tool. The load
# average is recorded before and after each row. bfs_bench runs its variants one after
# another; the script stops it (by its pid) as soon as it has printed the row measured,
# so its CPU time is that search's (plus the few milliseconds until the stop; the
# search's own getrusage figure, which bfs_bench prints, is in the table's note column).
#
# The state counts must agree: distinct states (K+1)^N and generated states (initial
# states plus every successor computed) 1 + N*K*(K+1)^(N-1), for every tool and thread
# count; any other figure fails the run (exit 1) after the table is printed.
#
# Exit status: 0 all rows ran and agree; 1 a build or a tool failed or counts disagree;
# 2 bad usage; 3 interrupted (the rows done so far are printed).
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
here="$root/bench/compare"
build_dir="${ISRCHECK_BUILD_ROOT:-$root}/build"

usage() {
  echo "usage: bench/compare/run.sh [--quick] [--tla2tools JAR] [--no-build]" >&2
  exit 2
}

quick=0
build=1
jar="${TLA2TOOLS_JAR:-}"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) quick=1 ;;
    --no-build) build=0 ;;
    --tla2tools)
      [[ $# -ge 2 && -n "$2" ]] || { echo "run.sh: --tla2tools needs the path of tla2tools.jar" >&2; usage; }
      jar="$2"
      shift ;;
    -h|--help) sed -n '2,34p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument \"$1\" (allowed: --quick, --tla2tools JAR, --no-build)" >&2; usage ;;
  esac
  shift
done
if [[ -n "$jar" && ! -f "$jar" ]]; then
  echo "run.sh: --tla2tools / TLA2TOOLS_JAR: no such file \"$jar\" (the path of tla2tools.jar, or leave it unset to skip TLC)" >&2
  exit 2
fi

processes=8
max_count=7
if [[ $quick -eq 1 ]]; then processes=7; fi
toy="8^$processes"
expected_distinct=$(( (max_count + 1) ** processes ))
expected_generated=$(( 1 + processes * max_count * (max_count + 1) ** (processes - 1) ))

bfs_bench="$build_dir/bfs_bench"
cargo_target="$build_dir/compare-stateright"
stateright_bin="$cargo_target/release/toy-stateright"
stateright_version="$(awk '/^name = "stateright"/ { getline; gsub(/[^0-9.]/, ""); print; exit }' "$here/stateright/Cargo.lock")"

if [[ $build -eq 1 ]]; then
  echo "== building bfs_bench and the Stateright toy (load: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  "$root/scripts/build.sh" --target bfs_bench >&2 || { echo "run.sh: building bfs_bench failed" >&2; exit 1; }
  cargo build --release --locked --quiet --manifest-path "$here/stateright/Cargo.toml" \
    --target-dir "$cargo_target" >&2 || { echo "run.sh: cargo build of bench/compare/stateright failed" >&2; exit 1; }
fi
for binary in "$bfs_bench" "$stateright_bin"; do
  [[ -x "$binary" ]] || { echo "run.sh: $binary is missing (run without --no-build)" >&2; exit 1; }
done

java="${JAVA:-java}"
tlc_skip=""
if [[ -z "$jar" ]]; then
  tlc_skip="skipped: no tla2tools.jar (pass --tla2tools JAR or set TLA2TOOLS_JAR)"
elif ! command -v "$java" >/dev/null; then
  tlc_skip="skipped: no java ($java) to run $jar"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/isrcheck-compare.XXXXXX")"
running=""  # pid of /usr/bin/time for the row in progress
cleanup() {
  if [[ -n "$running" ]]; then
    local child
    for child in $(cat "/proc/$running/task/$running/children" 2>/dev/null); do kill "$child" 2>/dev/null; done
    kill "$running" 2>/dev/null
    wait "$running" 2>/dev/null
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# One row per measured process, in order: tool|threads|distinct|generated|wall|cpu|rss
# MiB|load before|load after|note.
rows=()
failures=()

load1() { cut -d' ' -f1 /proc/loadavg; }

# measure NAME THREADS STOP_AWK -- COMMAND...: runs COMMAND under /usr/bin/time with its
# output in $work/NAME.out; when STOP_AWK (an awk condition) matches a line of the output,
# the command is stopped there (the row it measures has been printed). Sets m_wall,
# m_cpu, m_rss_mib, m_load_before, m_load_after; returns the command's status (0 when
# stopped on purpose).
measure() {
  local name="$1" stop="$3"
  shift 4
  local out="$work/$name.out" times="$work/$name.time"
  m_load_before="$(load1)"
  : >"$out"  # before the poll below reads it (the command's own redirection may come later)
  /usr/bin/time -o "$times" -f '%e %U %S %M' "$@" >"$out" 2>"$work/$name.err" &
  running=$!
  local stopped=0
  if [[ -n "$stop" ]]; then
    while kill -0 "$running" 2>/dev/null; do
      if awk "$stop { found = 1; exit } END { exit !found }" "$out"; then
        local child
        for child in $(cat "/proc/$running/task/$running/children" 2>/dev/null); do kill "$child" 2>/dev/null; done
        stopped=1
        break
      fi
      sleep 0.02
    done
  fi
  wait "$running"
  local status=$?
  running=""
  m_load_after="$(load1)"
  # With a stopped command /usr/bin/time writes "Command terminated by signal 15" first.
  read -r m_wall user sys rss_kib < <(tail -n 1 "$times")
  m_cpu="$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')"
  m_rss_mib="$(awk -v k="$rss_kib" 'BEGIN { printf "%.0f", k / 1024 }')"
  if [[ $stopped -eq 1 ]]; then return 0; fi
  return "$status"
}

fail_row() {  # TOOL THREADS WHY NAME
  failures+=("$1, $2 thread(s): $3 (output: $(tail -n 3 "$work/$4.out" "$work/$4.err" 2>/dev/null | tr '\n' ' '))")
  rows+=("$1|$2|-|-|-|-|-|-|-|failed: $3")
}

interrupted() {
  echo "run.sh: interrupted; rows done so far:" >&2
  print_table >&2
  exit 3
}

run_isrcheck() {  # BITS THREADS
  local bits="$1" threads="$2" name="isrcheck-fp$1-t$2"
  local tool="isrcheck, ${bits}-bit fingerprints"
  [[ $bits -eq 128 ]] && tool="isrcheck (default: 128-bit fingerprints)"
  [[ $bits -eq 64 ]] && tool="isrcheck --fingerprint 64"
  # The row is "toy counters 8^N fpBITS  THREADS ...": not the later variants
  # ("fpBITS expand-lookup", "fpBITS std::sort"), whose fifth field is a word.
  local stop="\$1 == \"toy\" && \$3 == \"$toy\" && \$4 == \"fp$bits\" && \$5 == \"$threads\""
  local quick_flag=()
  [[ $quick -eq 1 ]] && quick_flag=(--quick)
  if ! measure "$name" "$threads" "$stop" -- "$bfs_bench" "${quick_flag[@]}" --toy-only \
      --only "$toy fp$bits" --threads "$threads"; then
    fail_row "$tool" "$threads" "bfs_bench failed" "$name"
    return
  fi
  local line
  line="$(awk "$stop { print; exit }" "$work/$name.out")"
  if [[ -z "$line" ]]; then
    fail_row "$tool" "$threads" "bfs_bench printed no row for $toy fp$bits" "$name"
    return
  fi
  # Fields: toy counters 8^N fpB thr sym distinct generated depth wall cpu ...
  local distinct generated own_cpu
  read -r distinct generated own_cpu < <(echo "$line" | awk '{ print $7, $8, $11 }')
  rows+=("$tool|$threads|$distinct|$generated|$m_wall|$m_cpu|$m_rss_mib|$m_load_before|$m_load_after|its own getrusage around the search: $own_cpu CPU-s")
}

run_stateright() {  # THREADS
  local threads="$1" name="stateright-t$1" tool="Stateright $stateright_version"
  if ! measure "$name" "$threads" "" -- "$stateright_bin" --processes "$processes" --max-count "$max_count" \
      --threads "$threads"; then
    fail_row "$tool" "$threads" "toy-stateright failed" "$name"
    return
  fi
  local distinct generated
  distinct="$(grep -o 'distinct=[0-9]*' "$work/$name.out" | cut -d= -f2)"
  generated="$(grep -o 'generated=[0-9]*' "$work/$name.out" | cut -d= -f2)"
  rows+=("$tool|$threads|${distinct:--}|${generated:--}|$m_wall|$m_cpu|$m_rss_mib|$m_load_before|$m_load_after|")
}

run_tlc() {  # THREADS
  local threads="$1" name="tlc-t$1" tool="TLC"
  if [[ -n "$tlc_skip" ]]; then
    rows+=("$tool|$threads|-|-|-|-|-|-|-|$tlc_skip")
    return
  fi
  local dir="$work/tlc-t$threads"
  mkdir -p "$dir"
  cp "$here/tla/Toy.tla" "$dir/"
  sed "s/^  N = 8$/  N = $processes/" "$here/tla/Toy.cfg" >"$dir/Toy.cfg"
  # -deadlock: the final state has no successor, which is no error here (see Toy.tla).
  # shellcheck disable=SC2086  # TLC_JAVA_OPTS is a list of JVM options
  if ! measure "$name" "$threads" "" -- bash -c 'cd "$1" && shift && exec "$@"' _ "$dir" \
      "$java" ${TLC_JAVA_OPTS:--XX:+UseParallelGC} -cp "$jar" tlc2.TLC -workers "$threads" -deadlock \
      -checkpoint 0 -metadir "$dir/states" -config Toy.cfg Toy; then
    fail_row "$tool" "$threads" "TLC failed" "$name"
    return
  fi
  local version summary distinct generated
  if ! grep -q 'No error has been found' "$work/$name.out"; then
    fail_row "$tool" "$threads" "TLC did not say \"No error has been found\"" "$name"
    return
  fi
  version="$(grep -o -m 1 'Version [0-9.]*' "$work/$name.out" | head -n 1)"
  [[ -n "$version" ]] && tool="TLC ${version#Version }"
  # "N states generated, M distinct states found, 0 states left on queue." (the last
  # such line; some versions group digits with commas).
  summary="$(grep -E '[0-9,]+ states generated, [0-9,]+ distinct states found' "$work/$name.out" | tail -n 1 | tr -d ',')"
  generated="$(echo "$summary" | grep -o -E '[0-9]+ states generated' | grep -o -E '^[0-9]+')"
  distinct="$(echo "$summary" | grep -o -E '[0-9]+ distinct states found' | grep -o -E '^[0-9]+')"
  rows+=("$tool|$threads|${distinct:--}|${generated:--}|$m_wall|$m_cpu|$m_rss_mib|$m_load_before|$m_load_after|")
}

rate() { awk -v g="$1" -v c="$2" 'BEGIN { if (c > 0 && g ~ /^[0-9]+$/) printf "%.2fM", g / c / 1e6; else printf "-" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2fx", a / b; else printf "-" }'; }

# The anchors: isrcheck's rates per thread count, from this run.
anchor_rate() {  # BITS THREADS -> generated per CPU-second, or 0
  local row tool threads distinct generated wall cpu rest
  for row in "${rows[@]}"; do
    IFS='|' read -r tool threads distinct generated wall cpu rest <<<"$row"
    if [[ "$threads" == "$2" && "$tool" == isrcheck* && ( ( $1 -eq 128 && "$tool" == *default* ) ||
          ( $1 -eq 64 && "$tool" == *"fingerprint 64"* ) ) && "$cpu" != "-" ]]; then
      awk -v g="$generated" -v c="$cpu" 'BEGIN { printf "%.6f", g / c }'
      return
    fi
  done
  echo 0
}

wall_of() {  # TOOL THREADS -> wall seconds or empty
  local row tool threads distinct generated wall rest
  for row in "${rows[@]}"; do
    IFS='|' read -r tool threads distinct generated wall rest <<<"$row"
    if [[ "$tool" == "$1" && "$threads" == "$2" ]]; then echo "$wall"; return; fi
  done
}

print_table() {
  echo "| tool | threads | distinct | generated | wall s | CPU s | generated per CPU-s | isrcheck 128-bit / this | isrcheck 64-bit / this | wall 1->2 threads | peak RSS MiB | load before -> after | note |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  local row tool threads distinct generated wall cpu rss before after note
  for row in "${rows[@]}"; do
    IFS='|' read -r tool threads distinct generated wall cpu rss before after note <<<"$row"
    local per="-" r128="-" r64="-" speedup="-"
    if [[ "$cpu" != "-" ]]; then
      per="$(rate "$generated" "$cpu")"
      local mine
      mine="$(awk -v g="$generated" -v c="$cpu" 'BEGIN { if (c > 0 && g ~ /^[0-9]+$/) printf "%.6f", g / c; else print 0 }')"
      r128="$(ratio "$(anchor_rate 128 "$threads")" "$mine")"
      r64="$(ratio "$(anchor_rate 64 "$threads")" "$mine")"
      if [[ "$threads" == 2 ]]; then speedup="$(ratio "$(wall_of "$tool" 1)" "$wall")"; fi
    fi
    local load="-"
    [[ "$before" != "-" ]] && load="$before -> $after"
    echo "| $tool | $threads | $distinct | $generated | $wall | $cpu | $per | $r128 | $r64 | $speedup | $rss | $load | $note |"
  done
}

trap interrupted INT TERM

start_load="$(cut -d' ' -f1-3 /proc/loadavg)"
start_time="$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "== toy $toy (N=$processes counters up to K=$max_count): expecting $expected_distinct distinct, $expected_generated generated; load average $start_load" >&2
for threads in 1 2; do
  echo "== $threads thread(s): isrcheck 128-bit" >&2; run_isrcheck 128 "$threads"
  echo "== $threads thread(s): isrcheck 64-bit" >&2; run_isrcheck 64 "$threads"
  echo "== $threads thread(s): Stateright" >&2; run_stateright "$threads"
  echo "== $threads thread(s): TLC" >&2; run_tlc "$threads"
done
trap - INT TERM
end_load="$(cut -d' ' -f1-3 /proc/loadavg)"

for row in "${rows[@]}"; do
  IFS='|' read -r tool threads distinct generated rest <<<"$row"
  [[ "$distinct" == "-" && "$generated" == "-" && "$rest" == *skipped* ]] && continue
  [[ "$rest" == *failed:* ]] && continue  # already in failures
  if [[ "$distinct" != "$expected_distinct" || "$generated" != "$expected_generated" ]]; then
    failures+=("$tool, $threads thread(s): $distinct distinct, $generated generated; expected $expected_distinct and $expected_generated")
  fi
done

echo "Toy $toy: $expected_distinct distinct states, $expected_generated generated; $start_time, revision $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) cores; load average (1, 5, 15 min) $start_load before, $end_load after."
echo
print_table
echo
if [[ ${#failures[@]} -gt 0 ]]; then
  echo "run.sh: FAILED:" >&2
  printf '  %s\n' "${failures[@]}" >&2
  exit 1
fi
echo "All state counts agree ($expected_distinct distinct, $expected_generated generated)."
