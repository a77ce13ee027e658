"""repair-report.py (make bench-repair) on raw outputs written here with known answers: a round's and an idle round's
figures from the nodes' status before and after (summed over the nodes), the rebuild's from the wiped node's status,
and the fixed load's latency cut into phases at the timeline's marks, each p99 against the one before."""
import importlib.util
import json
import os
import unittest

from .rawfiles import RawRunTest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("repair_report", os.path.join(HERE, "..", "repair-report.py"))
repair_report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(repair_report)

T0 = 1_800_000_000_000  # ms
ENV = "date=2026-11-26T00:00:00Z\nload_before=0.1 0.2 0.3\nnproc=2\ncommit=abc1234\ndirty=0\nkeys=1000\n" \
      "key_digits=4\ndiff=100\nrate=20\nphase=30\nrepair_rate=4MiB\nreplicas=2/3\n"
# seconds from T0
MARKS = {"load_start": 0, "diverge_start": 30, "diverge_end": 40, "round_start": 70, "round_end": 80,
         "idle_round_start": 110, "idle_round_end": 112, "rebuild_stop": 142, "rebuild_start": 143,
         "rebuild_end": 163, "load_end": 193}


def totals(**kw):
    t = {"rounds": 0, "rangesCompared": 0, "rangesOutOfSync": 0, "keysRepaired": 0, "bytesRepaired": 0,
         "hashBytes": 0, "keysDeferred": 0, "keysReceived": 0}
    t.update(kw)
    return {"totals": t, "rebuild": {"state": "ready"}}


class RepairReportTest(RawRunTest):
    LATE_BEFORE_PUT_MS = 2.0  # PUTs in the second half of "before" (a noisier run: more)

    def setUp(self):
        super().setUp()
        self.write_raw(ENV, {k: T0 + v * 1000 for k, v in MARKS.items()})
        # the round: node 0 coordinates 1 range set, node 1 another; node 2 (behind) coordinates nothing
        before = [totals(), totals(rounds=2, hashBytes=500), totals()]
        after_round = [totals(rounds=1, rangesCompared=3000, rangesOutOfSync=40, keysRepaired=300,
                              bytesRepaired=2_000_000, hashBytes=100_000, keysDeferred=7),
                       totals(rounds=3, rangesCompared=3000, rangesOutOfSync=60, keysRepaired=200,
                              bytesRepaired=3_000_000, hashBytes=150_500),
                       totals(keysReceived=500)]
        # the idle round compares everything again and sends nothing
        after_idle = [totals(rounds=2, rangesCompared=6000, rangesOutOfSync=40, keysRepaired=300,
                             bytesRepaired=2_000_000, hashBytes=150_000, keysDeferred=7),
                      totals(rounds=4, rangesCompared=6000, rangesOutOfSync=60, keysRepaired=200,
                             bytesRepaired=3_000_000, hashBytes=200_500),
                      totals(keysReceived=500)]
        rebuilt = totals(keysReceived=40_000, hashBytes=80_000)
        rebuilt["rebuild"] = {"state": "ready", "rangesTotal": 3072, "keysReceived": 40_000,
                              "bytesReceived": 8_000_000, "startedAt": T0 + 145_000, "finishedAt": T0 + 161_000}
        after_rebuild = [after_idle[0], after_idle[1], rebuilt]
        for name, statuses in (("before-round", before), ("after-round", after_round),
                               ("after-idle-round", after_idle), ("after-rebuild", after_rebuild)):
            with open(os.path.join(self.raw, f"repair-{name}.jsonl"), "w") as f:
                f.writelines(json.dumps(s) + "\n" for s in statuses)
        # 10 PUTs and 10 GETs a second; PUTs take 2 ms, 20 ms during the round for one in ten; GETs take 1 ms, one
        # 503 during the rebuild
        puts, gets = [], []
        for k in range(1930):
            t = k / 10.0
            in_round = MARKS["round_start"] <= t < MARKS["round_end"]
            late_before = self.LATE_BEFORE_PUT_MS if MARKS["diverge_start"] / 2 + 2.5 <= t < MARKS["diverge_start"] \
                else 2.0
            puts.append((t, 20.0 if in_round and k % 10 == 0 else late_before, "201"))
            gets.append((t, 1.0, "503" if k == 1500 else ("200" if k % 2 else "404")))
        self.write_loads(put=puts, get=gets)

    def report(self):
        return self.run_report(repair_report, "repair")

    def test_round_idle_round_rebuild_and_the_load(self):
        result, md = self.report()
        r = result["round"]
        self.assertEqual(r["seconds"], 10.0)
        self.assertEqual(r["keys_repaired"], 500)
        self.assertEqual(r["bytes_repaired"], 5_000_000)
        self.assertEqual(r["ranges_compared"], 6000)
        self.assertEqual(r["ranges_out_of_sync"], 100)
        self.assertEqual(r["keys_per_s"], 50.0)
        self.assertEqual(r["mb_per_s"], 0.5)
        self.assertEqual(r["hash_bytes"], 250_000)  # node 1's 500 before the round not counted
        self.assertEqual(r["hash_bytes_per_differing_key"], 500.0)
        self.assertEqual(r["keys_deferred"], 7)
        i = result["idle_round"]
        self.assertEqual(i["keys_repaired"], 0)
        self.assertEqual(i["bytes_repaired"], 0)
        self.assertEqual(i["hash_bytes"], 100_000)
        self.assertIsNone(i["hash_bytes_per_differing_key"])
        b = result["rebuild"]
        self.assertEqual(b["seconds"], 16.0)  # the node's own start and finish, not the restart
        self.assertEqual(b["seconds_with_restart"], 20.0)
        self.assertEqual(b["keys_per_s"], 2500.0)
        self.assertEqual(b["mb_per_s"], 0.5)
        self.assertEqual(b["hash_bytes"], 80_000)
        load = {p["phase"]: p for p in result["load"]}
        self.assertEqual(load["before"]["put"]["p99_ms"], 2.0)
        self.assertEqual(load["during the round"]["put"]["requests"], 100)
        self.assertEqual(load["during the round"]["put"]["p99_ms"], 20.0)
        self.assertEqual(load["during the round"]["put"]["p99_over_before"], 10.0)
        self.assertEqual(load["during the idle round"]["put"]["p99_over_before"], 1.0)
        # the run's own noise floor (before, in two identical windows) is 1x here: 10x is beyond it, 1x is not
        self.assertEqual(result["noise"]["put_p99_floor"], 1.0)
        self.assertEqual(load["during the round"]["put"]["p99_change"], "higher")
        self.assertEqual(load["during the idle round"]["put"]["p99_change"], "not separable here")
        self.assertIn("| 1.00x (not separable here) |", md)
        self.assertEqual(load["during the rebuild"]["get"]["unexpected"], 1)
        self.assertEqual(load["after"]["get"]["unexpected"], 0)
        self.assertIn("| keys sent | 500 | 0 | 40000 |", md)
        self.assertIn("| hash bytes per differing key | 500.0 | | |", md)
        self.assertIn("| during the round (10.0 s) | 2.00 | 20.0 | 20.0 | 10.00x |", md)

    def test_a_rebuild_without_its_start_is_timed_from_the_restart(self):
        path = os.path.join(self.raw, "repair-after-rebuild.jsonl")
        with open(path) as f:
            statuses = [json.loads(line) for line in f]
        statuses[2]["rebuild"]["startedAt"] = 0
        with open(path, "w") as f:
            f.writelines(json.dumps(s) + "\n" for s in statuses)
        result, _ = self.report()
        self.assertEqual(result["rebuild"]["seconds"], 20.0)
        self.assertEqual(result["rebuild"]["keys_per_s"], 2000.0)

    def test_render_again_from_the_json(self):
        self.assert_renders_again(repair_report, "repair")


class NoisyRunTest(RepairReportTest):
    """The same run with the PUTs of the second half of "before" at 4 ms: the run's PUT floor is 2x."""
    LATE_BEFORE_PUT_MS = 4.0

    def test_round_idle_round_rebuild_and_the_load(self):
        result, md = self.report()
        self.assertEqual(result["noise"]["put_p99_floor"], 2.0)
        load = {p["phase"]: p for p in result["load"]}
        self.assertEqual(load["during the round"]["put"]["p99_over_before"], 5.0)
        self.assertEqual(load["during the round"]["put"]["p99_change"], "higher")
        self.assertEqual(load["during the idle round"]["put"]["p99_over_before"], 0.5)
        self.assertEqual(load["during the idle round"]["put"]["p99_change"], "not separable here")
        self.assertIn("their p99s differ by up to 2.00x (PUT)", md)


if __name__ == "__main__":
    unittest.main()
