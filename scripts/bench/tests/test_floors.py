"""The noise floor every round-measured report states (harness/judge.py): a ratio judged over rounds against a target
and the spread of identical windows in consecutive rounds, and the words for it (bench-node, bench-cluster,
bench-defaults)."""
import os
import unittest

from harness import judge, load


class FloorsTest(unittest.TestCase):
    def test_the_floor_is_the_largest_change_between_consecutive_rounds_of_either_side(self):
        j = judge.judged([100.0, 80.0, 90.0], [200.0, 210.0, 200.0], True, 0.3)
        self.assertAlmostEqual(j["floor"], 1.25)  # the node's 100 -> 80 (the bare's 200 -> 210 is 1.05)
        self.assertEqual(j["ratios"], [0.5, 80.0 / 210.0, 0.45])
        self.assertEqual(j["ratio"], 0.45)
        self.assertEqual((j["num"], j["den"]), ([100.0, 80.0, 90.0], [200.0, 210.0, 200.0]))

    def test_a_target_beyond_the_floor_on_every_round_is_met_or_missed(self):
        met = judge.judged([50.0, 52.0, 51.0], [100.0, 100.0, 100.0], True, 0.42)
        self.assertEqual((met["target_verdict"], judge.target_words(met)), ("met", "met"))
        missed = judge.judged([30.0, 31.0, 30.0], [100.0, 100.0, 100.0], True, 0.42)
        self.assertEqual(missed["target_verdict"], "missed")
        # lower is better (a p99): 2x the reference beyond a 5% floor is missed against a target of 1.5x
        p99 = judge.judged([2.0, 2.1], [1.0, 1.0], False, 1.5)
        self.assertEqual(p99["target_verdict"], "missed")

    def test_a_ratio_inside_the_floor_or_on_both_sides_is_not_separable_here(self):
        inside = judge.judged([44.0, 50.0], [100.0, 100.0], True, 0.42)  # both above, the median by less than 13.6%
        self.assertEqual(judge.target_words(inside), "not separable here (the median meets it)")
        # the median 1.44x above the target, beyond a 23% floor, but the first round below it: not every round agrees
        drift = judge.judged([40.0, 49.0, 49.0], [100.0, 81.0, 81.0], True, 0.42)
        self.assertEqual((drift["ratios"][0], drift["target_verdict"]), (0.4, "not separable here"))
        split = judge.judged([40.0, 60.0], [100.0, 100.0], True, 0.45)  # one round on each side
        self.assertEqual(split["target_verdict"], "not separable here")
        one = judge.judged([50.0, None], [100.0, 100.0], True, 0.42)  # a round missing: one ratio judges nothing
        self.assertEqual((one["ratios"], one["target_verdict"]), ([0.5, None], "not separable here"))
        self.assertEqual(judge.target_words(judge.judged([30.0], [100.0], True, 0.42)),
                         "not separable here (the median misses it)")

    def test_the_words_of_a_floor(self):
        self.assertEqual(judge.plus_minus(None), "not measured")
        self.assertEqual(judge.plus_minus(1.087), "+-8.7%")
        self.assertTrue(judge.inside(0.44, 0.42, 1.10))
        self.assertFalse(judge.inside(0.60, 0.42, 1.10))  # 1.43x above: beyond a 10% floor
        self.assertFalse(judge.inside(0.30, 0.42, 1.10))  # below it just as far
        self.assertFalse(judge.inside(0.44, 0.42, None))  # no floor: nothing to say
        self.assertEqual(judge.in_rounds({"a-1": {"rps": 1.0}, "a-3": None}, "a", 3, "rps"), [1.0, None, None])

    def test_a_row_of_a_judged_ratio(self):
        j = judge.judged([50.0, None, 52.0], [100.0, None, 100.0], True, 0.42)  # no two consecutive rounds
        self.assertEqual(judge.judged_row("PUT", j, lambda x: "%.2f" % x, ">= 0.42", judge.target_words(j)),
                         "| PUT | 0.50 - 0.52 | **0.51** | not measured | >= 0.42 | not separable here (the median "
                         "meets it) |")


class CpuSamplesTest(unittest.TestCase):
    """harness.load's samples for a shell benchmark that pins its nodes and its load generator apart."""

    def test_cpu_lists_as_taskset_writes_them(self):
        self.assertEqual({0}, load.cpu_list("0"))
        self.assertEqual({1, 2, 3}, load.cpu_list("1-3"))
        self.assertEqual({0, 2, 3}, load.cpu_list("0,2-3"))
        self.assertEqual(set(), load.cpu_list(""))

    def test_a_cpu_of_this_machine_has_jiffies_and_none_is_nothing(self):
        busy, total = load.core_busy_and_total({0})
        self.assertGreater(total, 0)
        self.assertLessEqual(busy, total)
        all_busy, all_total = load.core_busy_and_total(set(range(os.cpu_count())))
        self.assertGreaterEqual(all_total, total)  # the CPUs' lines, not the machine's sum line counted twice
        self.assertEqual((0, 0), load.core_busy_and_total(set()))

    def test_cpu_seconds_of_this_process_grow_with_its_work(self):
        before = load.cpu_seconds([os.getpid()])
        end = before + 0.05
        while load.cpu_seconds([os.getpid()]) < end:
            sum(i * i for i in range(10000))
        # against end itself: (before + 0.05) - before can be 0.0499999 in floating point
        self.assertGreaterEqual(load.cpu_seconds([os.getpid()]), end)
        self.assertEqual(0, load.cpu_seconds([2 ** 22 + 1]))  # no such process: nothing


if __name__ == "__main__":
    unittest.main()
