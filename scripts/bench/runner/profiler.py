"""Flamegraphs of every node while a tape runs, through each node's GET /v0/admin/profile (harness/profiles.capture:
async-profiler in the node's JVM; the request answers with the HTML flamegraph when the capture ends).

A node runs one capture at a time, so the events (cpu, alloc; lock and wall on request) take turns over the
tape's steady part, each for an equal slice of it; the nodes are captured in parallel.
"""
import os
import threading
import time

from harness import profiles

EVENTS = ("cpu", "alloc", "lock", "wall")


def steady_window(duration_s, warmup_s=None):
    """(delay, length) in seconds of the part of a tape to profile: after a warm-up (default 20% of the tape,
    at most 10 s) and before the last 5% (at most 2 s), when the load and the JIT have settled."""
    warmup = min(10.0, duration_s * 0.2) if warmup_s is None else warmup_s
    tail = min(2.0, duration_s * 0.05)
    return warmup, max(0.0, duration_s - warmup - tail)


def capture(url, event, seconds, path, busy_wait=2.0):
    """One flamegraph (harness/profiles.capture) into path; returns None on success or the reason it failed."""
    status, body = profiles.capture(url, event, seconds, busy_wait=busy_wait)
    if status is None:
        return body.decode("utf-8", "replace")
    if status != 200:
        return "HTTP %d: %s" % (status, body[:300].decode("utf-8", "replace").strip())
    with open(path, "wb") as f:
        f.write(body)
    return None


class Captures(threading.Thread):
    """Profiles the nodes [(name, url)] during one tape: starts `delay` s after start() and splits `length` s
    among the events. results: [{"node", "event", "file"} or {"node", "event", "error"}]."""

    def __init__(self, nodes, tape, events, delay, length, out_dir, log):
        super().__init__(daemon=True, name="captures-" + tape)
        self.nodes, self.tape, self.events = nodes, tape, list(events)
        self.delay, self.length, self.out_dir, self.log = delay, length, out_dir, log
        self.results = []
        self.stopped = threading.Event()
        self._lock = threading.Lock()

    def stop(self):
        self.stopped.set()

    def run(self):
        if not self.events or not self.nodes or self.length < 0.2 * len(self.events):
            return
        if self.stopped.wait(self.delay):
            return
        slice_s = self.length / len(self.events)
        workers = [threading.Thread(target=self._node, args=(name, url, slice_s), daemon=True)
                   for name, url in self.nodes]
        for w in workers:
            w.start()
        for w in workers:
            w.join()

    def _node(self, name, url, slice_s):
        for event in self.events:
            if self.stopped.is_set():
                return
            fname = "%s-%s-%s.html" % (name, self.tape, event)
            t0 = time.time()
            error = capture(url, event, slice_s, os.path.join(self.out_dir, fname))
            with self._lock:
                if error is None:
                    self.results.append({"node": name, "event": event, "file": fname})
                else:
                    self.results.append({"node": name, "event": event, "error": error})
                    self.log("profile %s %s on %s failed: %s" % (event, self.tape, name, error))
            # a failed capture returns at once: keep the next event on its own slice of the window
            rest = slice_s - (time.time() - t0)
            if error is not None and rest > 0 and self.stopped.wait(rest):
                return
