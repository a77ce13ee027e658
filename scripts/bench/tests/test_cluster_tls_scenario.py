"""make bench-cluster-tls as a scenario (scenarios/cluster-tls.json): its settings and their derived defaults, the
steps it runs in order (clusters in turns by round, slices in turns by slice, the client-TLS cluster's slices in
pairs with and without a client certificate) replayed with the measuring steps recorded instead of run, the command
lines of its nodes (TLS per cluster, pinned with taskset) and of oha (TLS, a client certificate), and a brief live
run of two of its clusters (plaintext and client TLS) with its report."""
import json
import os
import shutil
import sys
import tempfile
import time
import unittest
import unittest.mock

from harness import measure, scenario, scenariofile

from .test_round_medians import cluster_tls_report
from .test_scenario import STUBS, free_ports, run_live

TOOLS = {"java": "java", "java_flags": [], "jar": "dht-node.jar", "oha": "oha", "wrk": "wrk", "python": sys.executable}


def run_of(test, env=None):
    """A run of the scenario in a temporary directory, with dummy certificates (no keytool) and no process started."""
    sc = scenariofile.load_scenario("cluster-tls")
    tmp = tempfile.mkdtemp(prefix="dht-cluster-tls-test-")
    test.addCleanup(shutil.rmtree, tmp)
    for d, files in (("tls", ("tls.crt", "tls.key", "ca.crt")),
                     ("client-tls", ("tls.crt", "tls.key", "ca.crt", "client.crt", "client.key"))):
        os.makedirs(os.path.join(tmp, d))
        for f in files:
            open(os.path.join(tmp, d, f), "w").close()
    r = scenario.Run(sc, scenariofile.settings(sc, env or {}), dict(TOOLS), tmp, os.path.join(tmp, "out"))
    return r, tmp


class Settings(unittest.TestCase):
    def test_the_shell_drivers_names_and_defaults(self):
        sc = scenariofile.load_scenario("cluster-tls")
        with unittest.mock.patch("os.cpu_count", return_value=4):
            conf = scenariofile.settings(sc, {})
        self.assertEqual({k: conf[k] for k in ("rounds", "duration", "warmup", "rate_warmup", "slice_settle", "slices",
                                               "slice", "threads", "connections", "replicas", "port", "modes")},
                         {"rounds": 2, "duration": 40, "warmup": 60, "rate_warmup": 5, "slice_settle": 1, "slices": 2,
                          "slice": 8, "threads": 3, "connections": 64, "replicas": "2/3", "port": 18100,
                          "modes": "plain tls client"})
        self.assertEqual((conf["node_cpus"], conf["load_cpus"], conf["reference_rate"]), ("1-3", "0", 2500),
                         "pinned by default on 2 CPUs or more, at half the rate")
        with unittest.mock.patch("os.cpu_count", return_value=1):
            conf = scenariofile.settings(sc, {})
        self.assertEqual((conf["node_cpus"], conf["load_cpus"], conf["reference_rate"]), ("", "", 5000))
        conf = scenariofile.settings(sc, {"BENCH_NODE_CPUS": "", "BENCH_LOAD_CPUS": "", "BENCH_REFERENCE_RATE": "",
                                          "BENCH_CLUSTER_PORT": "18200", "BENCH_PORT": "1"})
        self.assertEqual((conf["node_cpus"], conf["load_cpus"]), ("", ""), "set but empty: no pinning")
        self.assertEqual(conf["reference_rate"], 5000, "empty: the default, unpinned")
        self.assertEqual(conf["port"], 18200, "BENCH_CLUSTER_PORT, as the shell driver's")
        conf = scenariofile.settings(sc, {"BENCH_REFERENCE_RATE": "3000", "BENCH_NODE_CPUS": "1",
                                          "BENCH_LOAD_CPUS": "0"})
        self.assertEqual(conf["reference_rate"], 3000)

    def test_the_stubbed_functions_are_the_runs(self):
        r, _ = run_of(self)
        self.assertEqual(set(STUBS), set(r.v.functions))

    def test_modes_must_start_with_plain(self):
        r, _ = run_of(self, {"BENCH_MODES": "tls plain"})
        with unittest.mock.patch("harness.scenario.check_ports"), self.assertRaises(SystemExit):
            r.run()

    def test_pinning_is_both_or_neither(self):
        r, _ = run_of(self, {"BENCH_NODE_CPUS": "1", "BENCH_LOAD_CPUS": ""})
        with self.assertRaises(SystemExit):
            r.check_pinning()


class Steps(unittest.TestCase):
    """The scenario's steps run with the nodes and the load generators recorded instead of started."""

    def replay(self, env):
        r, tmp = run_of(self, env)
        done = []

        def wrk(run, spec):
            done.append(("wrk", spec["name"], tuple(spec["target"]), spec["warmup"], tuple(spec["args"])))
            with open(run.path("wrk-%s.txt" % spec["name"]), "w") as f:
                f.write("Requests/sec: 1000.0\nKEYS_PER_THREAD 5064\n")

        def rate(run, spec):
            done.append(("rate", spec["name"], tuple(spec["target"]), spec["method"], spec["id"],
                         bool(spec.get("client_cert")), bool(spec.get("discard")), spec.get("profile", "")))
        steps = dict(scenario.STEPS, wrk=wrk, rate=rate,
                     start_cluster=lambda run, name, tag: done.append(("start", name, tag)),
                     cluster_metrics=lambda run, name, tag: done.append(("metrics", name, tag)),
                     stop_nodes=lambda run: done.append(("stop",)),
                     call=lambda run, spec: done.append(("call", spec["path"], tuple(spec["nodes"]))),
                     compactions=lambda run: done.append(("compactions",)))
        with unittest.mock.patch.dict(scenario.STEPS, steps):
            for s in r.sc["steps"]:
                r.step(*s)
        return r, done

    def test_clusters_and_slices_take_turns_and_the_certificate_slices_pair(self):
        r, done = self.replay({"BENCH_SLICES": "4", "BENCH_PROFILE": "3"})
        starts = [d[1] for d in done if d[0] == "start"]
        self.assertEqual(starts, ["plain", "tls", "client", "client", "tls", "plain"], "reversed in round 2")
        self.assertEqual([d for d in done if d[0] == "start"][3][2], "r2-client")
        wrks = [d for d in done if d[0] == "wrk"]
        self.assertEqual([w[1] for w in wrks[:2]], ["r1-plain-put", "r1-plain-get"])
        self.assertEqual(wrks[0][2:4], ((0, 1, 2), "60"))
        self.assertEqual(wrks[1][3:], (30, ("3", 5000)), "GET: half the warm-up, over the keys the PUT wrote")
        self.assertEqual(wrks[5][1:3], ("r1-client-get", (6, 7, 8)))
        self.assertEqual(done[9:11], [("call", "/v0/admin/flush", tuple(r.live())), ("compactions",)])
        slices = [d for d in done if d[0] == "rate" and not d[6]]
        self.assertEqual(len(slices), 2 * 2 * 4 * 4, "rounds x operations x slices x (three clusters + cert)")
        first = [d for d in slices if "-r1-" in d[1] and "-put-" in d[1]]
        self.assertEqual([d[1] for d in first[:8]], ["oha-r1-%s-put-rate-s%d" % (m, k) for k, modes in
                                                     ((1, ("plain", "tls", "client", "cert")),
                                                      (2, ("cert", "client", "tls", "plain"))) for m in modes])
        cert = next(d for d in slices if "-cert-get-" in d[1])
        self.assertEqual(cert[2:6], ((6, 7, 8), "GET", measure.written_ids(3, 5000), True),
                         "the client-TLS cluster's keys, with a client certificate")
        self.assertFalse(next(d for d in slices if "-client-put-" in d[1])[5], "without one")
        self.assertEqual([d[7] for d in first[:8]],
                         ["r1-%s-put-rate-s1" % m for m in ("plain", "tls", "client", "cert")]
                         + ["r1-%s-put-rate-s2" % m for m in ("cert", "client", "tls", "plain")],
                         "profiled in the first two slices only")
        warm = [d for d in done if d[0] == "rate" and d[6]]
        self.assertEqual([d[1] for d in warm[:4]], ["r1-%s-put-rate" % m for m in ("plain", "tls", "client", "cert")])
        self.assertEqual([d[1:] for d in done if d[0] in ("metrics", "stop")][:4],
                         [("plain", "r1-plain"), ("tls", "r1-tls"), ("client", "r1-client"), ()])
        paired = cluster_tls_report.pairing(r.raw)
        self.assertTrue(paired["adjacent"] and paired["fair"], paired)

    def test_without_the_client_tls_cluster_there_are_no_certificate_slices(self):
        r, done = self.replay({"BENCH_MODES": "plain tls", "BENCH_ROUNDS": "1", "BENCH_SLICES": "1"})
        self.assertEqual({d[1].split("-")[2] for d in done if d[0] == "rate" and not d[6]}, {"plain", "tls"})
        self.assertEqual(cluster_tls_report.pairing(r.raw)["cert_first"], [])


class Commands(unittest.TestCase):
    def test_each_cluster_its_members_its_tls_and_the_nodes_pinned(self):
        r, tmp = run_of(self, {"BENCH_NODE_CPUS": "1", "BENCH_LOAD_CPUS": "0"})
        argv = {}
        for i in (0, 4, 8):
            with unittest.mock.patch("subprocess.Popen") as popen:
                r.launch(i)
            argv[i] = popen.call_args[0][0]
        for i in (0, 4, 8):
            self.assertEqual(argv[i][:3], ["taskset", "-c", "1"])
            self.assertEqual(argv[i][argv[i].index("--repair-interval") + 1], "0s")
        self.assertEqual(argv[4][argv[4].index("--cluster") + 1],
                         "http://127.0.0.1:18103,http://127.0.0.1:18104,http://127.0.0.1:18105")
        self.assertEqual(argv[8][argv[8].index("--self") + 1], "http://127.0.0.1:18108", "members by plaintext URL")
        self.assertNotIn("--member-tls-cert", argv[0])
        self.assertIn("--member-tls-cert", argv[4])
        self.assertNotIn("--client-tls-cert", argv[4])
        self.assertEqual(argv[8][argv[8].index("--client-auth") + 1], "optional")
        self.assertIn("--member-tls-ca", argv[8])
        self.assertEqual((r.url(0), r.url(8)), ("http://127.0.0.1:18100", "https://127.0.0.1:18108"))

    def test_oha_speaks_tls_to_the_client_port_with_or_without_a_certificate(self):
        r, tmp = run_of(self)
        spec = {"through": [6, 7, 8], "method": "GET", "connections": 64, "id": "x"}
        plain = r.oha(dict(spec, through=[3, 4, 5]), [])
        self.assertNotIn("--cacert", plain)
        self.assertEqual([plain[i + 1] for i, a in enumerate(plain) if a == "--connect-to"],
                         ["127.0.0.1:18103:127.0.0.1:%d" % p for p in (18103, 18104, 18105)])
        self.assertEqual(plain[-1], "http://127.0.0.1:18103/v0/entity\\?id=x&replicas=2/3")
        client = r.oha(spec, [])
        self.assertEqual(client[client.index("--cacert") + 1], os.path.join(tmp, "client-tls", "ca.crt"))
        self.assertNotIn("--cert", client)
        self.assertEqual(client[-1], "https://127.0.0.1:18106/v0/entity\\?id=x&replicas=2/3")
        cert = r.oha(dict(spec, client_cert=True), [])
        self.assertEqual((cert[cert.index("--cert") + 1], cert[cert.index("--key") + 1]),
                         (os.path.join(tmp, "client-tls", "client.crt"), os.path.join(tmp, "client-tls", "client.key")))


@unittest.skipUnless(os.environ.get("OHA") and os.environ.get("WRK") and os.environ.get("BENCH_TEST_TLS"),
                     "about 100 s (six JVMs, certificates, four wrk processes of 7 s): BENCH_TEST_TLS=1 with $OHA and "
                     "$WRK (make bench-test sets them) runs it")
class PlainAndClientTlsClusters(unittest.TestCase):
    """The scenario, shrunk (two clusters: plaintext and client TLS, 2-s windows, 1-s slices, no pinning): every raw
    file cluster-tls-report.py reads, and its report over both clusters and the certificate's slices. It took 97 s
    on the 2 shared CPUs of the machine it was written on (a wrk window is its warm-up, two halves and 4 s more):
    off in make bench-test, BENCH_TEST_TLS=1 make bench-test runs it."""

    def test_the_scenario_leaves_what_its_report_reads(self):
        env = {"BENCH_MODES": "plain client", "BENCH_ROUNDS": "1", "BENCH_DURATION": "2", "BENCH_WARMUP": "1",
               "BENCH_RATE_WARMUP": "0", "BENCH_SLICES": "1", "BENCH_SLICE": "1", "BENCH_SLICE_SETTLE": "0",
               "BENCH_REFERENCE_RATE": "200", "BENCH_CONNECTIONS": "8", "BENCH_THREADS": "2",
               "BENCH_NODE_CPUS": "", "BENCH_LOAD_CPUS": "", "BENCH_CLUSTER_PORT": str(free_ports(range(9))),
               "BENCH_JAVA_OPTS": "-Xms64m -Xmx128m", "BENCH_NODE_ARGS": "--block-cache 16MiB"}
        start = time.monotonic()
        tmp, raw, out = run_live(self, "cluster-tls", env, wrk=os.environ["WRK"])
        for f in ("wrk-r1-client-put.marks", "oha-r1-cert-get-rate-s1.csv", "oha-r1-client-put-rate-s1.cpu",
                  "oha-r1-plain-get-rate-s1.flush", "r1-client-node2-metrics.txt", "r1-plain-node0.log",
                  "slices.order"):
            self.assertGreater(os.path.getsize(os.path.join(raw, f)), 0, f)
        with open(os.path.join(raw, "wrk-r1-client-put.txt")) as f:
            self.assertIn("@ https://127.0.0.1:", f.read(), "wrk speaks TLS to the client port")
        with open(os.path.join(out, "cluster-tls.json")) as f:
            result = json.load(f)
        self.assertEqual(result["env"]["rate_modes"], "plain,client,cert")
        rows = {x["mode"]: x for x in result["rounds"]}
        for mode in ("plain", "client", "cert"):
            self.assertGreater(rows[mode]["get_rate_requests"], 0, mode)
            self.assertEqual(rows[mode]["get_rate_failed"], 0, "%s: the GETs read keys the PUT run wrote" % mode)
        self.assertGreater(rows["client"]["put_rps"], 0)
        self.assertEqual(rows["client"]["handshake_failures"], 3, "the plaintext readiness poll, once per node")
        self.assertTrue(result["cert_cost"]["pairing"]["fair"])
        with open(os.path.join(out, "cluster-tls.md")) as f:
            self.assertIn("(scripts/bench/scenario.sh cluster-tls)", f.read())
        self.assertFalse(os.path.exists(os.path.join(tmp, "data")), "the nodes' data is removed")
        print("cluster-tls live test: %.0f s" % (time.monotonic() - start), file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
