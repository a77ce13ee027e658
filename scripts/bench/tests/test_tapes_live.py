"""Every tape, briefly and at a low rate, against one real node (node/target/dht-node.jar, started with
scripts/run-local.sh on a free port): the runner's summary is parsed and checked, flamegraphs included.
Needs the jar (mvn package) and k6 ($K6, or scripts/tool.sh k6 installs it)."""
import json
import os
import random
import shutil
import signal
import socket
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


MEMBER_PORT_OFFSET = 10000  # the node's member port is its client port + this (docs/security.md)


def bindable(port):
    with socket.socket() as s:
        try:
            s.bind(("0.0.0.0", port))
            return True
        except OSError:
            return False


def free_port():
    """A free client port whose member port is free too, both below the ephemeral range."""
    rng = random.SystemRandom()
    for _ in range(1000):
        port = rng.randrange(12000, 32000 - MEMBER_PORT_OFFSET)
        if bindable(port) and bindable(port + MEMBER_PORT_OFFSET):
            return port
    raise AssertionError("no free port pair")


def ready(url):
    try:
        with urllib.request.urlopen(url + "/v0/status", timeout=1) as r:
            return r.status == 200
    except OSError:
        return False


class TapesAgainstOneNode(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.exists(JAR):
            raise AssertionError("%s is missing: build it first (scripts/mvn -pl node -am package)" % JAR)
        cls.tmp = tempfile.mkdtemp(prefix="dht-tapes-test-")
        cls.k6 = os.environ.get("K6") or subprocess.run(
            [os.path.join(ROOT, "scripts", "tool.sh"), "k6"], check=True, capture_output=True, text=True).stdout.strip()
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
        cmd = [sys.executable, "-m", "runner", "run", "--targets", cls.url, "--out", cls.out, "--run-id", "live",
               "--rate", "50", "--duration", "3s", "--keys", "300", "--events", "cpu", "--k6", cls.k6]
        cls.runner = subprocess.run(cmd, env=dict(os.environ, PYTHONPATH=BENCH), capture_output=True, text=True,
                                    timeout=300)
        if not os.path.exists(os.path.join(cls.out, "summary.json")):
            raise AssertionError("the runner wrote no summary:\n" + cls.runner.stderr[-3000:])
        with open(os.path.join(cls.out, "summary.json"), encoding="utf-8") as f:
            cls.summary = json.load(f)

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


if __name__ == "__main__":
    unittest.main()
