"""The event scenarios (harness/scenario.py, scenarios/*.json): every scenario file names only steps the launcher
knows, a report that exists and the settings its report reads; settings come from BENCH_<NAME>; values are templated
and evaluated; the oha command lines a load and a preload make. Then the pause scenario, shrunk to seconds, on three
real nodes (node/target/dht-node.jar) and oha: the raw outputs its report reads, and the report itself."""
import inspect
import json
import os
import subprocess
import sys
import shutil
import tempfile
import unittest

import unittest.mock

from harness import measure, scenario, scenariofile
from harness.servers import bindable

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
JAR = os.path.join(ROOT, "node", "target", "dht-node.jar")
NAMES = sorted(f[:-5] for f in os.listdir(scenariofile.SCENARIOS) if f.endswith(".json"))


class ScenarioFiles(unittest.TestCase):
    def test_every_scenario_names_known_steps_loads_and_an_existing_report(self):
        self.assertIn("pause", NAMES)
        self.assertIn("repair", NAMES)
        self.assertIn("node", NAMES)
        self.assertIn("cluster", NAMES)
        self.assertIn("backup", NAMES)
        for name in NAMES:
            with self.subTest(name):
                sc = scenariofile.load_scenario(name)
                self.assertTrue(os.path.exists(os.path.join(os.path.dirname(scenariofile.SCENARIOS), sc["report"])))
                for step in all_steps(sc["steps"]):
                    self.assertIn(step[0], scenario.STEPS)
                    # the arguments fit what the step's function takes (two modules once defined one method name
                    # twice, and the later one, with another signature, hid the step)
                    try:
                        inspect.signature(scenario.STEPS[step[0]]).bind(None, *step[1:])
                    except TypeError as e:
                        self.fail("%s: step %s does not take %r: %s" % (name, step[0], step[1:], e))
                self.assertIn("port", sc["settings"])
                self.assertIn("replicas", sc["settings"])
                conf = scenariofile.settings(sc, {})
                v = scenariofile.Values(conf, {})
                for load in v(sc.get("loads", [])):
                    self.assertGreater(int(load["rate"]), 0)
                    self.assertTrue(load["name"] and load["through"])
                # every step's values evaluate with the defaults (those derived during the run are templated later),
                # the steps of rounds as in round 1, of each as with a first item, what windows measured stubbed
                for step in sc["steps"]:
                    if step[0] != "set":
                        scenariofile.Values(dict(conf, r=1, mode="plain", op="put", s=1), {}, STUBS)(step[1:])

    def test_settings_come_from_the_environment(self):
        sc = scenariofile.load_scenario("pause")
        conf = scenariofile.settings(sc, {"BENCH_KEYS": "500", "BENCH_NODE_ARGS": "", "BENCH_PAUSE": "",
                                      "BENCH_LABEL": "a b"})
        self.assertEqual(conf["keys"], 500)
        self.assertEqual(conf["node_args"], "", "set but empty: no node arguments, as ${BENCH_NODE_ARGS-...}")
        self.assertEqual(conf["pause"], 15, "empty: the default")
        self.assertEqual(conf["label"], "a b")
        self.assertEqual(list(conf)[:3], ["keys", "key_digits", "read_rate"], "env.txt keeps the file's order")

    def test_values_are_templated_and_evaluated(self):
        v = scenariofile.Values({"key_digits": 6, "before": 20, "pause": 15}, {"url2": "http://127.0.0.1:18302"})
        self.assertEqual(v("k[0-9]{$key_digits}"), "k[0-9]{6}")
        self.assertEqual(v("=before + pause + 5"), 40)
        self.assertEqual(v(["$url2", {"n": "=pause // 2"}, 3]), ["http://127.0.0.1:18302", {"n": 7}, 3])


# the functions of a scenario's "=expression", what they read of the windows measured stubbed
STUBS = {"rps": lambda name: 1000.0, "median_rps": lambda name: 1000.0, "written": lambda name: 5000,
         "written_ids": measure.written_ids, "int": int, "node_default": lambda env: "?", "now_ms": lambda: 0,
         "cluster": lambda name: [0, 1, 2], "live": lambda: [0, 1, 2], "turn": scenario.turn, "after": scenario.after}


def all_steps(steps):
    """The steps with those inside rounds, alternate and each, depth first."""
    for step in steps:
        yield step
        if step[0] == "rounds":
            yield from all_steps(step[2])
        elif step[0] == "alternate":
            yield from all_steps(step[1:])
        elif step[0] == "each":
            yield from all_steps(step[3])


class OhaCommands(unittest.TestCase):
    def run_of(self, name, env=None):
        sc = scenariofile.load_scenario(name)
        tmp = tempfile.mkdtemp(prefix="dht-scenario-test-")
        self.addCleanup(shutil.rmtree, tmp)
        tools = {"java": "java", "java_flags": [], "jar": "dht-node.jar", "oha": "oha", "python": sys.executable}
        return scenario.Run(sc, scenariofile.settings(sc, env or {}), tools, tmp, os.path.join(tmp, "out"))

    def test_a_load_through_two_nodes_connects_to_both(self):
        r = self.run_of("repair", {"BENCH_PORT": "18400"})
        spec = r.v(r.sc["loads"][1])
        cmd = r.oha(spec, ["-z", "10s"])
        self.assertEqual(cmd[:3], ["oha", "-z", "10s"])
        self.assertIn("127.0.0.1:18400:127.0.0.1:18401", cmd)
        self.assertIn("127.0.0.1:18400:127.0.0.1:18400", cmd)
        self.assertEqual(cmd[-1], "http://127.0.0.1:18400/v0/entity\\?id=k[0-9]{6}&replicas=2/3")
        self.assertNotIn("-d", cmd, "a GET sends no body")

    def test_a_load_through_one_node_goes_to_it(self):
        r = self.run_of("pause", {"BENCH_PORT": "18400"})
        spec = r.v(r.sc["loads"][3])  # put1
        cmd = r.oha(spec, [])
        self.assertNotIn("--connect-to", cmd)
        self.assertEqual(cmd[-1], "http://127.0.0.1:18401/v0/entity\\?id=w[0-9a-f]{16}&replicas=2/3")
        self.assertEqual(cmd[cmd.index("-d") + 1], scenario.VALUE)
        self.assertEqual(spec["rate"], 250)
        self.assertEqual(spec["seconds"], 55)


class MeasureSteps(unittest.TestCase):
    """The windows of a scenario measured one after another (harness/measure.py): their targets, oha commands and
    the settings derived from what a window measured."""

    def run_of(self, name, env=None):
        return OhaCommands.run_of(self, name, env)

    def test_targets_are_nodes_lists_of_nodes_or_reference_servers(self):
        r = self.run_of("node", {"BENCH_PORT": "18080"})
        self.assertEqual((r.target_port(0), r.target_port("bare")), (18080, 18090))
        spec = {"name": "bare-get", "through": ["bare"], "method": "GET", "connections": 64, "id": "t[0-1]-0{6}"}
        cmd = r.oha(spec, [])
        self.assertEqual(cmd[-1], "http://127.0.0.1:18090/v0/entity\\?id=t[0-1]-0{6}", "no replicas on one node")
        c = self.run_of("cluster", {"BENCH_PORT": "18100"})
        spread = c.oha({"through": [0, 1, 2], "method": "GET", "connections": 64, "id": "x"}, [])
        self.assertEqual([spread[i + 1] for i, a in enumerate(spread) if a == "--connect-to"],
                         ["127.0.0.1:18100:127.0.0.1:%d" % p for p in (18100, 18101, 18102)])
        self.assertTrue(spread[-1].endswith("id=x&replicas=2/3"))
        single = c.oha({"through": [3], "replicas": "", "method": "GET", "connections": 64, "id": "x"}, [])
        self.assertEqual(single[-1], "http://127.0.0.1:18103/v0/entity\\?id=x")

    def test_the_single_node_runs_alone_and_the_cluster_knows_its_three_members(self):
        c = self.run_of("cluster", {"BENCH_PORT": "18100"})
        c.tools["java_flags"] = []
        argv = {}
        for i in (0, 3):
            with unittest.mock.patch("subprocess.Popen") as popen:
                c.launch(i)
            argv[i] = popen.call_args[0][0]
        self.assertIn("--cluster", argv[0])
        self.assertEqual(argv[0][argv[0].index("--cluster") + 1],
                         "http://127.0.0.1:18100,http://127.0.0.1:18101,http://127.0.0.1:18102")
        self.assertNotIn("--cluster", argv[3])
        self.assertNotIn("--self", argv[3])

    def test_settings_derived_from_a_window(self):
        r = self.run_of("node")
        with open(r.path("env.txt"), "w") as f:
            f.write("duration=30\n")
        for rnd, rps, keys in ((1, "10000.50", 43670), (2, "12000.00", 50000), (3, "9000.00", 40000)):
            with open(r.path("wrk-node-put-%d.txt" % rnd), "w") as f:
                f.write("  100000 requests in 10.00s\nRequests/sec:  %s\nKEYS_PER_THREAD %d\n" % (rps, keys))
        for step in r.sc["steps"]:
            if step[0] == "set" and step[1] in ("keys_per_thread", "rate_put", "get_ids"):
                r.step(*step)
        self.assertEqual(r.conf["keys_per_thread"], 43670 - 64, "round 1's keys, less the requests in flight when wrk "
                         "stopped")
        self.assertEqual(r.conf["rate_put"], 7000, "0.7 x the median of the rounds' req/s")
        self.assertEqual(r.conf["get_ids"], "t[0-1]-000000[1-9][0-9]{3}")  # keys 1000..9999 of each thread
        with open(r.path("env.txt")) as f:
            self.assertEqual(f.read().splitlines()[1:], ["keys_per_thread=43606", "rate_put=7000",
                                                         "get_ids=t[0-1]-000000[1-9][0-9]{3}"])
        with self.assertRaises(RuntimeError):
            measure.written_ids(2, 64)

    def test_rounds_evaluate_their_steps_in_each_round(self):
        r = self.run_of("defaults-node")
        with open(r.path("env.txt"), "w") as f:
            f.write("")
        r.conf["rounds"] = 2
        r.step("rounds", "$rounds", [["set", "window", "oha-PUT-$r-node"], ["set", "twice", "=r * 2"]])
        with open(r.path("env.txt")) as f:
            self.assertEqual(f.read().splitlines(), ["window=oha-PUT-1-node", "twice=2", "window=oha-PUT-2-node",
                                                     "twice=4"])
        self.assertNotIn("r", r.conf, "the round's number is gone after the rounds")

    def test_alternate_reverses_its_steps_in_even_rounds(self):
        r = self.run_of("node")
        with open(r.path("env.txt"), "w") as f:
            f.write("")
        r.conf["rounds"] = 3
        r.step("rounds", "$rounds", [["alternate", ["set", "first", "node-put-$r"], ["set", "second", "bare-put-$r"]]])
        with open(r.path("env.txt")) as f:
            self.assertEqual(f.read().splitlines(), ["first=node-put-1", "second=bare-put-1", "second=bare-put-2",
                                                     "first=node-put-2", "first=node-put-3", "second=bare-put-3"])

    def test_the_judged_windows_are_measured_in_rounds_of_alternating_order(self):
        for name, pairs in (("node", ("node-put-$r", "node-get-$r", "node-put-ref-$r", "node-get-ref-$r")),
                            ("cluster", ("cluster-put-$r", "cluster-get-$r", "cluster-put-ref-$r",
                                         "cluster-get-ref-$r")),
                            ("defaults-node", ("put-node-$r", "get-node-$r")),
                            ("defaults-cluster", ("put-one-entry-$r", "get-one-entry-$r"))):
            with self.subTest(name):
                sc = scenariofile.load_scenario(name)
                self.assertEqual(sc["settings"]["rounds"], 3)
                alternated = [s[1]["name"] for a in all_steps(sc["steps"]) if a[0] == "alternate" for s in a[1:]]
                for window in pairs:
                    self.assertIn(window, alternated)


def free_ports(offsets=(0, 1, 2)):
    """A port p with p + each offset free, and their member ports (+10000)."""
    for port in range(21000, 30000, 20):
        if all(bindable(port + o) and bindable(port + o + 10000) for o in offsets):
            return port
    raise AssertionError("no free ports")


@unittest.skipUnless(os.environ.get("OHA"), "needs oha ($OHA: make bench-test sets it)")
class PauseOnThreeNodes(unittest.TestCase):
    """make bench-pause's scenario, shrunk: 3,000 keys, 4 s before, a 2 s pause, 2 s after (about 25 s)."""

    def test_the_pause_scenario_leaves_what_its_report_reads(self):
        env = {"BENCH_KEYS": "3000", "BENCH_BEFORE": "4", "BENCH_PAUSE": "2", "BENCH_AFTER": "2",
               "BENCH_WARMUP": "1", "BENCH_READ_RATE": "100", "BENCH_WRITE_RATE": "50",
               "BENCH_PORT": str(free_ports()), "BENCH_JAVA_OPTS": "-Xms128m -Xmx256m"}
        tmp, raw, out = run_live(self, "pause", env)
        with open(os.path.join(raw, "timeline.txt")) as f:
            tl = dict(line.strip().split("=") for line in f if line.strip())
        for m in ("load_start", "get0_start", "put1_start", "pause", "resume", "load_end"):
            self.assertIn(m, tl)
        self.assertAlmostEqual((int(tl["resume"]) - int(tl["pause"])) / 1000, 2, delta=0.5)
        for f in ("load-get0.csv", "load-put1.csv", "watch.jsonl", "node2.log", "node0-metrics.txt"):
            self.assertGreater(os.path.getsize(os.path.join(raw, f)), 0, f)
        with open(os.path.join(out, "pause.json")) as f:
            result = json.load(f)
        self.assertEqual(result["env"]["keys"], "3000")
        self.assertEqual(result["env"]["paused_peer"], "http://127.0.0.1:%s" % (int(env["BENCH_PORT"]) + 2))
        self.assertGreater(result["load"]["before"]["get"]["requests"], 100)
        self.assertIn(result["targets"]["get_p99_verdict"], ("met", "missed", "not separable here"))
        self.assertIsNotNone(result["noise"]["get_p99_floor"])
        self.assertFalse(os.path.exists(os.path.join(tmp, "data")), "the nodes' data is removed")


@unittest.skipUnless(os.environ.get("OHA") and os.environ.get("VERSITYGW"),
                     "needs oha and versitygw ($OHA, $VERSITYGW: make bench-test sets them)")
class BackupOnSixNodes(unittest.TestCase):
    """make bench-backup's scenario, shrunk: 2,000 keys, 4-s phases, on three real nodes backing up to a real
    versitygw and three fresh ones restoring: the object store, the calls and the polls until every member is done
    (harness/admin.py) leave what backup-report.py reads, and every byte backed up is restored."""

    def test_the_backup_scenario_backs_up_and_restores(self):
        env = {"BENCH_KEYS": "2000", "BENCH_RATE": "100", "BENCH_WARMUP": "1", "BENCH_PHASE": "4",
               "BENCH_STEADY_MAX": "0", "BENCH_PORT": str(free_ports(range(7))), "BENCH_STORE_DIR": "",
               "BENCH_JAVA_OPTS": "-Xms128m -Xmx256m", "BENCH_NODE_ARGS": "--replication-factor 3"}
        tmp, raw, out = run_live(self, "backup", env, versitygw=os.environ["VERSITYGW"])
        with open(os.path.join(raw, "timeline.txt")) as f:
            tl = [line.split("=")[0] for line in f if line.strip()]
        self.assertEqual([m for m in tl if m in ("before_start", "backup_start", "backup_done", "load_end",
                                                 "restore_start", "restore_streamed", "restore_done")],
                         ["before_start", "backup_start", "backup_done", "load_end", "restore_start",
                          "restore_streamed", "restore_done"])
        for i in range(3):
            with open(os.path.join(raw, "backup-node%d.json" % i)) as f:
                self.assertEqual(json.load(f)["phase"], "done")
        with open(os.path.join(out, "backup.json")) as f:
            result = json.load(f)
        self.assertGreater(result["backup"]["bytes"], 0)
        self.assertEqual(result["restore"]["bytes"], result["backup"]["bytes"], "every byte backed up is restored")
        self.assertGreater(result["restore"]["loaded_records"], 2000 * 0.6, "about 2000 random ids: most distinct")
        self.assertGreater(result["cpu_cores"]["during backup"]["store"], 0, "the store's CPU is sampled")
        self.assertFalse(os.path.exists(os.path.join(tmp, "data")), "the nodes' data is removed")


@unittest.skipUnless(os.environ.get("OHA") and os.environ.get("WRK") and os.environ.get("K6"),
                     "needs oha, wrk and k6 ($OHA, $WRK, $K6: make bench-test sets them)")
class NodeScenarioAgainstOneNode(unittest.TestCase):
    """make bench-node's scenario, every window 2 s, 2 rounds, against a real node and the bare server (bench/target's
    jar): each measuring step leaves the raw output node-report.py reads, and the report states what it measured."""

    def test_the_node_scenario_leaves_what_its_report_reads(self):
        bench_jar = os.path.join(ROOT, "bench", "target", "dht-bench.jar")
        if not os.path.exists(bench_jar):
            raise AssertionError("%s is missing: build it first (scripts/mvn -pl bench -am package)" % bench_jar)
        port = free_ports((0, 10))  # the node and the bare server
        env = {"BENCH_DURATION": "2", "BENCH_ROUND": "2", "BENCH_ROUNDS": "2", "BENCH_WARMUP": "1",
               "BENCH_REFERENCE_RATE": "200", "BENCH_PORT": str(port),
               "BENCH_JAVA_OPTS": "-Xms128m -Xmx256m", "BENCH_NODE_ARGS": ""}
        tmp, raw, out = run_live(self, "node", env, wrk=os.environ["WRK"], k6=os.environ["K6"], bench_jar=bench_jar)
        for f in ("wrk-bare-put-1.txt", "wrk-node-get-2.txt", "oha-node-put.json", "oha-bare-get-ref-2.json",
                  "k6-node-get.json", "profile-node-put-cpu-collapsed.txt", "node0.log"):
            self.assertGreater(os.path.getsize(os.path.join(raw, f)), 0, f)
        with open(os.path.join(out, "node.json")) as f:
            result = json.load(f)
        e = result["environment"]
        self.assertGreater(int(e["keys_per_thread"]), 100)
        median = sum(result["wrk"]["node-put-%d" % i]["rps"] for i in (1, 2)) / 2
        self.assertEqual(int(e["rate_put"]), int(median * 0.7))
        for name in ("node-put", "bare-put", "node-get-ref-1", "bare-get-ref-2"):
            self.assertGreater(result["oha"][name]["ok"], 0, name)
        self.assertEqual(result["oha"]["node-get"]["non_2xx"], 0, "the GETs read ids the PUT window wrote")
        self.assertGreater(result["profiles"]["node-put"]["samples"], 0)
        self.assertTrue(result["smoke_run"])
        self.assertEqual(len(result["judged"]["put"]["ratios"]), 2)
        self.assertIsNotNone(result["judged"]["get-ref"]["floor"], "two rounds of each side: a floor")
        self.assertFalse(os.path.exists(os.path.join(tmp, "data")), "the nodes' data is removed")


def run_live(test, name, env, **tools):
    """The scenario NAME with the settings env on real processes (the node's jar, oha, and tools), in a temporary
    directory removed after the test: (that directory, its raw outputs, the report's directory)."""
    if not os.path.exists(JAR):
        raise AssertionError("%s is missing: build it first (scripts/mvn -pl node -am package)" % JAR)
    tmp = tempfile.mkdtemp(prefix="dht-scenario-live-")
    test.addCleanup(shutil.rmtree, tmp)
    java, *flags = java_and_flags()
    sc = scenariofile.load_scenario(name)
    tools = dict({"java": java, "java_flags": flags, "jar": JAR, "oha": os.environ["OHA"], "python": sys.executable},
                 **tools)
    out = os.path.join(tmp, "out")
    scenario.Run(sc, scenariofile.settings(sc, env), tools, tmp, out).run()
    return tmp, os.path.join(tmp, "raw"), out


def java_and_flags():
    """The JDK and its flags as scripts/bench/scenario.sh finds them."""
    return subprocess.run(
        ["bash", "-c", '. scripts/lib.sh && j=$(find_java_home)/bin/java && echo "$j" && node_jdk_flags "$j"'],
        cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()


if __name__ == "__main__":
    unittest.main()
