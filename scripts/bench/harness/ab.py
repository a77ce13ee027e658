"""The A/B scenario (`make bench-ab BASE=<commit or release>`): two builds of the node on the same machine, in
alternating rounds, as data below:

- shapes: one node (beside it, as references, the bare one-nio server and one-nio + RocksDB doing nothing else),
  and three members at replicas=2/3 with every connection on one entry node; each shape's servers run during its
  own phase only (the others' idle JVMs would share the cores);
- cases: PUT and GET, closed model (wrk: the maximum throughput) and a fixed rate (oha, --latency-correction: p99,
  p99.9); with every window the CPU its servers used, per request, until they were idle again (a window's writes
  are flushed and compacted after it: that work is counted with the window, and never runs inside the next one);
- per phase: a preload of a fixed key set (GETs read it, fixed-rate PUTs overwrite it; closed-model PUTs write new
  keys), a warm-up round of short windows (the JIT compiles every path measured; not judged), then the rounds: in
  each, every case runs on every server of the shape one after the other, in one order in odd rounds and the
  reverse in even ones, so that neither side always goes first;
- each node's WAL after the last closed-model PUT window (what its writes cost RocksDB: harness.walstats) and, when
  asked, cpu and alloc profiles of one more PUT window on the entry node and on a replica (not counted).

Everything measured goes into one JSON (abreport.py judges it and writes the report).
"""
import functools
import json
import os
import shutil
import subprocess
import threading
import time

from . import load, machine, profiles, servers, walstats
from .judge import turn

SHAPES = ("single", "cluster")
# (case, method, model): closed = wrk, rate = oha at the shape's fixed rate
CASES = (("put-closed", "PUT", "closed"), ("get-closed", "GET", "closed"),
         ("put-rate", "PUT", "rate"), ("get-rate", "GET", "rate"))
NODES = ("base", "head")
REFS = ("bare", "rocks")  # beside one node only: BareServer, BareRocksServer (bench/)
THREADS, CONNECTIONS = 2, 64
REPLICAS = "2/3"
# After a window, its side must be this idle (cores per process, over one sample) before the next window starts, at
# most this long. An idle node uses under 0.01 cores (3 idle members of either build: 0.025 together); a flush or a
# compaction takes a whole core.
SETTLE_CORES, SETTLE_SAMPLE_S, SETTLE_MAX_S = 0.04, 1.0, 90.0


def log(msg):
    print("[bench-ab] %s" % msg, flush=True)


class Settings:
    """What a run is given (scripts/bench-ab.sh fills it from make's variables and the environment)."""

    def __init__(self, a):
        self.__dict__.update(vars(a))
        self.shapes = [s for s in a.shapes.split(",") if s]
        self.refs = [r for r in a.refs.split(",") if r]
        known = [c[0] for c in CASES]
        self.cases = [c for c in CASES if c[0] in a.cases.split(",")]
        for c in a.cases.split(","):
            if c not in known:
                raise SystemExit("unknown case %r (%s)" % (c, ", ".join(known)))
        for s in self.shapes:
            if s not in SHAPES:
                raise SystemExit("unknown shape %r (%s)" % (s, ", ".join(SHAPES)))
        for r in self.refs:
            if r not in REFS:
                raise SystemExit("unknown reference %r (%s)" % (r, ", ".join(REFS)))


@functools.lru_cache(maxsize=None)
def repair_flags(java, jar):
    """--repair-interval 0s for a node that has repair: its first round starts at a random minute of the first ten
    and would land in one window of one side; a request-path A/B measures requests (repair's own cost:
    make bench-repair)."""
    out = subprocess.run([java, "-jar", jar, "--help"], capture_output=True, text=True, timeout=60).stdout
    return ("--repair-interval", "0s") if "--repair-interval" in out else ()


def node_servers(s, variant, jar, shape, data_root):
    """The node processes of one side in one shape: [entry, others...]."""
    base = s.port + (1 if variant == "base" else 2) if shape == "single" else \
        s.port + (10 if variant == "base" else 20)
    count = 1 if shape == "single" else 3
    ports = [base + i for i in range(count)]
    members = ",".join("http://127.0.0.1:%d" % p for p in ports)
    extra = list(repair_flags(s.java, jar)) + s.node_args.split()
    out = []
    for i, p in enumerate(ports):
        name = "%s-%s%s" % (variant, shape, "" if count == 1 else i)
        data = os.path.join(data_root, name)
        argv = [s.java] + s.java_flags.split() + ["-jar", jar, "--port", str(p), "--data-dir", data] + \
            (["--cluster", members] if count > 1 else []) + extra
        out.append(servers.Server(name, argv, p, data_dir=data))
    return out


def ref_server(s, ref, data_root):
    cp = "%s:%s" % (s.bench_jar, s.refs_jar or s.head_jar)
    flags = [s.java] + s.java_flags.split() + ["-cp", cp]
    if ref == "bare":
        return servers.Server("bare", flags + ["dev.dht.bench.BareServer", str(s.port + 3)], s.port + 3, "/", True)
    data = os.path.join(data_root, "rocks")
    return servers.Server("rocks", flags + ["dev.dht.bench.BareRocksServer", str(s.port + 4), data, "1024"],
                          s.port + 4, "/", True, data_dir=data)


def key_regex(keys):
    """oha's URL regex over the preloaded keys t<thread>-<n, 10 digits>, n < keys (a power of ten)."""
    digits = len(str(keys)) - 1
    return "t[0-%d]-%s[0-9]{%d}" % (THREADS - 1, "0" * (10 - digits), digits)


class Phase:
    """One shape's run: its servers (per side: the processes, the entry first), the windows measured."""

    def __init__(self, s, shape, sides, scripts, raw, result):
        self.s, self.shape, self.sides, self.scripts, self.raw = s, shape, sides, scripts, raw
        self.result = result
        self.rate = s.single_rate if shape == "single" else s.cluster_rate
        self.replicas = REPLICAS if shape == "cluster" else ""

    def preload(self, side):
        """wrk writes the keys t<thread>-0 .. keys-1 (over and over) until every thread went past them all."""
        entry = self.sides[side][0]
        if side == "bare":
            return None
        need = self.s.keys + CONNECTIONS
        for seconds in (10, 20, 40, 80):
            r = load.wrk(self.s.wrk, entry.url, seconds, self.scripts["put"], ("t", self.s.keys),
                         self.wrk_env(entry), THREADS, CONNECTIONS,
                         os.path.join(self.raw, "preload-%s-%s.txt" % (self.shape, side)))
            if r and r.get("keys_per_thread", 0) >= need:
                log("%s %s: preloaded %d keys in %d s (%.0f req/s)" % (self.shape, side, THREADS * self.s.keys,
                                                                       seconds, r["rps"]))
                return r
        raise RuntimeError("%s %s: the preload did not write every key in 80 s" % (self.shape, side))

    def wrk_env(self, entry):
        return {"BENCH_PORTS": str(entry.port), "BENCH_REPLICAS": self.replicas}

    def window(self, r, case, side, seconds):
        """One window of one case on one side: its figures, CPU per request of the side's processes, steal."""
        procs = self.sides[side]
        entry = procs[0]
        _, method, model = case
        name = "%s-%s-%s-r%d" % (self.shape, case[0], side, r)
        cpu0, (st0, tot0), t0 = load.cpu_seconds([p.pid for p in procs]), load.steal_and_total(), time.time()
        if model == "closed":
            script, args = (self.scripts["put"], ("u%d" % r,)) if method == "PUT" else \
                (self.scripts["get"], (THREADS, self.s.keys))
            fig = load.wrk(self.s.wrk, entry.url, seconds, script, args, self.wrk_env(entry), THREADS, CONNECTIONS,
                           os.path.join(self.raw, name + ".wrk.txt"))
            requests = fig and fig.get("requests")
        else:
            url = "%s/v0/entity\\?id=%s%s" % (entry.url, key_regex(self.s.keys),
                                              "&replicas=" + self.replicas if self.replicas else "")
            fig = load.oha(self.s.oha, url, method, self.rate, seconds, CONNECTIONS,
                           os.path.join(self.raw, name + ".oha.json"))
            requests = fig and fig["ok"] + fig["non_2xx"]
        during = load.cpu_seconds([p.pid for p in procs]) - cpu0
        st1, tot1 = load.steal_and_total()
        if case[0] == "put-closed" and r == self.s.rounds:
            self.wal(side)  # before the memtables are flushed and the WAL they were written to is deleted
        settle_s = self.settle(procs)
        cpu = load.cpu_seconds([p.pid for p in procs]) - cpu0
        w = {"shape": self.shape, "case": case[0], "side": side, "round": r, "seconds": seconds,
             "started": round(t0, 3), "figures": fig or {}, "cpu_s": round(cpu, 3), "cpu_during_s": round(during, 3),
             "settle_s": round(settle_s, 1),
             "steal_pct": round(100.0 * (st1 - st0) / (tot1 - tot0), 2) if tot1 > tot0 else None}
        if fig and requests:
            w["figures"]["cpu_us_per_req"] = 1e6 * cpu / requests
        bad = (fig or {}).get("non_2xx", 0) + (fig or {}).get("socket_errors", 0) + (fig or {}).get("errors", 0)
        if not fig or bad:
            log("window %s: %s" % (name, "no figures" if not fig else "%d errors or non-2xx answers" % bad))
        return w

    def settle(self, procs):
        """Waits until the side's processes are idle (SETTLE_CORES each over a sample of SETTLE_SAMPLE_S), at most
        SETTLE_MAX_S; returns the seconds waited. What a window leaves behind (its writes' flushes and compactions,
        the JIT) then runs before the next window, not inside it, and is counted in the CPU of the window that
        caused it."""
        pids = [p.pid for p in procs]
        t0 = time.monotonic()
        last = load.cpu_seconds(pids)
        while time.monotonic() - t0 < SETTLE_MAX_S:
            time.sleep(SETTLE_SAMPLE_S)
            now = load.cpu_seconds(pids)
            if now - last < SETTLE_CORES * len(pids) * SETTLE_SAMPLE_S:
                break
            last = now
        return time.monotonic() - t0

    def run_round(self, r, seconds):
        for case in self.s.cases:
            for side in turn(self.sides, r):
                w = self.window(r, case, side, seconds)
                (self.result["warmup"] if r == 0 else self.result["windows"]).append(w)
                f = w["figures"]
                log("round %d %s %s %s: %s" % (r, self.shape, case[0], side,
                                               "%.0f req/s" % f["rps"] if case[2] == "closed" and f.get("rps")
                                               else "p99 %.2f ms" % f["p99_ms"] if f.get("p99_ms") else "-"))

    def wal(self, side):
        """What the side's writes cost RocksDB, from each of its nodes' WAL (harness.walstats): RocksDB writes,
        memtable inserts and bytes per record write. Read right after the last round's closed-model PUT window, whose
        records the WAL still holds."""
        for p in self.sides[side]:
            if p.data_dir and os.path.isdir(p.data_dir):
                st = walstats.stats(p.data_dir)
                if st:
                    self.result["wal"][p.name] = dict(st, shape=self.shape, side=side)

    def profile(self, events, seconds):
        """cpu/alloc profiles of the entry node (and of a replica in the cluster) of each side during one more
        closed-model PUT window each (collapsed stacks into raw/; not counted in the figures). A capture starts a
        second into the window and ends a second before it: the report turns its samples into CPU per request with
        the window's rate."""
        capture = seconds - 2
        for side in NODES:
            if side not in self.sides:
                continue
            procs = self.sides[side][:2]
            for event in events:
                files = [(p, os.path.join(self.raw, "profile-%s-put-%s-%s.collapsed" % (self.shape, p.name, event)))
                         for p in procs]
                caps = [threading.Timer(1.0, self.capture, (p.url, event, capture, path)) for p, path in files]
                for c in caps:
                    c.start()
                w = self.window(99, CASES[0], side, seconds)
                for c in caps:
                    c.join()
                requests = w["figures"].get("requests") or 0
                for p, path in files:
                    self.result["profiles"].append({"shape": self.shape, "side": side, "node": p.name,
                                                    "event": event, "file": os.path.basename(path),
                                                    "requests_captured": requests * capture / seconds})
                log("profiled %s %s %s" % (self.shape, side, event))

    @staticmethod
    def capture(url, event, seconds, path):
        """One collapsed-stack profile into path (harness/profiles.capture), whatever the node answered; no file
        when nothing answered."""
        status, body = profiles.capture(url, event, seconds, "collapsed", "1ms" if event == "cpu" else None)
        if status is not None:
            with open(path, "wb") as f:
                f.write(body)


def run(s):
    os.makedirs(s.work, exist_ok=True)
    raw = os.path.join(s.work, "raw")
    data_root = os.path.join(s.work, "data")
    os.makedirs(raw, exist_ok=True)
    scripts = {"put": os.path.join(s.scripts, "wrk-cluster-put.lua"),
               "get": os.path.join(s.scripts, "wrk-cluster-get.lua")}
    result = {"meta": dict(s.meta), "params": {
        "rounds": s.rounds, "window_s": s.window, "warmup_window_s": s.warmup_window, "single_rate": s.single_rate,
        "cluster_rate": s.cluster_rate, "keys": THREADS * s.keys, "threads": THREADS, "connections": CONNECTIONS,
        "replicas": REPLICAS, "java_flags": s.java_flags, "node_args": s.node_args, "shapes": s.shapes,
        "refs": s.refs, "cases": [c[0] for c in s.cases], "repair_off": {v: bool(repair_flags(s.java, j)) for v, j in (("base", s.base_jar),
                                                                                    ("head", s.head_jar))}},
        "windows": [], "warmup": [], "wal": {}, "profiles": [], "load": {"before": machine.loadavg()}}
    for shape in s.shapes:
        sides = {v: node_servers(s, v, j, shape, data_root) for v, j in (("base", s.base_jar), ("head", s.head_jar))}
        if shape == "single":
            for ref in s.refs:
                sides[ref] = [ref_server(s, ref, data_root)]
        every = [p for procs in sides.values() for p in procs]
        servers.check_ports(every)
        log("%s: starting %s" % (shape, ", ".join(p.name for p in every)))
        with servers.Fleet(raw, log) as fleet:
            fleet.start(every)
            phase = Phase(s, shape, sides, scripts, raw, result)
            for side in sides:
                phase.preload(side)
            phase.run_round(0, s.warmup_window)
            for r in range(1, s.rounds + 1):
                phase.run_round(r, s.window)
            if s.profile:
                phase.profile([e for e in s.profile.split(",") if e], s.window)
        shutil.rmtree(data_root, ignore_errors=True)
    result["load"]["after"] = machine.loadavg()
    path = os.path.join(s.work, "ab.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    log("raw figures: %s" % path)
    return path
