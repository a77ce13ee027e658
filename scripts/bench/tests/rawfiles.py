"""Raw outputs written for the report tests, in the formats the benchmark scripts leave behind, and the temporary
directory they are written to."""
import shutil
import tempfile
import unittest


class TempDirTest(unittest.TestCase):
    """A test case with a fresh temporary directory, self.tmp, removed after each test."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dht-bench-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp)


def oha_csv(path, rows):
    """oha's per-request CSV (--output-format csv); rows: (start s since this oha started, latency ms, status)"""
    with open(path, "w") as f:
        f.write("request-start,DNS,DNS+dialup,Response-delay,request-duration,bytes,status\n")
        for start, ms, status in rows:
            f.write(f"{start},0,0,0,{ms / 1000},0,{status}\n")
