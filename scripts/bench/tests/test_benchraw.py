"""benchraw.py, the raw-output readers the local-cluster reports share: key=value files, oha's per-request CSV
(unparsable rows skipped, several ohas pooled by an offset) and a window's figures (percentiles,
statuses, the ones outside the expected codes)."""
import os
import unittest

import benchraw

from . import rawfiles
from .rawfiles import oha_csv


class BenchRawTest(rawfiles.TempDirTest):
    def test_kv_keeps_everything_after_the_first_equals_sign(self):
        path = os.path.join(self.tmp, "env.txt")
        with open(path, "w") as f:
            f.write("node_args=--replication-factor 3 --x=y\nno equals sign\nlabel=\n")
        self.assertEqual(benchraw.kv(path), {"node_args": "--replication-factor 3 --x=y", "label": ""})

    def test_percentile_picks_a_sample(self):
        self.assertEqual(benchraw.percentile(list(range(1, 101)), 50), 50)
        self.assertEqual(benchraw.percentile(list(range(1, 1001)), 99), 990)
        self.assertEqual(benchraw.percentile(list(range(1, 101)), 99.9), 100)
        self.assertEqual(benchraw.percentile([7], 99), 7)
        self.assertIsNone(benchraw.percentile([], 50))

    def test_rows_offset_and_window(self):
        path = os.path.join(self.tmp, "load.csv")
        oha_csv(path, [(0.5, 1.0, "200"), (1.2, 5.0, "200"), (1.5, 3.0, "404"), (2.5, 2.0, ""), (3.5, 9.0, "200")])
        with open(path, "a") as f:
            f.write("not-a-number,0,0,0,0.001,0,200\n")
        self.assertEqual(benchraw.load_rows(os.path.join(self.tmp, "missing.csv")), [])
        rows = benchraw.load_rows(path, 100.0)
        self.assertEqual([r[0] for r in rows], [100.5, 101.2, 101.5, 102.5, 103.5])
        w = benchraw.window(rows, 101.0, 103.0, {"200", "404"})
        self.assertEqual(w["requests"], 3)
        self.assertEqual(w["rps"], 1.5)
        self.assertEqual((w["p50_ms"], w["p99_ms"], w["max_ms"]), (3.0, 5.0, 5.0))
        self.assertEqual(w["status"], {"200": 1, "404": 1, "error": 1})
        self.assertEqual(w["unexpected"], 1)
        empty = benchraw.window(rows, 200.0, 201.0, {"200"})
        self.assertEqual((empty["requests"], empty["p99_ms"], empty["max_ms"]), (0, None, None))


if __name__ == "__main__":
    unittest.main()
