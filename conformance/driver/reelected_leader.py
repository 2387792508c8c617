"""Hand-driven reproduction, on real Kafka, of the model's "re-elected leader keeps stale
follower offsets" trace (issue 24; docs/findings.md, "Reproduction on Kafka 4.4.0"),
through the driver's ops only (PROTOCOL.md): hold_metadata / release_metadata hold one
broker's metadata replay while its heartbeats flow.

Brokers 0, 1, 2 and dedicated controllers 3, 4, 5; one partition on [0, 1, 2], min ISR 2,
acks=all, retries 0. The model's steps (memo trace /tmp/memo_t.json, dedicated placement):
  1  cut N2's brokers side (N2 must not fetch r1), produce r1 at N0: N1 fetches it, the HW
     stays 0 (N2 in the ISR lacks it), the send is pending
  2  hold N0's metadata replay (its raft Fetch requests), keep its heartbeats
  3  elect_preferred 2: N2 leads at epoch 1 (N0 does not see it)
  4  heal N2's brokers side: N1 follows N2 and truncates r1 (divergence at epoch 0)
  5  kill N2: the controller fences it and elects N0 from the ISR [0, 1] at epoch 2
  6  cut N1's brokers side (so that N1 cannot fetch r1 back from N0), release N0's hold:
     N0 replays epochs 1 and 2 in one delta, stays leader in its own view
     (Partition.makeLeader, isNewLeader = false), keeps N1's offset 1 from epoch 0, the HW
     goes to 1: r1 acked while N1 (in the ISR) has an empty log  <- strong-isr violated
  7  kill N0: N1 elected with an empty log, r1 (acked) is gone  <- no-acked-loss violated
Prints one JSON line per observation; exits 0 when the run completed (whatever Kafka did:
the verdict lines say what it showed), 1 when an op failed.
  python3 conformance/driver/reelected_leader.py [--work DIR] [--lag-ms 30000] [--no-loss]
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from driver_client import Driver  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
T0 = time.time()


def note(what, **fields):
    print(json.dumps({"t": round(time.time() - T0, 2), "what": what, **fields}), flush=True)


def brief(r):
    reps = {n: {"alive": v.get("alive"), "leo": v.get("leo"), "log": v.get("log"),
                "view": None if not v.get("view") else {k: v["view"].get(k) for k in ("leader", "leader_epoch", "isr")}}
            for n, v in r.get("replicas", {}).items()}
    return {"leader": r.get("leader"), "leader_epoch": r.get("leader_epoch"), "isr": r.get("isr"),
            "elr": r.get("elr"), "fenced": r.get("fenced"), "hw": r.get("hw"), "replicas": reps}


def wait_for(d, pred, what, timeout):
    deadline = time.time() + timeout
    r = None
    while time.time() < deadline:
        r = d.call("describe", quiet=True, timeout_ms=5000)
        if pred(r):
            note("reached: " + what, describe=brief(r))
            return r, True
        time.sleep(0.2)
    note("NOT reached: " + what, describe=brief(r) if r else None)
    return r, False


def view(r, n):
    return (r.get("replicas", {}).get(str(n)) or {}).get("view") or {}


def log_records(r, n):
    return [k for _, k in (r.get("replicas", {}).get(str(n)) or {}).get("log") or []]


DUMP = "org.apache.kafka.tools.DumpLogSegments"  # Kafka 4.x (kafka.tools.DumpLogSegments up to 3.x: main() sets it)


def dump_logs(work, classpath, nodes=(0, 1, 2)):
    """DumpLogSegments of each broker's partition segment, and its HW checkpoint."""
    out = {}
    for n in nodes:
        seg = os.path.join(work, "node-%d" % n, "data", "t-0", "00000000000000000000.log")
        if not os.path.exists(seg):
            out[str(n)] = ["(no segment)"]
            continue
        p = subprocess.run(["java", "-Xmx128m", "-cp", classpath, DUMP, "--files", seg, "--print-data-log"],
                           capture_output=True, text=True, timeout=120)
        out[str(n)] = [l for l in p.stdout.splitlines() if "baseOffset" in l or "payload" in l] or \
            ([l for l in (p.stdout + p.stderr).splitlines()][-3:])
    hw = {}
    for n in nodes:
        f = os.path.join(work, "node-%d" % n, "data", "replication-offset-checkpoint")
        if os.path.exists(f):
            hw[str(n)] = [l for l in open(f).read().splitlines() if l.startswith("t ")]
    return out, hw


def dump_metadata(work, classpath, node=0):
    """The partition's records in broker `node`'s copy of the metadata log."""
    seg_dir = os.path.join(work, "node-%d" % node, "data", "__cluster_metadata-0")
    lines = []
    for seg in sorted(glob.glob(os.path.join(seg_dir, "*.log"))):
        p = subprocess.run(["java", "-Xmx128m", "-cp", classpath, DUMP, "--files", seg, "--cluster-metadata-decoder"],
                           capture_output=True, text=True, timeout=120)
        lines += [l for l in p.stdout.splitlines()
                  if "PARTITION_CHANGE_RECORD" in l or "PARTITION_RECORD" in l or "FENCE_BROKER" in l
                  or "UNREGISTER_BROKER" in l or "BROKER_REGISTRATION_CHANGE" in l]
    return [l[l.find("payload"):] if "payload" in l else l for l in lines]


def grep_state_change(work):
    """N0's and N1's lines about the partition's leadership and HW."""
    pat = re.compile(r"t-0|\[Partition t-0|topic-partition t-0|partition t-0")
    out = {}
    for n in (0, 1, 2):
        f = os.path.join(work, "node-%d" % n, "server.log")
        if not os.path.exists(f):
            cand = glob.glob(os.path.join(work, "node-%d" % n, "*.log"))
            f = cand[0] if cand else f
        try:
            lines = open(f, errors="replace").read().splitlines()
        except OSError:
            continue
        out[n] = [l for l in lines if pat.search(l) and re.search(
            r"leader epoch|Leader t-0|Follower t-0|High watermark|high watermark|ISR|Truncat|truncat|makeLeader|"
            r"become-leader|become-follower|Skipped", l)][-40:]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", default="/tmp/isrcheck-reelected")
    ap.add_argument("--lag-ms", type=int, default=30000, help="replica.lag.time.max.ms")
    ap.add_argument("--no-loss", action="store_true", help="stop after the ack (strong-isr only)")
    ap.add_argument("--version", default="4.4.0")
    args = ap.parse_args()
    global DUMP
    if args.version.startswith("3."):
        DUMP = "kafka.tools.DumpLogSegments"
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    cp_file = os.path.join(REPO, "build", "conformance", args.version, "classpath.txt")
    classpath = open(cp_file).read().strip()
    err = open(os.path.join(args.work, "driver.stderr.log"), "w")
    d = Driver(REPO, log=err, echo=False)
    work = os.path.join(args.work, "cluster")
    verdict = {}
    try:
        nodes = [{"id": i, "roles": ["broker"]} for i in (0, 1, 2)] + \
                [{"id": i, "roles": ["controller"]} for i in (3, 4, 5)]
        bc = {"min.insync.replicas": "2", "replica.lag.time.max.ms": str(args.lag_ms)}
        r = d.call("start_cluster", work_dir=work, kafka_version=args.version, nodes=nodes, voters=[3, 4, 5],
                   broker_config=bc, timeout_ms=180000)
        note("cluster started", startup_ms=r.get("startup_ms"), pids=[n["pid"] for n in r["nodes"]])
        d.call("create_topic", name="t", replicas=[0, 1, 2], config={"min.insync.replicas": "2"}, timeout_ms=60000)
        d.call("producer", acks="all", retries=0, request_timeout_ms=90000, delivery_timeout_ms=180000,
               max_block_ms=10000)
        d.call("warm_producer", topic="t", timeout_ms=10000)
        r, _ = wait_for(d, lambda r: r.get("leader") == 0 and sorted(r.get("isr") or []) == [0, 1, 2],
                        "initial: leader 0, ISR [0,1,2]", 30)

        # 1. N2 must not fetch r1; N1 fetches it; the send stays pending (N2 in the ISR).
        d.call("cut", node=2, side="brokers")
        time.sleep(0.5)  # > replica.fetch.wait.max.ms: no parked fetch of N2 carries r1
        s = d.call("produce", record=1, wait_ms=1500)
        note("step 1: produce r1 at N0", result=s.get("result"))
        r, ok = wait_for(d, lambda r: log_records(r, 1) == [1] and log_records(r, 0) == [1], "N1 fetched r1", 15)
        note("step 1 state", hw=r.get("hw"), send=d.call("send_status", record=1, quiet=True).get("result"))

        # 2. Hold N0's metadata replay (raft Fetch), heartbeats flow.
        h = d.call("hold_metadata", node=0)
        note("step 2: hold_metadata N0", answer={k: h.get(k) for k in ("metadata_held", "held_frames", "raft_connections")})
        time.sleep(1.0)
        st = d.call("status", quiet=True)
        note("connections", connections=[c for c in st.get("connections", []) if "controller" in c])

        # 3. Preferred election to N2 (epoch 1); N0 does not see it.
        d.call("elect_preferred", leader=2, timeout_ms=30000)
        r, ok = wait_for(d, lambda r: view(r, 2).get("leader") == 2 and view(r, 1).get("leader") == 2,
                         "N1 and N2 see leader 2", 20)
        note("step 3: N0's view", n0_view=view(r, 0))

        # 4. N1 follows N2 and truncates r1.
        d.call("heal", node=2, side="brokers")
        r, ok = wait_for(d, lambda r: log_records(r, 1) == [], "N1 truncated r1 under N2", 20)
        verdict["n1_truncated"] = ok

        # 5. Kill N2: fenced, N0 elected from the ISR at epoch 2 (N0 still held).
        d.call("kill", node=2)
        note("step 5: killed N2")
        r, ok = wait_for(d, lambda r: view(r, 1).get("leader") == 0 and (view(r, 1).get("leader_epoch") or 0) >= 2,
                         "controller elected N0 (N1's view: leader 0, epoch >= 2)", 20)
        verdict["n0_elected"] = ok
        note("step 5: N0's view while held", n0_view=view(r, 0), n0_unfenced=0 not in (r.get("fenced") or []))
        verdict["n0_view_stale_before_release"] = view(r, 0).get("leader_epoch")
        h = d.call("status", quiet=True)
        note("held frames so far", connections=[c for c in h.get("connections", []) if "raft" in c])

        # 6. Keep N1 from fetching r1 back, release N0.
        if not args.no_loss:
            d.call("cut", node=1, side="brokers")
            time.sleep(0.5)
        rel = d.call("release_metadata", node=0)
        note("step 6: release_metadata N0", held_frames=rel.get("held_frames"))
        a = d.call("await_send", record=1, timeout_ms=10000)
        note("step 6: send of r1", result=a.get("result"), offset=a.get("offset"), exception=a.get("exception"))
        verdict["r1_acked"] = a.get("result") == "acked"
        r = d.call("describe", quiet=True, timeout_ms=5000)
        note("step 6 state", describe=brief(r))
        verdict["n1_log_at_ack"] = log_records(r, 1)
        verdict["isr_at_ack"] = r.get("isr")
        verdict["hw_at_ack"] = r.get("hw")
        segs, hw = dump_logs(work, classpath, nodes=(0, 1))
        note("step 6: DumpLogSegments at the ack (N0, N1 alive)", segments=segs, replication_offset_checkpoint=hw)

        if not args.no_loss:
            # 7. Kill N0: N1 elected with an empty log.
            d.call("kill", node=0)
            note("step 7: killed N0")
            d.call("heal", node=1, side="brokers")
            r, ok = wait_for(d, lambda r: r.get("leader") == 1, "N1 leads", 20)
            c = d.call("consume", offset=0, timeout_ms=5000)
            note("step 7: consume offset 0", record=c.get("record"), reason=c.get("reason"))
            verdict["consumed_offset_0"] = c.get("record")
            verdict["final"] = brief(r)
            # N0 back: it follows N1 and truncates r1 too.
            d.call("start", node=0, timeout_ms=60000)
            r, ok = wait_for(d, lambda r: view(r, 0).get("leader") == 1 and log_records(r, 0) == log_records(r, 1),
                             "N0 back as follower of N1", 30)
            verdict["after_restart"] = brief(r)
    except Exception as e:  # report what happened so far
        note("ERROR", error=str(e))
        verdict["error"] = str(e)
    finally:
        note("verdict", **verdict)
        try:
            d.call("stop_cluster", timeout_ms=60000)
        except Exception as e:  # the driver's teardown at close still kills every node
            note("stop_cluster failed", error=str(e))
        d.close()
        err.close()
        try:
            segs, hw = dump_logs(work, classpath)
            note("DumpLogSegments at the end", segments=segs, replication_offset_checkpoint=hw)
            note("N0's metadata log: the partition's changes", records=dump_metadata(work, classpath, 0))
        except Exception as e:
            note("DumpLogSegments failed", error=str(e))
        note("server log lines", lines=grep_state_change(work))
    return 1 if "error" in verdict else 0


if __name__ == "__main__":
    sys.exit(main())
