"""A minimal client of the conformance driver's pipe protocol (PROTOCOL.md), used by
smoke.sh. Starts the driver JVM, sends one request per line, reads one response per line,
with a bounded wait per request."""
import json
import os
import selectors
import subprocess
import sys
import time


class Driver:
    def __init__(self, repo, log=sys.stderr, echo=True):
        out = os.path.join(repo, "build", "conformance")
        jar = os.path.join(out, "driver", "target", "isrcheck-conformance-driver.jar")
        with open(os.path.join(out, "driver", "classpath.txt")) as f:
            cp = jar + ":" + f.read().strip()
        self.proc = subprocess.Popen(
            ["java", "-Xmx256m", "-XX:+UseSerialGC", "-cp", cp, "org.isrcheck.conformance.Driver",
             "--kafka-classpath-dir", out],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True, bufsize=1)
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.proc.stdout, selectors.EVENT_READ)
        self.next_id = 1
        self.echo = echo
        self.hello = self._read(60)
        self.times = []

    def _read(self, timeout):
        deadline = time.time() + timeout
        while True:
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError("no response from the driver")
            if self.sel.select(left):
                line = self.proc.stdout.readline()
                if not line:
                    raise EOFError("driver closed stdout")
                return json.loads(line)

    def call(self, op, check=True, quiet=False, **fields):
        req = {"id": self.next_id, "op": op, **fields}
        self.next_id += 1
        t0 = time.time()
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        timeout = fields.get("timeout_ms", 90000) / 1000 + 30
        resp = self._read(timeout)
        ms = int((time.time() - t0) * 1000)
        self.times.append((op, ms))
        if self.echo and not quiet:
            short = {k: v for k, v in resp.items() if k not in ("replicas",)}
            print(f"[{ms:6d} ms] {op} {json.dumps({k: v for k, v in fields.items() if k != 'nodes'})} -> {json.dumps(short)}")
        if check and not resp.get("ok"):
            raise RuntimeError(f"{op} failed: {resp}")
        return resp

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
