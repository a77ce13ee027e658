"""The measuring steps of a scenario (harness/scenario.py) that runs windows one after another rather than one load
under timed events: wrk's closed model (the maximum throughput), oha at a fixed rate into its JSON summary (with
cpu/alloc profiles of a node taken inside the window), k6 at a fixed rate, and settings derived from what a window
measured (the fixed rate as a fraction of the maximum or of the median of rounds, the ids a PUT window wrote). A
step's target is a node's index, a list of indices (wrk's threads or oha's connections spread over them, requests to
the first) or the name of a reference server ("bare"). Raw outputs: RAW/wrk-NAME.txt, RAW/oha-NAME.json, RAW/k6-NAME.json,
RAW/profile-NAME.{html,txt}. Standard library only.
"""
import glob
import os
import re
import subprocess
import threading
import time

from . import load, profiles
from .judge import median, round_names


def log(msg):
    print("[bench] %s" % msg, flush=True)


def ports(run, target):
    return [run.target_port(t) for t in (target if isinstance(target, list) else [target])]


def wrk(run, spec):
    """{"name", "target", "seconds", "script" (scripts/bench/), "args": [...], "replicas": "" or "2/3"}"""
    p = ports(run, spec["target"])
    env = {"BENCH_PORTS": ",".join(map(str, p)) if len(p) > 1 else "", "BENCH_REPLICAS": spec.get("replicas", "")}
    log("wrk %s (%ss)" % (spec["name"], spec["seconds"]))
    capture = profiling(run, spec, p[0])
    load.wrk(run.tools["wrk"], "http://127.0.0.1:%d" % p[0], int(spec["seconds"]),
             os.path.join(run.scripts, spec["script"]), spec.get("args", []), env, int(run.conf["threads"]),
             int(run.conf["connections"]), run.path("wrk-%s.txt" % spec["name"]))
    if capture:
        capture.join()


def profiling(run, spec, port):
    """With spec["profile"] (a name), the node on port profiled inside the window, in the background."""
    if not spec.get("profile"):
        return None
    captures = spec.get("captures", CAPTURES)
    t = threading.Thread(target=profile, args=(run, "http://127.0.0.1:%d" % port, spec["profile"],
                                               max(1, (int(spec["seconds"]) - 4) // len(captures)), captures))
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
    (optional)}: oha at a fixed rate with --latency-correction into RAW/oha-NAME.json (its summary) or, with "csv",
    RAW/NAME.csv (every request); with "profile", captures of the node inside the window (profile below)."""
    log("oha %s at %s/s (%ss)" % (spec["name"], spec["rate"], spec["seconds"]))
    p = start_rate(run, spec)
    capture = profiling(run, spec, run.target_port(p.target))
    if p.wait() != 0:
        log("oha %s exited with %d" % (spec["name"], p.returncode))
    if capture:
        capture.join()


def start_rate(run, spec):
    """The oha process of a fixed-rate window, started; its first target in .target."""
    spec = dict(spec, through=spec["target"] if isinstance(spec["target"], list) else [spec["target"]],
                connections=spec.get("connections", run.conf["connections"]))
    csv = spec.get("csv")
    cmd = run.oha(spec, load.fixed_rate(int(spec["rate"]), int(spec["seconds"])) +
                  ["--output-format", "csv" if csv else "json"])
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
FORMATS = {"cpu": ("cpu", "html"), "alloc": ("alloc", "html"), "cpu-collapsed": ("cpu", "collapsed")}


def without_home(body):
    """A profile names native libraries by path (RocksDB's, unpacked under the cache in the home directory): the
    home directory becomes '~', so that a report committed to docs/ names no machine's paths."""
    home = os.path.expanduser("~").encode()
    return body.replace(home + b"/", b"~/") if len(home) > 1 else body


def profile(run, url, name, seconds, captures=CAPTURES):
    """Captures back to back, from 2 s into the window, through the node's /v0/admin/profile (cpu sampled every 1 ms
    of CPU time): by default cpu (HTML), alloc (HTML), cpu (collapsed, for the report)."""
    time.sleep(2)
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
