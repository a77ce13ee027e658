"""defaults-report.py (make bench-defaults) on raw outputs written here with known answers: oha CSV rounds pooled into
percentiles, wrk windows in rounds parsed into throughput, the ratios judged against the spread of identical rounds
(harness/judge.py) and the goal verdicts in defaults.md."""
import importlib.util
import os
import unittest

import benchraw

from .rawfiles import TempDirTest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("defaults_report", os.path.join(HERE, "..", "defaults-report.py"))
defaults_report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(defaults_report)

ENV = "date=2026-11-25T00:00:00Z\nload_before=0.1 0.2 0.3\nnproc=2\ncpu=test cpu\ncommit=abc1234\ndirty=0\n" \
      "rate=20000\nrounds=2\nround=10\nfill=10\nduration=20\nload_after=0.5 0.4 0.3\nsteal_ticks=7\n"

WRK = """Running 20s test @ http://127.0.0.1:18400
  2 threads and 64 connections
  Latency Distribution
     50%  484.00us
     99%    {p99}
  2013244 requests in 20.03s, 128.64MB read
{non2xx}Requests/sec: {rps}
Transfer/sec:      2.55MB
"""


def oha_csv(path, latencies_ms, bad=0):
    with open(path, "w") as f:
        f.write("request-start,DNS,DNS+dialup,Response-delay,request-duration,bytes,status\n")
        for i, ms in enumerate(latencies_ms):
            status = "503" if i < bad else "201"
            f.write(f"{i * 0.001},0,0,0,{ms / 1000},0,{status}\n")


def wrk_txt(path, rps, p99="3.00ms", non2xx=0):
    with open(path, "w") as f:
        f.write(WRK.format(rps=rps, p99=p99, non2xx=f"  Non-2xx or 3xx responses: {non2xx}\n" if non2xx else ""))


class DefaultsReportTest(TempDirTest):
    def setUp(self):
        super().setUp()
        self.raw, self.out = os.path.join(self.tmp, "raw"), os.path.join(self.tmp, "out")
        os.makedirs(self.raw)
        os.makedirs(self.out)
        with open(os.path.join(self.raw, "env.txt"), "w") as f:
            f.write(ENV)

    def write_node_raw(self):
        # 1000 requests a round: latencies 1..1000 x scale ms, so p99 = 991 x scale (index int(1000 * .99) = 990)
        for method, node_scale, bad in (("PUT", 0.002, 3), ("GET", 0.001, 0)):
            for r in (1, 2):
                oha_csv(os.path.join(self.raw, f"oha-{method}-{r}-node.csv"),
                        [i * node_scale for i in range(1, 1001)], bad if r == 1 else 0)
                oha_csv(os.path.join(self.raw, f"oha-{method}-{r}-bare.csv"), [i * 0.001 for i in range(1, 1001)])
        # wrk in 2 rounds: PUT node/bare 0.8 then 0.78 (floor 2.6%: above 0.75 beyond it), GET 0.6 twice
        self.write_wrk("put-node", ("80000.00", "4.17ms"), ("78000.00", "4.20ms"))
        self.write_wrk("put-bare", ("100000.00", "850.00us"), ("100000.00", "850.00us"))
        self.write_wrk("get-node", ("60000.00", "3.00ms", 12), ("60000.00", "3.00ms"))
        self.write_wrk("get-bare", ("100000.00",), ("100000.00",))

    def write_wrk(self, name, *rounds):
        """RAW/wrk-NAME-<r>.txt for each round's (rps, p99, non-2xx) (the last two optional)."""
        for r, args in enumerate(rounds, 1):
            wrk_txt(os.path.join(self.raw, f"wrk-{name}-{r}.txt"), *args)

    def test_node_part_pools_rounds_and_computes_ratios(self):
        self.write_node_raw()
        defaults_report.node_part(self.raw, self.out)
        d = benchraw.load_json(os.path.join(self.out, "defaults-node.json"))
        put = d["fixed_rate"]["PUT"]
        self.assertEqual(put["node"]["requests"], 2000)
        self.assertEqual(put["node"]["non2xx"], 3)
        # pooled: each latency twice, 2000 values; p99 = value at index 1980 = latency 991
        self.assertAlmostEqual(put["node"]["p99"], 991 * 0.002, places=3)
        self.assertAlmostEqual(put["bare"]["p99"], 0.991, places=3)
        self.assertEqual(put["p99_ratio"], 2.0)
        self.assertEqual(put["node"]["rounds_p99"], [1.982, 1.982])
        self.assertEqual(d["fixed_rate"]["GET"]["p99_ratio"], 1.0)
        self.assertEqual(d["wrk"]["put"]["ratio"], 0.79)
        self.assertEqual(d["wrk"]["put"]["judged"]["ratios"], [0.8, 0.78])
        self.assertAlmostEqual(d["wrk"]["put"]["judged"]["floor"], 80000 / 78000)
        self.assertEqual(d["wrk"]["put"]["bare"][0]["p99_ms"], 0.85)
        self.assertEqual(d["wrk"]["get"]["ratio"], 0.6)
        self.assertEqual(d["wrk"]["get"]["node"][0]["non2xx"], 12)

        defaults_report.render(self.out)
        md = benchraw.read(os.path.join(self.out, "defaults.md"))
        self.assertIn("node/bare p99 **2.0x** (misses (<= 1.5))", md)
        self.assertIn("node/bare p99 **1.0x** (meets (<= 1.5))", md)
        self.assertIn("| PUT | 80000.0 78000.0 | 100000.0 100000.0 | 0.800 0.780 | **0.79** | +-2.6% | >= 0.75 | met |",
                      md)
        self.assertIn("| GET | 60000.0 60000.0 | 100000.0 100000.0 | 0.600 0.600 | **0.6** | +-0.0% | >= 0.85 | missed "
                      "| 12 |", md)
        self.assertNotIn("Three nodes", md)  # no cluster part was run

    def test_the_warmup_is_described_and_its_first_step_reported_apart_from_the_rounds(self):
        self.write_node_raw()
        with open(os.path.join(self.raw, "env.txt"), "a") as f:
            f.write("warmup_step=5\nwarmup_steps=4\nwarmup_flush_step=3\n")
        # the first step: slow (a cold JIT), 404s among the GETs; it must not move the rounds' figures
        oha_csv(os.path.join(self.raw, "warmup-1-node-put.csv"), [500.0] * 99 + [900.0])
        oha_csv(os.path.join(self.raw, "warmup-1-node-get.csv"), [300.0] * 10, bad=4)
        oha_csv(os.path.join(self.raw, "warmup-1-bare-put.csv"), [2.0] * 100)
        defaults_report.node_part(self.raw, self.out)
        d = benchraw.load_json(os.path.join(self.out, "defaults-node.json"))
        w = d["warmup"]
        self.assertEqual((w["steps"], w["flush_step"], w["step_seconds"]), (4, 3, 5))
        self.assertEqual(w["first_step"]["node"]["PUT"]["p99"], 900.0)
        self.assertEqual(w["first_step"]["node"]["GET"]["non2xx"], 4)
        self.assertIsNone(w["first_step"]["bare"]["GET"])  # no such file: no row, not an error
        self.assertAlmostEqual(d["fixed_rate"]["PUT"]["node"]["p99"], 991 * 0.002, places=3)  # rounds only
        defaults_report.render(self.out)
        md = benchraw.read(os.path.join(self.out, "defaults.md"))
        self.assertIn("4 steps of 5 s: the node's first memtable flush came in step 3", md)
        self.assertIn("| PUT | node | 100 | 0 | 500.0 | 900.0 | 900.0 |", md)
        self.assertIn("| GET | node | 10 | 4 |", md)

    def test_profiles_are_broken_down_by_where_the_time_goes(self):
        self.write_node_raw()
        with open(os.path.join(self.raw, "profile-PUT-cpu-collapsed.txt"), "w") as f:
            f.write("java/lang/Thread.run;dev/dht/node/storage/RocksStore.storedInMemory;org/rocksdb/RocksDB.keyMayExist 30\n"
                    "java/lang/Thread.run;dev/dht/node/http/DhtSession.uncork;one/nio/net/Session.write 10\n"
                    f"java/lang/Thread.run;{os.path.expanduser('~')}/.cache/dht/native/librocksdbjni.so 1\n")
        defaults_report.node_part(self.raw, self.out)
        put = benchraw.load_json(os.path.join(self.out, "defaults-node.json"))["profile"]["PUT"]
        self.assertEqual(put["samples"], 41)
        self.assertIn("~/.cache/dht/native/librocksdbjni.so", [t["frame"] for t in put["top_self"]])
        self.assertEqual(put["share"]["RocksDB read / LWW check"], round(30 / 41, 4))
        self.assertIsNone(benchraw.load_json(os.path.join(self.out, "defaults-node.json"))["profile"]["GET"])
        defaults_report.render(self.out)
        md = benchraw.read(os.path.join(self.out, "defaults.md"))
        self.assertIn("| RocksDB read / LWW check | 73.2% |", md)
        self.assertIn("**GET**: no profile was captured.", md)

    def test_cluster_part_compares_one_entry_and_spread_with_one_node(self):
        for method, single, one, spread in (("put", 100000, 50000, 40000), ("get", 80000, 20000, 32000)):
            for r in (1, 2):
                wrk_txt(os.path.join(self.raw, f"wrk-{method}-single-{r}.txt"), f"{single}.00")
                wrk_txt(os.path.join(self.raw, f"wrk-{method}-one-entry-{r}.txt"), f"{one}.00")
                wrk_txt(os.path.join(self.raw, f"wrk-{method}-spread-{r}.txt"), f"{spread}.00")
        with open(os.path.join(self.raw, "profile-get-cpu-collapsed.txt"), "w") as f:
            # an answer written to the client from the peer I/O thread is a response write, not a replica call
            f.write("dev/dht/node/peer/PeerClient.loop;dev/dht/node/peer/PeerConnection.read 6\n"
                    "dev/dht/node/peer/PeerClient.loop;dev/dht/node/http/DhtSession.answer;one/nio/net/Session.write 4\n")
        defaults_report.cluster_part(self.raw, self.out)
        d = benchraw.load_json(os.path.join(self.out, "defaults-cluster.json"))
        self.assertEqual(d["profile"]["get"]["share"]["replica calls (peer client: send, read, parse)"], 0.6)
        self.assertEqual(d["profile"]["get"]["share"]["response write (socket send)"], 0.4)
        self.assertNotIn("replica calls (peer client: send, read, parse)",
                         [c for c, _ in defaults_report.profiles.CATEGORIES])  # restored
        self.assertEqual(d["wrk"]["put"]["one_entry_ratio"], 0.5)
        self.assertEqual(d["wrk"]["get"]["one_entry_ratio"], 0.25)
        self.assertEqual(d["wrk"]["get"]["spread_ratio"], 0.4)
        defaults_report.render(self.out)
        md = benchraw.read(os.path.join(self.out, "defaults.md"))
        # identical rounds: a floor of 0; PUT exactly at its goal is on neither side of it
        self.assertIn("| PUT | 100000.0 100000.0 / 50000.0 50000.0 / 40000.0 40000.0 | 0.500 0.500 | **0.5** | "
                      "+-0.0% | >= 0.5 | not separable here (the median meets it) | 0.400 0.400 | 0.4 | +-0.0% |", md)
        self.assertIn("| GET | 80000.0 80000.0 / 20000.0 20000.0 / 32000.0 32000.0 | 0.250 0.250 | **0.25** | +-0.0% | "
                      ">= 0.5 | missed |", md)

    def test_a_part_of_one_window_each_renders_beside_a_part_in_rounds(self):
        self.write_node_raw()
        defaults_report.node_part(self.raw, self.out)
        old = {"env": {"commit": "0000000"}, "profile": {}, "wrk": {m: {
            "runs": {k: {"rps": v, "non2xx": 0} for k, v in (("single", 100.0), ("one-entry", 50.0), ("spread", 40.0))},
            "one_entry_ratio": 0.5, "spread_ratio": 0.4} for m in ("put", "get")}}
        benchraw.write_json(os.path.join(self.out, "defaults-cluster.json"), old)  # written by the last version
        defaults_report.render(self.out)
        md = benchraw.read(os.path.join(self.out, "defaults.md"))
        self.assertIn("| PUT | 100.0 / 50.0 / 40.0 | 0.500 | **0.5** | not measured | >= 0.5 | not separable here (the "
                      "median meets it) |", md)

    def test_a_missing_run_is_an_error_not_an_empty_report(self):
        with self.assertRaises(SystemExit):
            defaults_report.node_part(self.raw, self.out)

    def test_a_ratio_inside_the_spread_of_identical_rounds_is_not_separable(self):
        self.write_node_raw()
        # the node's PUT rounds: p99 1.784 then 1.189 ms (1.5x apart), the bare server's 0.991 in both: the pooled
        # ratio (1.78) misses the 1.5 goal by less than that spread
        for r, scale in ((1, 0.0018), (2, 0.0012)):
            oha_csv(os.path.join(self.raw, f"oha-PUT-{r}-node.csv"), [i * scale for i in range(1, 1001)])
        defaults_report.node_part(self.raw, self.out)
        defaults_report.render(self.out)
        md = benchraw.read(os.path.join(self.out, "defaults.md"))
        self.assertIn("node/bare p99 **1.78x** (misses (<= 1.5)), noise floor +-50.0%: not separable here;", md)
        self.assertIn("node/bare p99 **1.0x** (meets (<= 1.5)), noise floor +-0.0%;", md)  # GET: identical rounds
        self.assertNotIn("not measured", md)  # the wrk ratios too have their floor

    def test_a_wrk_ratio_inside_the_spread_of_identical_rounds_is_not_separable(self):
        self.write_node_raw()
        # the bare server's PUT rounds 100000 then 85000 (17.6% apart): node/bare 0.8 and 0.94, their median above
        # the 0.75 goal by less than that spread
        self.write_wrk("put-bare", ("100000.00",), ("85000.00",))
        self.write_wrk("put-node", ("80000.00",), ("80000.00",))
        defaults_report.node_part(self.raw, self.out)
        j = benchraw.load_json(os.path.join(self.out, "defaults-node.json"))["wrk"]["put"]["judged"]
        self.assertEqual(j["target_verdict"], "not separable here")
        defaults_report.render(self.out)
        md = benchraw.read(os.path.join(self.out, "defaults.md"))
        self.assertIn("| **0.871** | +-17.6% | >= 0.75 | not separable here (the median meets it) |", md)

    def test_a_missing_wrk_round_leaves_the_others_judged(self):
        self.write_node_raw()
        with open(os.path.join(self.raw, "env.txt"), "a") as f:
            f.write("rounds=3\n")
        # three rounds of GET, the bare server's second lost: two pairs left, both beyond the floor below 0.85
        self.write_wrk("get-node", ("60000.00",), ("61000.00",), ("60000.00",))
        self.write_wrk("get-bare", ("100000.00",), ("100000.00",), ("100000.00",))
        os.remove(os.path.join(self.raw, "wrk-get-bare-2.txt"))
        self.write_wrk("put-node", ("80000.00",), ("78000.00",), ("80000.00",))
        self.write_wrk("put-bare", ("100000.00",), ("100000.00",), ("100000.00",))
        defaults_report.node_part(self.raw, self.out)
        j = benchraw.load_json(os.path.join(self.out, "defaults-node.json"))["wrk"]["get"]["judged"]
        self.assertEqual(j["ratios"], [0.6, None, 0.6])
        self.assertEqual(j["target_verdict"], "missed")
        self.assertAlmostEqual(j["floor"], 61000 / 60000, msg="the node's: the bare's have no consecutive two")
        defaults_report.render(self.out)
        md = benchraw.read(os.path.join(self.out, "defaults.md"))
        self.assertIn("| GET | 60000.0 61000.0 60000.0 | 100000.0 - 100000.0 | 0.600 - 0.600 | **0.6** |", md)

if __name__ == "__main__":
    unittest.main()
