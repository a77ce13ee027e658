"""The A/B report's judgement (harness/judge.py, harness/abreport.py): a difference is called better or worse only
beyond the spread of identical windows of the same run and with every round on its side; anything else is "not
separable here". Figures written here with known answers."""
import json
import os
import unittest

from harness import abreport, judge

from .rawfiles import TempDirTest


class NoiseFloorTest(unittest.TestCase):
    def test_the_floor_is_the_largest_change_between_consecutive_rounds_of_either_side(self):
        # base moves 100 -> 110 (10%), head 200 -> 190 -> 209 (5.3%, then 10%): the largest is 10%
        self.assertAlmostEqual(judge.noise_floor([100, 110], [200, 190, 209]), 1.1)

    def test_a_change_counts_both_ways(self):
        self.assertAlmostEqual(judge.noise_floor([110, 100]), 1.1)

    def test_rounds_that_measured_nothing_are_skipped_and_one_round_gives_no_floor(self):
        self.assertIsNone(judge.noise_floor([100], [None, 5]))
        self.assertAlmostEqual(judge.noise_floor([100, None, 120, 126]), 1.05)


class VerdictTest(unittest.TestCase):
    def test_a_throughput_gain_beyond_the_noise_in_every_round_is_better(self):
        j = judge.judge([130, 128, 131], [100, 102, 98], higher_is_better=True)
        self.assertEqual(j["verdict"], judge.BETTER)
        self.assertAlmostEqual(j["ratio"], 1.3)  # rounds 1.3, 128/102, 131/98
        self.assertAlmostEqual(j["floor"], 102 / 98)  # the base's second change

    def test_the_same_gain_inside_the_noise_is_not_separable(self):
        # head ahead in every round, 21% in the median, but the base alone moved 25% from one round to the next
        j = judge.judge([121, 126, 119], [100, 125, 98], higher_is_better=True)
        self.assertEqual(j["verdict"], judge.NOT_SEPARABLE)

    def test_a_median_beyond_the_noise_with_one_round_on_the_other_side_is_not_separable(self):
        # the head climbs 10% a round, then stays: rounds 0.99, 1.089, 1.198, 1.198, 1.198; floor 1.10
        j = judge.judge([99, 108.9, 119.79, 119.79, 119.79], [100] * 5, higher_is_better=True)
        self.assertGreater(j["ratio"], j["floor"])  # the median alone would call it better
        self.assertEqual(j["verdict"], judge.NOT_SEPARABLE)

    def test_lower_is_better_for_latency(self):
        j = judge.judge([2.0, 2.1, 1.9], [3.0, 3.2, 3.1], higher_is_better=False)
        self.assertEqual(j["verdict"], judge.BETTER)
        j = judge.judge([3.0, 3.2, 3.1], [2.0, 2.1, 1.9], higher_is_better=False)
        self.assertEqual(j["verdict"], judge.WORSE)

    def test_a_loss_beyond_the_noise_is_worse(self):
        j = judge.judge([80, 82, 81], [100, 101, 99], higher_is_better=True)
        self.assertEqual(j["verdict"], judge.WORSE)

    def test_just_inside_and_just_beyond_the_floor(self):
        base = [100, 110]  # floor 1.10
        self.assertEqual(judge.judge([109, 120], base, True)["verdict"], judge.NOT_SEPARABLE)  # median 1.09
        # median 1.1045 > 1.10; the head's own change 120/113 = 1.062 stays under the base's
        self.assertEqual(judge.judge([113, 120], base, True)["verdict"], judge.BETTER)

    def test_one_round_is_never_enough(self):
        self.assertEqual(judge.judge([200], [100], True)["verdict"], judge.NOT_SEPARABLE)

    def test_a_target_other_than_one(self):
        j = judge.judge([45, 44, 46], [100, 100, 101], True, target=0.42)
        self.assertEqual(judge.target_verdict(j, True), {"verdict": "met", "median_meets": True})
        j = judge.judge([40, 43, 41], [100, 100, 101], True, target=0.42)
        self.assertEqual(judge.target_verdict(j, True), {"verdict": judge.NOT_SEPARABLE, "median_meets": False})
        j = judge.judge([3.5, 3.6, 3.4], [2.0, 2.0, 2.1], False, target=1.5)
        self.assertEqual(judge.target_verdict(j, False), {"verdict": "missed", "median_meets": False})


def window(shape, case, side, r, **figures):
    return {"shape": shape, "case": case, "side": side, "round": r, "figures": figures, "cpu_s": 1.0,
            "steal_pct": 0.5, "started": 0}


class ReportTest(TempDirTest):
    """abreport on windows with known figures: which rows, which verdicts, which targets."""

    def raw(self):
        w = []
        for r, (b, h, rocks) in enumerate(((40000, 48000, 45000), (41000, 47500, 44000), (40500, 48200, 44500)), 1):
            w += [window("single", "put-closed", "base", r, rps=b, cpu_us_per_req=(40.0, 30.0, 41.0)[r - 1]),
                  window("single", "put-closed", "head", r, rps=h, cpu_us_per_req=33.0),
                  window("single", "put-closed", "rocks", r, rps=rocks),
                  window("single", "put-rate", "base", r, p99_ms=3.0 + r / 10, p999_ms=10.0, cpu_us_per_req=30.0),
                  window("single", "put-rate", "head", r, p99_ms=3.2 - r / 10, p999_ms=10.5, cpu_us_per_req=29.0),
                  window("single", "put-rate", "bare", r, p99_ms=2.0, p999_ms=8.0),
                  window("cluster", "put-closed", "base", r, rps=15000),
                  window("cluster", "put-closed", "head", r, rps=21000 + 100 * r)]
        return {"meta": {"base": "aaaaaaa", "head": "bbbbbbb"}, "load": {},
                "params": {"rounds": 3, "shapes": ["single", "cluster"], "window_s": 10, "warmup_window_s": 4,
                           "threads": 2, "connections": 64, "single_rate": 20000, "cluster_rate": 5000,
                           "keys": 200000, "java_flags": "-Xmx1g", "node_args": "", "repair_off": {"head": True}},
                "windows": w, "wal": {"head-single": {"record_writes": 1000, "batches_per_write": 0.14,
                                                      "memtable_inserts_per_write": 1.0, "wal_bytes_per_write": 130.0,
                                                      "entries_per_family": {"0": 1000}, "other_batches": 3}}}

    def row(self, s, shape, case, figure):
        return next(r for r in s["ab"] if (r["shape"], r["case"], r["figure"]) == (shape, case, figure))

    def test_verdicts_per_figure(self):
        s = abreport.summarise(self.raw())
        self.assertEqual(self.row(s, "single", "put-closed", "rps")["verdict"], judge.BETTER)
        self.assertEqual(self.row(s, "single", "put-closed", "cpu_us_per_req")["verdict"], judge.NOT_SEPARABLE)
        # CPU: head 33 against base 40, 30, 41: rounds 0.825, 1.1, 0.805 on both sides
        # p99: head 3.1, 3.0, 2.9 against base 3.1, 3.2, 3.3: the median 0.9375 is beyond the floor (3.1/2.9), but
        # the first round is a tie
        self.assertEqual(self.row(s, "single", "put-rate", "p99_ms")["verdict"], judge.NOT_SEPARABLE)
        self.assertEqual(self.row(s, "single", "put-rate", "p999_ms")["verdict"], judge.WORSE)
        # a case the run left out (BENCH_CASES) has no row: "not separable here" would claim a measurement
        self.assertFalse([r for r in s["ab"] if r["case"].startswith("get-")])

    def test_targets(self):
        targets = {t["text"]: t for t in abreport.summarise(self.raw())["targets"]}
        self.assertEqual(targets["PUT through one node against the base"]["verdict"], "met")
        rocks = targets["PUT through one node / one-nio + RocksDB doing nothing else"]
        self.assertAlmostEqual(rocks["ratio"], 47500 / 44000)  # rounds 1.067, 1.080, 1.083
        self.assertEqual(rocks["verdict"], "met")
        cluster = targets["3 members at 2/3 through one entry node / one node, PUT"]
        self.assertAlmostEqual(cluster["ratio"], 21300 / 48200)  # rounds 0.440, 0.446, 0.442
        self.assertEqual(cluster["verdict"], "met")  # against 0.42, the floor 1.5%
        p99 = targets["one node's PUT p99 at the fixed rate / the bare one-nio server's"]
        self.assertAlmostEqual(p99["ratio"], 1.5)
        self.assertEqual(p99["verdict"], judge.NOT_SEPARABLE)
        self.assertTrue(p99["median_meets"])  # at most 1.5: exactly on it

    def test_a_worse_ab_misses_the_not_worse_target(self):
        raw = self.raw()
        for w in raw["windows"]:
            if (w["shape"], w["case"], w["side"]) == ("single", "put-closed", "head"):
                w["figures"]["rps"] = 30000 + w["round"]
        targets = {t["text"]: t for t in abreport.summarise(raw)["targets"]}
        self.assertEqual(targets["PUT through one node against the base"]["verdict"], "missed")

    def test_the_report_renders_every_table(self):
        s = abreport.summarise(self.raw())
        abreport.render(s, self.tmp, "ab")
        with open(os.path.join(self.tmp, "ab.md")) as f:
            md = f.read()
        self.assertIn("| one node | PUT, closed model | throughput | 40500 req/s (40000-41000) | 48000 req/s "
                      "(47500-48200) | **1.190** (1.200, 1.159, 1.190) | +-2.5% | **better** |", md)
        self.assertIn("| 3 members at 2/3 through one entry node / one node, PUT | **0.442**", md)
        self.assertIn("| head-single | 1000 | 0.140 | 1.000 | 130.0 | 0: 1000 | 3 |", md)
        self.assertTrue(os.path.getsize(os.path.join(self.tmp, "ab.svg")) > 1000)

    def test_one_run_per_shape_reports_as_one_run(self):
        """bench-ab.sh runs each shape on its own (a lock released between them): the report of the two runs
        judges every figure as the report of one run with both shapes does, and says when each ran."""
        whole = self.raw()
        parts = []
        for shape, date in (("single", "T1"), ("cluster", "T2")):
            part = json.loads(json.dumps(whole))
            part["params"]["shapes"] = [shape]
            part["windows"] = [w for w in whole["windows"] if w["shape"] == shape]
            part["wal"] = {k: v for k, v in whole["wal"].items() if k.endswith(shape)}
            part.update(warmup=[], profiles=[], load={"before": "1.0", "after": "2.0"},
                        meta=dict(whole["meta"], date=date))
            parts.append(part)
        merged = abreport.summarise(abreport.merge(parts))
        one = abreport.summarise(dict(whole, warmup=[], profiles=[]))
        self.assertEqual(merged["ab"], one["ab"])
        self.assertEqual(merged["targets"], one["targets"])
        self.assertEqual(merged["references"], one["references"])
        self.assertEqual([r["date"] for r in merged["runs"]], ["T1", "T2"])
        abreport.render(merged, self.tmp, "ab")
        with open(os.path.join(self.tmp, "ab.md")) as f:
            self.assertIn("one run per shape, the machine's lock released between them: one node from T1", f.read())
        parts[1]["params"]["window_s"] = 6
        with self.assertRaises(ValueError):
            abreport.merge(parts)


if __name__ == "__main__":
    unittest.main()
