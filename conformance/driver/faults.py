"""Exercises every fault op of the driver against real Kafka and checks its observable
effect (smoke.sh runs it): cut/heal of each side, drop_produce_responses (duplicates with
idempotence off, none with it on), controlled shutdown, disk loss of a broker-only node,
pause/resume, a hung idempotent producer without a controller quorum (bounded),
hold_metadata/release_metadata (one broker's metadata replay held, its heartbeats not),
hold_registration/release_registration (a restarted broker's registration and heartbeats
held, on combined nodes)."""
import json
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from driver_client import Driver  # noqa: E402
from smoke import check, failures, wait_for, REPO, VERSION, BASE  # noqa: E402


def show(r):
    return json.dumps({k: r.get(k) for k in ("leader", "leader_epoch", "isr", "elr", "last_known_elr", "fenced",
                                             "hw", "fenced_method", "view_api", "views_agree", "unknown")})


def start(d, name, nodes, broker_config):
    wd = os.path.join(BASE, name)
    shutil.rmtree(wd, ignore_errors=True)
    return d.call("start_cluster", work_dir=wd, kafka_version=VERSION, nodes=nodes,
                  voters=[n["id"] for n in nodes if "controller" in n["roles"]], broker_config=broker_config)


def combined(n):
    return [{"id": i, "roles": ["broker", "controller"]} for i in range(n)]


def cuts(d):
    """Cut each side of a follower and watch the cluster react; heal and watch it recover."""
    t0 = time.time()
    start(d, "cuts", combined(3), {"min.insync.replicas": "2"})
    d.call("create_topic", name="t", replicas=[0, 1, 2], config={"min.insync.replicas": "2"})
    # The shrink takes replica.lag.time.max.ms plus the leader's ISR check (half of it) and
    # an AlterPartition round: give the acks=all request time to wait for it.
    d.call("producer", acks="all", retries=0, request_timeout_ms=10000, delivery_timeout_ms=20000)
    check(d.call("produce", record=1)["result"] == "acked", "record 1 acked")
    # brokers side of follower 2: it stops fetching, the leader shrinks the ISR.
    d.call("cut", node=2, side="brokers")
    conns = d.call("status", quiet=True)["connections"]
    print("  connections:", conns)
    check(any(c.startswith("2->0:replication (frozen)") for c in conns), "node 2's fetch connection to 0 is frozen")
    # A follower whose LEO equals the leader's stays in the ISR however long it is silent
    # (ReplicaState.isCaughtUp in Kafka 4.4, server/replica/ReplicaState.java, used by
    # Partition's out-of-sync check: LEO == leader LEO counts as caught up), so the shrink needs new data: acks=all waits for it, then acks with ISR [0,1].
    r = d.call("produce", record=10, wait_ms=8000)
    check(r["result"] == "acked", "record 10 acked once the ISR shrank (%s)" % r["result"])
    r = wait_for(d, lambda r: r["isr"] == [0, 1], "ISR shrinks to [0,1] with node 2's replication cut")
    check(r["fenced"] == [], "node 2 not fenced (its quorum side is intact)")
    d.call("heal", node=2, side="brokers")
    wait_for(d, lambda r: r["isr"] == [0, 1, 2], "node 2 back in the ISR after heal")
    # quorum side of node 2: its heartbeats stop, the controller fences it.
    d.call("cut", node=2, side="quorum")
    r = wait_for(d, lambda r: r["fenced"] == [2], "node 2 fenced with its quorum side cut")
    print("  after quorum cut:", show(r))
    check(r["replicas"]["2"]["view"] is not None, "node 2 still answers on its observer listener (stale view)")
    d.call("heal", node=2, side="quorum")
    wait_for(d, lambda r: r["fenced"] == [] and r["isr"] == [0, 1, 2], "node 2 unfenced and back in the ISR")
    # clients side of the leader: sends time out, the cluster does not notice.
    d.call("producer", acks="all", retries=0, request_timeout_ms=1500, delivery_timeout_ms=2000, max_block_ms=2000)
    d.call("cut", node=0, side="clients")
    r = d.call("produce", record=2, wait_ms=4000)
    check(r["result"] == "REQUEST_TIMED_OUT", "send to a leader whose client side is cut times out: " + r["result"])
    r = d.call("describe")
    check(r["leader"] == 0 and r["isr"] == [0, 1, 2], "the cluster itself is unchanged: " + show(r))
    d.call("heal", node=0, side="clients")
    check(d.call("produce", record=3, wait_ms=5000)["result"] == "acked", "record 3 acked after heal")
    d.call("stop_cluster")
    return time.time() - t0


def duplicates(d, idempotent):
    t0 = time.time()
    start(d, "dup-%s" % idempotent, combined(3), {"min.insync.replicas": "2"})
    d.call("create_topic", name="t", replicas=[0, 1, 2], config={"min.insync.replicas": "2"})
    d.call("producer", acks="all", enable_idempotence=idempotent, retries=3, request_timeout_ms=1500,
           delivery_timeout_ms=10000, max_in_flight=1)
    check(d.call("produce", record=1)["result"] == "acked", "record 1 acked")
    d.call("drop_produce_responses", node=0, count=1)
    r = d.call("produce", record=2, wait_ms=8000)
    check(r["result"] == "acked", "record 2 acked after a retry: %s" % r)
    check(d.call("dropped", node=0)["dropped"] == 1, "the proxy dropped one Produce response")
    r = wait_for(d, lambda r: r["hw"] is not None and r["hw"] >= 2, "HW >= 2")
    log = [k for _, k in r["replicas"]["0"]["log"]]
    want = [1, 2] if idempotent else [1, 2, 2]
    check(log == want, f"idempotence={idempotent}: leader log {log}, expected {want}")
    d.call("stop_cluster")
    return time.time() - t0


def shutdown_and_disk(d):
    """Dedicated controller; controlled shutdown moves leadership; disk loss of a broker."""
    t0 = time.time()
    nodes = [{"id": 0, "roles": ["broker"]}, {"id": 1, "roles": ["broker"]}, {"id": 2, "roles": ["broker"]},
             {"id": 3, "roles": ["controller"]}]
    start(d, "shutdown-disk", nodes, {"min.insync.replicas": "2"})
    d.call("create_topic", name="t", replicas=[0, 1, 2], config={"min.insync.replicas": "2"})
    d.call("producer", acks="all", retries=0)
    for k in (1, 2, 3):
        check(d.call("produce", record=k)["result"] == "acked", f"record {k} acked")
    r = d.call("stop", node=0)
    check(r["ok"], "controlled shutdown of the leader finished")
    r = wait_for(d, lambda r: r["leader"] in (1, 2) and r["isr"] == [1, 2], "leader moved, ISR [1,2]")
    print("  after stop:", show(r))
    d.call("start", node=0, wait_unfenced=True)
    wait_for(d, lambda r: r["isr"] == [0, 1, 2], "node 0 back in the ISR")
    r = d.call("disk_loss", node=2)
    check(r["voter"] is False, "node 2 is not a voter: no metadata lost")
    r = d.call("describe")
    check(r["replicas"]["2"]["log"] == [] and not r["replicas"]["2"]["alive"], "node 2's disk is empty")
    d.call("start", node=2, wait_unfenced=True)
    r = wait_for(d, lambda r: r["isr"] == [0, 1, 2] and [k for _, k in r["replicas"]["2"]["log"]] == [1, 2, 3],
                 "node 2 re-replicated records 1..3 after the disk loss")
    d.call("stop_cluster")
    return time.time() - t0


def no_quorum(d):
    """Two of three combined nodes killed: sends are bounded (timeout), describe still answers."""
    t0 = time.time()
    start(d, "no-quorum", combined(3), {"min.insync.replicas": "2"})
    d.call("create_topic", name="t", replicas=[0, 1, 2], config={"min.insync.replicas": "2"})
    d.call("producer", acks="all", enable_idempotence=True, retries=2147483647, request_timeout_ms=2000,
           delivery_timeout_ms=4000, max_block_ms=3000)
    check(d.call("produce", record=1)["result"] == "acked", "record 1 acked")
    d.call("kill", node=1)
    d.call("kill", node=2)
    r = d.call("produce", record=2, wait_ms=2000)
    check(r["result"] == "pending", "record 2 pending while the quorum is gone: " + r["result"])
    r = d.call("await_send", record=2, timeout_ms=8000)
    print("  await_send:", r["result"], r.get("exception"))
    check(r["result"] in ("REQUEST_TIMED_OUT", "pending"), "record 2 is a timeout (or still pending), never an error")
    r = d.call("describe", timeout_ms=4000)
    print("  no quorum:", show(r))
    check(r["ok"] and r["isr"] is not None, "describe answers without a controller")
    d.call("start", node=1)
    d.call("start", node=2)
    r = wait_for(d, lambda r: r["fenced"] == [] and r["hw"] is not None and r["hw"] >= 1, "quorum back", timeout=30)
    print("  quorum back:", show(r), [k for _, k in r["replicas"]["0"]["log"]])
    d.call("stop_cluster")
    return time.time() - t0


def elr(d):
    """ISR below min ISR: on 4.4 (ELR on by default for new clusters) the replica removed
    then moves to the ELR and the HW stays frozen; 3.9.1 has no ELR."""
    t0 = time.time()
    # A dedicated controller: the quorum survives the two broker kills.
    start(d, "elr", [{"id": i, "roles": ["broker"]} for i in range(3)] + [{"id": 3, "roles": ["controller"]}],
          {"min.insync.replicas": "2"})
    d.call("create_topic", name="t", replicas=[0, 1, 2], config={"min.insync.replicas": "2"})
    d.call("producer", acks="all", retries=0, request_timeout_ms=10000, delivery_timeout_ms=20000)
    check(d.call("produce", record=1)["result"] == "acked", "record 1 acked")
    d.call("kill", node=2)
    r = wait_for(d, lambda r: r["isr"] == [0, 1], "ISR [0,1] after node 2 died")
    print("  one follower dead:", show(r))
    d.call("kill", node=1)
    r = wait_for(d, lambda r: r["isr"] == [0], "ISR [0] after node 1 died")
    print("  two followers dead:", show(r))
    if VERSION.startswith("3."):
        check(r["elr"] == [], "no ELR on %s" % VERSION)
    else:
        # Node 2 left while the ISR ([0,1,2] -> [0,1]) stayed at min ISR: not eligible;
        # node 1 left the ISR below min ISR: it enters the ELR (KIP-966).
        check(r["elr"] == [1], "ELR [1]: removed while the ISR was below min ISR (%s)" % r["elr"])
    r = d.call("produce", record=2, wait_ms=3000)
    print("  produce with ISR [0]:", r["result"], r.get("exception"))
    check(r["result"] == "NOT_ENOUGH_REPLICAS", "ISR below min ISR: NOT_ENOUGH_REPLICAS")
    d.call("stop_cluster")
    return time.time() - t0


def last_replica(d, follower_fault="kill"):
    """The release pair of issue 16 point 7 (as driver ops; the verdict is the C++ suite's):
    dedicated controller, RF 3, min ISR 2, a record acked by all three; both followers
    killed (ISR shrinks to the leader); the leader loses its disk and restarts; the
    followers restart. Prints what each release does with the acked record."""
    t0 = time.time()
    nodes = [{"id": i, "roles": ["broker"]} for i in range(3)] + [{"id": 3, "roles": ["controller"]}]
    start(d, "last-replica-" + follower_fault, nodes, {"min.insync.replicas": "2"})
    d.call("create_topic", name="t", replicas=[0, 1, 2], config={"min.insync.replicas": "2"})
    d.call("producer", acks="all", retries=0, request_timeout_ms=10000, delivery_timeout_ms=20000)
    check(d.call("produce", record=1)["result"] == "acked", "record 1 acked by all three")
    wait_for(d, lambda r: all(len(r["replicas"][n]["log"]) == 1 for n in "012"), "record 1 on every replica")
    d.call(follower_fault, node=1)
    d.call(follower_fault, node=2)
    r = wait_for(d, lambda r: r["isr"] == [0], "ISR shrinks to the leader")
    print("  followers dead:", show(r))
    d.call("disk_loss", node=0)
    d.call("start", node=0, wait_unfenced=False)
    time.sleep(3)
    r = d.call("describe")
    print("  leader back with an empty disk:", show(r))
    d.call("start", node=1)
    d.call("start", node=2)
    time.sleep(8)
    r = d.call("describe")
    print("  all back:", show(r))
    logs = {n: [k for _, k in r["replicas"][n]["log"]] for n in "012"}
    print("  logs:", logs, "-> record 1", "LOST" if all(1 not in l for l in logs.values()) else "kept")
    d.call("stop_cluster")
    return time.time() - t0


def preferred(d):
    """elect_preferred moves leadership without a failure (reassignment reorder, then a
    PREFERRED election), and the leader epoch goes up by one."""
    t0 = time.time()
    start(d, "preferred", combined(3), {"min.insync.replicas": "2"})
    d.call("create_topic", name="t", replicas=[0, 1, 2], config={"min.insync.replicas": "2"})
    d.call("elect_preferred", leader=1)
    r = wait_for(d, lambda r: r["leader"] == 1, "leader 1 after elect_preferred")
    check(r["leader_epoch"] == 1, "leader epoch 0 -> 1: " + show(r))
    d.call("stop_cluster")
    return time.time() - t0


def metadata_hold(d):
    """hold_metadata holds one broker's metadata replay and nothing else: with broker 0's
    raft fetches held, a preferred election to 1 reaches broker 1 but not broker 0's own
    view, broker 0 stays unfenced (its heartbeat connection flows) well past
    broker.session.timeout.ms; the status marks its raft connections held; after
    release_metadata its view catches up. A combined node is refused."""
    t0 = time.time()
    nodes = [{"id": 0, "roles": ["broker"]}, {"id": 1, "roles": ["broker"]}, {"id": 2, "roles": ["controller"]}]
    start(d, "metadata-hold", nodes, {"min.insync.replicas": "1"})
    d.call("create_topic", name="t", replicas=[0, 1], config={"min.insync.replicas": "1"})
    h = d.call("hold_metadata", node=0)
    check(h["metadata_held"] == [0], "hold_metadata answers the held set [0]: %s" % h["metadata_held"])
    check(h["raft_connections"] >= 2, "both brokers' raft connections were classified: %d" % h["raft_connections"])
    d.call("elect_preferred", leader=1)
    r = wait_for(d, lambda r: (r["replicas"]["1"].get("view") or {}).get("leader") == 1, "broker 1 sees leader 1")
    time.sleep(3.0)  # two broker.session.timeout.ms (1.5 s): a held heartbeat would fence broker 0
    r = d.call("describe", quiet=True)
    v0 = r["replicas"]["0"].get("view") or {}
    check(v0.get("leader") == 0 and v0.get("leader_epoch") == 0, "broker 0's own view stays leader 0, epoch 0: %s" % v0)
    check(0 not in (r["fenced"] or []), "broker 0 not fenced while held: %s" % r["fenced"])
    conns = d.call("status", quiet=True)["connections"]
    check(any(c.startswith("0->2:controller raft (metadata held)") for c in conns),
          "broker 0's raft connection to the controller is marked held: %s" % [c for c in conns if "->2:" in c])
    check(any(c.startswith("0->2:controller") and "raft" not in c for c in conns),
          "broker 0 has a non-raft (heartbeat) connection to the controller that flows")
    rel = d.call("release_metadata", node=0)
    check(rel["held_frames"] >= 1, "raft request frames waited during the hold: %d" % rel["held_frames"])
    wait_for(d, lambda r: (r["replicas"]["0"].get("view") or {}).get("leader") == 1, "broker 0's view catches up")
    bad = d.call("hold_metadata", check=False, node=2)
    check(not bad["ok"] and bad["kind"] == "bad_request", "a controller-only node is refused: %s" % bad.get("error"))
    d.call("stop_cluster")
    return time.time() - t0


def registration_hold(d):
    """hold_registration holds a restarted broker's registration and heartbeats and
    nothing else: combined node 1 is killed and started again under the hold (start with
    wait_serving false: Kafka serves only once unfenced); the controller fences it and
    keeps it fenced and out of the ISR well past broker.session.timeout.ms while its
    controller stays a voter (a produce with acks=all still commits); the status marks
    its lifecycle connection held; after release_registration it registers, is unfenced
    and rejoins the ISR."""
    t0 = time.time()
    start(d, "registration-hold", combined(3), {"min.insync.replicas": "2"})
    d.call("create_topic", name="t", replicas=[0, 1, 2], config={"min.insync.replicas": "2"})
    d.call("kill", node=1)
    h = d.call("hold_registration", node=1)
    check(h["registration_held"] == [1], "hold_registration answers the held set [1]: %s" % h["registration_held"])
    d.call("start", node=1, wait_serving=False)
    wait_for(d, lambda r: 1 in (r["fenced"] or []) and 1 not in (r["isr"] or []), "broker 1 fenced, out of the ISR")
    time.sleep(4.0)  # registration would take well under a second unheld
    r = d.call("describe", quiet=True)
    check(1 in (r["fenced"] or []) and r["isr"] == [0, 2], "broker 1 still fenced and out of the ISR: " + show(r))
    conns = d.call("status", quiet=True)["connections"]
    check(any(c.startswith("1->") and "lifecycle (registration held)" in c for c in conns),
          "broker 1's lifecycle connection is marked held: %s" % [c for c in conns if c.startswith("1->")])
    d.call("producer", acks="all", retries=0, request_timeout_ms=10000, delivery_timeout_ms=20000)
    p = d.call("produce", record=1)
    check(p.get("result") == "acked", "a produce commits with N1's controller in the quorum: %s" % p)
    rel = d.call("release_registration", node=1)
    check(rel["held_frames"] >= 1, "lifecycle frames waited during the hold: %d" % rel["held_frames"])
    wait_for(d, lambda r: 1 not in (r["fenced"] or []) and r["isr"] == [0, 1, 2], "broker 1 registered and back in the ISR",
             timeout=30)
    bad = d.call("hold_registration", check=False, node=7)
    check(not bad["ok"], "an unknown node is refused: %s" % bad.get("error"))
    d.call("stop_cluster")
    return time.time() - t0


def main():
    t0 = time.time()
    d = Driver(REPO)
    times = {}
    scenarios = {"cuts": lambda: cuts(d), "duplicates-off": lambda: duplicates(d, False),
                 "duplicates-on": lambda: duplicates(d, True), "shutdown-disk": lambda: shutdown_and_disk(d),
                 "no-quorum": lambda: no_quorum(d), "elr": lambda: elr(d),
                 "last-replica": lambda: last_replica(d),
                 "last-replica-clean": lambda: last_replica(d, "stop"), "preferred": lambda: preferred(d),
                 "metadata-hold": lambda: metadata_hold(d), "registration-hold": lambda: registration_hold(d)}
    chosen = sys.argv[1:] or list(scenarios)
    try:
        for name in chosen:
            times[name] = scenarios[name]()
        d.call("shutdown")
    finally:
        d.close()
    print("scenario times: " + ", ".join(f"{k} {v:.1f} s" for k, v in times.items())
          + f"; whole run {time.time() - t0:.1f} s")
    print("load:", os.popen("uptime").read().strip())
    if failures:
        print(f"faults: {len(failures)} check(s) failed: {failures}")
        sys.exit(1)
    print("faults: all checks passed")


if __name__ == "__main__":
    main()
