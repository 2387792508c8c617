#!/usr/bin/env python3
# Writes the model's trace of a path of actions named by hand (generate.sh's `path` source):
# for an interleaving no search picks by itself, such as a leader's ISR expansion left in
# flight across its follower's disk loss and re-registration, which `check` finds only
# with the expansion committed before the loss and `witness` never (it settles between
# operations). The model itself takes every step: `isrcheck explore` (docs/explore.md) is
# started on 127.0.0.1 with the configuration, walked along the path, and its
# /trace.json answer is the trace; a step the model does not enable is an error naming it.
#   trace_from_path.py ISRCHECK OUT "Action(a=1); Action(b=2); ..." [--set k=v]...
import re
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request


def main() -> int:
    if len(sys.argv) < 4:
        print('usage: trace_from_path.py ISRCHECK OUT "Action(a=1); ..." [--set k=v]...', file=sys.stderr)
        return 2
    isrcheck, out, path_text = sys.argv[1], sys.argv[2], sys.argv[3]
    steps = [s.strip() for s in path_text.split(";") if s.strip()]
    server = subprocess.Popen([isrcheck, "explore", "--port", "0", *sys.argv[4:]], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    try:
        # The server prints its address once it listens (bounded: 30 s).
        deadline = time.monotonic() + 30
        line = ""
        while time.monotonic() < deadline and server.poll() is None:
            line = server.stdout.readline()
            if "http://" in line:
                break
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if not match:
            print(f"trace_from_path.py: explore did not start: {line.strip()}", file=sys.stderr)
            return 1
        query = ".".join(urllib.parse.quote(s, safe="()") for s in steps)
        url = f"http://127.0.0.1:{match.group(1)}/trace.json?path={query}"
        try:
            with urllib.request.urlopen(url, timeout=60) as answer:
                trace = answer.read().decode()
        except urllib.error.HTTPError as e:
            body = e.read().decode()
            why = re.search(r'<p id="error">(.*?)</p>', body, re.S)
            text = re.sub(r"<[^>]+>", "", why.group(1)) if why else body[:500]
            print(f"trace_from_path.py: {text.replace('&quot;', chr(34))}", file=sys.stderr)
            return 1
        with open(out, "w", encoding="utf-8") as f:
            f.write(trace)
        return 0
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


if __name__ == "__main__":
    sys.exit(main())
