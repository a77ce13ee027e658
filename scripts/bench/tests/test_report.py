"""The report generator (report.py, matplotlib) on recorded runs (testdata/runs): one run, and two side by side."""
import json
import os
import shutil
import unittest
import xml.etree.ElementTree as ET

import report

from .rawfiles import TempDirTest

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "runs")
TAPES = ("put-unique", "put-overwrite", "get-uniform", "get-recent", "mixed")


def svg_lines(path):
    """The polylines matplotlib drew (paths with a stroke), a check that the plot holds data."""
    root = ET.parse(path).getroot()
    return [e for e in root.iter() if e.tag.endswith("path") and "stroke-linecap" in (e.get("style") or "")]


class ReportTest(TempDirTest):
    def setUp(self):
        super().setUp()
        for run in ("const", "ramp"):
            shutil.copytree(os.path.join(DATA, run), os.path.join(self.tmp, run))

    def summary(self, run):
        with open(os.path.join(self.tmp, run, "summary.json"), encoding="utf-8") as f:
            return json.load(f)

    def test_one_run_gets_a_table_of_every_tape_and_two_plots(self):
        path = report.main(["--results", self.tmp, "const"])
        self.assertEqual(path, os.path.realpath(os.path.join(self.tmp, "const", "report.md")))
        with open(os.path.join(self.tmp, "const", "report.md"), encoding="utf-8") as f:
            md = f.read()
        s = self.summary("const")
        for tape in TAPES:
            e = s["tapes"][tape]
            # the row carries k6's figures for the tape, as summary.json has them
            self.assertIn("| %s | 50 | %d | %.3f |" % (tape, round(e["rps"]), e["p50_ms"]), md)
        self.assertIn("![latency by percentile](latency.svg)", md)
        self.assertIn("![rate and p99 over time](rate-p99.svg)", md)
        self.assertNotIn("saturation point", md)  # a const run has none
        lat = os.path.join(self.tmp, "const", "latency.svg")
        self.assertGreaterEqual(len(svg_lines(lat)), len(TAPES))  # a line per tape
        ts = os.path.join(self.tmp, "const", "rate-p99.svg")
        self.assertGreaterEqual(len(svg_lines(ts)), 2 * len(TAPES))  # rate and p99 of every tape

    def test_a_ramp_reports_its_saturation_point(self):
        report.main(["--results", self.tmp, "ramp"])
        with open(os.path.join(self.tmp, "ramp", "report.md"), encoding="utf-8") as f:
            md = f.read()
        sat = self.summary("ramp")["tapes"]["put-unique"]["saturation"]
        self.assertTrue(sat["reached"])
        self.assertIn("| saturation point |", md)
        self.assertIn("%d req/s (%s)" % (round(sat["rate"]), sat["reason"]), md)

    def test_two_runs_side_by_side(self):
        out = os.path.join(self.tmp, "cmp")
        report.main(["--results", self.tmp, "--out", out, "const", "ramp"])
        with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
            md = f.read()
        a, b = self.summary("const")["tapes"], self.summary("ramp")["tapes"]
        self.assertIn("# Benchmark comparison: const vs ramp", md)
        change = (b["put-unique"]["p99_ms"] - a["put-unique"]["p99_ms"]) * 100.0 / a["put-unique"]["p99_ms"]
        self.assertIn("| p99 ms | %.3f | %.3f (%+.0f%%) |" % (a["put-unique"]["p99_ms"], b["put-unique"]["p99_ms"],
                                                             change), md)
        # a tape only the first run has still gets its section, '-' for the other run
        self.assertIn("## mixed", md)
        self.assertIn("| p99 ms | %.3f | - |" % a["mixed"]["p99_ms"], md)
        for tape in TAPES:
            self.assertTrue(os.path.getsize(os.path.join(out, "latency-%s.svg" % tape)) > 0)
            self.assertTrue(os.path.exists(os.path.join(out, "rate-p99-%s.svg" % tape)))

    def test_an_unknown_run_is_refused_with_its_name(self):
        with self.assertRaises(SystemExit) as e:
            report.main(["--results", self.tmp, "no-such-run"])
        self.assertIn("no-such-run", str(e.exception))


if __name__ == "__main__":
    unittest.main()
