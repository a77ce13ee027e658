"""Raw outputs written for the report tests, in the formats the benchmark scripts leave behind, and the temporary
directory they are written to."""
import importlib.util
import json
import os
import shutil
import tempfile
import unittest

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


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

    def write_loads(self, **rows):
        """RAW/load-NAME.csv for each NAME=rows (oha_csv's rows), as the launcher's load streams leave them."""
        for name, r in rows.items():
            oha_csv(os.path.join(self.raw, "load-%s.csv" % name), r)

    def run_report(self, module, name):
        """module.main (benchraw.report_main) on self.raw and self.out, as `NAME-report.py RAW OUT`, which must
        succeed; then (NAME.json, NAME.md)."""
        self.assertEqual(module.main([name + "-report.py", self.raw, self.out]), 0)
        return self.outputs(name)

    def assert_renders_again(self, module, name):
        """NAME.md written again from NAME.json alone (`NAME-report.py --render OUT`) is the same."""
        _, md = self.run_report(module, name)
        os.remove(os.path.join(self.out, name + ".md"))
        self.assertEqual(module.main([name + "-report.py", "--render", self.out]), 0)
        with open(os.path.join(self.out, name + ".md")) as f:
            self.assertEqual(f.read(), md)

    def outputs(self, name):
        with open(os.path.join(self.out, name + ".json")) as f:
            result = json.load(f)
        with open(os.path.join(self.out, name + ".md")) as f:
            return result, f.read()


class RecordedRunTest(RawRunTest):
    """A report test on a recorded run's raw outputs (testdata/runs/RUN/raw), the report written to self.tmp."""
    RUN = None

    def setUp(self):
        super().setUp()
        self.raw, self.out = os.path.join(BENCH, "testdata", "runs", self.RUN, "raw"), self.tmp

    def oha_p99_ms(self, name):
        """The p99 of RAW/oha-NAME.json as oha wrote it (seconds), in ms."""
        with open(os.path.join(self.raw, "oha-%s.json" % name)) as f:
            return json.load(f)["latencyPercentiles"]["p99"] * 1000


def report_module(name):
    """scripts/bench/NAME-report.py as a module."""
    spec = importlib.util.spec_from_file_location(name.replace("-", "_") + "_report",
                                                  os.path.join(BENCH, name + "-report.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def oha_csv(path, rows):
    """oha's per-request CSV (--output-format csv); rows: (start s since this oha started, latency ms, status)"""
    with open(path, "w") as f:
        f.write("request-start,DNS,DNS+dialup,Response-delay,request-duration,bytes,status\n")
        for start, ms, status in rows:
            f.write(f"{start},0,0,0,{ms / 1000},0,{status}\n")
