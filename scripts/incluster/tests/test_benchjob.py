"""benchjob, the program of a DhtBenchmark's Job, with a stand-in for the bench runner that records its command line
and writes a summary.json as the runner does: the operator's arguments become the runner's, and the runner's
summary becomes the headline the operator reads from the termination message."""
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import benchjob  # noqa: E402

PROGRAM = os.path.join(HERE, "..", "benchjob.py")

SUMMARY = {
    "run_id": "r1",
    "tapes": {
        "put-unique": {"rps": 499.7, "p99_ms": 3.25, "errors": 0, "dropped": 1,
                       "flamegraphs": ["kv-0-put-unique-alloc.html", "kv-0-put-unique-cpu.html"],
                       "profile_errors": [{"node": "kv-1", "event": "cpu", "error": "HTTP 409: node busy for 5s"}]},
        "get-uniform": {"rps": 500.1, "p99_ms": 1.5, "errors": 2, "dropped": 0,
                        "saturation": {"reached": True, "rate": 4200, "reason": "p99 above 10 ms"},
                        "flamegraphs": ["kv-0-get-uniform-cpu.html"], "profile_errors": []},
    },
    "failures": [],
}

FAKE_RUNNER = textwrap.dedent("""
    import json, os, sys
    args = sys.argv[1:]
    with open(os.environ["ARGV_FILE"], "w") as f:
        json.dump(args, f)
    out = args[args.index("--out") + 1]
    summary = os.environ.get("SUMMARY")
    if summary:
        with open(os.path.join(out, "summary.json"), "w") as f:
            f.write(summary)
    if os.environ.get("EXIT", "0") != "0":
        sys.stderr.write("runner says: giving up\\n")
    sys.exit(int(os.environ.get("EXIT", "0")))
""")


class BenchJobTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = tmp.name
        self.runner = os.path.join(self.dir, "fake_runner.py")
        with open(self.runner, "w") as f:
            f.write(FAKE_RUNNER)
        self.out = os.path.join(self.dir, "results", "smoke", "r1")
        self.termination = os.path.join(self.dir, "termination-log")

    def run_job(self, extra, summary=SUMMARY, exit_code=0):
        env = dict(os.environ, ARGV_FILE=os.path.join(self.dir, "argv.json"), EXIT=str(exit_code),
                   SUMMARY=json.dumps(summary, sort_keys=True) if summary is not None else "")
        args = [sys.executable, PROGRAM, "--benchmark", "smoke", "--run-id", "r1", "--out", self.out,
                "--tapes", "put-unique,get-uniform", "--duration", "60s", "--prefill", "5000", "--value-size", "64",
                "--targets", "http://kv.prod.svc.cluster.local:8080", "--termination-log", self.termination,
                "--runner", "%s %s" % (sys.executable, self.runner)] + extra
        proc = subprocess.run(args, capture_output=True, text=True, timeout=60, env=env)
        argv = []
        if os.path.exists(os.path.join(self.dir, "argv.json")):
            with open(os.path.join(self.dir, "argv.json")) as f:
                argv = json.load(f)
        with open(self.termination) as f:
            message = f.read()
        return proc, argv, message

    def option(self, argv, name):
        return argv[argv.index(name) + 1]

    def test_a_const_run_with_profilers_becomes_the_runners_command_and_a_headline(self):
        proc, argv, message = self.run_job(["--profile", "const", "--rate", "500", "--replicas", "2/3",
                                            "--profiler", "kv-0=http://kv-0.kv-headless:8079",
                                            "--profiler", "kv-1=http://kv-1.kv-headless:8079",
                                            "--events", "cpu,alloc", "--capture", "15s"])
        self.assertEqual(0, proc.returncode, proc.stderr)
        self.assertEqual("run", argv[0])
        self.assertEqual("http://kv.prod.svc.cluster.local:8080", self.option(argv, "--targets"))
        self.assertEqual(self.out, self.option(argv, "--out"))
        self.assertEqual("r1", self.option(argv, "--run-id"))
        self.assertEqual("put-unique,get-uniform", self.option(argv, "--tapes"))
        self.assertEqual("k6", self.option(argv, "--engine"), "the default engine")
        self.assertEqual(("const", "500", "60s"), (self.option(argv, "--profile"), self.option(argv, "--rate"),
                                                   self.option(argv, "--duration")))
        self.assertEqual(("5000", "64", "2/3"), (self.option(argv, "--keys"), self.option(argv, "--value-size"),
                                                 self.option(argv, "--replicas")))
        self.assertEqual("kv-0=http://kv-0.kv-headless:8079,kv-1=http://kv-1.kv-headless:8079",
                         self.option(argv, "--nodes"))
        self.assertEqual("cpu,alloc", self.option(argv, "--events"))
        # 60 s tape, the runner's last 2 s unprofiled, two 15 s captures: they start at 28 s.
        self.assertEqual("28", self.option(argv, "--warmup"))
        self.assertEqual("benchmark=smoke", self.option(argv, "--meta"))
        headline = json.loads(message)
        self.assertEqual({"rps": 499.7, "p99_ms": 3.25, "errors": 0, "dropped": 1, "saturation_rps": None},
                         headline["tapes"]["put-unique"])
        self.assertEqual(4200, headline["tapes"]["get-uniform"]["saturation_rps"])
        self.assertEqual(["put-unique", "get-uniform"], list(headline["tapes"]))
        self.assertEqual(3, headline["flamegraphs"])
        self.assertEqual(["kv-1 put-unique cpu: HTTP 409: node busy for 5s"], headline["problems"])
        self.assertEqual("RESULT " + message, proc.stdout.strip().splitlines()[-1])

    def test_a_ramp_without_profilers_asks_for_no_flamegraphs(self):
        proc, argv, _ = self.run_job(["--profile", "ramp", "--ramp-to", "8000", "--engine", "oha"])
        self.assertEqual(0, proc.returncode, proc.stderr)
        self.assertEqual("oha", self.option(argv, "--engine"))
        self.assertEqual(("ramp", "8000", "1"), (self.option(argv, "--profile"), self.option(argv, "--rate"),
                                                 self.option(argv, "--start-rate")))
        self.assertEqual("none", self.option(argv, "--nodes"))
        self.assertEqual("", self.option(argv, "--events"))
        self.assertNotIn("--warmup", argv)
        self.assertNotIn("--replicas", argv)

    def test_an_oha_runs_summary_gives_the_same_headline(self):
        summary = {"run_id": "r1", "params": {"engine": "oha"}, "failures": [], "tapes": {
            "get-uniform": {"engine": "oha", "rps": 14998.2, "p99_ms": 7.5, "errors": 3, "dropped": 0,
                            "status": {"200": 899890}, "no_answer": {"connection closed": 3},
                            "flamegraphs": [], "profile_errors": []}}}
        proc, argv, message = self.run_job(["--engine", "oha", "--tapes", "get-uniform"], summary=summary)
        self.assertEqual(0, proc.returncode, proc.stderr)
        self.assertEqual("oha", self.option(argv, "--engine"))
        self.assertEqual({"rps": 14998.2, "p99_ms": 7.5, "errors": 3, "dropped": 0, "saturation_rps": None},
                         json.loads(message)["tapes"]["get-uniform"])

    def test_a_failed_tape_fails_the_job_and_the_headline_says_why(self):
        summary = dict(SUMMARY, failures=["k6 exited with 107 on tape get-uniform"])
        proc, _, message = self.run_job([], summary=summary, exit_code=1)
        self.assertEqual(1, proc.returncode)
        self.assertEqual("k6 exited with 107 on tape get-uniform", json.loads(message)["problems"][0])

    def test_a_runner_that_leaves_no_summary_fails_with_a_plain_reason(self):
        proc, _, message = self.run_job([], summary=None, exit_code=3)
        self.assertEqual(1, proc.returncode)
        self.assertEqual("the runner exited with 3 and wrote no summary: runner says: giving up\n", message)

    def test_a_runner_that_dies_after_its_summary_began_says_why_in_the_problems(self):
        proc, _, message = self.run_job([], summary={"tapes": {}, "failures": []}, exit_code=1)
        self.assertEqual(1, proc.returncode)
        self.assertEqual(["the runner exited with 1: runner says: giving up"], json.loads(message)["problems"])

    def test_a_terminated_job_passes_the_signal_to_the_runner_which_still_leaves_its_summary(self):
        runner = os.path.join(self.dir, "slow_runner.py")
        with open(runner, "w") as f:
            f.write(textwrap.dedent("""
                import json, os, signal, sys, time
                out = sys.argv[sys.argv.index("--out") + 1]
                def stop(signum, frame):
                    with open(os.path.join(out, "summary.json"), "w") as f:
                        json.dump({"tapes": {}, "failures": ["interrupted"]}, f)
                    sys.exit(130)
                signal.signal(signal.SIGTERM, stop)
                sys.stderr.write("running\\n")
                sys.stderr.flush()
                time.sleep(60)
            """))
        proc = subprocess.Popen([sys.executable, PROGRAM, "--benchmark", "smoke", "--run-id", "r1", "--out", self.out,
                                 "--tapes", "mixed", "--targets", "http://x", "--termination-log", self.termination,
                                 "--runner", "%s %s" % (sys.executable, runner)], stderr=subprocess.PIPE, text=True)
        for line in proc.stderr:  # the runner is under way
            if line.strip() == "running":
                break
        proc.terminate()
        proc.communicate(timeout=30)
        self.assertEqual(130, proc.returncode)
        with open(self.termination) as f:
            self.assertEqual(["interrupted"], json.loads(f.read())["problems"])

    def test_the_headline_fits_the_termination_message(self):
        summary = {"tapes": {"put-unique": dict(SUMMARY["tapes"]["put-unique"],
                                                profile_errors=[{"node": "kv-%d" % i, "event": "cpu",
                                                                 "error": "x" * 500} for i in range(100)])}}
        text = benchjob.fit(benchjob.headline(summary))
        self.assertLessEqual(len(text.encode()), benchjob.TERMINATION_LIMIT)
        kept = json.loads(text)
        self.assertEqual(499.7, kept["tapes"]["put-unique"]["rps"])
        self.assertGreater(len(kept["problems"]), 0)
        self.assertLess(len(kept["problems"]), 100)


if __name__ == "__main__":
    unittest.main()
