#!/usr/bin/env bash
# One short `isrcheck campaign` run on real Kafka (docs/campaign.md): seed 4 kills
# follower N2 before record 1 and restarts it before record 2 (acks=all, min ISR 2).
# The run must be recorded (header, observations, the kill and restart, the read-back),
# validated and explained, both records acked and read back, its timeline written; then
# a second campaign is stopped with SIGTERM once its nodes are up: exit 3, the runs done
# reported, and no process of the run left (every PID of its pids files checked).
#   campaign_smoke.sh ISRCHECK DRIVER_DIR WORK_DIR
set -euo pipefail
isrcheck="$1" driver="$2" work="$3"
rm -rf "$work" && mkdir -p "$work"
args=(--seed 4 --set records=2 --set max_faults=1 --set fault_percent=100 --set fault_sends_min=1
      --set fault_sends_max=1 --set faults.clean=0 --set faults.pause=0 --set faults.cut_brokers=0
      --set faults.cut_quorum=0 --set faults.cut_clients=0 --set gap_ms_max=300 --set quiet_ms=1000)
"$isrcheck" campaign --driver "$driver" --work-dir "$work/run" --out "$work/out" --runs 1 "${args[@]}" | tee "$work/out.txt"
python3 - "$work/out" <<'PY'
import json, sys, os
out = sys.argv[1]
c = json.load(open(os.path.join(out, "campaign.json")))
t = c["totals"]
assert t["runs"] == 1 and t["explained"] == 1, t
r = c["runs"][0]
assert r["complete"] and r["faults_injected"] == 1, r
assert r["acked"] == [1, 2] and r["lost"] == [] and r["read_back"] == [1, 2], r
lines = [json.loads(l) for l in open(os.path.join(out, "run-0001.jsonl"))]
ops = [(e.get("kind"), e.get("op"), e.get("node")) for e in lines[1:]]
assert ("fault", "crash", 2) in ops and ("fault", "restart", 2) in ops, ops
assert lines[0]["campaign"]["schedule"][0]["op"] == "crash", lines[0]["campaign"]
assert any(e.get("kind") == "observe" for e in lines[1:]) and any(e.get("op") == "consume" for e in lines[1:])
html = open(os.path.join(out, "run-0001.html")).read()
assert "explained" in html and "N2" in html
assert os.path.exists(os.path.join(out, "run-0001.trace.json")) and os.path.exists(os.path.join(out, "index.html"))
print("campaign_smoke.sh: one run recorded, explained, 2 acked records read back")
PY
# SIGTERM once the nodes are up.
"$isrcheck" campaign --driver "$driver" --work-dir "$work/term" --out "$work/term-out" --runs 3 "${args[@]}" \
  > "$work/term.txt" 2>&1 &
pid=$!
for _ in $(seq 1 900); do
  n=$(cat "$work"/term/cluster-*/pids 2>/dev/null | grep -vc driver || true)
  [[ "$n" -ge 3 ]] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.2
done
sleep 3
kill -s TERM "$pid"
rc=0
for _ in $(seq 1 450); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
if kill -0 "$pid" 2>/dev/null; then echo "campaign_smoke.sh: campaign running 90 s after SIGTERM" >&2; kill -9 "$pid"; exit 1; fi
wait "$pid" || rc=$?
cat "$work/term.txt"
[[ $rc -eq 3 ]] || { echo "campaign_smoke.sh: SIGTERM: expected exit 3, got $rc" >&2; exit 1; }
grep -q "^interrupted after" "$work/term.txt" || { echo "campaign_smoke.sh: no 'interrupted after' line" >&2; exit 1; }
left=()
while read -r p what; do
  [[ -n "$p" ]] || continue
  if [[ -e /proc/$p ]] && ! grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null; then left+=("$p ($what)"); fi
done < <(cat "$work"/term/cluster-*/pids "$work"/term/pids 2>/dev/null || true)
[[ ${#left[@]} -eq 0 ]] || { echo "campaign_smoke.sh: SIGTERM left processes: ${left[*]}" >&2; exit 1; }
echo "campaign_smoke.sh: SIGTERM: exit 3, no process left"
