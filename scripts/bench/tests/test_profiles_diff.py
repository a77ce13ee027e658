"""harness/profiles.diff: two collapsed-stack profiles compared frame by frame per 1000 requests (self time and
whole stacks), on files written here with known counts."""
import os

from harness import profiles

from .rawfiles import TempDirTest


class ProfileDiffTest(TempDirTest):
    def write(self, name, lines):
        path = os.path.join(self.tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def test_self_time_per_request_largest_change_first(self):
        a = self.write("a", ["loop;parse 10", "loop;write;send 30", "gc 5"])
        b = self.write("b", ["loop;parse 20", "loop;write;send 30", "loop;write;digest 40", "not a stack line"])
        d = profiles.diff(a, 1000, b, 2000)
        self.assertEqual((d["a_total"], d["b_total"]), (45.0, 45.0))  # 45 samples/1000 req; 90 over 2000
        rows = {r["frame"]: r for r in d["rows"]}
        self.assertEqual(d["rows"][0]["frame"], "digest")  # +20 per 1000 requests: the largest change
        self.assertEqual((rows["digest"]["a"], rows["digest"]["b"]), (0.0, 20.0))
        self.assertEqual((rows["send"]["a"], rows["send"]["b"]), (30.0, 15.0))  # the same samples over twice the requests
        self.assertEqual((rows["parse"]["a"], rows["parse"]["b"]), (10.0, 10.0))
        self.assertAlmostEqual(rows["gc"]["a_share"], 5 / 45, places=4)

    def test_inclusive_counts_a_recursive_frame_once(self):
        a = self.write("a", ["loop;loop;write 4", "loop;parse 6"])
        d = profiles.diff(a, 1000, a, 1000, inclusive=True)
        rows = {r["frame"]: r for r in d["rows"]}
        self.assertEqual(rows["loop"]["a"], 10.0)
        self.assertEqual(rows["write"]["b"], 4.0)
