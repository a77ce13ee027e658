"""Steps of a scenario (harness/scenario.py) that talk to the nodes' admin endpoints and sample what the nodes did:
a call on each of some nodes (a backup, a restore, its finish), polling until each node's status says a job reached
a phase, a background poll of a status all along (as the operator polls), samples of the CPU and work of the nodes,
the object store and the load at a mark, and a warm-up that lasts until the nodes are steady. Standard library only.
"""
import json
import string
import threading
import time

from .load import CLOCK_TICKS, ticks
from .nodes import http, log, metric

JIT = "jvm_compilation_time_seconds_total"
WRITTEN = ("dht_rocksdb_flush_write_bytes_total", "dht_rocksdb_compaction_write_bytes_total")


def per_node(text, i, nth):
    """A call's templated text for one node: $node its index, $nth its place in the step's list (0, 1, ...)."""
    return string.Template(text).safe_substitute(node=i, nth=nth)


def call(run, spec):
    """{"nodes": [...], "method", "path", "body": JSON text (optional), "save": a file name under RAW (optional),
    "expect": text the answer must hold (optional)}: the request on each node in turn, body and save templated per
    node (per_node); a status other than 2xx, or an answer without the expected text, ends the run."""
    for nth, i in enumerate(spec["nodes"]):
        body = per_node(spec["body"], i, nth) if "body" in spec else None
        status, text = http(spec["method"], run.url(int(i)) + spec["path"], 60, body)
        if not status or status // 100 != 2 or spec.get("expect", "") not in text:
            raise RuntimeError("node %s answered %s %s to %s %s" % (i, status, text.strip(), spec["method"],
                                                                   spec["path"]))
        if "save" in spec:
            with open(run.path(per_node(spec["save"], i, nth)), "w", encoding="utf-8") as f:
                f.write(text)


def matches(doc, want):
    return all(doc.get(k) == v for k, v in want.items())


def await_status(run, spec):
    """{"nodes": [...], "path", "until": {field: value}, "fail": {field: value} (optional)}: GET path on every node
    each 0.5 s until each one's JSON matches "until" (at most the setting timeout); a node matching "fail" ends the
    run."""
    deadline = time.monotonic() + float(run.conf.get("timeout", 900))
    while True:
        done = True
        for i in spec["nodes"]:
            status, text = http("GET", run.url(int(i)) + spec["path"])
            doc = json.loads(text) if status == 200 else {}
            if spec.get("fail") and matches(doc, spec["fail"]):
                raise RuntimeError("node %s failed: %s" % (i, text.strip()))
            done = done and matches(doc, spec["until"])
        if done:
            return
        if time.monotonic() > deadline:
            raise RuntimeError("%s not %s within the timeout on %s" % (spec["path"], spec["until"], spec["nodes"]))
        time.sleep(0.5)


def start_poll(run, path, nodes, interval=0.5):
    """GET path on the nodes every interval seconds in the background until end_poll, as the operator polls every
    member's admin endpoints all along: without it a node's first admin requests come with the event measured, and
    the JIT recompiles the request path they deoptimize, inside the event's window."""
    stop = threading.Event()

    def loop():
        while not stop.wait(float(interval)):
            for i in nodes:
                http("GET", run.url(int(i)) + path, 5)
    t = threading.Thread(target=loop, daemon=True)
    t.start()
    run.polls.append((stop, t))


def end_poll(run):
    for stop, t in run.polls:
        stop.set()
        t.join()
    run.polls = []


def node_work(run):
    """(JIT seconds, bytes their flushes and compactions wrote) so far, summed over the live nodes."""
    jit = written = 0.0
    for i, s in enumerate(run.nodes):
        if s:
            text = http("GET", run.url(i) + "/metrics")[1]
            jit += metric(text, JIT) or 0.0
            written += sum(metric(text, m) or 0.0 for m in WRITTEN)
    return jit, written


def sample(run, name):
    """RAW/sample-NAME.txt: CPU ticks so far of each live node, of the nodes' selector threads (which serve the
    requests: the same load costing them more CPU is the request path slowed), of the object store and of the load
    generators; the clock's ticks per second; the nodes' JIT seconds and flush/compaction bytes so far."""
    lines = {"node%d" % i: ticks(s.pid) for i, s in enumerate(run.nodes) if s}
    lines["selectors"] = sum(ticks(s.pid, "dht-selector") for s in run.nodes if s)
    if run.store and run.store.server:
        lines["store"] = ticks(run.store.server.pid)
    lines["load"] = sum(ticks(p.pid) for p in run.loads)
    lines["clk_tck"] = CLOCK_TICKS
    lines["jit"], lines["written"] = node_work(run)
    with open(run.path("sample-%s.txt" % name), "w", encoding="utf-8") as f:
        f.writelines("%s=%s\n" % kv for kv in lines.items())


def steady(run, spec):
    """{"step": s, "jit_quiet": s, "quiet": n, "max": s}: the load goes on in steps until n steps in a row were
    quiet: the nodes' JIT compiled at most jit_quiet seconds in each and their flushes and compactions wrote nothing
    (at most max seconds). A "before" with the JIT still compiling the GET path or a preload's compactions still
    writing is busier than the steady state and flatters every ratio over it. env.txt: steady_wait (seconds),
    steady_quiet_steps and steady_quiet_wanted."""
    waited, quiet = 0, 0
    jit, written = node_work(run)
    while waited < float(spec["max"]) and quiet < int(spec["quiet"]):
        time.sleep(float(spec["step"]))
        waited += float(spec["step"])
        now = node_work(run)
        quiet = quiet + 1 if now[0] - jit <= float(spec["jit_quiet"]) and now[1] == written else 0
        jit, written = now
    with open(run.path("env.txt"), "a", encoding="utf-8") as f:
        f.write("steady_wait=%d\nsteady_quiet_steps=%d\nsteady_quiet_wanted=%d\n" % (waited, quiet, spec["quiet"]))
    log("steady after %d s more (%d quiet steps in a row)" % (waited, quiet))


STEPS = {"call": call, "await": await_status, "poll": start_poll, "end_poll": end_poll, "sample": sample,
         "steady": steady}
