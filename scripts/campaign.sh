#!/usr/bin/env bash
# A million-step random-walk campaign on a 7-broker, RF 5 cluster (min ISR 3, acks=all,
# unclean election off, kill-only crashes, KIP-966): builds isrcheck if needed, then runs
# `isrcheck simulate` with at least a million steps on 2 threads and prints its report
# (verdict, steps, steps/s, action coverage and its warnings).
#
# ISRCHECK_BUILD_DIR chooses the build directory (default: build/). Extra arguments go to
# `isrcheck simulate`, e.g. `scripts/campaign.sh --seed 42`.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${ISRCHECK_BUILD_DIR:-$root/build}"
if [[ ! -x "$build_dir/isrcheck" ]]; then
  generator=()
  if [[ ! -f "$build_dir/CMakeCache.txt" ]] && command -v ninja >/dev/null; then generator=(-G Ninja); fi
  cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "${generator[@]}" >/dev/null
  cmake --build "$build_dir" -j 2 --target isrcheck
fi

# 10,500 walks of at most 100 steps: about 96 steps a walk on average (a few end early in
# a deadlock), so just over a million steps; the report gives the steps actually taken.
exec "$build_dir/isrcheck" simulate \
  --set brokers=7 --set replication_factor=5 --set min_insync_replicas=3 \
  --set acks=all --set unclean_leader_election=false --set protocol=kip-966 \
  --set faults.max_crashes=2 --set faults.max_lossy_crashes=0 --set bounds.max_records=3 \
  --walks 10500 --depth 100 --threads 2 --seed 1 "$@"
