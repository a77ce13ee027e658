"""dhtcheck (make e2e's Jobs) against a real node: the packaged jar (DHT_NODE_JAR, run by JAVA, a JDK 21 or newer)
on a free loopback port."""
import http.server
import json
import os
import subprocess
import sys
import threading
import time
import unittest
import urllib.parse

from tests.nodeproc import Node, client_certs, free_port

HERE = os.path.dirname(os.path.abspath(__file__))
DHTCHECK = os.path.join(HERE, "..", "dhtcheck.py")


def dhtcheck(*args):
    """Runs dhtcheck; returns (exit status, RESULT as a dict, the whole output)."""
    p = subprocess.run([sys.executable, DHTCHECK, *args], capture_output=True, text=True, timeout=120)
    results = [line[len("RESULT "):] for line in p.stdout.splitlines() if line.startswith("RESULT ")]
    return p.returncode, json.loads(results[-1]) if results else None, p.stdout + p.stderr


class DhtcheckTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.node = Node()
        cls.url = cls.node.url

    @classmethod
    def tearDownClass(cls):
        cls.node.stop()

    def test_a_value_an_earlier_run_left_reads_wrong(self):
        code, res, out = dhtcheck("write", "--target", self.url, "--prefix", "r", "--count", "20", "--run", "one")
        self.assertEqual(0, code, out)
        self.assertEqual(20, res["acked"])
        code, res, out = dhtcheck("read", "--target", self.url, "--prefix", "r", "--keys", "0-19", "--run", "one")
        self.assertEqual((0, 20, {"ok": 20}), (code, res["ok"], res["outcomes"]), out)
        code, res, out = dhtcheck("read", "--target", self.url, "--prefix", "r", "--keys", "0-19", "--run", "two")
        self.assertEqual((1, 0, {"wrong": 20}), (code, res["ok"], res["outcomes"]), out)

    def test_failures_are_counted_by_cause(self):
        closed = f"http://127.0.0.1:{free_port()}"
        code, res, out = dhtcheck("write", "--target", closed, "--prefix", "f", "--count", "5", "--run", "x",
                                  "--threads", "1")
        self.assertEqual(1, code, out)
        self.assertEqual((5, 0, {"ConnectionRefusedError": 5}), (res["written"], res["acked"], res["failures"]))
        code, res, out = dhtcheck("write", "--target", closed, "--prefix", "f", "--count", "5", "--run", "x",
                                  "--allow-failures")
        self.assertEqual(0, code, out)
        code, res, out = dhtcheck("read", "--target", closed, "--prefix", "f", "--keys", "0-4", "--run", "x")
        self.assertEqual({"failed:ConnectionRefusedError": 5}, res["outcomes"], out)
        self.assertEqual(10, res["retried"], out)  # each failed read asked again twice, no more

    def test_a_read_back_asks_a_failed_read_again_but_not_a_missing_key(self):
        # A server that answers each key's first GET 504 (a coordinator that heard too few replicas in time), then
        # the value; keys 3 and 4 are missing (404) and must stay missing without a second ask.
        asked = {}

        class Flaky(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                key = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)["id"][0]
                asked[key] = asked.get(key, 0) + 1
                if key in ("k-3", "k-4"):
                    status, body = 404, b""
                elif asked[key] == 1:
                    status, body = 504, b"not enough replicas answered in time"
                else:
                    status, body = 200, f"{key}:r".encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Flaky)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            code, res, out = dhtcheck("read", "--target", f"http://127.0.0.1:{server.server_address[1]}",
                                      "--prefix", "k", "--keys", "0-4", "--run", "r")
        finally:
            server.shutdown()
        self.assertEqual((1, 3, {"ok": 3, "missing": 2}, 3), (code, res["ok"], res["outcomes"], res["retried"]), out)
        self.assertEqual({"k-0": 2, "k-1": 2, "k-2": 2, "k-3": 1, "k-4": 1}, asked)

    def test_acknowledgements_are_counted_per_second(self):
        sys.path.insert(0, os.path.join(HERE, ".."))
        import dhtcheck as module
        before = time.time()
        code, res, out = dhtcheck("write", "--target", self.url, "--prefix", "t", "--count", "60", "--run", "t",
                                  "--rate", "30", "--threads", "2")
        after = time.time()
        self.assertEqual(0, code, out)
        self.assertEqual(60, sum(res["acked_per_second"].values()))
        self.assertGreaterEqual(len(res["acked_per_second"]), 2, "two seconds of writes at 30/s")
        first = min(int(s) for s in res["acked_per_second"])
        self.assertGreaterEqual(first, int(before))
        self.assertEqual(60, module.acked_after(res, before - 1))
        self.assertEqual(0, module.acked_after(res, after))
        self.assertEqual(60 - res["acked_per_second"][str(first)], module.acked_after(res, first + 0.5),
                         "the first second's acknowledgements are not after a time within it")

    def test_metric_reads_one_sample_of_each_member(self):
        code, res, out = dhtcheck("metric", "--members", self.url, "--name", "dht_cluster_members")
        self.assertEqual((0, {self.url: 1.0}), (code, res["values"]), out)
        code, res, out = dhtcheck("metric", "--members", self.url, "--name", 'jvm_memory_max_bytes{area="heap"}')
        self.assertEqual(0, code, out)
        self.assertEqual(128 << 20, res["values"][self.url], "-Xmx128m")
        code, res, out = dhtcheck("metric", "--members", self.url, "--name", "dht_no_such_metric")
        self.assertEqual(1, code, out)
        self.assertIn("no sample", res["problems"][self.url])


class DhtcheckOverTlsTest(unittest.TestCase):
    """The Jobs against a client port that takes TLS only and requires client certificates: with the CA bundle and
    a client certificate (DHT_CA, DHT_CLIENT_CERT, DHT_CLIENT_KEY, as the Jobs mount them) every write is
    acknowledged and reads back; without the certificate none is."""

    @classmethod
    def setUpClass(cls):
        import tempfile
        cls.certs = client_certs(tempfile.mkdtemp(prefix="dhtcheck-tls-test"))
        cls.node = Node(tls=cls.certs)

    @classmethod
    def tearDownClass(cls):
        import shutil
        cls.node.stop()
        shutil.rmtree(cls.certs, ignore_errors=True)

    def test_with_the_ca_and_a_client_certificate_writes_and_reads_over_tls(self):
        env = {"DHT_CA": os.path.join(self.certs, "ca.crt"), "DHT_CLIENT_CERT": os.path.join(self.certs, "client.crt"),
               "DHT_CLIENT_KEY": os.path.join(self.certs, "client.key")}
        code, res, out = dhtcheck_env(env, "write", "--target", self.node.url, "--prefix", "t", "--count", "20",
                                      "--run", "tls")
        self.assertEqual((0, 20), (code, res["acked"]), out)
        code, res, out = dhtcheck_env(env, "read", "--target", self.node.url, "--prefix", "t", "--keys", "0-19",
                                      "--run", "tls")
        self.assertEqual((0, {"ok": 20}), (code, res["outcomes"]), out)
        env.pop("DHT_CLIENT_CERT")
        env.pop("DHT_CLIENT_KEY")
        code, res, out = dhtcheck_env(env, "write", "--target", self.node.url, "--prefix", "u", "--count", "5",
                                      "--run", "tls", "--allow-failures")
        self.assertEqual(0, res["acked"], out)
        self.assertEqual(5, sum(res["failures"].values()), out)


def dhtcheck_env(env, *args):
    p = subprocess.run([sys.executable, DHTCHECK, *args], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, **env))
    results = [line[len("RESULT "):] for line in p.stdout.splitlines() if line.startswith("RESULT ")]
    return p.returncode, json.loads(results[-1]) if results else None, p.stdout + p.stderr


if __name__ == "__main__":
    unittest.main()
