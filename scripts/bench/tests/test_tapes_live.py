"""Every tape, briefly and at a low rate, against one real node (node/target/dht-node.jar, started with
scripts/run-local.sh on a free port), with each engine: the runner's summary is parsed and checked, flamegraphs
included; with oha also a short ramp (its staircase and the saturation point). Needs the jar (mvn package), k6
($K6, or scripts/tool.sh k6 installs it) and oha ($OHA, or scripts/tool.sh oha)."""
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
BENCH = os.path.join(ROOT, "scripts", "bench")
JAR = os.path.join(ROOT, "node", "target", "dht-node.jar")
TAPES = ("put-unique", "put-overwrite", "get-uniform", "get-recent", "mixed")


def _nodeproc():
    """The e2e tools' test helper, for its free_port (a client port whose member port is free too)."""
    path = os.path.join(ROOT, "scripts", "e2e", "tests", "nodeproc.py")
    spec = importlib.util.spec_from_file_location("nodeproc", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


free_port = _nodeproc().free_port


def ready(url, context=None):
    try:
        with urllib.request.urlopen(url + "/v0/status", timeout=1, context=context) as r:
            return r.status == 200
    except OSError:
        return False


def tool(name):
    return os.environ.get(name.upper()) or subprocess.run(
        [os.path.join(ROOT, "scripts", "tool.sh"), name], check=True, capture_output=True, text=True).stdout.strip()


class TapesAgainstOneNode(unittest.TestCase):
    ENGINE = "k6"

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(JAR):
            raise AssertionError("%s is missing: build it first (scripts/mvn -pl node -am package)" % JAR)
        cls.tmp = tempfile.mkdtemp(prefix="dht-tapes-test-")
        cls.k6 = tool("k6")
        cls.oha = tool("oha") if cls.ENGINE == "oha" else "oha"
        port = free_port()
        cls.url = "http://127.0.0.1:%d" % port
        env = dict(os.environ, DHT_NODES="1", DHT_BASE_PORT=str(port), DHT_RUN_DATA=os.path.join(cls.tmp, "data"),
                   DHT_JAVA_OPTS="-Xmx256m")
        cls.log = open(os.path.join(cls.tmp, "node.log"), "w", encoding="utf-8")
        cls.node = subprocess.Popen([os.path.join(ROOT, "scripts", "run-local.sh")], env=env, stdout=cls.log,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        try:
            cls.run_tapes()
        except BaseException:
            cls.tearDownClass()  # unittest does not call it when setUpClass fails
            raise

    @classmethod
    def run_tapes(cls):
        deadline = time.time() + 120
        while not ready(cls.url):
            if cls.node.poll() is not None or time.time() > deadline:
                with open(cls.log.name, encoding="utf-8") as f:
                    raise AssertionError("the node did not start:\n" + f.read()[-3000:])
            time.sleep(0.2)
        cls.out = os.path.join(cls.tmp, "run")
        cls.runner, cls.summary = cls.run_runner(cls.out, "live", "--rate", "50", "--duration", "3s", "--keys",
                                                 "300", "--events", "cpu")

    @classmethod
    def run_runner(cls, out, run_id, *args):
        cmd = [sys.executable, "-m", "runner", "run", "--targets", cls.url, "--out", out, "--run-id", run_id,
               "--k6", cls.k6, "--engine", cls.ENGINE, "--oha", cls.oha] + list(args)
        runner = subprocess.run(cmd, env=dict(os.environ, PYTHONPATH=BENCH), capture_output=True, text=True,
                                timeout=300)
        if not os.path.exists(os.path.join(out, "summary.json")):
            raise AssertionError("the runner wrote no summary:\n" + runner.stderr[-3000:])
        with open(os.path.join(out, "summary.json"), encoding="utf-8") as f:
            return runner, json.load(f)

    @classmethod
    def tearDownClass(cls):
        if cls.node.poll() is None:
            cls.node.send_signal(signal.SIGTERM)  # run-local.sh stops the node gracefully
            try:
                cls.node.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(cls.node.pid, signal.SIGKILL)
                cls.node.wait()
        cls.log.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_the_runner_finishes_without_failures(self):
        self.assertEqual(self.runner.returncode, 0, self.runner.stderr)
        self.assertEqual(self.summary["failures"], [])
        self.assertEqual(self.summary["fill"]["requests"], 300)
        self.assertEqual(self.summary["fill"]["errors"], 0)

    def test_every_tape_ran_without_errors(self):
        self.assertEqual(sorted(self.summary["tapes"]), sorted(TAPES))
        for tape in TAPES:
            with self.subTest(tape=tape):
                e = self.summary["tapes"][tape]
                self.assertEqual(e["errors"], 0)
                self.assertGreater(e["rps"], 0)
                self.assertGreaterEqual(e["requests"], 100)  # 50/s for 3 s, give or take the edges
                for k in ("p50_ms", "p90_ms", "p99_ms", "p999_ms", "max_ms"):
                    self.assertGreater(e[k], 0, k)
                self.assertLessEqual(e["p50_ms"], e["p99_ms"])
                self.assertLessEqual(e["p99_ms"], e["max_ms"])
                self.assertIn("dropped", e)
                self.assertEqual(e["engine"], self.ENGINE)
        self.assertEqual(self.summary["params"]["engine"], self.ENGINE)

    def test_every_tape_has_its_series_and_a_flamegraph(self):
        for tape in TAPES:
            with self.subTest(tape=tape):
                e = self.summary["tapes"][tape]
                with open(os.path.join(self.out, e["series"]), encoding="utf-8") as f:
                    lines = f.read().splitlines()
                self.assertGreaterEqual(len(lines), 4)  # header + >= 3 seconds
                self.assertEqual(e["flamegraphs"], ["node0-%s-cpu.html" % tape], e.get("profile_errors"))
                with open(os.path.join(self.out, e["flamegraphs"][0]), encoding="utf-8") as f:
                    self.assertIn("cpool", f.read())  # async-profiler's flamegraph page

    def test_the_gets_read_what_the_fill_wrote(self):
        # a GET of a key never written would be a 404, an error: the GET tapes read only pre-filled keys
        for tape in ("get-uniform", "get-recent"):
            e = self.summary["tapes"][tape]
            self.assertEqual(e["errors"], 0)
        with urllib.request.urlopen(self.url + "/v0/entity?id=live-fill-299", timeout=5) as r:
            self.assertEqual(r.status, 200)


class TapesThroughOhaAgainstOneNode(TapesAgainstOneNode):
    """The same tapes sent by oha (--engine oha), and a short ramp: a staircase of fixed-rate steps whose per-second
    target the series records, with the saturation point looked for on it."""
    ENGINE = "oha"

    def test_oha_sends_the_rate_asked_and_times_each_request_from_when_it_was_due(self):
        for tape in TAPES:
            with self.subTest(tape=tape):
                e = self.summary["tapes"][tape]
                # 50 req/s is far below what oha sends; a tick of its scheduler that wakes after the end on a
                # busy machine is the most it may miss
                self.assertLessEqual(e["dropped"], 3)
                self.assertAlmostEqual(e["requests"], 150, delta=15)
                with open(os.path.join(self.out, "raw", tape + ".oha.log"), encoding="utf-8") as f:
                    self.assertIn("--latency-correction", f.read())

    def test_a_ramp_is_a_staircase_with_its_saturation_point_looked_for(self):
        out = os.path.join(self.tmp, "ramp")
        runner, summary = self.run_runner(out, "ramp", "--tapes", "put-unique", "--profile", "ramp", "--rate",
                                          "300", "--start-rate", "30", "--duration", "6s", "--events", "")
        self.assertEqual(runner.returncode, 0, runner.stderr)
        e = summary["tapes"]["put-unique"]
        self.assertIn("saturation", e)
        with open(os.path.join(out, e["series"]), encoding="utf-8") as f:
            rows = f.read().splitlines()[1:]
        targets = [float(r.split(",")[2]) for r in rows if r.split(",")[2]]
        self.assertEqual(targets, sorted(targets), "the rate only goes up")
        self.assertEqual(sorted(set(targets)), [97.5, 232.5], "two 3 s steps, at the rate the ramp has in their middle")
        self.assertAlmostEqual(e["requests"], 3 * 97.5 + 3 * 232.5, delta=40)


class EnginesOverTls(unittest.TestCase):
    """Both engines and the runner's profiler against a node whose client port takes TLS only and requires client
    certificates (make run TLS=1's files under the data directory: the CA, a read-write client certificate), as a
    DhtBenchmark Job runs them against a cluster with client TLS (DHT_CA, DHT_CLIENT_CERT, DHT_CLIENT_KEY). Without
    the certificate every request fails: the TLS is the node's, not a formality."""
    TAPES = "put-unique,get-uniform"

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(JAR):
            raise AssertionError("%s is missing: build it first (scripts/mvn -pl node -am package)" % JAR)
        cls.tmp = tempfile.mkdtemp(prefix="dht-tapes-tls-test-")
        cls.k6, cls.oha = tool("k6"), tool("oha")
        port = free_port()
        cls.url = "https://127.0.0.1:%d" % port
        data = os.path.join(cls.tmp, "data")
        env = dict(os.environ, DHT_NODES="1", DHT_BASE_PORT=str(port), DHT_RUN_DATA=data, DHT_JAVA_OPTS="-Xmx256m",
                   DHT_TLS="1", DHT_NODE_ARGS="--client-auth required")
        cls.log = open(os.path.join(cls.tmp, "node.log"), "w", encoding="utf-8")
        cls.node = subprocess.Popen([os.path.join(ROOT, "scripts", "run-local.sh")], env=env, stdout=cls.log,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        tls = os.path.join(data, "tls")
        cls.tls_env = {"DHT_CA": os.path.join(tls, "ca.crt"), "DHT_CLIENT_CERT": os.path.join(tls, "client.crt"),
                       "DHT_CLIENT_KEY": os.path.join(tls, "client.key")}
        try:
            deadline = time.time() + 120
            while not (os.path.exists(cls.tls_env["DHT_CLIENT_KEY"]) and ready(cls.url, cls.context())):
                if cls.node.poll() is not None or time.time() > deadline:
                    with open(cls.log.name, encoding="utf-8") as f:
                        raise AssertionError("the node did not start:\n" + f.read()[-3000:])
                time.sleep(0.2)
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def context(cls):
        import ssl
        if not os.path.exists(cls.tls_env["DHT_CLIENT_KEY"]):
            return None
        try:
            ctx = ssl.create_default_context(cafile=cls.tls_env["DHT_CA"])
            ctx.load_cert_chain(cls.tls_env["DHT_CLIENT_CERT"], cls.tls_env["DHT_CLIENT_KEY"])
        except (ssl.SSLError, OSError):
            return None  # run-local.sh is still writing the files (client-certs.sh): not ready yet
        return ctx

    tearDownClass = classmethod(TapesAgainstOneNode.tearDownClass.__func__)  # this class's node, not the other's

    def run_runner(self, engine, run_id, env, *args):
        out = os.path.join(self.tmp, run_id)
        cmd = [sys.executable, "-m", "runner", "run", "--targets", self.url, "--out", out, "--run-id", run_id,
               "--k6", self.k6, "--engine", engine, "--oha", self.oha, "--rate", "50", "--duration", "2s",
               "--keys", "100", "--tapes", self.TAPES] + list(args)
        runner = subprocess.run(cmd, env=dict(os.environ, PYTHONPATH=BENCH, **env), capture_output=True, text=True,
                                timeout=300)
        with open(os.path.join(out, "summary.json"), encoding="utf-8") as f:
            return runner, json.load(f), out

    def test_k6_oha_and_the_profiler_speak_tls_with_a_client_certificate(self):
        for engine in ("k6", "oha"):
            with self.subTest(engine=engine):
                runner, summary, out = self.run_runner(engine, "tls-" + engine, self.tls_env, "--events", "cpu")
                self.assertEqual(runner.returncode, 0, runner.stderr[-3000:])
                self.assertEqual(summary["fill"]["errors"], 0)
                for tape in self.TAPES.split(","):
                    e = summary["tapes"][tape]
                    self.assertEqual(e["errors"], 0, tape)
                    self.assertGreaterEqual(e["requests"], 60, tape)  # 50/s for 2 s
                    self.assertEqual(e["flamegraphs"], ["node0-%s-cpu.html" % tape], e.get("profile_errors"))

    def test_without_the_client_certificate_every_request_is_refused(self):
        env = {"DHT_CA": self.tls_env["DHT_CA"], "DHT_CLIENT_CERT": "", "DHT_CLIENT_KEY": ""}
        runner, summary, _ = self.run_runner("oha", "tls-no-cert", env, "--tapes", "get-uniform", "--events", "")
        self.assertNotEqual(runner.returncode, 0)
        self.assertGreater(summary["fill"]["requests"], 0)
        self.assertEqual(summary["fill"]["errors"], summary["fill"]["requests"],
                         "fill requests answered without a client certificate")


if __name__ == "__main__":
    unittest.main()
