"""The local processes of a scenario's run (harness/scenario.py): its nodes, launched with the scenario's flags,
awaited, stopped, signalled, wiped, given their members by flag or by a cluster file the steps rewrite; the reference
servers beside them; and what the nodes' admin endpoints say (rebuild state, repair rounds, pending compactions,
metrics). Several clusters may run side by side, each with its own TLS (mutual TLS on the member port, TLS on the
client port: its nodes are then asked over https, trusting the run's client CA and presenting its read-write client
certificate), and the nodes may run on CPUs of their own (the setting node_cpus, taskset) while this process and the
load generators it starts run on others (load_cpus). local_cluster and run_beside: the same nodes as one cluster of
this build around a command (make bench: python -m harness nodes ... -- python3 -m runner run ...). Standard library
only.
"""
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request

from . import servers
from .servers import Server

HERE = os.path.dirname(os.path.abspath(__file__))


def log(msg):
    sys.stderr.write("[bench] %s\n" % msg)
    sys.stderr.flush()


def http(method, url, timeout=10, body=None):
    """(status, body text) of one request (body: a JSON document's text); (None, "") when nothing answered."""
    data = body.encode() if body is not None else b"" if method == "POST" else None
    req = urllib.request.Request(url, method=method, data=data, headers={"Content-Type": "application/json"})
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



class Nodes:
    """The nodes and reference servers of one run, on ports from the setting "port" up. The run's values (self.v,
    which evaluate the scenario's "node_flags") are set by the run that extends this class."""

    def __init__(self, scenario, conf, tools, work):
        self.sc, self.conf, self.tools = scenario, conf, tools
        self.work, self.raw = work, os.path.join(work, "raw")
        self.port = int(conf["port"])
        self.n = int(scenario["nodes"])
        self.nodes = [None] * self.n
        self.initial = int(scenario.get("initial", self.n))  # the nodes started first; the others by steps
        self.members_file = os.path.join(work, "members")
        self.scripts, self.root = os.path.dirname(HERE), os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
        self.refs = {name: Server(name, [], self.port + int(off), "/", True)
                     for name, off in scenario.get("refs", {}).items()}

    def names(self):
        """$RAW, $url<I> and $members<N> (the first N nodes' URLs) for the scenario's values."""
        names = {"RAW": self.raw}
        names.update({"url%d" % i: self.member_url(i) for i in range(self.n)})
        names.update({"members%d" % k: ",".join(self.member_url(i) for i in range(k)) for k in range(1, self.n + 1)})
        return names

    def clusters(self):
        """The scenario's clusters as [{"name", "nodes", "member_tls", "client_tls"}]: "clusters" lists node lists
        or such objects ({"name": "tls", "nodes": [3, 4, 5], "member_tls": true, "client_tls": "optional"}: the
        member port in mutual TLS whatever the setting member_tls; TLS on the client port asking for a client
        certificate with that --client-auth), or "cluster" one node list (default: every node)."""
        found = []
        for k, c in enumerate(self.sc.get("clusters") or [self.sc.get("cluster", list(range(self.n)))]):
            c = c if isinstance(c, dict) else {"nodes": c}
            found.append({"name": str(c.get("name", k)), "nodes": [int(i) for i in c["nodes"]],
                          "member_tls": c.get("member_tls", self.conf.get("member_tls") == "on"),
                          "client_tls": c.get("client_tls", "")})
        return found

    def cluster_of(self, i):
        return next((c for c in self.clusters() if i in c["nodes"]), None)

    def cluster_nodes(self, name):
        """The nodes of the cluster of that name (a scenario's values: cluster('tls'))."""
        c = next((c for c in self.clusters() if c["name"] == str(name)), None)
        if c is None:
            raise ValueError("no cluster %r" % name)
        return c["nodes"]

    def live(self):
        """The nodes running."""
        return [i for i in range(self.n) if self.nodes[i]]

    def member_url(self, i):
        """A node's name in its members' lists (--cluster, --self, the cluster file): its client URL in plaintext."""
        return "http://127.0.0.1:%d" % (self.port + i)

    def url(self, i):
        """Where the run asks node i (https when its client port has TLS)."""
        c = self.cluster_of(i)
        return "%s://127.0.0.1:%d" % ("https" if c and c["client_tls"] else "http", self.port + i)

    def target_port(self, t):
        """A node's index or a reference server's name -> its port."""
        return self.refs[t].port if isinstance(t, str) and not t.isdigit() else self.port + int(t)

    def target_url(self, t):
        if isinstance(t, str) and not t.isdigit():
            return "http://127.0.0.1:%d" % self.target_port(t)
        return self.url(int(t))

    def path(self, name):
        return os.path.join(self.raw, name)


    def launch(self, i, extra=(), log_path=None):
        """Node i with the scenario's flags, then extra, its output appended to log_path (default WORK/node<i>.log).
        Its members: the cluster it is in ("clusters": several, as the nodes restored from another cluster's backup,
        or clusters side by side with TLS of their own), or none: a node outside every cluster runs alone. With the
        setting node_cpus, through taskset on those CPUs."""
        cluster = self.cluster_of(i)
        members = []
        if cluster:
            members = ["--cluster-file", self.members_file] if self.sc.get("cluster_file") else \
                ["--cluster", ",".join(self.member_url(k) for k in cluster["nodes"])]
            members += ["--self", self.member_url(i)] + self.member_tls(cluster["member_tls"])
            members += self.client_tls(cluster["client_tls"])
        argv = [self.tools["java"], *self.tools["java_flags"], *str(self.conf["java_opts"]).split(), "-jar",
                self.tools["jar"], "--port", str(self.port + i), "--data-dir",
                os.path.join(self.work, "data", "node%d" % i), *members]
        argv += [str(a) for a in self.v(self.sc.get("node_flags", []))] + str(self.conf["node_args"]).split()
        argv += [str(a) for a in extra]
        if self.conf.get("node_cpus"):
            argv = ["taskset", "-c", str(self.conf["node_cpus"])] + argv
        # any answer on /v0/status will do: a node answers 503 there until its peers do (and a client port in TLS
        # answers this plaintext poll 400: one handshake failure per node start in its metrics)
        s = Server("node%d" % i, argv, self.port + i, any_answer=True)
        s.log_path = log_path or os.path.join(self.work, "node%d.log" % i)
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

    def member_tls(self, on=None):
        """The member port's mutual TLS flags when on (default: the setting member_tls is "on"); one CA and one
        member certificate for every member, made at the first use (members are not told apart by name)."""
        if not (self.conf.get("member_tls") == "on" if on is None else on):
            return []
        tls = os.path.join(self.work, "tls")
        if not os.path.exists(os.path.join(tls, "tls.key")):
            subprocess.run([os.path.join(self.root, "scripts", "tls", "member-certs.sh"), tls, "2"], check=True)
        return ["--member-tls-cert", os.path.join(tls, "tls.crt"), "--member-tls-key", os.path.join(tls, "tls.key"),
                "--member-tls-ca", os.path.join(tls, "ca.crt")]

    def client_tls(self, auth):
        """The client port's TLS flags when auth (a --client-auth value) is set: a CA, the nodes' certificate for
        127.0.0.1 and a read-write client certificate (scripts/tls/client-certs.sh, at the first use), asking for a
        client certificate. From then on this process's requests over https (the admin calls, the metrics, the
        profiles) trust that CA and present that client certificate."""
        if not auth:
            return []
        d = self.client_tls_dir()
        return ["--client-tls-cert", os.path.join(d, "tls.crt"), "--client-tls-key", os.path.join(d, "tls.key"),
                "--client-tls-ca", os.path.join(d, "ca.crt"), "--client-auth", str(auth)]

    def client_tls_dir(self):
        d = os.path.join(self.work, "client-tls")
        if not os.path.exists(os.path.join(d, "client.key")):
            subprocess.run([os.path.join(self.root, "scripts", "tls", "client-certs.sh"), d, "2"], check=True)
            ctx = ssl.create_default_context(cafile=os.path.join(d, "ca.crt"))
            ctx.load_cert_chain(os.path.join(d, "client.crt"), os.path.join(d, "client.key"))
            urllib.request.install_opener(urllib.request.build_opener(urllib.request.HTTPSHandler(context=ctx)))
        return d

    def tls_files(self, t, client_cert=False):
        """A load generator's TLS files for target t (load.oha_command's tls): (the run's CA, and with client_cert
        the read-write client certificate and its key) when its client port has TLS, else None."""
        if not self.target_url(t).startswith("https:"):
            return None
        d = self.client_tls_dir()
        if not client_cert:
            return os.path.join(d, "ca.crt"), None, None
        return tuple(os.path.join(d, f) for f in ("ca.crt", "client.crt", "client.key"))

    def start_cluster(self, name, tag):
        """The cluster's nodes on fresh data, their logs into RAW/TAG-node<k>.log (k: the node's place in the
        cluster); then until each answers and has decided it starts a new cluster (rebuilt)."""
        nodes = self.cluster_nodes(name)
        for k, i in enumerate(nodes):
            self.launch(i, (), self.path("%s-node%d.log" % (tag, k)))
        for i in nodes:
            self.await_node(i)
        self.rebuilt(nodes, 60)

    def stop_nodes(self, keep_data=False):
        """Every node stopped, their data removed (unless keep_data)."""
        for i in range(self.n):
            self.stop(i)
        if not keep_data:
            shutil.rmtree(os.path.join(self.work, "data"), ignore_errors=True)

    def cluster_metrics(self, name, tag):
        """Each node's /metrics of the cluster into RAW/TAG-node<k>-metrics.txt (k: its place in the cluster)."""
        for k, i in enumerate(self.cluster_nodes(name)):
            with open(self.path("%s-node%d-metrics.txt" % (tag, k)), "w", encoding="utf-8") as f:
                f.write(http("GET", self.url(i) + "/metrics")[1])

    def check_pinning(self):
        """node_cpus and load_cpus: both or neither, and taskset to pin the nodes."""
        nodes, load = self.conf.get("node_cpus", ""), self.conf.get("load_cpus", "")
        if bool(nodes) != bool(load):
            raise SystemExit("BENCH_NODE_CPUS and BENCH_LOAD_CPUS: both or neither")
        if nodes and not shutil.which("taskset"):
            raise SystemExit("taskset is needed to pin the nodes (BENCH_NODE_CPUS= BENCH_LOAD_CPUS= for none)")

    def pin_load(self):
        """This process (and what it starts from now: wrk, oha) on the CPUs of the setting load_cpus, if any."""
        from .load import cpu_list
        if self.conf.get("load_cpus"):
            os.sched_setaffinity(0, cpu_list(str(self.conf["load_cpus"])))

    def await_node(self, i):
        servers.await_answer(self.nodes[i], 300)  # seconds on a quiet machine; minutes for four at once on a busy one

    def start(self, i, *extra):
        self.launch(i, extra)
        self.await_node(i)

    def stop(self, i):
        s, self.nodes[i] = self.nodes[i], None
        if s:
            servers.stop([s])

    def set_members(self, count):
        """The cluster file lists the first `count` nodes: rewritten at once, as the kubelet swaps a ConfigMap."""
        with open(self.members_file + ".tmp", "w", encoding="utf-8") as f:
            f.writelines(self.member_url(i) + "\n" for i in range(int(count)))
        os.replace(self.members_file + ".tmp", self.members_file)

    def metrics(self, suffix, nodes):
        """Each node's /metrics into RAW/node<I>-metrics<suffix>.txt."""
        for i in nodes:
            with open(self.path("node%d-metrics%s.txt" % (int(i), suffix)), "w", encoding="utf-8") as f:
                f.write(http("GET", self.url(int(i)) + "/metrics")[1])

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

    def start_all(self, timeout_s=300):
        """Every node at once, until each serves (200 on /v0/status: its peers answer too), then the cluster's
        feature level raised to the highest this build has, as the operator does once every member runs one release
        (docs/upgrading.md; a new data directory starts at level 1): the nodes of make bench (local_cluster)."""
        servers.check_ports([Server("node%d" % i, [], self.port + i) for i in range(self.n)])
        for i in range(self.n):
            self.launch(i)
        for s in self.nodes:
            s.any_answer = False
            servers.await_answer(s, timeout_s)
        for i in range(self.n):
            url = self.url(i) + "/v0/admin/feature-level"
            top = http_json("GET", url).get("maxFeatureLevel")
            if top is None or http("POST", url, body=json.dumps({"level": top}))[0] != 200:
                log("node%d: could not raise the feature level (it stays at its data directory's)" % i)
        log("%d nodes serve on ports %d..%d" % (self.n, self.port, self.port + self.n - 1))

    def stop_all(self):
        """Every node and reference server; the nodes' logs copied into RAW, their data removed."""
        self.stop_nodes()
        servers.stop(list(self.refs.values()))
        for i in range(self.n):
            if os.path.exists(os.path.join(self.work, "node%d.log" % i)):
                shutil.copy(os.path.join(self.work, "node%d.log" % i), self.raw)


def local_cluster(count, port, tools, java_opts="", node_args="", work="."):
    """count nodes of this build in one cluster on ports port.. (tools: java, java_flags, jar), data under
    WORK/data/node<i>, output in WORK/node<i>.log: the cluster of make bench (python -m harness nodes)."""
    nodes = Nodes({"nodes": count}, {"port": port, "java_opts": java_opts, "node_args": node_args}, tools, work)
    nodes.v = lambda x: x  # no scenario values to evaluate
    return nodes


def run_beside(nodes, cmd, keep_data=False):
    """Starts the nodes (start_all), runs cmd, stops the nodes (and removes their data unless keep_data) however
    it ends; returns cmd's exit status (128 + the signal that ended it). SIGTERM or SIGINT goes to cmd as SIGTERM (once: Ctrl-C reaches both this
    process and the script that started it, which sends SIGTERM) and the nodes stop after cmd has."""
    proc = None
    stopping = []

    def forward(signum, frame):
        if proc is None:
            raise KeyboardInterrupt()
        if not stopping:
            stopping.append(signum)
            proc.send_signal(signal.SIGTERM)
    old = {signal.SIGTERM: signal.signal(signal.SIGTERM, forward)}
    try:
        nodes.start_all()
        # Started in the background by a script (SIGINT ignored), the nodes ignore Ctrl-C as this process does: they
        # stop when cmd has, not under it. In the foreground, Ctrl-C goes to cmd as SIGTERM too.
        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            old[signal.SIGINT] = signal.signal(signal.SIGINT, forward)
        proc = subprocess.Popen(cmd)
        rc = proc.wait()
        return 128 - rc if rc < 0 else rc  # ended by a signal: as a shell reports it
    except RuntimeError as e:
        log(str(e))
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        if proc is not None and proc.poll() is None:
            proc.terminate()
            proc.wait()
        log("stopping the nodes")
        nodes.stop_nodes(keep_data)
        for sig, handler in old.items():
            signal.signal(sig, handler)
