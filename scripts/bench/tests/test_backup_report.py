"""backup-report.py (make bench-backup, scenarios/backup.json) on raw outputs written here with known answers: the
backup's and the restore's MB/s and records/s from the nodes' statuses and the timeline, the load's p99 in each
phase, the run's noise floor (windows as long as the backup in "before" and "after", consecutive ones compared), the
p99 target judged against it, the CPU and work of each phase from the samples; then on a recorded run's raw outputs
(testdata/runs/backup: a smoke run of the scenario, shrunk, on real nodes and versitygw)."""
import json
import os
import unittest

from .rawfiles import RawRunTest, RecordedRunTest, report_module

backup_report = report_module("backup")

T0 = 1_800_000_000_000  # ms
ENV = ("date=2026-12-07T00:00:00Z\nload_before=0.1 0.2 0.3\nnproc=2\ncommit=abc1234\nkeys=1000\nrate=200\nphase=60\n"
       "warmup=20\nreplicas=2/3\nsteady_wait=10\nsteady_quiet_steps=3\nsteady_quiet_wanted=3\n"
       "store_objects=/dev/shm/x\nstore_priority=chrt --idle 0 nice -n 19\n")
# seconds from T0: "before" [30, 90) and "after" [110, 170) hold three 20-s windows each, as long as the backup
MARKS = {"load_start": 0, "before_start": 30, "backup_start": 90, "backup_done": 110, "load_end": 170,
         "restore_start": 200, "restore_streamed": 206, "restore_done": 210}
SAMPLES = {  # ticks at 100 a second; the nodes 0.3 cores before, 0.6 during, 0.3 after
    "before_start": {"node0": 0, "node1": 0, "node2": 0, "selectors": 0, "store": 0, "load": 0, "jit": 10.0,
                     "written": 0},
    "backup_start": {"node0": 600, "node1": 600, "node2": 600, "selectors": 1200, "store": 0, "load": 600,
                     "jit": 10.6, "written": 0},
    "backup_done": {"node0": 1000, "node1": 1000, "node2": 1000, "selectors": 1600, "store": 200, "load": 800,
                    "jit": 12.6, "written": 0},
    "load_end": {"node0": 1600, "node1": 1600, "node2": 1600, "selectors": 2800, "store": 200, "load": 1400,
                 "jit": 12.6, "written": 60_000_000},
}


class BackupReportTest(RawRunTest):
    PUT_DURING_MS = 3.0  # every PUT during the backup
    GET_DURING_MS = 1.4

    def setUp(self):
        super().setUp()
        self.write_raw(ENV, {k: T0 + v * 1000 for k, v in MARKS.items()})
        files = {"backup-manifest.json": {"id": "bench", "bytes": 200_000_000, "records": 2_000_000},
                 **{"backup-node%d.json" % i: {"id": "bench", "phase": "done", "bytes": {"uploaded": 60_000_000}}
                    for i in range(3)},
                 **{"restore-node%d.json" % i: {"id": "bench", "phase": "done", "bytes": {"total": 60_000_000},
                                                "records": {"sent": 500_000, "copies": 1_500_000},
                                                "load": {"records": 400_000}} for i in (3, 4, 5)}}
        for name, doc in files.items():
            with open(os.path.join(self.raw, name), "w") as f:
                json.dump(doc, f)
        for mark, sample in SAMPLES.items():
            with open(os.path.join(self.raw, "sample-%s.txt" % mark), "w") as f:
                f.writelines("%s=%s\n" % kv for kv in dict(sample, clk_tck=100).items())
        # 100 requests a second of each load, 1 ms; PUT: 2% at 1.2 ms in the second window of "before" (its floor
        # 1.2x); GET: the second window of "after" all at 1.5 ms (its floor 1.5x)
        puts, gets = [], []
        for k in range(17000):
            t = k / 100.0
            during = 90 <= t < 110
            put = self.PUT_DURING_MS if during else 1.2 if 50 <= t < 70 and k % 50 == 0 else 1.0
            get = self.GET_DURING_MS if during else 1.5 if 130 <= t < 150 else 1.0
            puts.append((t, put, "201"))
            gets.append((t, get, "404" if k % 2 else "200"))
        self.write_loads(put=puts, get=gets)

    def report(self):
        return self.run_report(backup_report, "backup")

    def test_backup_restore_load_and_the_noise_floor(self):
        result, md = self.report()
        b, s = result["backup"], result["restore"]
        self.assertEqual((b["seconds"], b["mb_per_s"], b["records_per_s"]), (20.0, 10.0, 100000))
        self.assertEqual(b["uploaded_bytes"], 180_000_000)
        self.assertEqual((s["seconds"], s["bytes"], s["mb_per_s"], s["records_per_s"]), (10.0, 180_000_000, 18.0,
                                                                                          150000))
        self.assertEqual((s["sending_seconds"], s["loading_seconds"], s["loaded_records"]), (6.0, 4.0, 1_200_000))
        self.assertTrue(result["met"]["restore"])
        put, get = result["load"]["PUT"], result["load"]["GET"]
        self.assertEqual(put["before"]["requests"], 6000)
        self.assertEqual(put["before"]["p99_ms"], 1.0, "40 slow PUTs of 6000 are under the p99")
        self.assertEqual(put["during backup"]["p99_ms"], 3.0)
        self.assertEqual(get["after"]["p99_ms"], 1.5)
        n = result["noise"]
        self.assertEqual(n["window_s"], 20.0)
        self.assertEqual(n["PUT"]["p99_ms"], [[1.0, 1.2, 1.0], [1.0, 1.0, 1.0]])
        self.assertEqual((n["PUT"]["floor"], n["GET"]["floor"]), (1.2, 1.5))
        # PUT 3x: beyond the target by more than its floor; GET 1.4x: within 1.5x of the target either way
        self.assertEqual(result["p99"]["PUT"], {"during_over_before": 3.0, "change": "higher", "verdict": "missed"})
        self.assertEqual(result["p99"]["GET"], {"during_over_before": 1.4, "change": "not separable here",
                                                "verdict": "not separable here"})
        self.assertIn("PUT 3.00x (target <= 1.5x: missed)", md)
        self.assertIn("GET 1.40x (target <= 1.5x: not separable here)", md)
        self.assertIn("consecutive windows differ by up to PUT 1.20x, GET 1.50x", md)
        self.assertIn("| PUT | during backup | 2000 | 100.0 | 3.0 | 3.0 | 3.0 | 0 |", md)
        self.assertIn("| restore (3 fresh members, every share) | 10.0 | 180000000 | 18.0 | 1500000 | 150000 | "
                      ">= 15.0 MB/s: met |", md)
        c = result["cpu_cores"]
        self.assertEqual((c["before"]["nodes"], c["during backup"]["nodes"], c["after"]["nodes"]), (0.3, 0.6, 0.3))
        self.assertEqual((c["during backup"]["store"], c["during backup"]["selectors"]), (0.1, 0.2))
        self.assertEqual((c["before"]["jit_s_per_s"], c["during backup"]["jit_s_per_s"]), (0.01, 0.1))
        self.assertEqual(c["after"]["written_mb_per_s"], 1.0)
        self.assertIn("the three nodes 0.3 / 0.6 / 0.3", md)
        self.assertIn("30 s (20 s, then 10 s more until the nodes' JIT was quiet", md)

    def test_render_again_from_the_json(self):
        self.assert_renders_again(backup_report, "backup")

    def test_a_phase_too_short_for_two_windows_has_no_floor(self):
        with open(os.path.join(self.raw, "timeline.txt"), "w") as f:  # "before" and "after" 30 s: one window each
            f.writelines("%s=%d\n" % (k, T0 + v * 1000) for k, v in dict(MARKS, before_start=60, load_end=140).items())
        result, md = self.report()
        self.assertIsNone(result["noise"]["PUT"]["floor"])
        self.assertEqual(result["p99"]["PUT"]["verdict"], "not separable here")
        self.assertIn("PUT not measured (fewer than two windows)", md)


class QuietBackupTest(BackupReportTest):
    """The same run with PUTs during the backup as fast as before: within the target by more than the floor."""
    PUT_DURING_MS = 1.0

    def test_backup_restore_load_and_the_noise_floor(self):
        result, md = self.report()
        self.assertEqual(result["p99"]["PUT"], {"during_over_before": 1.0, "change": "not separable here",
                                                "verdict": "met"})
        self.assertIn("PUT 1.00x (target <= 1.5x: met)", md)


class RecordedBackupRun(RecordedRunTest):
    """A smoke run of the scenario (1,000 keys, 100 req/s, 10-s phases) on real nodes and versitygw: the report reads
    what the node's admin endpoints and the launcher wrote (the logs, metrics and oha's errors left out)."""
    RUN = "backup"

    def test_the_report_of_a_recorded_run(self):
        self.assertEqual(backup_report.main(["backup-report.py", self.raw, self.out]), 0)
        with open(os.path.join(self.out, "backup.json")) as f:
            r = json.load(f)
        with open(os.path.join(self.raw, "backup-manifest.json")) as f:
            manifest = json.load(f)
        self.assertEqual(r["backup"]["bytes"], manifest["bytes"])
        self.assertGreater(r["backup"]["uploaded_bytes"], 0)
        self.assertEqual(r["restore"]["bytes"], manifest["bytes"], "every byte of the backup restored")
        self.assertGreater(r["restore"]["records_sent"], 0)
        self.assertEqual(r["restore"]["copies_sent"], 3 * r["restore"]["records_sent"], "each record to its 3 owners")
        self.assertGreater(r["restore"]["loaded_records"], 0)
        for name in ("PUT", "GET"):
            for phase in ("before", "during backup", "after"):
                self.assertGreater(r["load"][name][phase]["requests"], 0, (name, phase))
                self.assertEqual(r["load"][name][phase]["unexpected"], 0, (name, phase))
            self.assertIn(r["p99"][name]["verdict"], ("met", "missed", "not separable here"))
        self.assertEqual(set(r["cpu_cores"]), {"before", "during backup", "after"})
        self.assertGreater(r["cpu_cores"]["during backup"]["nodes"], 0)


if __name__ == "__main__":
    unittest.main()
