#!/usr/bin/env python3
"""Samples /v0/admin/movement of some nodes every 250 ms until all of them report idle, stable, with exactly the
expected members; writes one JSON line per sample. Used by make bench-scale (scenarios/scale.json).

Usage: scale-watch.py OUT.jsonl TIMEOUT_SECONDS MEMBER,MEMBER,... NODE_URL...
Exit status 0 when idle, 1 on timeout.
"""
import json
import sys
import time
import urllib.request


def movement(url):
    try:
        with urllib.request.urlopen(url + "/v0/admin/movement", timeout=2) as r:
            return json.loads(r.read().decode("utf-8"))
    except Exception:  # a node starting or stopping: no sample this time
        return None


def idle(m, members):
    return (m is not None and m.get("state") == "idle" and m["topology"].get("phase") == "stable"
            and sorted(m["topology"].get("members", [])) == members)


def main():
    out, timeout, members, urls = sys.argv[1], float(sys.argv[2]), sorted(sys.argv[3].split(",")), sys.argv[4:]
    deadline = time.time() + timeout
    with open(out, "w", encoding="utf-8") as f:
        while time.time() < deadline:
            t = int(time.time() * 1000)
            sample = {u: movement(u) for u in urls}
            f.write(json.dumps({"t": t, "nodes": sample}) + "\n")
            f.flush()
            if all(idle(m, members) for m in sample.values()):
                return 0
            time.sleep(0.25)
    return 1


if __name__ == "__main__":
    sys.exit(main())
