"""report.md on a hand-made history: the operations table counts every client operation, also when the checker
has examples to show (a loop over them once shadowed the run's operations, and a 10-minute run of 75,000
operations reported 3)."""
import tempfile
import unittest
from pathlib import Path

from chaos import report
from chaos.tests.test_checker import H


class ReportTest(unittest.TestCase):
    def test_the_operations_table_counts_every_client_operation(self):
        h = H()
        h.put("k", "a", 0, 10, ack=1)
        h.put("k", "b", 11, 20, ack=1)                 # inside the clock window: an allowed example
        h.get("k", "a", 30, 35, ack=3)                 # meets b, returns a: shown as an example
        h.put("k", "c", 40, None, typ="info")
        h.get("k", None, 50, 60, typ="fail", status=503, process="c1")
        h.delete("j", 70, 80, process="c1")
        h.final("k", "a", 1000)
        results = h.check()
        self.assertEqual([v for r in results.values() for v in r.violations], [])
        self.assertTrue(results["stale-read"].examples, "the history must give the report an example to show")
        with tempfile.TemporaryDirectory() as d:
            md = report.write(Path(d), {"run": "t"}, results, h.ops, h.events, []).read_text()
        self.assertIn("- allowed, for example:", md)
        self.assertIn("| get | 1 | 1 | 0 |", md)
        self.assertIn("| put | 2 | 0 | 1 |", md)
        self.assertIn("| delete | 1 | 0 | 0 |", md)
        self.assertIn("Answers: 201 x2, 200 x1, 504 x1, 503 x1, 202 x1", md)


if __name__ == "__main__":
    unittest.main()
