"""End-to-end smoke test of the conformance driver against real Kafka (smoke.sh runs it).

1. RF 3, min ISR 2, acks=all idempotent: 30 records, kill -9 the leader, the ISR shrinks
   by the dead node, all 30 read back.
2. The acks=1 loss window (MODEL.md section 6): pause the follower longer than
   replica.fetch.wait.max.ms, produce acks=1 (acked), kill -9 the leader, resume the
   follower within its session: it is elected cleanly and the acked records are gone.
Each check is an assertion; the script exits 1 on the first failure."""
import json
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from driver_client import Driver  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
VERSION = os.environ.get("KAFKA_VERSION", "4.4.0")
BASE = os.environ.get("SMOKE_DIR", "/tmp/isrcheck-smoke")
failures = []


def check(cond, what):
    print(("  ok   " if cond else "  FAIL ") + what)
    if not cond:
        failures.append(what)


def wait_for(d, pred, what, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        r = d.call("describe", quiet=True)
        if pred(r):
            print("  describe after %.1f s: %s" % (timeout - (deadline - time.time()), json.dumps(
                {k: r[k] for k in ("leader", "leader_epoch", "isr", "elr", "last_known_elr", "fenced", "hw")})))
            return r
        time.sleep(0.3)
    check(False, what + " within %d s" % timeout)
    return r


def cluster(d, name, nodes=3, broker_config=None):
    wd = os.path.join(BASE, name)
    shutil.rmtree(wd, ignore_errors=True)
    return d.call("start_cluster", work_dir=wd, kafka_version=VERSION,
                  nodes=[{"id": i, "roles": ["broker", "controller"]} for i in range(nodes)],
                  voters=list(range(nodes)), broker_config=broker_config or {})


def kill_leader(d):
    t0 = time.time()
    cluster(d, "kill-leader", broker_config={"min.insync.replicas": "2"})
    d.call("create_topic", name="t", replicas=[0, 1, 2], config={"min.insync.replicas": "2"})
    d.call("producer", acks="all", enable_idempotence=True, retries=2147483647,
           request_timeout_ms=3000, delivery_timeout_ms=10000, max_block_ms=5000)
    for k in range(1, 31):
        r = d.call("produce", record=k, wait_ms=5000)
        check(r["result"] == "acked" and r["offset"] == k - 1, f"record {k} acked at offset {k - 1}")
    d.call("kill", node=0)
    r = wait_for(d, lambda r: r["leader"] in (1, 2) and sorted(r["isr"]) == [1, 2] and r["hw"] == 30,
                 "new leader, ISR [1,2], HW 30")
    check(sorted(r["isr"]) == [1, 2], "ISR shrank by the dead node: %s" % r["isr"])
    check(r["fenced"] == [0], "node 0 fenced: %s" % r["fenced"])
    read = [d.call("consume", offset=o, timeout_ms=5000)["record"] for o in range(30)]
    check(read == list(range(1, 31)), "30/30 read back")
    for n in ("0", "1", "2"):
        rep = r["replicas"][n]
        check([k for _, k in rep["log"]] == list(range(1, 31)), f"replica {n} log holds records 1..30 (alive={rep['alive']})")
    print("describe:", json.dumps({k: r[k] for k in ("leader", "leader_epoch", "isr", "elr", "last_known_elr", "fenced", "hw")}))
    d.call("stop_cluster")
    return time.time() - t0


def acks1_loss(d):
    t0 = time.time()
    # Three voters keep the controller quorum when node 0 dies; the topic lives on 0 and 1.
    cluster(d, "acks1-loss", broker_config={"min.insync.replicas": "1"})
    d.call("create_topic", name="t", replicas=[0, 1], config={"min.insync.replicas": "1"})
    d.call("producer", acks="1", enable_idempotence=False, retries=0)
    r = d.call("produce", record=1, wait_ms=5000)
    check(r["result"] == "acked", "record 1 acked")
    wait_for(d, lambda r: r["hw"] == 1, "HW 1 (record 1 replicated)")
    d.call("pause", node=1)
    time.sleep(0.3)  # longer than replica.fetch.wait.max.ms (100): no fetch in flight
    for k in range(2, 7):
        r = d.call("produce", record=k, wait_ms=5000)
        check(r["result"] == "acked", f"record {k} acked with acks=1 (follower paused)")
    d.call("kill", node=0)
    d.call("resume", node=1)  # within broker.session.timeout.ms (1500): not fenced
    r = wait_for(d, lambda r: r["leader"] == 1 and r["isr"] == [1], "follower 1 elected, ISR [1]", timeout=15)
    check(1 not in r["fenced"], "follower 1 was never fenced (resumed within its session)")
    log1 = [k for _, k in r["replicas"]["1"]["log"]]
    check(log1 == [1], "new leader's log is [1]: the acked records 2..6 are gone (%s)" % log1)
    check(r["replicas"]["0"]["leo"] == 6, "the dead leader's disk still holds 6 records")
    d.call("stop_cluster")
    return time.time() - t0


def main():
    t0 = time.time()
    d = Driver(REPO)
    times = {}
    try:
        times["kill-leader"] = kill_leader(d)
        times["acks1-loss"] = acks1_loss(d)
        d.call("shutdown")
    finally:
        d.close()
    total = time.time() - t0
    print("op times (ms): " + ", ".join(f"{op} {ms}" for op, ms in d.times))
    print("scenario times: " + ", ".join(f"{k} {v:.1f} s" for k, v in times.items()) + f"; whole run {total:.1f} s")
    print("load:", os.popen("uptime").read().strip())
    if failures:
        print(f"smoke: {len(failures)} check(s) failed")
        sys.exit(1)
    print("smoke: all checks passed")


if __name__ == "__main__":
    main()
