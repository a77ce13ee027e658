"""The runner's parsing, on recorded k6 outputs (testdata/): per-second series, spectrum, saturation point."""
import json
import os
import unittest

from harness import load
from runner import k6, series
from runner.cli import parse_nodes

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata")


def recorded(run, tape):
    raw = os.path.join(DATA, "runs", run, "raw", tape)
    with open(raw + ".k6.json", encoding="utf-8") as f:
        return series.read_k6_csv(raw + ".k6.csv.gz"), json.load(f)


class RecordedConstRun(unittest.TestCase):
    def test_every_request_of_k6s_summary_is_in_the_series(self):
        for tape in ("put-unique", "put-overwrite", "get-uniform", "get-recent", "mixed"):
            with self.subTest(tape=tape):
                samples, summary = recorded("const", tape)
                rows = series.per_second(samples, series.ramp_target("const", 50, 1, 3))
                self.assertGreater(summary["requests"], 100)
                self.assertEqual(sum(r["rps"] for r in rows), summary["requests"])
                self.assertEqual(sum(r["errors"] for r in rows), summary["errors"])
                self.assertEqual(sum(r["dropped"] for r in rows), summary["dropped"])
                # consecutive seconds, numbered from 0, each at the constant target
                self.assertEqual([r["t_s"] for r in rows], list(range(len(rows))))
                self.assertTrue(all(r["target_rps"] == 50.0 for r in rows))

    def test_spectrum_agrees_with_k6s_own_percentiles(self):
        samples, summary = recorded("const", "get-uniform")
        spec = dict((p, v) for p, v in series.spectrum(samples))
        self.assertEqual(spec[100], summary["max_ms"])
        # k6 interpolates between ranks, the runner takes the nearest rank: equal to within a neighbour's gap
        d = samples.all_durations()
        for p, key in ((50, "p50_ms"), (90, "p90_ms"), (99, "p99_ms")):
            i = d.index(spec[p])
            self.assertLessEqual(d[max(0, i - 1)], summary[key])
            self.assertGreaterEqual(d[min(len(d) - 1, i + 1)], summary[key])
        self.assertEqual([p for p, _ in series.spectrum(samples)], list(series.SPECTRUM))
        values = [v for _, v in series.spectrum(samples)]
        self.assertEqual(values, sorted(values))

    def test_the_series_file_written_by_the_run_reads_back_as_parsed(self):
        samples, _ = recorded("const", "mixed")
        rows = series.per_second(samples, series.ramp_target("const", 50, 1, 3))
        stored = series.read_series(os.path.join(DATA, "runs", "const", "mixed.series.csv"))
        self.assertEqual(len(stored), len(rows))
        for a, b in zip(stored, rows):
            self.assertEqual(a["rps"], b["rps"])
            self.assertAlmostEqual(a["p99_ms"], b["p99_ms"], places=3)


class RecordedErrors(unittest.TestCase):
    def test_failed_requests_are_counted_per_second(self):
        raw = os.path.join(DATA, "k6", "get-uniform-404.k6")
        samples = series.read_k6_csv(raw + ".csv.gz")
        with open(raw + ".json", encoding="utf-8") as f:
            summary = json.load(f)
        rows = series.per_second(samples)
        self.assertGreater(summary["errors"], 0)  # every GET of a key never written is a 404
        self.assertEqual(summary["errors"], summary["requests"])
        self.assertEqual(sum(r["errors"] for r in rows), summary["errors"])
        sat = series.saturation(rows, p99_ms=1e9, error_rate=0.01, hold=2)
        self.assertTrue(sat["reached"])
        self.assertIn("error rate", sat["reason"])

    def test_a_file_that_is_not_k6_csv_is_refused(self):
        with self.assertRaises(ValueError):
            series.read_k6_csv(os.path.join(DATA, "runs", "const", "mixed.series.csv"))


class RecordedRamp(unittest.TestCase):
    def test_target_rises_linearly_and_the_recorded_saturation_is_reproduced(self):
        samples, summary = recorded("ramp", "put-unique")
        with open(os.path.join(DATA, "runs", "ramp", "summary.json"), encoding="utf-8") as f:
            run = json.load(f)
        p = run["params"]
        rows = series.per_second(samples, series.ramp_target("ramp", p["rate"], p["start_rate"], p["duration_s"]))
        targets = [r["target_rps"] for r in rows]
        self.assertEqual(targets, sorted(targets))
        self.assertEqual(targets[-1], p["rate"])
        self.assertEqual(sum(r["dropped"] for r in rows), summary["dropped"])
        sat = series.saturation(rows, p["saturation"]["p99_ms"], p["saturation"]["error_rate"],
                                p["saturation"]["hold_s"], p["duration_s"], p["saturation"]["min_responses"])
        self.assertEqual(sat, run["tapes"]["put-unique"]["saturation"])


def row(t, p99, rps=100, errors=0, dropped=0, target=None):
    return {"t_s": t, "epoch_s": 1000 + t, "target_rps": target if target is not None else 10.0 * (t + 1),
            "rps": rps, "errors": errors, "dropped": dropped, "p50_ms": p99 / 4, "p90_ms": p99 / 2, "p99_ms": p99,
            "max_ms": p99 * 2}


class Saturation(unittest.TestCase):
    def test_a_lone_slow_second_is_not_the_saturation_point(self):
        rows = [row(0, 1), row(1, 50), row(2, 1), row(3, 1), row(4, 20), row(5, 30), row(6, 40), row(7, 50)]
        sat = series.saturation(rows, p99_ms=10, error_rate=0.01, hold=3)
        self.assertTrue(sat["reached"])
        self.assertEqual(sat["t_s"], 4)
        self.assertEqual(sat["rate"], 50.0)
        self.assertIn("p99 20.00 ms > 10 ms", sat["reason"])

    def test_the_p99_of_a_second_with_few_responses_does_not_count(self):
        rows = [row(t, 50, rps=20) for t in range(5)] + [row(t, 50, rps=150) for t in range(5, 8)]
        sat = series.saturation(rows, p99_ms=10, error_rate=0.01, hold=3, min_responses=100)
        self.assertEqual(sat["t_s"], 5)
        self.assertEqual(series.saturation(rows, 10, 0.01, 3, min_responses=10)["t_s"], 0)

    def test_dropped_arrivals_count_as_errors(self):
        rows = [row(t, 1, rps=90, dropped=10) for t in range(3)]
        sat = series.saturation(rows, p99_ms=10, error_rate=0.05, hold=3)
        self.assertTrue(sat["reached"])
        self.assertIn("error rate 10.00% > 5%", sat["reason"])

    def test_not_reached_says_how_far_the_ramp_went(self):
        rows = [row(t, 1) for t in range(5)] + [row(5, 99), row(6, 99), row(7, 99)]
        sat = series.saturation(rows, p99_ms=10, error_rate=0.01, hold=3, duration_s=5)
        self.assertFalse(sat["reached"])
        self.assertIsNone(sat["rate"])
        self.assertEqual(sat["max_target_rps"], 80.0)  # the seconds past the ramp are looked at for the range only


class Arguments(unittest.TestCase):
    def test_durations(self):
        self.assertEqual(k6.parse_duration("45s"), 45)
        self.assertEqual(k6.parse_duration("1m30s"), 90)
        self.assertEqual(k6.parse_duration("500ms"), 0.5)
        self.assertEqual(k6.parse_duration("12"), 12)
        for bad in ("", "10x", "s", "1m 30s"):
            with self.assertRaises(ValueError, msg=bad):
                k6.parse_duration(bad)

    def test_nodes_default_to_the_targets(self):
        self.assertEqual(parse_nodes("", ["http://a:1", "http://b:2"]), [("node0", "http://a:1"), ("node1", "http://b:2")])
        self.assertEqual(parse_nodes("dht-0=http://x:8080", ["http://svc"]), [("dht-0", "http://x:8080")])
        self.assertEqual(parse_nodes("none", ["http://svc"]), [])

    def test_percentile_is_the_nearest_rank(self):
        v = list(range(1, 101))
        self.assertEqual(load.percentile(v, 50, "nearest"), 50)
        self.assertEqual(load.percentile(v, 99, "nearest"), 99)
        self.assertEqual(load.percentile(v, 99.9, "nearest"), 100)
        self.assertEqual(load.percentile(v, 0, "nearest"), 1)
        self.assertIsNone(load.percentile([], 50, "nearest"))


if __name__ == "__main__":
    unittest.main()
