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
      start I [FLAG...], members N, run SCRIPT ARG..., repair_round NAME, object_store {port, bucket}, the calls
      to the nodes' admin endpoints and samples of harness/admin.py, ...); ["rounds", COUNT, [steps]]: the steps COUNT
      times, $r the round's number (1, 2, ...; window names like "node-put-$r"); ["alternate", step, step, ...]: the
      steps in order in odd rounds and in reverse in even ones (the two sides of a ratio take turns going first, so
      that neither always runs on a machine the other just warmed or loaded); ["each", VAR, ITEMS, [steps]]: the
      steps once per item, $VAR the item (ITEMS: a list, words, or N for 1..N); ["note", FILE, LINE]: a line into
      RAW/FILE; ["start_cluster", NAME, TAG], ["cluster_metrics", NAME, TAG], ["stop_nodes"]: a cluster of
      "clusters" started on fresh data, its metrics, every node stopped and its data removed.
  "env_after": {key: value} lines added to env.txt at the end; "report": the report script (scripts/bench/), given
      "report_args" (if any), RAW and the output directory.
  "cluster": [node...]: the nodes that form the cluster (default all; the others run alone); "clusters": [[node...],
      ...]: several (a cluster restored into fresh nodes from another's backup; or {"name", "nodes", "member_tls",
      "client_tls"}: clusters side by side with TLS of their own, harness/nodes.py). "refs": {name: port
      offset}: reference servers (dev.dht.bench.BareServer: "bare") beside the nodes. "tools": what scenario.sh
      must find (oha always; wrk, k6, the bench jar). Steps that measure window by window: harness/measure.py.
A value is a number, a string with $setting / $url<I> / $members<N> (the first N nodes' URLs) / $RAW substituted,
or "=expression" over the settings (and measure.functions: a window's rps, the median rps of windows measured in
rounds, the ids a PUT window wrote; cluster(NAME) its nodes, live() the nodes running, turn(LIST, K) the list
reversed for an even K, after(LIST, X, Y) Y inserted after X). The settings node_cpus and load_cpus (taskset lists)
pin the nodes and this process with its load generators apart.
This module is the run: its load, its steps, its report. The file, its settings and values: harness/scenariofile.py;
the nodes and their admin endpoints: harness/nodes.py; what env.txt says of the machine: harness/machine.py.
Standard library only.
"""
import os
import signal
import subprocess
import sys
import time

from . import admin, machine, measure
from . import load as loadlib
from .judge import turn
from .nodes import Nodes, log
from .objectstore import ObjectStore
from .scenariofile import Values, load_scenario, settings
from .servers import Server, check_ports

VALUE = loadlib.VALUE


class Run(Nodes):
    """One run of a scenario: its nodes (harness/nodes.py), its load generators, its marks and raw outputs."""

    def __init__(self, scenario, conf, tools, work, out):
        super().__init__(scenario, conf, tools, work)
        self.out = out
        self.loads, self.watch, self.polls, self.store = [], None, [], None
        self.v = Values(conf, self.names(), dict(measure.functions(self), cluster=self.cluster_nodes, live=self.live,
                                                 turn=turn, after=after))
        os.makedirs(self.raw, exist_ok=True)
        os.makedirs(out, exist_ok=True)

    def mark(self, name):
        with open(self.path("timeline.txt"), "a", encoding="utf-8") as f:
            f.write("%s=%d\n" % (name, int(time.time() * 1000)))
        log(name)

    # ---- the load ----

    def oha(self, spec, extra):
        """The oha command (load.oha_command) of a load or a window: extra, then spec's method, connections and
        ids on the nodes it goes "through" (several: to the first one's address, spread over them by --connect-to)."""
        through = spec["through"]
        entry, connect_to = self.target_port(through[0]), []
        if len(through) > 1:
            connect_to = [("127.0.0.1:%d" % entry, "127.0.0.1:%d" % self.target_port(t)) for t in through]
        replicas = spec.get("replicas", self.conf.get("replicas"))
        replicas = "&replicas=%s" % replicas if replicas else ""
        # a client port in TLS: oha trusts the run's CA, and presents the client certificate with "client_cert"
        return loadlib.oha_command(self.tools["oha"], spec["method"],
                                   "%s/v0/entity\\?id=%s%s" % (self.target_url(through[0]), spec["id"], replicas),
                                   spec["connections"], extra, VALUE + spec.get("value_suffix", ""),
                                   connect_to=connect_to, tls=self.tls_files(through[0], bool(spec.get("client_cert"))))

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
            cmd = self.oha(spec, loadlib.fixed_rate(int(spec["rate"]), int(spec.get("seconds", 7200))) +
                           ["--output-format", "csv", "-o", self.path("load-%s.csv" % spec["name"])])
            with open(self.path("load-%s.err" % spec["name"]), "w") as err:
                self.loads.append(subprocess.Popen(cmd, stderr=err, stdout=subprocess.DEVNULL))

    def stop_load(self):
        """SIGINT: oha writes its output on it."""
        for p in self.loads:
            p.send_signal(signal.SIGINT)
        for p in self.loads:
            p.wait()
        self.loads = []

    # ---- the run ----

    def step(self, verb, *args):
        if verb not in STEPS:
            raise ValueError("unknown step %r" % verb)
        STEPS[verb](self, *(args if verb in LAZY else self.v(list(args))))

    def rounds(self, count, steps):
        """The steps count times, evaluated in each round with $r its number (1, 2, ...)."""
        self.each("r", int(self.v(count)), steps)

    def each(self, var, items, steps):
        """The steps once per item, $var the item (items: a list, a string of words or commas, or a number N: 1..N),
        evaluated in each turn."""
        items = self.v(items)
        if isinstance(items, int):
            items = list(range(1, items + 1))
        elif isinstance(items, str):
            items = items.replace(",", " ").split()
        had, before = var in self.conf, self.conf.get(var)
        for item in items:
            self.conf[var] = item
            for s in steps:
                self.step(*s)
        if had:
            self.conf[var] = before
        else:
            self.conf.pop(var, None)

    def note(self, name, line):
        """A line into RAW/name (the order slices ran in, for the report)."""
        with open(self.path(name), "a", encoding="utf-8") as f:
            f.write("%s\n" % line)

    def alternate(self, *steps):
        """The steps in their order in odd rounds (and outside rounds), in reverse in even ones."""
        for s in turn(steps, self.conf.get("r", 1)):
            self.step(*s)

    def run_burst(self, spec):
        if self.burst(spec).wait() != 0:
            raise RuntimeError("burst %s failed (see %s)" % (spec["name"], self.raw))

    def script(self, name, args):
        """The command line of a script of scripts/bench/, run by this Python."""
        return [sys.executable, os.path.join(self.scripts, name), *[str(a) for a in args]]

    def start_watch(self, script, *args):
        self.watch = subprocess.Popen(self.script(script, args))

    def end_watch(self):
        if self.watch:
            self.watch.terminate()
            self.watch.wait()
            self.watch = None

    def run_script(self, script, *args):
        """A sampler that ends by itself (scale-watch.py: until every node is idle); its failure ends the run."""
        if subprocess.run(self.script(script, args)).returncode != 0:
            raise RuntimeError("%s %s failed (logs in %s)" % (script, " ".join(map(str, args)), self.work))

    def object_store(self, spec):
        """{"port", "bucket"}: the S3-compatible store (harness/objectstore.py) in the setting store_dir (default:
        /dev/shm when it has room); its URL and credentials directory become the settings store_url and
        store_credentials, for the nodes' flags."""
        self.store = ObjectStore(self.tools["versitygw"], self.work, spec["port"], spec["bucket"],
                                 self.conf.get("store_dir", ""))
        self.store.start(self.raw)
        self.conf.update(store_url=self.store.url, store_credentials=self.store.credentials)
        measure.set_value(self, "store_objects", self.store.dir)
        measure.set_value(self, "store_priority", " ".join(self.store.priority))

    def env_before(self):
        lines = machine.describe(self.tools, self.root, bool(self.refs))
        lines.update({k: v for k, v in self.conf.items() if k != "port"})
        machine.write_env(self.path("env.txt"), lines, "w")

    def run(self):
        check_ports([Server("node%d" % i, [], self.port + i) for i in range(self.n)] + list(self.refs.values()))
        for check in self.sc.get("checks", []):
            if not self.v("=" + check[0]):
                raise SystemExit(check[1])
        self.check_pinning()
        log("load before: %s (nproc %d)" % (machine.loadavg(), os.cpu_count()))
        self.env_before()
        self.pin_load()  # after env.txt, whose nproc is the machine's
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
            admin.end_poll(self)
            self.end_watch()
            self.stop_all()
            if self.store:
                self.store.stop()
        s2 = loadlib.steal_and_total()
        total = s2[1] - steal[1]
        after = {"steal_pct": "%.1f" % (100.0 * (s2[0] - steal[0]) / total if total > 0 else 0),
                 "load_after": machine.loadavg()}
        after.update(self.v(self.sc.get("env_after", {})))
        machine.write_env(self.path("env.txt"), after, "a")
        subprocess.run([self.tools["python"], os.path.join(self.scripts, self.sc["report"]),
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
    "start": lambda r, i, *extra: r.start(int(i), *extra),
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
    "alternate": Run.alternate,
    "each": Run.each,
    "note": Run.note,
    "start_cluster": Run.start_cluster,
    "stop_nodes": Run.stop_nodes,
    "cluster_metrics": Run.cluster_metrics,
    "object_store": Run.object_store,
    **measure.STEPS,
    **admin.STEPS,
}
LAZY = ("rounds", "alternate", "each")  # steps whose arguments are evaluated when their own steps run


def after(items, item, extra):
    """items with extra right after item (when item is among them)."""
    out = []
    for x in items:
        out += [x, extra] if x == item else [x]
    return out


def main(a):
    scenario = load_scenario(a.scenario)
    conf = settings(scenario, os.environ)
    out = os.environ.get("BENCH_OUT") or a.out
    tools = {"java": a.java, "java_flags": a.java_flags.split(), "jar": a.jar, "oha": a.oha, "wrk": a.wrk,
             "k6": a.k6, "versitygw": a.versitygw, "bench_jar": a.bench_jar, "python": a.python or sys.executable}
    Run(scenario, conf, tools, a.work, out).run()
    return 0
