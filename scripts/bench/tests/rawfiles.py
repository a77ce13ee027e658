"""Raw outputs written for the report tests, in the formats the benchmark scripts leave behind, and the temporary
directory they are written to."""
import json
import os
import shutil
import tempfile
import unittest


class TempDirTest(unittest.TestCase):
    """A test case with a fresh temporary directory, self.tmp, removed after each test."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dht-bench-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp)


class RawRunTest(TempDirTest):
    """A report test: a run's raw directory (self.raw: env.txt and timeline.txt as the launcher writes them) and the
    report's output directory (self.out)."""

    def write_raw(self, env, marks_ms):
        self.raw, self.out = os.path.join(self.tmp, "raw"), os.path.join(self.tmp, "out")
        os.makedirs(self.raw, exist_ok=True)
        os.makedirs(self.out, exist_ok=True)
        with open(os.path.join(self.raw, "env.txt"), "w") as f:
            f.write(env)
        with open(os.path.join(self.raw, "timeline.txt"), "w") as f:
            f.writelines(f"{k}={v}\n" for k, v in marks_ms.items())

    def run_report(self, module, name):
        """module.main() on self.raw and self.out (as `NAME-report.py RAW OUT`), then (NAME.json, NAME.md)."""
        module.sys.argv = [name + "-report.py", self.raw, self.out]
        module.main()
        with open(os.path.join(self.out, name + ".json")) as f:
            result = json.load(f)
        with open(os.path.join(self.out, name + ".md")) as f:
            return result, f.read()


def oha_csv(path, rows):
    """oha's per-request CSV (--output-format csv); rows: (start s since this oha started, latency ms, status)"""
    with open(path, "w") as f:
        f.write("request-start,DNS,DNS+dialup,Response-delay,request-duration,bytes,status\n")
        for start, ms, status in rows:
            f.write(f"{start},0,0,0,{ms / 1000},0,{status}\n")
