"""scale-report.py (make bench-scale) on raw outputs written here with known answers: the load cut into phases at
the timeline's marks, each p99 against the one before the scale-up judged by the run's own noise floor (that phase in
two identical windows), and a move's figures from its movement samples."""
import importlib.util
import json
import os
import unittest

from .rawfiles import RawRunTest, oha_csv

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("scale_report", os.path.join(HERE, "..", "scale-report.py"))
scale_report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(scale_report)

T0 = 1_800_000_000_000  # ms
MARKS = {"load_start": 0, "up_file": 20, "up_started": 22, "up_idle": 30, "down_file": 50, "down_idle": 56,
         "down_stopped": 58, "load_end": 78}  # seconds from T0
ENV = "date=2026-11-26T00:00:00Z\nload_before=0.1 0.2 0.3\nnproc=2\ncommit=abc1234\ndirty=0\nkeys=1000\n" \
      "key_digits=4\nrate=20\nphase=20\nreplicas=2/3\n"


class ScaleReportTest(RawRunTest):
    def write(self, late_before_put_ms):
        self.write_raw(ENV, {k: T0 + v * 1000 for k, v in MARKS.items()})
        # 10 PUTs and 10 GETs a second: PUTs 2 ms (the second half of "before": late_before_put_ms), 6 ms during
        # the scale-up; GETs 1 ms
        puts, gets = [], []
        for k in range(780):
            t = k / 10.0
            ms = 6.0 if 20 <= t < 30 else late_before_put_ms if 10 <= t < 20 else 2.0
            puts.append((t, ms, "201"))
            gets.append((t, 1.0, "200" if k % 2 else "404"))
        oha_csv(os.path.join(self.raw, "load-put.csv"), puts)
        oha_csv(os.path.join(self.raw, "load-get.csv"), gets)
        # the scale-up's movement: node 0 sends 1,000 records (2 MB) between +24 s and +26 s
        with open(os.path.join(self.raw, "watch-up.jsonl"), "w") as f:
            for k in range(40):
                t = T0 + 20_000 + k * 250
                sent = min(1000, max(0, (t - T0 - 24_000) // 2)) if t >= T0 + 24_000 else 0
                node = {"keys": {"sent": sent, "received": 0}, "bytes": {"sent": sent * 2000},
                        "topology": {"stage": "joint" if t >= T0 + 23_000 else "stable"}}
                f.write(json.dumps({"t": t, "nodes": {"n0": node}}) + "\n")
        return self.run_report(scale_report, "scale")

    def test_phases_judged_against_the_runs_noise_floor(self):
        result, md = self.write(late_before_put_ms=2.0)
        load = result["load"]
        self.assertEqual(load["before scale-up"]["put"]["requests"], 200)
        self.assertEqual(result["noise"]["put_p99_floor"], 1.0)
        self.assertEqual(load["during 3 -> 5"]["put"]["p99_over_before"], 3.0)
        self.assertEqual(load["during 3 -> 5"]["put"]["p99_change"], "higher")
        self.assertEqual(load["after scale-up"]["put"]["p99_change"], "not separable here")
        self.assertIn("| 3.00x (higher) |", md)
        up = result["moves"]["3 -> 5"]
        self.assertEqual(up["duration_s"], 10.0)
        self.assertEqual(up["records_sent"], 1000)
        self.assertEqual(up["to_joint_s"], 3.0)

    def test_a_change_inside_a_noisy_runs_floor_is_not_separable_here(self):
        # "before" at 2 ms, then 4 ms: the floor is 2x; 6 ms during the scale-up is 1.5x the 4 ms p99 before
        result, md = self.write(late_before_put_ms=4.0)
        self.assertEqual(result["noise"]["put_p99_floor"], 2.0)
        self.assertEqual(result["load"]["during 3 -> 5"]["put"]["p99_over_before"], 1.5)
        self.assertEqual(result["load"]["during 3 -> 5"]["put"]["p99_change"], "not separable here")
        self.assertIn("differ by up to 2.00x (PUT)", md)


if __name__ == "__main__":
    unittest.main()
