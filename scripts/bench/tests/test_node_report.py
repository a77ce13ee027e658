"""node-report.py (make bench-node, scenarios/node.json) on the raw outputs of a recorded run (testdata/runs/node/raw:
a 5-s smoke run of the scenario, the wrk commands' first line and the profiles' library paths removed, its windows
named as round 1 and a synthetic round 2 beside them (the same text with another req/s, the p99 scaled)): wrk's and
oha's figures read through benchraw.py, the node/ceiling ratios and the reference-rate p99 ratios judged over the
rounds against their own noise floor (a target inside it: "not separable here"), the k6 rows, the profile breakdown."""
import os
import re
import shutil
import unittest

from .rawfiles import RecordedRunTest, report_module

node_report = report_module("node")


class NodeReportTest(RecordedRunTest):
    RUN = "node"

    def report(self):
        return self.run_report(node_report, "node")

    def test_the_recorded_run_gives_its_ratios_tables_and_profiles(self):
        r, md = self.report()
        self.assertTrue(r["smoke_run"], "5-s windows are a smoke run")
        self.assertIn("Smoke run", md)
        self.assertEqual(r["rounds"], 2)
        self.assertAlmostEqual(r["wrk"]["node-put-1"]["rps"], 21092.08)
        put = r["judged"]["put"]
        self.assertAlmostEqual(put["ratios"][0], 21092.08 / 40488.07)
        self.assertAlmostEqual(put["ratios"][1], 20500.0 / 41000.0)
        self.assertAlmostEqual(r["ratios"]["put"], (21092.08 / 40488.07 + 0.5) / 2, msg="the median of two rounds")
        self.assertAlmostEqual(put["floor"], 21092.08 / 20500.0, msg="the node's change, larger than the bare's")
        self.assertEqual(put["target_verdict"], "missed")
        self.assertIn("| PUT | 52.1% 50.0% | **51.0%** | +-2.9% | >= 75% | missed |", md)
        self.assertIn("| node-put-1 | 21092 |", md)
        self.assertIn("| node-put-2 | 20500 |", md)
        for op in ("put", "get"):
            self.assertAlmostEqual(r["p99_ratio_vs_bare"][op],
                                   self.oha_p99_ms("node-" + op) / self.oha_p99_ms("bare-" + op))
        ref = r["judged"]["put-ref"]
        for i in (0, 1):
            self.assertAlmostEqual(ref["ratios"][i], self.oha_p99_ms("node-put-ref-%d" % (i + 1))
                                   / self.oha_p99_ms("bare-put-ref-%d" % (i + 1)))
        self.assertAlmostEqual(ref["floor"], 1.1)  # the node's round 2: its round 1's p99 x 1.1
        self.assertEqual(ref["verdict"], "better", "0.68x and 0.79x: below 1 beyond a 10% floor")
        self.assertIn("| PUT p99 | 0.68x 0.79x | **0.74x** | +-10.0% | the bare server's (1x) | the node's lower, "
                      "beyond the floor |", md)
        env = r["environment"]
        self.assertEqual((env["rate_put"], env["rate_get"]), ("14764", "28359"))
        self.assertIn("| node-put-ref-1 | 2000 | ", md)
        self.assertEqual(r["k6"]["node-get"]["rate_target"], 28359)
        self.assertIn("| node-get | 28359 |", md.split("## 4.")[1])
        p = r["profiles"]["node-put"]
        with open(os.path.join(self.raw, "profile-node-put-cpu-collapsed.txt")) as f:
            samples = sum(int(line.rsplit(" ", 1)[1]) for line in f if line.strip())
        self.assertEqual(p["samples"], samples)
        self.assertAlmostEqual(sum(p["share"].values()), 1.0)
        self.assertNotIn("one-nio native sockets | true", md, "no node log recorded: not claimed")
        self.assertNotIn("not measured", md)
        self.assertTrue(os.path.exists(os.path.join(self.tmp, "node-throughput.svg")))

    def copy_raw(self):
        """The recorded raw outputs in a directory of the test's own, to change."""
        raw = os.path.join(self.tmp, "raw")
        shutil.copytree(self.raw, raw)
        self.raw, self.out = raw, os.path.join(self.tmp, "out")
        os.makedirs(self.out)

    def set_rps(self, name, rps):
        path = os.path.join(self.raw, "wrk-%s.txt" % name)
        with open(path) as f:
            text = re.sub(r"Requests/sec:\s+[\d.]+", "Requests/sec:  %.2f" % rps, f.read())
        with open(path, "w") as f:
            f.write(text)

    def test_a_target_met_on_every_round_beyond_the_floor_is_met(self):
        self.copy_raw()
        for name, rps in (("node-put-1", 32000.0), ("bare-put-1", 40000.0), ("node-put-2", 33000.0),
                          ("bare-put-2", 40500.0)):
            self.set_rps(name, rps)
        r, md = self.report()
        put = r["judged"]["put"]
        self.assertEqual(put["ratios"], [0.8, 33000.0 / 40500.0])
        self.assertAlmostEqual(put["floor"], 33000.0 / 32000.0)
        self.assertEqual(put["target_verdict"], "met")
        self.assertIn("| PUT | 80.0% 81.5% | **80.7%** | +-3.1% | >= 75% | met |", md)

    def test_a_ratio_inside_the_floor_is_not_separable_here(self):
        self.copy_raw()
        # node/bare 0.70 then 0.85 around the 0.75 target: the node's rounds 28000 and 34000 are 21% apart
        for name, rps in (("node-put-1", 28000.0), ("bare-put-1", 40000.0), ("node-put-2", 34000.0),
                          ("bare-put-2", 40000.0)):
            self.set_rps(name, rps)
        r, md = self.report()
        self.assertEqual(r["judged"]["put"]["target_verdict"], "not separable here")
        self.assertIn("| PUT | 70.0% 85.0% | **77.5%** | +-21.4% | >= 75% | not separable here (the median meets it) |",
                      md)
        # beyond the target on every round, but the median by less than the floor: not separable either
        for name, rps in (("node-put-1", 31000.0), ("node-put-2", 36000.0)):
            self.set_rps(name, rps)
        r, md = self.report()
        self.assertEqual(r["judged"]["put"]["ratios"], [0.775, 0.9])
        self.assertEqual(r["judged"]["put"]["target_verdict"], "not separable here")

    def test_a_missing_round_is_shown_and_the_others_judged(self):
        self.copy_raw()
        os.remove(os.path.join(self.raw, "wrk-bare-get-2.txt"))
        os.remove(os.path.join(self.raw, "oha-node-get-ref-2.json"))
        r, md = self.report()
        self.assertIsNone(r["wrk"]["bare-get-2"])
        get = r["judged"]["get"]
        self.assertIsNone(get["ratios"][1])
        self.assertAlmostEqual(get["ratio"], 40513.20 / 76343.84, msg="the one round left")
        self.assertEqual(get["target_verdict"], "not separable here", "one round cannot be judged")
        self.assertIn("| bare-get-2 | (no result) |", md)
        self.assertIn("| node-get-ref-2 | 2000 | (no result) |", md)
        self.assertRegex(md, r"\| GET \| 53\.1% - \| \*\*53\.1%\*\* \| \+-1\.8% \| >= 85% \| not separable here \(the "
                             r"median misses it\) \|")
        self.assertRegex(md, r"\| GET p99 \| [\d.]+x - \| ")

    def test_render_again_from_the_json(self):
        self.assert_renders_again(node_report, "node")
        with open(os.path.join(self.tmp, "node.md")) as f:
            self.assertIn("| bare-get-1 | 76344 |", f.read())


if __name__ == "__main__":
    unittest.main()
