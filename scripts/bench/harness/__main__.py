"""python -m harness ab ...       the A/B scenario, then its report (scripts/bench-ab.sh passes the jars and tools)
python -m harness report RAW... OUT NAME the report of a run from its raw ab.json (or of runs of one scenario, one
                                         shape each: scripts/bench-ab.sh runs each shape on its own)
python -m harness render OUT NAME        NAME.md and NAME.svg again from OUT/NAME.json
python -m harness profdiff A N B M       two collapsed-stack profiles (A over N requests, B over M), frame by frame
                                         per 1000 requests, largest change first (--inclusive: whole stacks)
python -m harness scenario NAME ...      an event scenario (scenarios/NAME.json) on local nodes, then its report
                                         (scripts/bench/scenario.sh passes the jar and tools)
python -m harness nodes ... -- CMD...    a local cluster of this build's nodes while CMD runs (scripts/bench.sh: the
                                         tapes of make bench, python3 -m runner run ...)
"""
import argparse
import json
import os
import sys

from . import ab, abreport, nodes, profiles, scenario


def arguments(argv):
    p = argparse.ArgumentParser(prog="python -m harness", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    a = sub.add_parser("ab", help="run the A/B scenario (harness/ab.py) and write its report")
    a.add_argument("--base-jar", required=True)
    a.add_argument("--head-jar", required=True)
    a.add_argument("--bench-jar", required=True, help="dht-bench.jar: the reference servers")
    a.add_argument("--refs-jar", help="the node jar the reference servers run with (default: --head-jar)")
    a.add_argument("--java", required=True)
    a.add_argument("--java-flags", default="")
    a.add_argument("--node-args", default="")
    a.add_argument("--wrk", required=True)
    a.add_argument("--oha", required=True)
    a.add_argument("--scripts", required=True, help="the directory of the wrk scripts (scripts/bench)")
    a.add_argument("--work", required=True, help="raw outputs, logs and data (data removed at the end)")
    a.add_argument("--out", required=True, help="where the report goes")
    a.add_argument("--name", required=True, help="the report's file name, without extension")
    a.add_argument("--rounds", type=int, default=3)
    a.add_argument("--window", type=int, default=10, help="seconds per measured window")
    a.add_argument("--warmup-window", type=int, default=4)
    a.add_argument("--single-rate", type=int, default=20000)
    a.add_argument("--cluster-rate", type=int, default=5000)
    a.add_argument("--keys", type=int, default=100000, help="preloaded keys per wrk thread (a power of ten)")
    a.add_argument("--port", type=int, default=19400, help="first of the ports used (up to +22, and +10000 each)")
    a.add_argument("--shapes", default="single,cluster")
    a.add_argument("--refs", default="bare,rocks")
    a.add_argument("--cases", default="put-closed,get-closed,put-rate,get-rate")
    a.add_argument("--profile", default="", help="events to profile after the rounds (cpu,alloc); '' for none")
    a.add_argument("--meta", action="append", default=[], metavar="KEY=VALUE")
    a.add_argument("--raw-only", action="store_true", help="write WORK/ab.json only, no report")
    r = sub.add_parser("report", help="the report of a run (or of one run per shape) from the raw ab.json")
    r.add_argument("raw", nargs="+")
    r.add_argument("out")
    r.add_argument("name")
    e = sub.add_parser("scenario", help="an event scenario (harness/scenario.py) and its report")
    e.add_argument("scenario", help="a name under scripts/bench/scenarios/ or a path to a .json")
    e.add_argument("--jar", required=True)
    e.add_argument("--java", required=True)
    e.add_argument("--java-flags", default="")
    e.add_argument("--oha", required=True)
    e.add_argument("--wrk", help="for a scenario with closed-model windows (harness/measure.py)")
    e.add_argument("--k6")
    e.add_argument("--versitygw", help="the S3-compatible store of a scenario's object_store step")
    e.add_argument("--bench-jar", help="dht-bench.jar: the reference servers of a scenario's \"refs\"")
    e.add_argument("--python", help="the python that runs the report (default: this one)")
    e.add_argument("--work", required=True, help="raw outputs (WORK/raw), logs and data (data removed at the end)")
    e.add_argument("--out", required=True, help="where the report goes (BENCH_OUT overrides)")
    d = sub.add_parser("render", help="NAME.md and NAME.svg again from OUT/NAME.json")
    d.add_argument("out")
    d.add_argument("name")
    f = sub.add_parser("profdiff", help="two collapsed-stack profiles, frame by frame, per 1000 requests")
    f.add_argument("a")
    f.add_argument("a_requests", type=float)
    f.add_argument("b")
    f.add_argument("b_requests", type=float)
    f.add_argument("--inclusive", action="store_true", help="frames anywhere on the stack, not only the leaf")
    f.add_argument("--top", type=int, default=25)
    n = sub.add_parser("nodes", help="a local cluster (harness/nodes.local_cluster) while a command runs")
    n.add_argument("--count", type=int, default=3)
    n.add_argument("--port", type=int, default=8080, help="the first node's port (the others: the next ones)")
    n.add_argument("--jar", required=True)
    n.add_argument("--java", required=True)
    n.add_argument("--java-flags", default="", help="the JDK's own flags (lib.sh's node_jdk_flags)")
    n.add_argument("--java-opts", default="", help="JVM options of every node")
    n.add_argument("--node-args", default="", help="options of every node")
    n.add_argument("--work", required=True, help="the nodes' logs (node<i>.log) and data (data/, removed at the end)")
    n.add_argument("--keep-data", action="store_true", help="keep WORK/data")
    n.add_argument("cmd", nargs=argparse.REMAINDER, help="-- the command, run once every node serves")
    return p.parse_args(argv)


def main(argv):
    a = arguments(argv)
    if a.command == "ab":
        keys = a.keys
        if keys < 10 or str(keys).rstrip("0") != "1":
            raise SystemExit("--keys must be a power of ten, at least 10 (got %d)" % keys)
        a.meta = dict(kv.split("=", 1) for kv in a.meta if "=" in kv)
        raw = ab.run(ab.Settings(a))
        if not a.raw_only:
            abreport.write([raw], a.out, a.name)
            print("[bench-ab] report: %s" % os.path.join(a.out, a.name + ".md"))
    elif a.command == "nodes":
        cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
        if not cmd:
            raise SystemExit("python -m harness nodes ... -- CMD...: no command")
        tools = {"java": a.java, "java_flags": a.java_flags.split(), "jar": a.jar}
        return nodes.run_beside(nodes.local_cluster(a.count, a.port, tools, a.java_opts, a.node_args, a.work), cmd,
                                a.keep_data)
    elif a.command == "scenario":
        return scenario.main(a)
    elif a.command == "profdiff":
        d = profiles.diff(a.a, a.a_requests, a.b, a.b_requests, a.inclusive, a.top)
        print("samples per 1000 requests: A %.2f, B %.2f" % (d["a_total"], d["b_total"]))
        print("%9s %9s %9s %6s %6s  frame" % ("A", "B", "B-A", "A%", "B%"))
        for r in d["rows"]:
            print("%9.2f %9.2f %+9.2f %5.1f%% %5.1f%%  %s" % (r["a"], r["b"], r["b"] - r["a"], 100 * r["a_share"],
                                                            100 * r["b_share"], r["frame"][:160]))
    elif a.command == "report":
        abreport.write(a.raw, a.out, a.name)
    else:
        with open(os.path.join(a.out, a.name + ".json"), encoding="utf-8") as f:
            abreport.render(json.load(f), a.out, a.name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
