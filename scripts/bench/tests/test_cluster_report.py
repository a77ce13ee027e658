"""cluster-report.py (make bench-cluster, scenarios/cluster.json) on the raw outputs of a recorded run
(testdata/runs/cluster/raw: a 10-s smoke run of the scenario, the wrk commands' first line removed, the metrics cut to
the samples the report sums, its windows named as round 1 and a synthetic round 2 beside them): the cluster/single
ratios judged over the rounds against issue 52's targets and their own noise floor, the oha tables, the
reference-rate p99 ratios, replication counted over the three members only (node3 is the single node)."""
import os
import re
import shutil
import unittest

from .rawfiles import RecordedRunTest, report_module

cluster_report = report_module("cluster")


class ClusterReportTest(RecordedRunTest):
    RUN = "cluster"

    def test_the_recorded_run_gives_its_ratios_tables_and_replication(self):
        r, md = self.run_report(cluster_report, "cluster")
        put = r["judged"]["put"]
        self.assertEqual(put["ratios"], [5341.29 / 24856.70, 5200.0 / 25500.0])
        self.assertAlmostEqual(r["ratios"]["get"], (9265.68 / 36980.18 + 9500.0 / 36000.0) / 2)
        self.assertAlmostEqual(put["floor"], 5341.29 / 5200.0, msg="the cluster's change, larger than the single's")
        self.assertEqual((put["target"], r["judged"]["get"]["target"]), (0.42, 0.50))
        self.assertIn("| PUT | 21.5% 20.4% | **20.9%** | +-2.7% | >= 42% | missed |", md)
        self.assertIn("| GET | 25.1% 26.4% | **25.7%** | +-2.7% | >= 50% | missed |", md)
        self.assertIn("| cluster-put | 3738 | 3735 |", md, "the fixed rate: 0.7 x the cluster's wrk maximum")
        self.assertIn("| single-get-ref-2 | 500 | 500 |", md)
        ratios = [self.oha_p99_ms("cluster-put-ref-%d" % i) / self.oha_p99_ms("single-put-ref-%d" % i) for i in (1, 2)]
        self.assertIn("| PUT p99 | %.2fx %.2fx | **%.2fx** | +-10.0%% | the single node's (1x) | the cluster's higher, "
                      "beyond the floor |" % (ratios[0], ratios[1], sum(ratios) / 2), md)
        # the three members' samples, not the single node's (node3-metrics.txt)
        self.assertEqual(r["metrics"]["replica_calls_ok"], 367111.0)
        self.assertEqual(r["metrics"]["write_groups"], 67264.0)
        self.assertIn("| 154761 | 67264 | 4.5 | 260 |", md)
        self.assertNotIn("not measured", md)
        for svg in ("cluster-throughput.svg", "cluster-latency.svg"):
            self.assertTrue(os.path.exists(os.path.join(self.tmp, svg)), svg)

    def with_rps(self, **rps):
        """The recorded raw outputs copied, the wrk windows named (single_put_1=...) given another req/s."""
        raw = os.path.join(self.tmp, "raw")
        shutil.copytree(self.raw, raw)
        self.raw, self.out = raw, os.path.join(self.tmp, "out")
        os.makedirs(self.out)
        for name, v in rps.items():
            path = os.path.join(raw, "wrk-%s.txt" % name.replace("_", "-"))
            with open(path) as f:
                text = re.sub(r"Requests/sec:\s+[\d.]+", "Requests/sec:  %.2f" % v, f.read())
            with open(path, "w") as f:
                f.write(text)

    def test_a_target_met_beyond_the_floor_and_one_inside_it(self):
        # PUT 0.50 and 0.49 of one node: above 0.42 on both rounds, beyond a 2% floor; GET 0.48 and 0.56 around
        # 0.50 with the cluster's rounds 17% apart: not separable
        self.with_rps(single_put_1=20000, cluster_put_1=10000, single_put_2=20000, cluster_put_2=9800,
                      single_get_1=30000, cluster_get_1=14400, single_get_2=30000, cluster_get_2=16800)
        r, md = self.run_report(cluster_report, "cluster")
        self.assertEqual(r["judged"]["put"]["target_verdict"], "met")
        self.assertEqual(r["judged"]["get"]["target_verdict"], "not separable here")
        self.assertIn("| PUT | 50.0% 49.0% | **49.5%** | +-2.0% | >= 42% | met |", md)
        self.assertIn("| GET | 48.0% 56.0% | **52.0%** | +-16.7% | >= 50% | not separable here (the median meets it) |",
                      md)

    def test_a_missing_round_is_shown_not_judged(self):
        self.with_rps()
        os.remove(os.path.join(self.raw, "wrk-cluster-put-2.txt"))
        r, md = self.run_report(cluster_report, "cluster")
        self.assertEqual(r["judged"]["put"]["ratios"][1], None)
        self.assertEqual(r["judged"]["put"]["verdict"], "not separable here", "one round left: nothing to judge by")
        self.assertIn("| cluster-put-2 | (no result) |", md)


if __name__ == "__main__":
    unittest.main()
