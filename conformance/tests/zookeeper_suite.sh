#!/usr/bin/env bash
# ZooKeeper mode on a real cluster (issue 28 item 4, docs/conformance.md "ZooKeeper mode"):
# runs the suite's ZooKeeper scenarios (conformance/suite/z-zk-*.json) on Kafka 3.9.1 with a
# ZooKeeper ensemble, and requires every one of them to conform: `conform` exits 0 for a
# scenario that is not executable too, which here would mean the ZooKeeper cluster never
# ran. Then checks that no node JVM or ZooKeeper server of the run is left, and validates
# every recording of the run against the model (`isrcheck validate`, as
# conform_and_validate.sh does for the KRaft suite): each must be explained.
#   zookeeper_suite.sh ISRCHECK SUITE_DIR DRIVER_DIR WORK_DIR
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/validate_recordings.sh"
isrcheck="$1" suite="$2" driver="$3" work="$4"
shopt -s nullglob
scenarios=("$suite"/z-zk-*.json)
((${#scenarios[@]})) || { echo "zookeeper_suite.sh: no z-zk-*.json in $suite" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
set +e
"$isrcheck" conform "${scenarios[@]}" --kafka-version 3.9.1 --driver "$driver" --work-dir "$work/run" \
  --keep-logs "$work/logs" --json "$work/result.json" --record "$work/recordings"
rc=$?
set -e
leftover="$(pgrep -f "$work/run" || true)"
[[ -z "$leftover" ]] || { echo "zookeeper_suite.sh: processes of the run left: $leftover" >&2; exit 1; }
[[ $rc -eq 0 ]] || { echo "zookeeper_suite.sh: conform exited $rc" >&2; exit "$rc"; }
python3 - "$work/result.json" "${#scenarios[@]}" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
verdicts = {s["name"]: s["verdict"] for s in doc["scenarios"]}
bad = {n: v for n, v in verdicts.items() if v != "conforms"}
print(f"zookeeper_suite.sh: {len(verdicts)} ZooKeeper scenario(s) on Kafka {doc.get('kafka_version')}: "
      f"{len(verdicts) - len(bad)} conform")
if bad or len(verdicts) != int(sys.argv[2]):
    print(f"zookeeper_suite.sh: not all conform: {bad}", file=sys.stderr)
    sys.exit(1)
PY
recordings=("$work"/recordings/*.jsonl)
((${#recordings[@]} == ${#scenarios[@]})) ||
  { echo "zookeeper_suite.sh: ${#recordings[@]} recording(s) for ${#scenarios[@]} scenario(s)" >&2; exit 1; }
validate_recordings zookeeper_suite.sh "$isrcheck" "${recordings[@]}"
