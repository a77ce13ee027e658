"""node-report.py (make bench-node, scenarios/node.json) on the raw outputs of a recorded run (testdata/runs/node/raw:
a 5-s smoke run of the scenario, the wrk commands' first line and the profiles' library paths removed): wrk's and
oha's figures read through benchraw.py, the node/ceiling ratios, the p99 ratios, the k6 rows, the profile breakdown,
and the noise floor taken from an A/B of the same commit (a figure inside it: "not separable here")."""
import json
import os
import unittest

from .rawfiles import RecordedRunTest, report_module

node_report = report_module("node")


class NodeReportTest(RecordedRunTest):
    RUN = "node"

    def run_report(self):
        return super().run_report(node_report, "node")

    def test_the_recorded_run_gives_its_ratios_tables_and_profiles(self):
        r, md = self.run_report()
        self.assertTrue(r["smoke_run"], "5-s windows are a smoke run")
        self.assertIn("Smoke run", md)
        self.assertAlmostEqual(r["wrk"]["node-put"]["rps"], 21092.08)
        self.assertAlmostEqual(r["ratios"]["put"], 21092.08 / 40488.07)
        self.assertAlmostEqual(r["ratios"]["get"], 40513.20 / 76343.84)
        self.assertIn("**PUT: node/ceiling = 52.1%** (target >= 75%: misses by 22.9 points)", md)
        self.assertIn("| node-put | 21092 |", md)
        for op in ("put", "get", "put-ref", "get-ref"):
            self.assertAlmostEqual(r["p99_ratio_vs_bare"][op],
                                   self.oha_p99_ms("node-" + op) / self.oha_p99_ms("bare-" + op))
        env = r["environment"]
        self.assertEqual((env["rate_put"], env["rate_get"]), ("14764", "28359"))
        self.assertIn("| node-put-ref | 2000 | ", md)
        self.assertEqual(r["k6"]["node-get"]["rate_target"], 28359)
        self.assertIn("| node-get | 28359 |", md.split("## 4.")[1])
        p = r["profiles"]["node-put"]
        with open(os.path.join(self.raw, "profile-node-put-cpu-collapsed.txt")) as f:
            samples = sum(int(line.rsplit(" ", 1)[1]) for line in f if line.strip())
        self.assertEqual(p["samples"], samples)
        self.assertAlmostEqual(sum(p["share"].values()), 1.0)
        self.assertNotIn("one-nio native sockets | true", md, "no node log recorded: not claimed")
        self.assertIn("noise floor | not measured", md)
        self.assertTrue(os.path.exists(os.path.join(self.tmp, "node-throughput.svg")))

    def test_the_noise_floor_of_an_ab_of_the_same_commit_judges_the_ratios(self):
        os.makedirs(os.path.join(self.tmp, "ab"))
        windows = []
        # node and bare closed-model PUT: rounds 1.0 -> 1.8 apart at most: a floor of +-80% holds 52.1% of 75%
        for side, values in (("head", (20000.0, 36000.0)), ("bare", (40000.0, 41000.0))):
            for i, v in enumerate(values):
                windows.append({"shape": "single", "case": "put-closed", "side": side, "round": i + 1,
                                "figures": {"rps": v}})
        with open(os.path.join(self.tmp, "ab", "base000-vs-5b9b285.json"), "w") as f:
            json.dump({"windows": windows}, f)
        r, md = self.run_report()
        self.assertEqual(r["environment"]["commit"], "5b9b285")
        self.assertIn("noise floor +-80.0%: not separable here", md)
        self.assertIn("[ab/base000-vs-5b9b285.md]", md)
        self.assertRegex(md, r"GET: node/ceiling = [\d.]+%\*\* \(target >= 85%: misses by [\d.]+ points\), noise "
                             r"floor not measured\n")

    def test_render_again_from_the_json(self):
        self.run_report()
        os.remove(os.path.join(self.tmp, "node.md"))
        node_report.sys.argv = ["node-report.py", "--render", self.tmp]
        node_report.main()
        with open(os.path.join(self.tmp, "node.md")) as f:
            self.assertIn("| bare-get | 76344 |", f.read())


if __name__ == "__main__":
    unittest.main()
