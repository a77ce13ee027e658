"""Event scenarios on local nodes: a scenario is data (scripts/bench/scenarios/NAME.json: the settings and their
defaults, the nodes' flags, the load streams, the steps in order), run by this one launcher, which leaves the raw
outputs every report reads (RAW/env.txt, RAW/timeline.txt, oha's per-request CSVs, the nodes' logs and metrics) and
then runs the scenario's report. It replaces the shell drivers that each repeated the same skeleton (start members,
preload, fixed-rate load, mark phases, sample, report).

A scenario file:
  "settings": {name: default}: each one overridable by BENCH_<NAME> in the environment; every one but "port" is
      written to env.txt, in order. "nodes": how many. "node_flags": the flags of every node (before $node_args).
  "loads": [{"name", "through": [node...], "method", "rate", "connections", "id": an oha URL regex of the id}]:
      open model (oha -q RATE --latency-correction), per-request CSV RAW/load-NAME.csv, mark NAME_start.
  "initial": the nodes started first (default all; the others start by steps); "cluster_file": true: the nodes
      read their members from a file the steps rewrite ("members N"), as from a ConfigMap.
  "steps": [[verb, arg...]]: the keys of STEPS below (preload, load, sleep S, mark NAME, signal I SIG, stop I,
      start I, members N, run SCRIPT ARG..., repair_round NAME, ...).
  "env_after": {key: value} lines added to env.txt at the end; "report": the report script (scripts/bench/), given
      "report_args" (if any), RAW and the output directory.
  "cluster": [node...]: the nodes that form the cluster (default all; the others run alone). "refs": {name: port
      offset}: reference servers (dev.dht.bench.BareServer: "bare") beside the nodes. "tools": what scenario.sh
      must find (oha always; wrk, k6, the bench jar). Steps that measure window by window: harness/measure.py.
A value is a number, a string with $setting / $url<I> / $members<N> (the first N nodes' URLs) / $RAW substituted,
or "=expression" over the settings (and measure.functions: a window's rps, the ids a PUT window wrote).
Standard library only.
"""
import json
import os
import platform
import re
import shutil
import signal
import string
import subprocess
import sys
import time
import urllib.error
import urllib.request

from . import load as loadlib
from . import measure, servers
from .servers import Server, check_ports

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIOS = os.path.join(os.path.dirname(HERE), "scenarios")
VALUE = loadlib.VALUE


def log(msg):
    sys.stderr.write("[bench] %s\n" % msg)
    sys.stderr.flush()


def load_scenario(name):
    path = name if name.endswith(".json") else os.path.join(SCENARIOS, name + ".json")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def typed(text):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def settings(scenario, environ):
    """The scenario's settings, each from BENCH_<NAME> when set (empty: the default, except for free-text ones
    whose default is a string: an empty BENCH_NODE_ARGS means no node arguments)."""
    out = {}
    for key, default in scenario["settings"].items():
        v = environ.get("BENCH_" + key.upper())
        if v is None or (v == "" and not isinstance(default, str)):
            out[key] = default
        else:
            out[key] = typed(v) if not isinstance(default, str) else v
    return out


class Values:
    """Evaluates a scenario's values against its settings and the run's names."""

    def __init__(self, conf, names, functions=None):
        self.conf, self.names, self.functions = conf, names, functions or {}

    def __call__(self, v):
        if isinstance(v, list):
            return [self(x) for x in v]
        if isinstance(v, dict):
            return {k: self(x) for k, x in v.items()}
        if not isinstance(v, str):
            return v
        if v.startswith("="):
            return eval(v[1:], {"__builtins__": {}}, {**self.functions, **self.conf})  # the repository's own data files
        return string.Template(v).safe_substitute({**{k: str(x) for k, x in self.conf.items()}, **self.names})


def http(method, url, timeout=10):
    """(status, body text) of one request; (None, "") when nothing answered."""
    req = urllib.request.Request(url, method=method, data=b"" if method == "POST" else None)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")
    except OSError:
        return None, ""


def http_json(method, url):
    status, body = http(method, url)
    try:
        return json.loads(body) if status else {}
    except ValueError:
        return {}


def metric(text, name):
    m = re.search(r"^%s (-?[0-9][0-9.eE+-]*)$" % re.escape(name), text, re.M)
    return float(m.group(1)) if m else None


class Run:
    """One run of a scenario: its nodes, its load generators, its marks and raw outputs."""

    def __init__(self, scenario, conf, tools, work, out):
        self.sc, self.conf, self.tools = scenario, conf, tools
        self.work, self.raw, self.out = work, os.path.join(work, "raw"), out
        self.port = int(conf["port"])
        self.n = int(scenario["nodes"])
        self.nodes = [None] * self.n
        self.loads, self.watch = [], None
        self.initial = int(scenario.get("initial", self.n))  # the nodes started first; the others by steps
        self.members_file = os.path.join(work, "members")
        self.scripts, self.root = os.path.dirname(HERE), os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
        self.refs = {name: Server(name, [], self.port + int(off), "/", True)
                     for name, off in scenario.get("refs", {}).items()}
        names = {"RAW": self.raw}
        names.update({"url%d" % i: self.url(i) for i in range(self.n)})
        names.update({"members%d" % k: ",".join(self.url(i) for i in range(k)) for k in range(1, self.n + 1)})
        self.v = Values(conf, names, measure.functions(self))
        os.makedirs(self.raw, exist_ok=True)
        os.makedirs(out, exist_ok=True)

    def url(self, i):
        return "http://127.0.0.1:%d" % (self.port + i)

    def target_port(self, t):
        """A node's index or a reference server's name -> its port."""
        return self.refs[t].port if isinstance(t, str) and not t.isdigit() else self.port + int(t)

    def target_url(self, t):
        return "http://127.0.0.1:%d" % self.target_port(t)

    def path(self, name):
        return os.path.join(self.raw, name)

    def mark(self, name):
        with open(self.path("timeline.txt"), "a", encoding="utf-8") as f:
            f.write("%s=%d\n" % (name, int(time.time() * 1000)))
        log(name)

    # ---- the nodes ----

    def launch(self, i):
        cluster = self.sc.get("cluster", list(range(self.n)))
        members = []  # a node outside the cluster runs alone
        if i in cluster:
            members = ["--cluster-file", self.members_file] if self.sc.get("cluster_file") else \
                ["--cluster", ",".join(self.url(k) for k in cluster)]
            members += ["--self", self.url(i)] + self.member_tls()
        argv = [self.tools["java"], *self.tools["java_flags"], *str(self.conf["java_opts"]).split(), "-jar",
                self.tools["jar"], "--port", str(self.port + i), "--data-dir",
                os.path.join(self.work, "data", "node%d" % i), *members]
        argv += [str(a) for a in self.v(self.sc.get("node_flags", []))] + str(self.conf["node_args"]).split()
        # any answer on /v0/status will do: a node answers 503 there until its peers do
        s = Server("node%d" % i, argv, self.port + i, any_answer=True)
        s.log_path = os.path.join(self.work, "node%d.log" % i)
        with open(s.log_path, "a", encoding="utf-8") as out:  # a restarted node's log goes on
            s.proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
        self.nodes[i] = s

    def start_refs(self):
        """The reference servers, run with the node's jar beside the bench jar (their code is not in the node's)."""
        if not self.refs:
            return
        cp = "%s:%s" % (self.tools["bench_jar"], self.tools["jar"])
        for s in self.refs.values():
            s.argv = [self.tools["java"], *self.tools["java_flags"], *str(self.conf["java_opts"]).split(), "-cp", cp,
                      "dev.dht.bench.BareServer", str(s.port)]
        servers.Fleet(self.work, log).start(list(self.refs.values()))

    def member_tls(self):
        """The member port's mutual TLS flags when the setting member_tls is "on" (certificates made at the start)."""
        if self.conf.get("member_tls") != "on":
            return []
        tls = os.path.join(self.work, "tls")
        if not os.path.exists(os.path.join(tls, "tls.key")):
            subprocess.run([os.path.join(self.root, "scripts", "tls", "member-certs.sh"), tls, "2"], check=True)
        return ["--member-tls-cert", os.path.join(tls, "tls.crt"), "--member-tls-key", os.path.join(tls, "tls.key"),
                "--member-tls-ca", os.path.join(tls, "ca.crt")]

    def await_node(self, i):
        s = self.nodes[i]
        deadline = time.monotonic() + 300  # seconds on a quiet machine; minutes for four at once on a busy one
        while not s.answers():
            if s.proc.poll() is not None:
                raise RuntimeError("node %d exited during start (log: %s)" % (i, s.log_path))
            if time.monotonic() > deadline:
                raise RuntimeError("node %d did not answer within 300 s (log: %s)" % (i, s.log_path))
            time.sleep(0.1)

    def start(self, i):
        self.launch(i)
        self.await_node(i)

    def stop(self, i):
        s, self.nodes[i] = self.nodes[i], None
        if s:
            servers.stop([s])

    def set_members(self, count):
        """The cluster file lists the first `count` nodes: rewritten at once, as the kubelet swaps a ConfigMap."""
        with open(self.members_file + ".tmp", "w", encoding="utf-8") as f:
            f.writelines(self.url(i) + "\n" for i in range(int(count)))
        os.replace(self.members_file + ".tmp", self.members_file)

    def metrics(self, suffix, nodes):
        """Each node's /metrics into RAW/node<I>-metrics<suffix>.txt."""
        for i in nodes:
            with open(self.path("node%d-metrics%s.txt" % (int(i), suffix)), "w", encoding="utf-8") as f:
                f.write(http("GET", self.url(int(i)) + "/metrics")[1])

    def run_script(self, script, *args):
        """A sampler that ends by itself (scale-watch.py: until every node is idle); its failure ends the run."""
        if subprocess.run([sys.executable, os.path.join(os.path.dirname(HERE), script),
                           *[str(a) for a in args]]).returncode != 0:
            raise RuntimeError("%s %s failed (logs in %s)" % (script, " ".join(map(str, args)), self.work))

    def signal(self, i, sig):
        self.nodes[i].proc.send_signal(getattr(signal, "SIG" + sig))

    def wipe(self, i):
        shutil.rmtree(os.path.join(self.work, "data", "node%d" % i), ignore_errors=True)

    def rebuild_state(self, i):
        return ((http_json("GET", self.url(i) + "/v0/admin/repair").get("rebuild") or {}).get("state"))

    def rebuilt(self, nodes, timeout_s):
        """Until each node's rebuild state is "ready" (a node of a new cluster still deciding when writes arrive
        sees data on the others and rebuilds: wait before loading)."""
        for i in nodes:
            deadline = time.monotonic() + timeout_s
            while self.rebuild_state(i) != "ready":
                if time.monotonic() > deadline:
                    raise RuntimeError("node %d not ready within %d s (rebuild state %r)"
                                       % (i, timeout_s, self.rebuild_state(i)))
                time.sleep(0.25)

    def compactions(self):
        """Up to 2 minutes until no node reports pending compaction bytes: a phase measured after a preload
        measures the load, not the preload's flushes and compactions."""
        start = time.monotonic()
        while time.monotonic() - start < 120:
            pending = [metric(http("GET", self.url(i) + "/metrics")[1], "dht_rocksdb_pending_compaction_bytes")
                       for i in range(self.n) if self.nodes[i]]
            if not any(p is not None and p > 0 for p in pending):
                break
            time.sleep(0.5)
        waited = time.monotonic() - start
        if waited > 1:
            log("waited %.0f s for compactions to end" % waited)

    # ---- the load ----

    def oha(self, spec, extra):
        through = spec["through"]
        cmd = [self.tools["oha"], *extra, "-c", str(spec["connections"]), "--no-tui", "-m", spec["method"]]
        if spec["method"] == "PUT":
            cmd += ["-d", VALUE + spec.get("value_suffix", "")]
        entry = self.target_port(through[0])
        if len(through) > 1:  # requests to node 0's address, spread over the nodes by --connect-to
            entry = self.port
            for t in through:
                cmd += ["--connect-to", "127.0.0.1:%d:127.0.0.1:%d" % (self.port, self.target_port(t))]
        replicas = spec.get("replicas", self.conf.get("replicas"))
        replicas = "&replicas=%s" % replicas if replicas else ""
        cmd += ["--rand-regex-url", "http://127.0.0.1:%d/v0/entity\\?id=%s%s" % (entry, spec["id"], replicas)]
        return cmd

    def burst(self, spec):
        """A closed-model oha of spec["requests"] requests (a preload, writes a stopped node misses); its JSON
        summary in RAW/oha-NAME.json."""
        spec = self.v(spec)
        name = spec["name"]
        cmd = self.oha(spec, ["-n", str(int(spec["requests"])), "--output-format", "json"])
        with open(self.path("oha-%s.json" % name), "w") as out, open(self.path("oha-%s.err" % name), "w") as err:
            return subprocess.Popen(cmd, stdout=out, stderr=err)

    def preload(self):
        """The scenario's preload, split over the nodes it names, one oha each at once."""
        spec = self.v(self.sc["preload"])
        through = spec["through"]
        log("preloading %d PUTs at %s on ids %s" % (spec["requests"], self.conf["replicas"], spec["id"]))
        procs = [self.burst({**spec, "name": "preload%d" % i, "through": [i],
                             "requests": spec["requests"] // len(through),
                             "connections": max(1, spec["connections"] // len(through))}) for i in through]
        for p in procs:
            if p.wait() != 0:
                raise RuntimeError("preload failed (see %s/oha-preload*.err)" % self.raw)

    def start_load(self):
        self.mark("load_start")
        for spec in self.v(self.sc["loads"]):
            self.mark("%s_start" % spec["name"])
            cmd = self.oha(spec, ["-z", "%ds" % int(spec.get("seconds", 7200)), "-q", str(int(spec["rate"])),
                                  "--latency-correction", "--output-format", "csv", "-o",
                                  self.path("load-%s.csv" % spec["name"])])
            with open(self.path("load-%s.err" % spec["name"]), "w") as err:
                self.loads.append(subprocess.Popen(cmd, stderr=err, stdout=subprocess.DEVNULL))

    def stop_load(self):
        """SIGINT: oha writes its output on it."""
        for p in self.loads:
            p.send_signal(signal.SIGINT)
        for p in self.loads:
            p.wait()
        self.loads = []

    # ---- repair ----

    def rounds_done(self):
        return sum(((http_json("GET", self.url(i) + "/v0/admin/repair").get("totals") or {}).get("rounds") or 0)
                   for i in range(self.n))

    def repair_round(self, name):
        """POST /v0/admin/repair on each node, then until every round it scheduled is done."""
        before = self.rounds_done()
        scheduled = sum(http_json("POST", self.url(i) + "/v0/admin/repair").get("scheduled") or 0
                        for i in range(self.n))
        deadline = time.monotonic() + float(self.conf.get("timeout", 900))
        while self.rounds_done() < before + scheduled:
            if time.monotonic() > deadline:
                raise RuntimeError("the repair round %s did not end in time (logs in %s)" % (name, self.work))
            time.sleep(0.5)

    def repair_status(self, name):
        with open(self.path("repair-%s.jsonl" % name), "w", encoding="utf-8") as f:
            for i in range(self.n):
                f.write(http("GET", self.url(i) + "/v0/admin/repair")[1].strip() + "\n")

    # ---- the run ----

    def step(self, verb, *args):
        if verb not in STEPS:
            raise ValueError("unknown step %r" % verb)
        STEPS[verb](self, *(args if verb in LAZY else self.v(list(args))))

    def rounds(self, count, steps):
        """The steps count times, evaluated in each round with $r its number (1, 2, ...)."""
        for r in range(1, int(self.v(count)) + 1):
            self.conf["r"] = r
            for s in steps:
                self.step(*s)
        self.conf.pop("r", None)

    def run_burst(self, spec):
        if self.burst(spec).wait() != 0:
            raise RuntimeError("burst %s failed (see %s)" % (spec["name"], self.raw))

    def start_watch(self, script, *args):
        self.watch = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(HERE), script),
                                       *[str(a) for a in args]])

    def end_watch(self):
        if self.watch:
            self.watch.terminate()
            self.watch.wait()
            self.watch = None

    def env_before(self):
        java = subprocess.run([self.tools["java"], "-version"], capture_output=True, text=True).stderr
        oha = subprocess.run([self.tools["oha"], "--version"], capture_output=True, text=True).stdout
        root = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
        commit = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip() or "unknown"
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--", "node", "scripts"],
                               capture_output=True, text=True).stdout.strip()
        lines = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "load_before": loadavg(),
                 "nproc": os.cpu_count(), "memory_kib": memory_kib(), "cpu": cpu_model(), "java": (java.splitlines() or [""])[0],
                 "commit": commit, "dirty": len(dirty.splitlines()), "oha": (oha.splitlines() or [""])[0]}
        for tool, flag in (("wrk", "-v"), ("k6", "version")):  # the versions of the other load generators used
            if self.tools.get(tool):
                p = subprocess.run([self.tools[tool], flag], capture_output=True, text=True)
                lines[tool] = ((p.stdout + p.stderr).splitlines() or [""])[0]
        if self.refs:
            lines.update({"kernel": platform.release(), "glibc": platform.libc_ver()[1]})
        lines.update({k: v for k, v in self.conf.items() if k != "port"})
        write_env(self.path("env.txt"), lines, "w")

    def run(self):
        check_ports([Server("node%d" % i, [], self.port + i) for i in range(self.n)] + list(self.refs.values()))
        for check in self.sc.get("checks", []):
            if not self.v("=" + check[0]):
                raise SystemExit(check[1])
        log("load before: %s (nproc %d)" % (loadavg(), os.cpu_count()))
        self.env_before()
        steal = loadlib.steal_and_total()
        try:
            self.set_members(self.initial)
            for i in range(self.initial):
                self.launch(i)
            for i in range(self.initial):
                self.await_node(i)
            self.start_refs()
            for s in self.sc["steps"]:
                self.step(*s)
            self.metrics("", [i for i in range(self.n) if self.nodes[i]])
        finally:
            self.stop_load()
            self.end_watch()
            for i in range(self.n):
                self.stop(i)
            servers.stop(list(self.refs.values()))
            for i in range(self.n):
                if os.path.exists(os.path.join(self.work, "node%d.log" % i)):
                    shutil.copy(os.path.join(self.work, "node%d.log" % i), self.raw)
            shutil.rmtree(os.path.join(self.work, "data"), ignore_errors=True)
        s2 = loadlib.steal_and_total()
        total = s2[1] - steal[1]
        after = {"steal_pct": "%.1f" % (100.0 * (s2[0] - steal[0]) / total if total > 0 else 0),
                 "load_after": loadavg()}
        after.update(self.v(self.sc.get("env_after", {})))
        write_env(self.path("env.txt"), after, "a")
        subprocess.run([self.tools["python"], os.path.join(os.path.dirname(HERE), self.sc["report"]),
                        *self.sc.get("report_args", []), self.raw, self.out], check=True)
        log("report in %s (raw outputs in %s)" % (self.out, self.raw))


# The steps a scenario's "steps" may name, and what each does with its arguments.
STEPS = {
    "sleep": lambda r, seconds: time.sleep(float(seconds)),
    "mark": Run.mark,
    "preload": Run.preload,
    "decided": lambda r: r.rebuilt([i for i in range(r.n) if r.nodes[i]], 60),
    "rebuilt": lambda r, i: r.rebuilt([int(i)], float(r.conf.get("timeout", 900))),
    "compactions": Run.compactions,
    "load": Run.start_load,
    "stop_load": Run.stop_load,
    "signal": lambda r, i, sig: r.signal(int(i), sig),
    "stop": lambda r, i: r.stop(int(i)),
    "start": lambda r, i: r.start(int(i)),
    "wipe": lambda r, i: r.wipe(int(i)),
    "burst": Run.run_burst,
    "watch": Run.start_watch,
    "end_watch": Run.end_watch,
    "repair_round": Run.repair_round,
    "repair_status": Run.repair_status,
    "members": Run.set_members,
    "metrics": Run.metrics,
    "run": Run.run_script,
    "rounds": Run.rounds,
    **measure.STEPS,
}
LAZY = ("rounds",)  # steps whose arguments are evaluated when their own steps run


def write_env(path, lines, mode):
    with open(path, mode, encoding="utf-8") as f:
        for k, v in lines.items():
            f.write("%s=%s\n" % (k, v))


def loadavg():
    with open("/proc/loadavg", encoding="ascii") as f:
        return " ".join(f.read().split()[:3])


def memory_kib():
    with open("/proc/meminfo", encoding="ascii") as f:
        return next((line.split()[1] for line in f if line.startswith("MemTotal:")), "?")


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


def main(a):
    scenario = load_scenario(a.scenario)
    conf = settings(scenario, os.environ)
    out = os.environ.get("BENCH_OUT") or a.out
    tools = {"java": a.java, "java_flags": a.java_flags.split(), "jar": a.jar, "oha": a.oha, "wrk": a.wrk,
             "k6": a.k6, "bench_jar": a.bench_jar, "python": a.python or sys.executable}
    Run(scenario, conf, tools, a.work, out).run()
    return 0

