#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang, ASan, UBSan with ISRCHECK_FUZZ_UBSAN=ON, in
# build-fuzz/) and fuzzes.
#   scripts/fuzz.sh TARGET SECONDS   one target: config, set, trace, claim, manifest,
#                                    scenario, script, explore or recording (fuzz/README.md)
#   scripts/fuzz.sh --all SECONDS    every target, SECONDS each, ISRCHECK_FUZZ_JOBS
#                                    (default: the number of cores) of them at a time
#   scripts/fuzz.sh --build          build every target, fuzz none (.ci/run builds them
#                                    beside scripts/test.sh; its --all then only fuzzes)
# Each run first replays the target's regression inputs (fuzz/regressions/<target>/),
# then fuzzes from its seeds and its corpus (build-fuzz/corpus/<target>/, kept between
# runs so that campaigns add up). It fails on a crash, a sanitizer report, a leak, a
# timeout (ISRCHECK_FUZZ_TIMEOUT seconds for one input, default 30), memory beyond
# ISRCHECK_FUZZ_RSS_MB (default 2560) or an exit 4 (internal error) of any command; the
# input is kept in build-fuzz/artifacts/<target>/ (replay it with
# build/fuzz/fuzz_<target>_replay FILE, or the target itself: build-fuzz/fuzz/fuzz_<target> FILE).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_root="${ISRCHECK_BUILD_ROOT:-$root}"
build_dir="$build_root/build-fuzz"
kinds=(config set trace claim manifest scenario script explore recording)

usage() { echo "usage: scripts/fuzz.sh TARGET|--all SECONDS, or scripts/fuzz.sh --build (targets: ${kinds[*]})" >&2; exit 2; }
build_only=0
if [[ $# -eq 1 && "$1" == "--build" ]]; then
  build_only=1
  set -- --all 0
fi
[[ $# -eq 2 ]] || usage
[[ "$2" =~ ^[0-9]+$ ]] || usage
seconds="$2"
if [[ "$1" == "--all" ]]; then
  targets=("${kinds[@]}")
else
  [[ " ${kinds[*]} " == *" $1 "* ]] || usage
  targets=("$1")
fi

# Fuzzers running at once (below); checked before the build, which takes minutes.
lanes="${ISRCHECK_FUZZ_JOBS:-$(nproc)}"
[[ "$lanes" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: ISRCHECK_FUZZ_JOBS must be a positive integer, not '$lanes'" >&2; exit 2; }
"$root/scripts/install-deps.sh" --fuzz
# ISRCHECK_FUZZ_OPT: the optimisation level (default -O1, libFuzzer's recommendation;
# -O0 builds cheaper but fuzzes far slower: CMakeLists.txt).
# ISRCHECK_FUZZ_UBSAN=ON: UBSan too (off by default: CMakeLists.txt says why).
configure=(-S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DISRCHECK_FUZZ=ON
           -DCMAKE_CXX_COMPILER=clang++-14 -DISRCHECK_FUZZ_OPT="${ISRCHECK_FUZZ_OPT:--O1}"
           -DISRCHECK_FUZZ_UBSAN="${ISRCHECK_FUZZ_UBSAN:-OFF}")
if [[ ! -f "$build_dir/CMakeCache.txt" ]] && command -v ninja >/dev/null; then
  configure+=(-G Ninja)
fi
source "$root/scripts/phase_time.sh"
cmake "${configure[@]}" >/dev/null
phase "fuzz.sh: build $build_dir" \
  cmake --build "$build_dir" -j "${ISRCHECK_JOBS:-$(nproc)}" --target "${targets[@]/#/fuzz_}"
# The libraries must carry libFuzzer's coverage counters and ASan (CMakeLists.txt,
# ISRCHECK_FUZZ): built without them every target exits at once with "no interesting
# inputs were found", and a fuzz run checks nothing (4b99989 lost the flags; the next
# run's fuzzing failed in 1 s, as if libFuzzer had found something).
instrumented() { nm "$1" 2>/dev/null | grep "$2" >/dev/null; }  # not -q: nm would die of SIGPIPE
lib="$build_dir/libisrcheck_model.a"
for symbol in __sanitizer_cov_8bit_counters_init __asan_report_load; do
  instrumented "$lib" "$symbol" || {
    echo "fuzz.sh: $lib has no $symbol: the fuzz build lacks its instrumentation (-fsanitize=fuzzer-no-link,address: CMakeLists.txt, ISRCHECK_FUZZ)" >&2
    exit 1
  }
done
((build_only == 0)) || exit 0

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# One target's regression replay and fuzz run; exit 1 on the first failure.
fuzz_one() {
  local target="$1"
  local exe corpus artifacts limits regressions
  exe="$build_dir/fuzz/fuzz_$target"
  corpus="$build_dir/corpus/$target"
  artifacts="$build_dir/artifacts/$target/"
  mkdir -p "$corpus" "$artifacts"
  limits=(-timeout="${ISRCHECK_FUZZ_TIMEOUT:-30}" -rss_limit_mb="${ISRCHECK_FUZZ_RSS_MB:-2560}"
          -artifact_prefix="$artifacts")
  regressions=("$root/fuzz/regressions/$target"/*)
  if [[ -e "${regressions[0]}" ]]; then
    # Files (not a directory) make libFuzzer run each once, whole, however long.
    "$exe" "${limits[@]}" "${regressions[@]}" 2>"$build_dir/$target.regressions.log" || {
      tail -n 40 "$build_dir/$target.regressions.log" >&2
      echo "fuzz.sh: $target: a regression input fails (log: $build_dir/$target.regressions.log)" >&2
      exit 1
    }
  fi
  echo "fuzz.sh: fuzzing $target for $seconds s" >&2
  # -max_len: mutations of inputs of up to 128 KiB (the largest shipped trace is ~70 KiB).
  if ! "$exe" "${limits[@]}" -max_total_time="$seconds" -max_len=131072 -print_final_stats=1 \
       "$corpus" "$build_dir/fuzz/seeds/$target" 2>"$build_dir/$target.log"; then
    tail -n 60 "$build_dir/$target.log" >&2
    echo "fuzz.sh: $target: libFuzzer found a failure; input in $artifacts (log: $build_dir/$target.log)" >&2
    exit 1
  fi
  echo "fuzz.sh: $target: $(grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+ *DONE" \
                                   "$build_dir/$target.log" | tr '\n' ' ')" >&2
}

# libFuzzer uses one core, so the targets run in lanes, one lane per core: each target
# still gets its SECONDS on a core of its own, and `--all` takes about SECONDS x targets
# / lanes of wall time (CI: 9 x 30 s on 2 cores, 150 s instead of 270 s). Each lane
# stops at its first failure; every lane's outcome is waited for before the exit.
source "$root/scripts/lanes.sh"
if ! phase "fuzz.sh: fuzzing ${#targets[@]} targets, $seconds s each, $lanes at a time" \
       run_in_lanes "$lanes" fuzz_one "${targets[@]}"; then
  echo "fuzz.sh: a target failed (above)" >&2
  exit 1
fi
echo "fuzz.sh: ${targets[*]}: no failure in $seconds s each" >&2
