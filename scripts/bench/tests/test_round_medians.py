"""The report that judges over rounds: cluster-tls-report.py (make bench-cluster-tls) pairs each round's TLS cluster
with its plaintext one. Known answers, written here."""
import importlib.util
import os
import sys
import unittest

from .rawfiles import TempDirTest, oha_csv

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))  # the report imports benchraw


def load(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, "..", file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


cluster_tls_report = load("cluster_tls_report", "cluster-tls-report.py")


def slice_order(first, second):
    """slices.order of two rounds of PUT then GET slices, the first slice of each in the order first, the second in
    the order second."""
    return ["r%d-%s-%s-rate-s%d" % (n, m, op, k) for n in (1, 2) for op in ("put", "get")
            for k, modes in ((1, first), (2, second)) for m in modes]


class ClusterTlsRoundsTest(unittest.TestCase):
    def test_each_round_pairs_its_own_clusters(self):
        rounds = [{"round": 1, "mode": "plain", "get_p99_ms": 2.0}, {"round": 1, "mode": "tls", "get_p99_ms": 1.0},
                  {"round": 2, "mode": "tls", "get_p99_ms": 1.5}, {"round": 2, "mode": "plain", "get_p99_ms": 1.0},
                  {"round": 3, "mode": "plain", "get_p99_ms": 1.0}, {"round": 3, "mode": "tls", "get_p99_ms": 1.3}]
        ratios = cluster_tls_report.round_ratios(rounds, "get_p99_ms")
        self.assertEqual([0.5, 1.5, 1.3], ratios)
        self.assertEqual(1.3, cluster_tls_report.median(ratios))
        # the ratio of means would call this 1.27x; the rounds say 1.3x
        self.assertEqual(1.5, cluster_tls_report.median([1.0, 2.0]))

    def test_a_round_without_both_modes_is_left_out(self):
        rounds = [{"round": 1, "mode": "plain", "get_p99_ms": 1.0}, {"round": 1, "mode": "tls", "get_p99_ms": None},
                  {"round": 2, "mode": "plain", "get_p99_ms": 1.0}, {"round": 2, "mode": "tls", "get_p99_ms": 1.1}]
        self.assertEqual([1.1], cluster_tls_report.round_ratios(rounds, "get_p99_ms"))


class ClusterTlsSlicesTest(TempDirTest):
    """collect() on raw outputs of two rounds, two slices of 100 requests per cluster and operation: the p99 of a round
    is over its slices' requests, the overall p99 over every round's, and the verdict needs both the overall ratio
    and the rounds' median within the target."""

    def setUp(self):
        super().setUp()
        with open(os.path.join(self.tmp, "env.txt"), "w") as f:
            f.write("date=2026-11-29T00:00:00Z\ncommit=abc1234\ndirty=0\nrounds=2\nslices=2\nslice=10\nnodes=3\n"
                    "reference_rate=5000\nreplicas=2/3\n")
        # GET tails (5% of a round's requests at this many ms, the rest at 1 ms): p99 of the round
        tails = {(1, "plain"): 2.0, (1, "tls"): 2.4, (2, "plain"): None, (2, "tls"): 1.5}
        for (n, mode), tail in tails.items():
            rps = 1000 if mode == "plain" else 900
            self.window("r%d-%s-put" % (n, mode), (rps, rps))
            self.window("r%d-%s-get" % (n, mode), (2000, 2000))
            for k in (1, 2):
                prefix = os.path.join(self.tmp, "oha-r%d-%s-" % (n, mode))
                oha_csv(prefix + "put-rate-s%d.csv" % k, [(i / 100, 1.0, "201") for i in range(100)])
                rows = [(i / 100, tail if tail and i % 20 == 0 else 1.0, "200") for i in range(100)]
                if (n, mode, k) == (2, "tls", 2):
                    rows[50] = (0.5, 1.0, "500")
                oha_csv(prefix + "get-rate-s%d.csv" % k, rows)

    def window(self, name, halves, jit=(0.0, 0.0, 0.0), cpus=(0.0, 0.0), busy=(0, 0), start=1030.0):
        """wrk-NAME.txt and wrk-NAME.marks of a maximum run as the cluster-tls scenario writes them: wrk from 1000 s
        (wall time), its window from start: two halves of 5 s at halves[i] requests a second (10 a second in the
        warm-up); the marks' compile seconds (jit: at the window's start, middle and end; 0 at wrk's start), node
        CPU seconds spent in each half (from 10 s) and the load generator's CPU busy jiffies of 100 in each."""
        lines = ["SECOND %d %d" % (t, 10) for t in range(1000, 1030)]
        lines += ["SECOND %d %d" % (t, halves[(t - 1030) // 5]) for t in range(1030, 1040)]
        with open(os.path.join(self.tmp, "wrk-%s.txt" % name), "w") as f:
            f.write("Requests/sec: 0\n" + "\n".join(lines) + "\n")
        marks = [(1000.0, 0.0, 10.0, 0, 0), (start, jit[0], 10.0, 1000, 10000),
                 (start + 5, jit[1], 10 + cpus[0], 1000 + busy[0], 10100),
                 (start + 10, jit[2], 10 + cpus[0] + cpus[1], 1000 + busy[0] + busy[1], 10200)]
        with open(os.path.join(self.tmp, "wrk-%s.marks" % name), "w") as f:
            f.writelines("%.3f %.3f %.2f %d %d\n" % m for m in marks)

    def collect(self):
        """The report's result, and its rounds by (round, mode)."""
        r = cluster_tls_report.collect(self.tmp)
        return r, {(x["round"], x["mode"]): x for x in r["rounds"]}

    def test_pooled_and_by_round(self):
        r, by = self.collect()
        self.assertEqual(2.0, by[(1, "plain")]["get_p99_ms"])
        self.assertEqual(1.0, by[(2, "plain")]["get_p99_ms"])
        self.assertEqual(200, by[(1, "tls")]["get_rate_requests"])
        self.assertEqual(1, by[(2, "tls")]["get_rate_failed"])
        self.assertEqual(400, r["overall"]["tls"]["get_requests"])
        # every round: plain 10 of 400 requests at 2.0 ms, TLS 10 at 2.4 and 10 at 1.5: the top 1% is 2.4 against 2.0
        self.assertAlmostEqual(1.2, r["cost"]["get"]["p99_ratio"])
        self.assertEqual([1.2, 1.5], [round(v, 2) for v in r["cost"]["get"]["p99_ratios_by_round"]])
        self.assertAlmostEqual(1.35, r["cost"]["get"]["p99_ratio_median"])
        self.assertAlmostEqual(0.1, r["cost"]["put"]["throughput_loss"])
        # each slice of 100 requests has 5 in its tail: its p99 is the tail, or 1 ms without one
        self.assertEqual([2.0, 2.0, 1.0, 1.0], r["overall"]["plain"]["get_slice_p99s_ms"])
        self.assertEqual(1.5, r["overall"]["plain"]["get_slice_p99_median_ms"])
        self.assertEqual(1.95, r["overall"]["tls"]["get_slice_p99_median_ms"])  # 2.4, 2.4, 1.5, 1.5
        self.assertAlmostEqual(1.3, r["cost"]["get"]["slice_p99_median_ratio"])
        md = cluster_tls_report.markdown(r)
        get_line = [line for line in md.splitlines() if line.startswith("- **member TLS, GET**")][0]
        self.assertIn("1.20x (target <= 1.2x: met); by round 1.20x, 1.50x, median 1.35x (target <= 1.2x: **missed**);"
                      " median slice 1.30x (target <= 1.2x: **missed**)", get_line)
        self.assertIn("- GET member TLS: 2.40, 2.40, 1.50, 1.50 (median 1.95)", md)
        self.assertNotIn("client_cost", r, "a run without the client-TLS cluster")

    def test_slices_with_a_flush_are_marked_and_left_out_of_the_quiet_median(self):
        # round 1's slices saw a flush (the counter moved) in both modes; round 2's did not
        for n in (1, 2):
            for mode in ("plain", "tls"):
                for k in (1, 2):
                    with open(os.path.join(self.tmp, "oha-r%d-%s-get-rate-s%d.flush" % (n, mode, k)), "w") as f:
                        f.write("1000 %d\n" % (5000 if n == 1 else 1000))
        r = cluster_tls_report.collect(self.tmp)
        self.assertEqual([True, True, False, False], r["overall"]["tls"]["get_slice_flushed"])
        self.assertEqual(1.0, r["overall"]["plain"]["get_quiet_slice_p99_median_ms"])  # round 2's: 1.0, 1.0
        self.assertEqual(1.5, r["overall"]["tls"]["get_quiet_slice_p99_median_ms"])  # round 2's: 1.5, 1.5
        self.assertAlmostEqual(1.5, r["cost"]["get"]["quiet_slice_p99_median_ratio"])
        self.assertIsNone(r["cost"]["put"]["quiet_slice_p99_median_ratio"])  # PUT slices recorded no counter
        md = cluster_tls_report.markdown(r)
        self.assertIn("- GET member TLS: 2.40*, 2.40*, 1.50, 1.50 (median 1.95; without the * slices 1.50)", md)
        get_line = [line for line in md.splitlines() if line.startswith("- **member TLS, GET**")][0]
        self.assertIn("median slice without a flush 1.50x (shown, not judged)", get_line)
        # the verdict is the three judged views' alone
        self.assertIn("median slice 1.30x (target <= 1.2x: **missed**)", get_line)

    def test_a_run_with_the_client_tls_cluster_judges_its_cost_against_plaintext_beside_the_members(self):
        with open(os.path.join(self.tmp, "env.txt"), "a") as f:
            f.write("modes=plain,tls,client\n")
        for n in (1, 2):  # the client-TLS cluster: 95% of plaintext's PUT throughput, GET tails 2.2 and 1.1 ms
            self.window("r%d-client-put" % n, (950, 950))
            self.window("r%d-client-get" % n, (1900, 1900))
            for k in (1, 2):
                prefix = os.path.join(self.tmp, "oha-r%d-client-" % n)
                oha_csv(prefix + "put-rate-s%d.csv" % k, [(i / 100, 1.0, "201") for i in range(100)])
                tail = 2.2 if n == 1 else 1.1
                oha_csv(prefix + "get-rate-s%d.csv" % k,
                        [(i / 100, tail if i % 20 == 0 else 1.0, "200") for i in range(100)])
        r, by = self.collect()
        self.assertAlmostEqual(0.05, r["client_cost"]["put"]["throughput_loss"])
        self.assertAlmostEqual(0.05, r["client_cost"]["get"]["throughput_loss"])
        self.assertAlmostEqual(1.1, r["client_cost"]["get"]["p99_ratio"])  # 2.2 against 2.0
        self.assertEqual([1.1, 1.1], [round(v, 2) for v in r["client_cost"]["get"]["p99_ratios_by_round"]])
        self.assertAlmostEqual(1.2, r["cost"]["get"]["p99_ratio"], msg="the member TLS cost is the same as before")
        md = cluster_tls_report.markdown(r)
        self.assertIn("Three 3-node clusters", md)
        self.assertIn("| 1 | client TLS | 950 | 1900 |", md)
        client_get = [line for line in md.splitlines() if line.startswith("- **client TLS, GET**")][0]
        self.assertIn("throughput lost 5.0% (target <= 15%: met)", client_get)
        self.assertIn("p99 at the fixed rate 1.10x (target <= 1.2x: met)", client_get)

    def test_client_tls_over_member_tls_is_judged_against_it_beside_the_floors_of_identical_windows(self):
        with open(os.path.join(self.tmp, "env.txt"), "a") as f:
            f.write("modes=plain,tls,client\nclient_base=tls\n")
        # each measured run in two halves: member TLS 900 and 1000 req/s (its floor: 1000/900), client TLS 850, 850
        for n in (1, 2):
            self.window("r%d-tls-put" % n, (900, 1000))
            for op, rps in (("put", 850), ("get", 1900)):
                self.window("r%d-client-%s" % (n, op), (rps, rps))
            for k in (1, 2):
                prefix = os.path.join(self.tmp, "oha-r%d-client-" % n)
                oha_csv(prefix + "put-rate-s%d.csv" % k, [(i / 100, 1.0, "201") for i in range(100)])
                oha_csv(prefix + "get-rate-s%d.csv" % k, [(i / 100, 1.0, "200") for i in range(100)])
        r, by = self.collect()
        self.assertEqual([900.0, 1000.0], by[(1, "tls")]["put_rps_windows"])
        self.assertEqual(950.0, by[(1, "tls")]["put_rps"])
        c = r["client_cost"]["put"]
        self.assertEqual("tls", r["client_cost"]["base"])
        self.assertAlmostEqual(1 - 850 / 950, c["throughput_loss"])  # 10.5% below member TLS
        self.assertAlmostEqual(1000 / 900, c["throughput_floor"])
        # kept 0.895 against 0.85: 5% above the target, inside the floor of 11%
        self.assertEqual("not separable here", c["throughput_verdict"])
        self.assertAlmostEqual(0.15, r["both_cost"]["put"]["throughput_loss"])
        self.assertEqual("plain", r["both_cost"]["base"])
        # GET: member TLS slices 2.4 ms in round 1 and 1.5 in round 2 (floor 1.0x within a round); client 1.0 ms
        g = r["client_cost"]["get"]
        self.assertAlmostEqual(1.0, g["p99_floor"])
        self.assertEqual("met", g["p99_verdict"])
        md = cluster_tls_report.markdown(r)
        line = [x for x in md.splitlines() if x.startswith("- **client TLS, PUT** (against member TLS)")][0]
        self.assertIn("noise floor: throughput +-11.1% (beside the floor: not separable here)", line)
        self.assertIn("its member plane in mutual TLS too", md)
        self.assertTrue(any(x.startswith("- **member and client TLS, GET** (against plaintext)")
                            for x in md.splitlines()))

    def test_each_slices_first_moments_are_left_out_of_the_p99_in_every_mode_and_shown_beside(self):
        # plaintext's round-1 GET slices: their first 10 requests (oha opening its connections) at 50 ms
        for k in (1, 2):
            oha_csv(os.path.join(self.tmp, "oha-r1-plain-get-rate-s%d.csv" % k),
                    [(i / 100, 50.0 if i < 10 else 1.0, "200") for i in range(100)])
        with open(os.path.join(self.tmp, "env.txt"), "a") as f:
            f.write("slice_settle=0.5\nconnections=64\n")
        r, by = self.collect()
        self.assertEqual(1.0, by[(1, "plain")]["get_p99_ms"], "the requests of the first 0.5 s are left out")
        self.assertEqual(100, by[(1, "plain")]["get_rate_requests"])  # 50 of each slice
        self.assertEqual(50.0, r["overall"]["plain"]["get_p99_with_setup_ms"])  # 20 of its 400 requests
        self.assertEqual([1.0, 1.0, 1.0, 1.0], r["overall"]["plain"]["get_slice_p99s_ms"])
        # TLS's tails at 0.6 and 0.8 s count: 2 of its 50 requests a slice
        self.assertEqual(2.4, by[(1, "tls")]["get_p99_ms"])
        md = cluster_tls_report.markdown(r)
        self.assertIn("the p99s are over the requests from 0.5 s into each slice on, in every mode", md)
        get_line = [x for x in md.splitlines() if x.startswith("- **member TLS, GET**")][0]
        self.assertIn("with each slice's first 0.5 s %.2fx (shown, not judged)"
                      % cluster_tls_report.quotient(r["overall"]["tls"]["get_p99_with_setup_ms"], 50.0), get_line)

    def test_no_flush_note_when_no_slice_is_marked(self):
        # raw outputs of a run that recorded no flush counter: nothing marked, so no note about marks
        md = cluster_tls_report.markdown(cluster_tls_report.collect(self.tmp))
        self.assertNotIn("flushed a memtable during the slice", md)
        self.assertNotIn("*", md.split("in the order run:")[1].split("TLS cost:")[0])

    def test_the_window_is_counted_from_wrks_own_seconds_between_the_marks(self):
        # the window starts half a second into a second: half of that second's requests count in the first half
        self.window("r1-tls-put", (900, 1000), start=1030.5)
        r, by = self.collect()
        # first half [1030.5, 1035.5): 4.5 s at 900 and 0.5 s at 1000; second [1035.5, 1040.5): 4.5 at 1000, 0.5 s
        # past wrk's last second (none)
        self.assertEqual([910.0, 900.0], [round(v, 3) for v in by[(1, "tls")]["put_rps_windows"]])

    def test_warm_up_and_jit_per_round(self):
        # compile seconds 4.0 at the window's start (all of it in the warm-up), 4.2 and 4.45 at its middle and end
        self.window("r1-tls-put", (900, 900), jit=(4.0, 4.2, 4.45))
        r, by = self.collect()
        self.assertEqual(30.0, by[(1, "tls")]["put_warmup_s"])
        self.assertAlmostEqual(4.0, by[(1, "tls")]["put_warmup_jit_s"])
        self.assertAlmostEqual(0.45, by[(1, "tls")]["put_window_jit_s"])
        md = cluster_tls_report.markdown(r)
        self.assertIn("| 1 | member TLS | 30 | 4.00 | 0.45 | 30 | 0.00 | 0.00 |", md)

    def cert_run(self, order=None):
        """A run with the client-TLS cluster, whose slices come in pairs without and with a client certificate
        ("cert"): client TLS GET slices' tails 2.0 then 1.0 ms, with a certificate 2.2 then 1.1 (each 1.1x its pair;
        against the other slice 2.2x and 0.55x, against member TLS's 2.4 and 1.5 ms neither). order: the slices in
        the order run (slices.order), by default ABCD DCBA each round and operation, C, D the pair."""
        with open(os.path.join(self.tmp, "env.txt"), "a") as f:
            f.write("modes=plain,tls,client\nrate_modes=plain,tls,client,cert\nclient_base=tls\n"
                    "client_auth=optional\n")
        for n in (1, 2):
            self.window("r%d-client-put" % n, (850, 850))
            self.window("r%d-client-get" % n, (1900, 1900))
            for mode, tails in (("client", (2.0, 1.0)), ("cert", (2.2, 1.1))):
                for k in (1, 2):
                    prefix = os.path.join(self.tmp, "oha-r%d-%s-" % (n, mode))
                    oha_csv(prefix + "put-rate-s%d.csv" % k, [(i / 100, 1.0, "201") for i in range(100)])
                    oha_csv(prefix + "get-rate-s%d.csv" % k,
                            [(i / 100, tails[k - 1] if i % 20 == 0 else 1.0, "200") for i in range(100)])
                    with open(prefix + "get-rate-s%d.cpu" % k, "w") as f:  # 100 requests: 10 or 11 ms of CPU
                        f.write("20.000 0 0 %.3f 0 0\n" % (20 + (0.011 if mode == "cert" else 0.010)))
        if order is None:
            order = slice_order(("plain", "tls", "client", "cert"), ("cert", "client", "tls", "plain"))
        with open(os.path.join(self.tmp, "slices.order"), "w") as f:
            f.write("\n".join(order) + "\n")
        return self.collect()

    def test_client_certificates_are_judged_against_the_same_clusters_slices_without_one_pair_by_pair(self):
        r, by = self.cert_run()
        c = r["cert_cost"]["get"]
        self.assertEqual("client", r["cert_cost"]["base"])
        self.assertAlmostEqual(1.1, c["p99_ratio"])
        # each slice against its own pair: 2.2/2.0 and 1.1/1.0, not 2.2/1.0 or 1.1/2.0 (nor member TLS's slices)
        self.assertEqual([1.1] * 4, [round(v, 6) for v in c["slice_p99_ratios"]])
        self.assertAlmostEqual(1.1, c["slice_p99_ratio_median"])
        self.assertAlmostEqual(1.1, c["rate_cpu_ratio"])  # 110 against 100 us a request, the same cluster's nodes
        self.assertEqual({"adjacent": True, "cert_first": [False, True] * 4, "fair": True}, r["cert_cost"]["pairing"])
        self.assertEqual(2.0, c["p99_floor"])  # consecutive slices of a round: 2.0 -> 1.0 ms
        self.assertEqual("not separable here", c["p99_verdict"])
        self.assertIsNone(c["throughput_loss"])
        self.assertEqual("not measured", c["throughput_verdict"])
        self.assertIsNone(by[(1, "cert")]["put_rps"])
        self.assertNotIn("handshake_failures", by[(1, "cert")], "its cluster's counters are the client-TLS line's")
        self.assertNotIn("mtls_cost", r)
        self.assertEqual(["plain", "tls", "client", "cert"], [x["mode"] for x in r["rounds"] if x["round"] == 1])
        md = cluster_tls_report.markdown(r)
        self.assertIn("Three 3-node clusters", md)
        self.assertIn("--client-auth=optional", md)
        self.assertIn("| 1 | client TLS, client certificates |  |  | 1.00 / 1.00 | 1.00 / 2.20 | 0 |  |  |", md)
        line = [x for x in md.splitlines() if x.startswith("- **client certificates, GET** (against client TLS)")][0]
        self.assertIn("p99 at the fixed rate 1.10x (target <= 1.2x: met)", line)
        self.assertIn("slice by slice (each slice over its pair's without a certificate) 1.10x, 1.10x, 1.10x, 1.10x",
                      line)
        self.assertIn("p99 2.00x (beside the floor: not separable here)", line)
        self.assertIn("pairs: 8, each right beside its slice without a certificate, the certificate first in 4 of "
                      "them, alternating", line)

    def test_client_certificates_are_not_judged_when_their_slices_were_not_paired(self):
        # the pair split by the member-TLS cluster's slice: the two sides saw different moments
        r, _ = self.cert_run(slice_order(("plain", "client", "tls", "cert"), ("plain", "client", "tls", "cert")))
        self.assertFalse(r["cert_cost"]["pairing"]["adjacent"])
        self.assertEqual(cluster_tls_report.NOT_PAIRED, r["cert_cost"]["get"]["p99_verdict"])
        line = [x for x in cluster_tls_report.markdown(r).splitlines()
                if x.startswith("- **client certificates, PUT**")][0]
        self.assertIn("**not adjacent**", line)
        # adjacent but always the certificate second: it would always meet the cluster later than its pair
        r, _ = self.cert_run(slice_order(("plain", "tls", "client", "cert"), ("plain", "tls", "client", "cert")))
        self.assertTrue(r["cert_cost"]["pairing"]["adjacent"])
        self.assertFalse(r["cert_cost"]["pairing"]["fair"])
        self.assertEqual(cluster_tls_report.NOT_PAIRED, r["cert_cost"]["put"]["p99_verdict"])

    def test_the_nodes_cpu_per_request_beside_the_floor_of_identical_windows(self):
        # round 1 sampled the nodes' CPU around each half of the maximum runs and each slice; round 2 (older) did not
        def write(name, text):
            with open(os.path.join(self.tmp, name), "w") as f:
                f.write(text + "\n")
        for mode, halves, slice_cpu in (("plain", (0.5, 0.5), 0.004), ("tls", (0.60, 0.62), 0.008)):
            # 10000 requests in each half; the load generator's CPU busy 80 of 100 jiffies
            self.window("r1-%s-put" % mode, (2000, 2000), cpus=halves, busy=(80, 80))
            for k in (1, 2):  # each slice: 100 requests
                write("oha-r1-%s-put-rate-s%d.cpu" % (mode, k), "20.000 0 0 %.3f 0 0" % (20 + slice_cpu))
        r, by = self.collect()
        self.assertEqual([50.0, 50.0], [round(v, 6) for v in by[(1, "plain")]["put_cpu_us_windows"]])
        self.assertAlmostEqual(61.0, by[(1, "tls")]["put_cpu_us_per_req"])
        self.assertAlmostEqual(0.8, by[(1, "tls")]["put_load_cpu_busy"])
        self.assertAlmostEqual(0.0, by[(2, "tls")]["put_cpu_us_per_req"])  # setUp's windows: no CPU spent
        self.assertAlmostEqual(80.0, by[(1, "tls")]["put_rate_cpu_us_per_req"])
        c = r["cost"]["put"]
        self.assertAlmostEqual(1.22, c["cpu_ratio"])  # round 2 recorded nothing: round 1's alone
        self.assertAlmostEqual(62 / 60, c["cpu_floor"])
        self.assertEqual("higher", c["cpu_change"])
        self.assertAlmostEqual(2.0, c["rate_cpu_ratio"])
        self.assertEqual("higher", c["rate_cpu_change"])
        self.assertIsNone(r["cost"]["get"]["cpu_ratio"])
        md = cluster_tls_report.markdown(r)
        self.assertIn("| 1 | member TLS | 61.0 | 0.0 | 80.0 |  | 80% / 0% |", md)
        line = [x for x in md.splitlines() if x.startswith("- **member TLS, PUT**")][0]
        self.assertIn("; the nodes' CPU per request at the maximum 1.22x (floor 1.03x: higher), at the fixed rate "
                      "2.00x (floor 1.00x: higher)", line)
        get_line = [x for x in md.splitlines() if x.startswith("- **member TLS, GET**")][0]
        self.assertNotIn("CPU per request", get_line)

    def test_the_header_says_where_the_nodes_and_the_load_ran_when_pinned(self):
        self.assertNotIn("taskset", cluster_tls_report.markdown(cluster_tls_report.collect(self.tmp)))
        with open(os.path.join(self.tmp, "env.txt"), "a") as f:
            f.write("node_cpus=1\nload_cpus=0\n")
        self.assertIn("The nodes ran on CPU 1, the load generators (wrk, oha: their TLS too) and the bench on CPU 0",
                      cluster_tls_report.markdown(cluster_tls_report.collect(self.tmp)))

    def test_the_header_says_the_memtables_were_flushed_only_when_they_were(self):
        self.assertNotIn("flushed its memtables", cluster_tls_report.markdown(cluster_tls_report.collect(self.tmp)))
        with open(os.path.join(self.tmp, "env.txt"), "a") as f:
            f.write("flushed_before_rate=1\n")
        self.assertIn("before them every member of both clusters flushed its memtables",
                      cluster_tls_report.markdown(cluster_tls_report.collect(self.tmp)))


if __name__ == "__main__":
    unittest.main()
