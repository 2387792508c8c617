"""Process hygiene check: start a 3-node cluster through the driver, kill -9 the driver,
and confirm by PID (kill -0, from the run's pid file) that no process it started is left.
Then the same with the driver's stdin closed (the C++ parent gone)."""
import os
import shutil
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from driver_client import Driver  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
VERSION = os.environ.get("KAFKA_VERSION", "4.4.0")
BASE = os.environ.get("SMOKE_DIR", "/tmp/isrcheck-smoke")


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped) counts as gone.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def run(how):
    wd = os.path.join(BASE, "hygiene-" + how)
    shutil.rmtree(wd, ignore_errors=True)
    d = Driver(REPO, log=open(os.path.join(BASE, f"hygiene-{how}.stderr"), "w"))
    d.call("start_cluster", work_dir=wd, kafka_version=VERSION,
           nodes=[{"id": i, "roles": ["broker", "controller"]} for i in range(3)], voters=[0, 1, 2])
    pids = [int(line.split()[0]) for line in open(os.path.join(wd, "pids")) if not line.endswith(" driver\n")]
    nodes = [p for p in pids if alive(p)]
    print(f"  {how}: driver {d.proc.pid}, running children {nodes}")
    t0 = time.time()
    if how == "kill-9":
        os.kill(d.proc.pid, signal.SIGKILL)
    elif how == "sigterm":
        os.kill(d.proc.pid, signal.SIGTERM)
    elif how == "sigint":
        os.kill(d.proc.pid, signal.SIGINT)
    else:
        d.proc.stdin.close()
    d.proc.wait(30)
    deadline = time.time() + 15
    while time.time() < deadline and any(alive(p) for p in pids):
        time.sleep(0.1)
    left = [p for p in pids if alive(p)]
    if left:
        print(f"  FAIL {how}: processes left behind: {left}; killing them")
        for p in left:
            os.kill(p, signal.SIGKILL)
        return False
    print(f"  ok   {how}: no child left ({time.time() - t0:.1f} s after the driver went)")
    return True


ok = all([run("kill-9"), run("sigterm"), run("sigint"), run("stdin-eof")])
sys.exit(0 if ok else 1)
