"""Flamegraphs of every node while a tape runs, through each node's GET /v0/admin/profile (async-profiler in
the node's JVM; the request answers with the HTML flamegraph when the capture ends).

A node runs one capture at a time, so the events (cpu, alloc; lock and wall on request) take turns over the
tape's steady part, each for an equal slice of it; the nodes are captured in parallel.
"""
import os
import ssl
import threading
import time
import urllib.error
import urllib.request

EVENTS = ("cpu", "alloc", "lock", "wall")


def steady_window(duration_s, warmup_s=None):
    """(delay, length) in seconds of the part of a tape to profile: after a warm-up (default 20% of the tape,
    at most 10 s) and before the last 5% (at most 2 s), when the load and the JIT have settled."""
    warmup = min(10.0, duration_s * 0.2) if warmup_s is None else warmup_s
    tail = min(2.0, duration_s * 0.05)
    return warmup, max(0.0, duration_s - warmup - tail)


def capture(url, event, seconds, path, timeout_extra=60, busy_wait=2.0):
    """One capture; returns None on success or the reason it failed. A 409 (a capture still running: the node
    answers the previous capture a moment before it takes a new one) is retried for up to busy_wait seconds."""
    ms = max(100, int(seconds * 1000))
    # A cluster with client tokens (DhtCluster spec.auth): profiling is the admin plane's; the Job gets the token.
    token = os.environ.get("DHT_ADMIN_TOKEN")
    req = urllib.request.Request("%s/v0/admin/profile?event=%s&duration=%dms" % (url.rstrip("/"), event, ms),
                                 headers={"Authorization": "Bearer " + token} if token else {})
    # With client TLS the sidecars serve TLS with the members' certificate: checked against DHT_CA. A node asked
    # directly (no sidecar) may want the client certificate too.
    context = None
    if os.environ.get("DHT_CA"):
        context = ssl.create_default_context(cafile=os.environ["DHT_CA"])
        if os.environ.get("DHT_CLIENT_CERT"):
            context.load_cert_chain(os.environ["DHT_CLIENT_CERT"], os.environ.get("DHT_CLIENT_KEY"))
    give_up = time.time() + busy_wait
    while True:
        try:
            with urllib.request.urlopen(req, timeout=ms / 1000.0 + timeout_extra, context=context) as r:
                body = r.read()
            break
        except urllib.error.HTTPError as e:
            if e.code == 409 and time.time() < give_up:
                time.sleep(0.1)
                continue
            return "HTTP %d: %s" % (e.code, e.read(300).decode("utf-8", "replace").strip())
        except (urllib.error.URLError, OSError) as e:
            return str(e)
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
