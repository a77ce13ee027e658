"""cluster-report.py (make bench-cluster, scenarios/cluster.json) on the raw outputs of a recorded run
(testdata/runs/cluster/raw: a 10-s smoke run of the scenario, the wrk commands' first line removed, the metrics cut to
the samples the report sums): the cluster/single ratios, the oha tables, the reference-rate p99 ratios, replication
counted over the three members only (node3 is the single node), and the noise floor of an A/B of the same commit."""
import json
import os
import unittest

from .rawfiles import RecordedRunTest, report_module

cluster_report = report_module("cluster")


class ClusterReportTest(RecordedRunTest):
    RUN = "cluster"

    def test_the_recorded_run_gives_its_ratios_tables_and_replication(self):
        r, md = self.run_report(cluster_report, "cluster")
        self.assertAlmostEqual(r["ratios"]["put"], 5341.29 / 24856.70)
        self.assertAlmostEqual(r["ratios"]["get"], 9265.68 / 36980.18)
        self.assertIn("| PUT | **21%** | >= 40% |", md)
        self.assertIn("| cluster-put | 3738 | 3735 |", md, "the fixed rate: 0.7 x the cluster's wrk maximum")
        self.assertIn("| single-get-ref | 500 | 500 |", md)
        ratio = self.oha_p99_ms("cluster-put-ref") / self.oha_p99_ms("single-put-ref")
        self.assertIn("cluster / single node p99 = **%.2fx**" % ratio, md)
        # the three members' samples, not the single node's (node3-metrics.txt)
        self.assertEqual(r["metrics"]["replica_calls_ok"], 367111.0)
        self.assertEqual(r["metrics"]["write_groups"], 67264.0)
        self.assertIn("| 154761 | 67264 | 4.5 | 260 |", md)
        self.assertIn("Noise floor: not measured", md)
        for svg in ("cluster-throughput.svg", "cluster-latency.svg"):
            self.assertTrue(os.path.exists(os.path.join(self.tmp, svg)), svg)

    def test_the_noise_floor_of_an_ab_of_the_same_commit_is_stated(self):
        os.makedirs(os.path.join(self.tmp, "ab"))
        windows = [{"shape": "cluster", "case": "put-closed", "side": "head", "round": i + 1, "figures": {"rps": v}}
                   for i, v in enumerate((5000.0, 5500.0))]
        with open(os.path.join(self.tmp, "ab", "base000-vs-a0f3615.json"), "w") as f:
            json.dump({"windows": windows}, f)
        _, md = self.run_report(cluster_report, "cluster")
        self.assertIn("The A/B of this build, [ab/base000-vs-a0f3615.md]", md)
        self.assertIn("3 members PUT +-10.0%, GET not measured", md)


if __name__ == "__main__":
    unittest.main()
