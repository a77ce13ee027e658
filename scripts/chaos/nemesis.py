"""Carries out the schedule (schedule.py) against the running nodes, on its own thread, and records every step in
nemesis.jsonl with what it observed: packets the partition dropped, when a restarted node was ready again, what a
node with a full disk answered and how long it took to accept writes again, what a skewed clock did.

Slow follow-ups (waiting for a restarted node, probing a disk that was freed) run on helper threads, so the
schedule keeps its times; each is bounded.
"""
from __future__ import annotations

import errno
import heapq
import os
import threading
import time
from pathlib import Path

from .history import Event, Recorder
from .network import Network
from .nodes import Cluster
from .placement import Ring
from .schedule import Fault
from .workload import execute

DISK_RECOVERY_BOUND = 60.0   # seconds a node may take to accept writes again once its disk has room
PROBE_TIMEOUT = 15.0  # a probe not answered by then hangs (a busy machine answers a 1 MiB write within seconds)
READY_BOUND = 180.0   # a node starting on this busy 2-core machine took up to 70 s


class Nemesis:
    def __init__(self, faults: list[Fault], cluster: Cluster, network: Network, recorder: Recorder, t_origin: int,
                 ring: Ring, timeout: float, clock_bound: float | None = None):
        self.faults = faults
        self.cluster = cluster
        self.network = network
        self.recorder = recorder
        self.t_origin = t_origin
        self.ring = ring
        self.timeout = timeout
        self.clock_bound = clock_bound
        self.stop = threading.Event()
        self.helpers: list[threading.Thread] = []
        self.thread = threading.Thread(target=self._run, name="nemesis", daemon=True)
        self._probe_seq = 0
        self.active: dict[int, Fault] = {}  # started, not ended yet
        self._lock = threading.Lock()  # one step at a time (helpers restart nodes too)

    # ---------------------------------------------------------------- plumbing
    def now(self) -> int:
        return time.monotonic_ns() - self.t_origin

    def note(self, action: str, kind: str, fault: int, **detail) -> None:
        self.recorder.event(Event(self.now(), action, kind, fault, detail))

    def helper(self, target, *args) -> None:
        t = threading.Thread(target=target, args=args, daemon=True)
        t.start()
        self.helpers.append(t)

    def start(self) -> None:
        self.thread.start()
        self.helper(self._watch)

    def _watch(self) -> None:
        """A node that ends on its own is noted and started again two seconds later, as Kubernetes would."""
        while not self.stop.wait(0.5):
            with self._lock:
                for i in range(len(self.cluster.members)):
                    exit_ = self.cluster.reap(i)
                    if exit_:
                        self.note("note", "exit", -1, node=i, code=exit_[1], during=exit_[2], disk_full=exit_[3])
                        self.helper(self._restart_later, i)

    def _restart_later(self, i: int) -> None:
        if self.stop.wait(2.0):
            return
        with self._lock:
            held_down = any(f.kind == "crash" and i in f.nodes() for f in self.active.values())
            started = not held_down and self.cluster.procs[i] is None and self.cluster.ensure_running(i)
        if started:
            self._await_ready(None, i)

    def _run(self) -> None:
        """Faults start at their planned time or, on a machine too busy to keep up, as soon as the step before is
        done; either way each lasts as long as planned (its end and toggles move with its start)."""
        queue: list[tuple[float, int, int, str, Fault, bool]] = []
        for f in self.faults:
            heapq.heappush(queue, (f.start, 1, f.index, "start", f, True))
        while queue:
            due, _, _, step, fault, on = heapq.heappop(queue)
            if self.stop.wait(max(0.0, due - self.now() / 1e9)) or self.stop.is_set():
                return
            if step == "start":
                shift = max(0.0, self.now() / 1e9 - fault.start)
                toggles = fault.params.get("toggles") or []
                for at, state in toggles[1:]:
                    heapq.heappush(queue, (fault.start + shift + at, 1, fault.index, "toggle", fault, state))
                heapq.heappush(queue, (fault.end + shift, 0, fault.index, "end", fault, False))
                if toggles:
                    step = "toggle"
            try:
                with self._lock:
                    getattr(self, f"_{step}")(fault, on)
            except Exception as e:  # a step that fails is recorded; the run goes on (the heal repairs)
                self.note("error", fault.kind, fault.index, step=step, error=f"{type(e).__name__}: {e}")

    # ---------------------------------------------------------------- steps
    def _start(self, f: Fault, _on: bool) -> None:
        p = f.params
        detail: dict = {"what": f.describe(), **{k: v for k, v in p.items() if k != "toggles"}}
        if f.kind == "partition":
            self.network.set_drops({tuple(d) for d in p["drops"]})
            detail["dropped_before"] = self.network.dropped_total
        elif f.kind == "pause":
            for i in p["nodes"]:
                if self.cluster.running(i):
                    self.cluster.pause(i)
        elif f.kind == "crash":
            for i in p["nodes"]:
                self.cluster.kill(i)
        elif f.kind == "clock":
            if self.clock_bound:  # the counters of refused clocks just before the skew (checker: clock-skew)
                detail["clock_metrics"] = self._clock_metrics()
            for i, offset in p["offsets"]:
                self.cluster.set_clock(i, offset)
        elif f.kind == "disk":
            t = time.monotonic()
            detail["ballast_bytes"] = fill(self.cluster.mount(p["node"]) / "ballast")
            detail["fill_s"] = round(time.monotonic() - t, 2)
            self.helper(self._probe_full_disk, f)
        self.active[f.index] = f
        self.note("start", f.kind, f.index, **detail)

    def _toggle(self, f: Fault, on: bool) -> None:
        detail: dict = {"what": f.describe(), "on": on, "mode": f.params["mode"], "drops": f.params["drops"]}
        if on:
            self.network.set_drops({tuple(d) for d in f.params["drops"]})
            detail["dropped_before"] = self.network.dropped_total
            self.active[f.index] = f
        else:
            self.network.heal()
        self.note("start" if on else "lift", f.kind, f.index, **detail)

    def _end(self, f: Fault, _on: bool) -> None:
        p = f.params
        detail: dict = {}
        self.active.pop(f.index, None)
        if f.kind == "partition":
            self.network.heal()
            detail["dropped_packets"] = self.network.dropped_total - self._dropped_at_start(f)
        elif f.kind == "pause":
            for i in p["nodes"]:
                self.cluster.resume(i)
        elif f.kind == "crash":
            for i in p["nodes"]:
                if self.cluster.ensure_running(i):
                    self.helper(self._await_ready, f, i)
        elif f.kind == "clock":
            if self.clock_bound:  # and just before it ends
                detail["clock_metrics"] = self._clock_metrics()
            for i, _ in p["offsets"]:
                self.cluster.set_clock(i, 0)
        elif f.kind == "disk":
            (self.cluster.mount(p["node"]) / "ballast").unlink(missing_ok=True)
            self.helper(self._probe_recovery, f)
        self.note("end", f.kind, f.index, **detail)

    def _dropped_at_start(self, f: Fault) -> int:
        for e in self.recorder.events:
            if e.fault == f.index and e.action == "start" and "dropped_before" in e.detail:
                return e.detail["dropped_before"]
        return 0

    # ---------------------------------------------------------------- follow-ups
    def _await_ready(self, f: Fault | None, i: int) -> None:
        t = time.monotonic()
        kind, index = (f.kind, f.index) if f else ("exit", -1)
        try:
            self.cluster.await_ready(i, READY_BOUND)
            self.note("note", kind, index, node=i, ready_after_s=round(time.monotonic() - t, 2))
        except RuntimeError as e:  # it ended again (the watcher notes that) or never answered
            self.note("note", kind, index, node=i, ready_after_s=None, error=str(e))

    def probe_key(self, node: int) -> str:
        """A fresh key whose first replica is the node: a 1/1 request through that node is its local write."""
        url = self.cluster.members[node].url
        while True:
            self._probe_seq += 1
            key = f"probe-n{node}-{self._probe_seq}"
            if self.ring.replicas(key, 1) == [url]:
                return key

    def probe(self, node: int, f: str, key: str, replicas=(1, 1), size: int = 0):
        value = None
        if f == "put":
            value = f"probe-{time.monotonic_ns()}"
            value += "." * max(0, size - len(value))
        return execute(self.cluster.members, self.recorder, self.t_origin, "probe", node, f, key, value,
                       replicas, self.cluster.rf, PROBE_TIMEOUT)

    def _probe_full_disk(self, f: Fault) -> None:
        """While the disk is full: a write that needs this node fails at once with a 5xx that says why; a read
        still works. RocksDB preallocates its log file (1.1 write buffers), so writes still fit for a while: the
        probes write 1 MiB values to one key, at most 24, until one is refused, taking any space freed meanwhile."""
        i = f.params["node"]
        answers = []
        ballast = self.cluster.mount(i) / "ballast"
        big = self.probe_key(i)  # one key, overwritten: the probes' values do not pile up in the store
        for _ in range(24):
            if not ballast.exists():
                break  # the fault is over
            fill(ballast, append=True)  # whatever RocksDB freed meanwhile (obsolete logs) is taken again
            op = self.probe(i, "put", big, size=1 << 20)
            answers.append({"status": op.status, "type": op.type, "error": (op.error or "")[:300],
                            "seconds": None if op.t1 is None else round((op.t1 - op.t0) / 1e9, 3)})
            if op.type != "ok" or self.stop.is_set():
                break
        if not answers:
            return
        if answers[-1]["error"].startswith("connect:"):
            self.note("note", f.kind, f.index, node=i, probed=False, why="the node is down (not probed)")
            return
        read = self.probe(i, "get", self.probe_key(i))
        self.note("note", f.kind, f.index, node=i, full_disk_writes=answers, full_disk_read=read.status)

    def _probe_recovery(self, f: Fault) -> None:
        i = f.params["node"]
        t = time.monotonic()
        op = None
        while time.monotonic() - t < DISK_RECOVERY_BOUND and not self.stop.is_set():
            if not self.cluster.running(i):  # down (crashed or ending on a full disk): wait for it to come back
                time.sleep(0.5)
                continue
            op = self.probe(i, "put", self.probe_key(i))
            if op.status == 201:
                self.note("note", f.kind, f.index, node=i, recovered_after_s=round(time.monotonic() - t, 2))
                return
            time.sleep(0.5)
        if op is None or self.stop.is_set():
            return  # never up, or the run ended first: the final checks cover it
        self.note("note", f.kind, f.index, node=i, recovered_after_s=None,
                  last=f"{op.status} {op.error}", bound_s=DISK_RECOVERY_BOUND)

    def _clock_metrics(self) -> dict:
        """Every node's clock-related counters (a node with a bound on clocks counts what it refused)."""
        out = {}
        for i in range(len(self.cluster.members)):
            if self.cluster.running(i) and i not in self.cluster.paused:
                try:
                    out[str(i)] = {k: v for k, v in self.cluster.metrics(i, timeout=3).items() if "clock" in k}
                except OSError:
                    pass
        return out

    # ---------------------------------------------------------------- the end
    def heal_all(self) -> None:
        """Stops the schedule and undoes every fault: network, pauses, crashed nodes, clocks, disks."""
        self.stop.set()
        self.thread.join(30)
        with self._lock:
            for f in list(self.active.values()):  # cut short by the end of the run
                self.note("end", f.kind, f.index, cut_short=True)
            self.active.clear()
            self.network.heal()
            for i in range(len(self.cluster.members)):
                self.cluster.resume(i)
                self.cluster.set_clock(i, 0)
                (self.cluster.mount(i) / "ballast").unlink(missing_ok=True)
                self.cluster.ensure_running(i)
        for t in self.helpers:
            t.join(DISK_RECOVERY_BOUND + READY_BOUND)
        for i in range(len(self.cluster.members)):
            self.cluster.await_ready(i, READY_BOUND)
        self.note("end", "heal", -1, what="everything healed, every node ready")


def fill(path: Path, append: bool = False) -> int:
    """Writes zeros to path until its filesystem has no byte left; returns how many were written."""
    written = 0
    chunk = b"\0" * (1 << 20)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC), 0o600)
    try:
        size = len(chunk)
        while size >= 1:
            try:
                written += os.write(fd, chunk[:size])
            except OSError as e:
                if e.errno != errno.ENOSPC:
                    raise
                size //= 2
    finally:
        os.close(fd)
    return written
