"""harness/floors.py: the noise floor a one-window report (bench-node, bench-cluster) takes from the A/B of the same
build, and the words for a figure inside it."""
import json
import os
import unittest

from harness import floors, load

from .rawfiles import TempDirTest


def window(shape, case, side, rnd, **figures):
    return {"shape": shape, "case": case, "side": side, "round": rnd, "figures": figures}


class FloorsTest(TempDirTest):
    def write_ab(self, name, windows):
        os.makedirs(os.path.join(self.tmp, "ab"), exist_ok=True)
        with open(os.path.join(self.tmp, "ab", name + ".json"), "w") as f:
            json.dump({"windows": windows}, f)

    def test_the_floor_is_the_largest_change_between_consecutive_rounds_of_one_side(self):
        self.write_ab("9e02ae4-vs-abc1234", [
            # written out of order: the rounds are taken in their order, not the file's
            window("single", "put-closed", "head", 3, rps=90.0, p99_ms=2.0),
            window("single", "put-closed", "head", 1, rps=100.0, p99_ms=1.0),
            window("single", "put-closed", "head", 2, rps=80.0, p99_ms=3.0),
            window("single", "put-closed", "base", 1, rps=10.0),
            window("single", "put-closed", "base", 2, rps=40.0),
            window("cluster", "put-closed", "head", 1, rps=50.0),
            window("cluster", "put-closed", "head", 2, rps=55.0),
        ])
        name, f = floors.from_ab(self.tmp, "abc1234", "single")
        self.assertEqual(name, "9e02ae4-vs-abc1234")
        self.assertAlmostEqual(f[("head", "put-closed", "rps")], 1.25)  # 100 -> 80 (80 -> 90 is 1.125)
        self.assertAlmostEqual(f[("head", "put-closed", "p99_ms")], 3.0)  # 1 -> 3
        self.assertAlmostEqual(f[("base", "put-closed", "rps")], 4.0)  # sides are never mixed
        self.assertAlmostEqual(floors.from_ab(self.tmp, "abc1234", "cluster")[1][("head", "put-closed", "rps")],
                               1.1)

    def test_no_ab_of_this_build_means_not_measured(self):
        self.write_ab("9e02ae4-vs-0000000", [window("single", "put-closed", "head", 1, rps=1.0)])
        self.assertIsNone(floors.from_ab(self.tmp, "abc1234", "single"))
        self.assertIsNone(floors.from_ab(self.tmp, None, "single"))
        self.assertEqual(floors.plus_minus(None), "not measured")
        self.assertEqual(floors.plus_minus(1.087), "+-8.7%")

    def test_a_ratio_inside_the_floor_is_not_separable(self):
        self.assertTrue(floors.inside(0.44, 0.42, 1.10))
        self.assertFalse(floors.inside(0.60, 0.42, 1.10))  # 1.43x above: beyond a 10% floor
        self.assertFalse(floors.inside(0.30, 0.42, 1.10))  # below it just as far
        self.assertFalse(floors.inside(0.44, 0.42, None))  # no floor: nothing to say


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
