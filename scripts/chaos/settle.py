"""After the faults: let hints drain, look at every replica, read every key once at from/from (the read that meets
and repairs every copy), wait for the repairs, and look at every node's copy again. What it finds is the
checker's FinalState (also written to final.json, so that `python -m chaos check DIR` can check a run again).
"""
from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path

from .verdict import FinalState
from .history import Recorder, Stored
from .nodes import Cluster
from .placement import Ring
from .workload import execute

HINTS_BOUND = 120.0    # seconds for every hint to be delivered once all nodes are up
REPAIR_BOUND = 30.0    # seconds for read repair's background writes to land
FINAL_READ_TRIES = 5


def wait_for_hints(cluster: Cluster, log) -> dict[int, float]:
    deadline = time.monotonic() + HINTS_BOUND
    while True:
        left = {}
        for i in range(len(cluster.members)):
            try:
                left[i] = cluster.metrics(i).get("dht_hints_pending", 0.0)
            except OSError:
                left[i] = float("nan")
        if all(v == 0 for v in left.values()) or time.monotonic() > deadline:
            log(f"hints pending per node: {left}")
            return left
        time.sleep(1)


def snapshot(cluster: Cluster, keys: list[str], nodes_of) -> dict[str, dict[int, Stored | None]]:
    """Each listed node's own record of each key (internal reads, in parallel)."""
    jobs = [(k, n) for k in keys for n in nodes_of(k)]
    with ThreadPoolExecutor(8) as pool:
        found = list(pool.map(lambda kn: cluster.local_copy(kn[1], kn[0]), jobs))
    out: dict[str, dict[int, Stored | None]] = {k: {} for k in keys}
    for (k, n), rec in zip(jobs, found):
        out[k][n] = rec
    return out


def diverged(copies: dict[str, dict[int, Stored | None]], replicas: dict[str, list[int]]) -> list[str]:
    return [k for k, c in copies.items() if len({c.get(n) for n in replicas[k]}) > 1]


def final_reads(cluster: Cluster, recorder: Recorder, t_origin: int, keys: list[str], rf: int, timeout: float) -> None:
    def read(ik):
        i, key = ik
        for attempt in range(FINAL_READ_TRIES):
            node = (i + attempt) % len(cluster.members)
            op = execute(cluster.members, recorder, t_origin, "final", node, "get", key, None, (rf, rf), rf,
                         timeout)
            if op.type == "ok":
                return
            time.sleep(0.5)
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(read, enumerate(keys)))


def settle(cluster: Cluster, ring: Ring, recorder: Recorder, t_origin: int, rf: int, timeout: float, out: Path,
           clock_bound: float | None, log) -> FinalState:
    n = len(cluster.members)
    urls = [m.url for m in cluster.members]
    keys = sorted({o.key for o in recorder.ops})
    replicas = {k: [urls.index(u) for u in ring.replicas(k, rf)] for k in keys}
    hints_left = wait_for_hints(cluster, log)
    before = snapshot(cluster, keys, lambda k: replicas[k])
    differ = diverged(before, replicas)
    log(f"{len(differ)} of {len(keys)} keys differ between replicas after hints alone; reading every key at "
        f"{rf}/{rf}")
    final_reads(cluster, recorder, t_origin, keys, rf, timeout)
    deadline = time.monotonic() + REPAIR_BOUND
    while True:
        after = snapshot(cluster, keys, lambda k: replicas[k])
        left = diverged(after, replicas)
        if not left or time.monotonic() > deadline:
            break
        time.sleep(1)
    copies = snapshot(cluster, keys, lambda k: range(n))
    log(f"{len(diverged(copies, replicas))} keys differ between replicas after read repair")
    state = FinalState(hints_left, len(differ), copies, replicas, clock_bound,
                       [list(e) for e in cluster.unexpected_exits()])
    save(state, out / "final.json")
    return state


def save(state: FinalState, path: Path) -> None:
    data = asdict(state)
    data["copies"] = {k: {str(n): (None if c is None else {"ts": c.ts, "tombstone": c.tombstone,
                                                           "value": c.value.decode(errors="replace")})
                          for n, c in v.items()} for k, v in state.copies.items()}
    path.write_text(json.dumps(data))


def load(path: Path) -> FinalState:
    data = json.loads(path.read_text())
    copies = {k: {int(n): (None if c is None else Stored(c["ts"], c["tombstone"], c["value"].encode()))
                  for n, c in v.items()} for k, v in data["copies"].items()}
    return FinalState({int(k): v for k, v in data["hints_left"].items()}, data["diverged_before_repair"], copies,
                      data["replicas"], data.get("clock_bound"), data.get("exits", []))
