"""The measuring steps of a scenario (harness/scenario.py) that runs windows one after another rather than one load
under timed events: wrk's closed model (the maximum throughput), oha at a fixed rate into its JSON summary (with
cpu/alloc profiles of a node taken inside the window), k6 at a fixed rate, and settings derived from what a window
measured (the fixed rate as a fraction of the maximum or of the median of rounds, the ids a PUT window wrote). A
step's target is a node's index, a list of indices (wrk's threads or oha's connections spread over them, requests to
the first) or the name of a reference server ("bare"). Raw outputs: RAW/wrk-NAME.txt, RAW/oha-NAME.json, RAW/k6-NAME.json,
RAW/profile-NAME.{html,txt}. A wrk window may be taken inside one wrk process after its warm-up, from its own
per-second counts (RAW/wrk-NAME.marks), and a fixed-rate window may record the target nodes' CPU and flushes around
it (RAW/NAME.cpu, RAW/NAME.flush). Standard library only.
"""
import glob
import os
import re
import subprocess
import threading
import time

from . import load, profiles
from .judge import median, round_names
from .nodes import http, metric


def log(msg):
    print("[bench] %s" % msg, flush=True)


def targets(target):
    """A step's target as a list: a node's index or a reference server's name alone, or the list given."""
    return target if isinstance(target, list) else [target]


def ports(run, target):
    return [run.target_port(t) for t in targets(target)]


def wrk(run, spec):
    """{"name", "target", "seconds", "script" (scripts/bench/), "args": [...], "replicas": "" or "2/3", "warmup":
    seconds (optional: the window taken inside one wrk process after them, wrk_window)}"""
    if "warmup" in spec:
        return wrk_window(run, spec)
    p = ports(run, spec["target"])
    env = {"BENCH_PORTS": ",".join(map(str, p)) if len(p) > 1 else "", "BENCH_REPLICAS": spec.get("replicas", "")}
    log("wrk %s (%ss)" % (spec["name"], spec["seconds"]))
    capture = profiling(run, spec, targets(spec["target"])[0])
    load.wrk(run.tools["wrk"], run.target_url(targets(spec["target"])[0]), int(spec["seconds"]),
             os.path.join(run.scripts, spec["script"]), spec.get("args", []), env, int(run.conf["threads"]),
             int(run.conf["connections"]), run.path("wrk-%s.txt" % spec["name"]))
    if capture:
        capture.join()


def wrk_window(run, spec):
    """One wrk process (the target's nodes, TLS when their client port has it) of "warmup" + "seconds" (+ 4)
    seconds, with its per-second counts (BENCH_PER_SECOND=1, wrk-seconds.lua): its connections, TLS handshakes
    included, are opened once, at its start, and the window sees none. RAW/wrk-NAME.marks gets a line (mark_line)
    at its start, after the warm-up and at the ends of the two halves of the window: the report counts each half's
    requests from wrk's "SECOND" lines between the marks, two identical windows whose spread is the run's noise
    floor."""
    name, nodes = spec["name"], targets(spec["target"])
    warm, secs = int(spec["warmup"]), int(spec["seconds"])
    half = (secs + 1) // 2
    p = ports(run, spec["target"])
    env = dict(os.environ, BENCH_PER_SECOND="1", BENCH_PORTS=",".join(map(str, p)),
               BENCH_REPLICAS=str(spec.get("replicas", "")))
    cmd = load.wrk_command(run.tools["wrk"], run.target_url(nodes[0]), warm + 2 * half + 4,
                           os.path.join(run.scripts, spec["script"]), spec.get("args", []), int(run.conf["threads"]),
                           int(run.conf["connections"]))
    marks = run.path("wrk-%s.marks" % name)
    with open(marks, "w", encoding="utf-8") as f:
        f.write(mark_line(run, nodes))
    t0 = time.time()
    log("wrk %s (%ds warm-up, %ds measured, one process)" % (name, warm, secs))
    with open(run.path("wrk-%s.txt" % name), "w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
    for t in (warm, warm + half, warm + 2 * half):
        time.sleep(max(0.0, t0 + t - time.time()))
        with open(marks, "a", encoding="utf-8") as f:
            f.write(mark_line(run, nodes))
    if proc.wait() != 0:
        raise RuntimeError("wrk %s failed (see %s)" % (name, run.path("wrk-%s.txt" % name)))


def node_sum(run, nodes, name):
    """The unlabelled metric name summed over the nodes (0 for a node without it)."""
    return sum(metric(http("GET", run.url(i) + "/metrics")[1], name) or 0.0 for i in nodes)


def cpu_sample(run, nodes):
    """"node CPU seconds so far (the nodes'), busy and total jiffies so far of the CPUs of the setting load_cpus"."""
    busy, total = load.core_busy_and_total(load.cpu_list(str(run.conf.get("load_cpus", ""))))
    return "%.2f %d %d" % (load.cpu_seconds([run.nodes[i].pid for i in nodes if run.nodes[i]]), busy, total)


def mark_line(run, nodes):
    """"wall time, the nodes' compile seconds so far, cpu_sample"."""
    jit = node_sum(run, nodes, JIT)
    return "%.3f %.3f %s\n" % (time.time(), jit, cpu_sample(run, nodes))


def profiling(run, spec, target):
    """With spec["profile"] (a name), the target node profiled inside the window, in the background: from
    "profile_delay" seconds into it (default 2), each capture "profile_seconds" long (default: the window's less
    4 s, shared by the captures)."""
    if not spec.get("profile"):
        return None
    captures = spec.get("captures", CAPTURES)
    seconds = int(spec.get("profile_seconds") or max(1, (int(spec["seconds"]) - 4) // len(captures)))
    t = threading.Thread(target=profile, args=(run, run.target_url(target), spec["profile"], seconds, captures,
                                               float(spec.get("profile_delay", 2))))
    t.start()
    return t


def wrk_figures(run, name):
    with open(run.path("wrk-%s.txt" % name), encoding="utf-8", errors="replace") as f:
        r = load.parse_wrk(f.read())
    if r is None:
        raise RuntimeError("wrk %s measured nothing (see %s)" % (name, run.path("wrk-%s.txt" % name)))
    return r


def median_rps(run, name):
    """The median req/s of the wrk windows NAME-1 .. NAME-<rounds> (a rate derived from windows measured in rounds)."""
    return median([wrk_figures(run, n)["rps"] for n in round_names([name], int(run.conf["rounds"]))])


def written(run, name):
    """Keys per wrk thread that a PUT window wrote, less the requests possibly in flight when wrk stopped."""
    keys = wrk_figures(run, name).get("keys_per_thread")
    if not keys:
        raise RuntimeError("the PUT window %s reported no keys" % name)
    return keys - int(run.conf["connections"])


def written_ids(threads, keys):
    """oha's URL regex of ids every writer thread wrote: t<thread>-<n, 10 digits> with n in [10^(d-1), 10^d), the
    largest such block below keys (n = 0 avoided: wrk drops the very first request it generates)."""
    digits = len(str(keys)) - 1
    if digits < 2:
        raise RuntimeError("too few keys written (%d) for the GET windows" % keys)
    return "t[0-%d]-%s[1-9][0-9]{%d}" % (threads - 1, "0" * (10 - digits), digits - 1)


def functions(run):
    """What a scenario's "=expression" may call besides its settings."""
    return {"rps": lambda name: wrk_figures(run, name)["rps"], "median_rps": lambda name: median_rps(run, name),
            "written": lambda name: written(run, name),
            "written_ids": written_ids, "int": int, "node_default": lambda env: node_default(run, env),
            "now_ms": lambda: int(time.time() * 1000)}


def node_default(run, env_name):
    """The default of a node option as the node's --help states it (by its environment name)."""
    out = subprocess.run([run.tools["java"], *run.tools["java_flags"], "-jar", run.tools["jar"], "--help"],
                         capture_output=True, text=True, timeout=120)
    m = re.search(r"env %s, default: (.*)$" % re.escape(env_name), out.stdout + out.stderr, re.M)
    return m.group(1).strip() if m else "?"


def set_value(run, key, value):
    """A setting derived during the run: into the settings (later steps use it) and env.txt."""
    run.conf[key] = value
    with open(run.path("env.txt"), "a", encoding="utf-8") as f:
        f.write("%s=%s\n" % (key, value))
    log("%s = %s" % (key, value))


def fixed_rate(run, spec):
    """{"name", "target", "method", "rate", "id", "seconds", "profile": a name, "captures" (optional), "csv": true
    (optional), "discard": true (optional), "samples": true (optional), "client_cert": true (optional)}: oha at a
    fixed rate with --latency-correction into RAW/oha-NAME.json (its summary) or, with "csv", RAW/NAME.csv (every
    request), or with "discard" nowhere (a warm-up at the rate; 0 seconds: none); with "profile", captures of the
    node inside the window (profile below); with "samples", the target nodes' CPU around the window into
    RAW/NAME.cpu (cpu_sample before, after) and the bytes their memtable flushes wrote into RAW/NAME.flush (before,
    after: whether a member flushed during the window); "client_cert": oha presents the run's client certificate
    (a target whose client port has TLS)."""
    if spec.get("discard") and not int(spec["seconds"]):
        return
    log("oha %s at %s/s (%ss%s)" % (spec["name"], spec["rate"], spec["seconds"],
                                    ", not recorded" if spec.get("discard") else ""))
    nodes = targets(spec["target"])
    if spec.get("samples"):
        flushed = "%.0f" % node_sum(run, nodes, FLUSHED)
        cpu = cpu_sample(run, nodes)
    p = start_rate(run, spec)
    capture = profiling(run, spec, p.target)
    if p.wait() != 0:
        log("oha %s exited with %d" % (spec["name"], p.returncode))
    if spec.get("samples"):
        with open(run.path(spec["name"] + ".cpu"), "w", encoding="utf-8") as f:
            f.write("%s %s\n" % (cpu, cpu_sample(run, nodes)))
        with open(run.path(spec["name"] + ".flush"), "w", encoding="utf-8") as f:
            f.write("%s %.0f\n" % (flushed, node_sum(run, nodes, FLUSHED)))
    if capture:
        capture.join()


def start_rate(run, spec):
    """The oha process of a fixed-rate window, started; its first target in .target."""
    spec = dict(spec, through=targets(spec["target"]),
                connections=spec.get("connections", run.conf["connections"]))
    csv, discard = spec.get("csv"), spec.get("discard")
    cmd = run.oha(spec, load.fixed_rate(int(spec["rate"]), int(spec["seconds"])) +
                  ["--output-format", "quiet" if discard else "csv" if csv else "json"])
    if discard:
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    else:
        base = run.path(spec["name"] if csv else "oha-%s" % spec["name"])
        with open(base + (".csv" if csv else ".json"), "w") as out, open(base + ".err", "w") as err:
            p = subprocess.Popen(cmd, stdout=out, stderr=err)
    p.target = spec["through"][0]
    return p


def warmup_until_flush(run, spec):
    """{"node": a node's index, "then": a reference server}: steps of warmup_step seconds, PUTs at the rate with GETs at a
    quarter of it beside them, until the node's first memtable flush and one step more (at most warmup_max seconds),
    then as many steps on the other server. RAW/warmup-<step>-<node|server>-<put|get>.csv, the first step's kept (what a
    user sees right after starting a node); env.txt: warmup_steps, warmup_flush_step."""
    c = run.conf
    rates = {"put": int(c["rate"]), "get": int(c["rate"]) // 4}

    def step(k, target, label):
        procs = [start_rate(run, dict(spec, name="warmup-%d-%s-%s" % (k, label, m), target=target, method=m.upper(),
                                      rate=rates[m], seconds=c["warmup_step"], csv=True)) for m in ("put", "get")]
        for p in procs:
            p.wait()
    data = os.path.join(run.work, "data", "node%d" % int(spec["node"]))
    steps, flush = 0, 0
    while steps * int(c["warmup_step"]) < int(c["warmup_max"]):
        steps += 1
        log("warm-up step %d of node %s: %ss of PUT at %d/s and GET at %d/s"
            % (steps, spec["node"], c["warmup_step"], rates["put"], rates["get"]))
        step(steps, spec["node"], "node")
        if flush:
            break
        if glob.glob(os.path.join(data, "*.sst")):
            flush = steps
    if not flush:
        log("the node did not flush its memtable within %ss of warm-up" % c["warmup_max"])
    for k in range(1, steps + 1):
        log("warm-up step %d/%d of %s" % (k, steps, spec["then"]))
        step(k, spec["then"], spec["then"])
    set_value(run, "warmup_steps", steps)
    set_value(run, "warmup_flush_step", flush)
    for f in glob.glob(run.path("warmup-*.csv")):  # the rest is large
        if not os.path.basename(f).startswith("warmup-1-"):
            os.remove(f)


CAPTURES = ("cpu", "alloc", "cpu-collapsed")
FORMATS = {"cpu": ("cpu", "html"), "alloc": ("alloc", "html"), "cpu-collapsed": ("cpu", "collapsed"),
           "alloc-collapsed": ("alloc", "collapsed")}
JIT = "jvm_compilation_time_seconds_total"
FLUSHED = "dht_rocksdb_flush_write_bytes_total"


def without_home(body):
    """A profile names native libraries by path (RocksDB's, unpacked under the cache in the home directory): the
    home directory becomes '~', so that a report committed to docs/ names no machine's paths."""
    home = os.path.expanduser("~").encode()
    return body.replace(home + b"/", b"~/") if len(home) > 1 else body


def profile(run, url, name, seconds, captures=CAPTURES, delay=2.0):
    """Captures back to back, from delay seconds into the window, through the node's /v0/admin/profile (cpu sampled
    every 1 ms of CPU time): by default cpu (HTML), alloc (HTML), cpu (collapsed, for the report)."""
    time.sleep(delay)
    for suffix in captures:
        event, fmt = FORMATS[suffix]
        status, body = profiles.capture(url, event, seconds, fmt, "1ms" if event == "cpu" else None)
        base = run.path("profile-%s-%s" % (name, suffix))
        with open(base + (".html" if fmt == "html" else ".txt"), "wb") as f:
            f.write(without_home(body))
        with open(base + ".status", "w", encoding="utf-8") as f:
            f.write("none" if status is None else str(status))


def k6(run, name, mode, rate, target=0):
    """k6 (k6/bench-node.js, constant-arrival-rate) at a fixed rate: its summary into RAW/k6-NAME.json."""
    seconds = int(run.conf["duration"])
    env = dict(os.environ, BASE_URL=run.target_url(target), MODE=mode, RATE=str(int(rate)), DURATION="%ds" % seconds,
               KEY_PREFIX="k6-%s-" % name, KEY_THREADS=str(run.conf["threads"]),
               KEYS_PER_THREAD=str(run.conf["keys_per_thread"]), SUMMARY=run.path("k6-%s.json" % name))
    log("k6 %s at %s/s (%ds)" % (name, rate, seconds))
    with open(run.path("k6-%s.txt" % name), "w") as out:
        rc = subprocess.run([run.tools["k6"], "run", "--quiet", "--no-usage-report",
                             os.path.join(run.root, "k6", "bench-node.js")], stdout=out, stderr=subprocess.STDOUT,
                            env=env, timeout=seconds + 120).returncode
    if rc != 0:
        log("k6 %s exited with %d (thresholds are not used; see %s)" % (name, rc, run.path("k6-%s.txt" % name)))


STEPS = {"wrk": wrk, "rate": fixed_rate, "k6": k6, "set": set_value, "warmup_until_flush": warmup_until_flush}
