#!/usr/bin/env bash
# End-to-end smoke test of the conformance driver against real Kafka: drives the pipe
# protocol (PROTOCOL.md) through smoke.py (kill -9 of the leader with acks=all, the acks=1
# loss window), then checks process hygiene: a driver killed with kill -9 leaves no Kafka
# node behind (PDEATHSIG), checked by PID from the run's pid file.
#   conformance/driver/smoke.sh [--kafka-version V]      (default 4.4.0)
#   conformance/driver/smoke.sh --faults                 (also every fault op: faults.py)
# Needs scripts/install-kafka.sh to have run for that version.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
version=4.4.0
faults=0
while (($#)); do
  case "$1" in
    --kafka-version) version="$2"; shift 2 ;;
    --faults) faults=1; shift ;;
    *) echo "usage: $0 [--kafka-version V] [--faults]" >&2; exit 2 ;;
  esac
done
smoke_dir="$(mktemp -d /tmp/isrcheck-smoke.XXXXXX)"
export KAFKA_VERSION="$version" SMOKE_DIR="$smoke_dir"

echo "== scenarios (Kafka $version) =="
timeout 600 python3 "$here/smoke.py" 2>"$smoke_dir/driver.stderr"

if ((faults)); then
  echo "== every fault op (Kafka $version) =="
  timeout 900 python3 "$here/faults.py" 2>"$smoke_dir/faults.stderr"
fi

echo "== process hygiene: kill -9 of the driver =="
timeout 120 python3 "$here/hygiene.py"
echo "smoke.sh: passed (logs in $smoke_dir)"
