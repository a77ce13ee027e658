"""python3 -m runner run --targets URL[,URL...] --out DIR [options]: the tapes one after the other, each with
flamegraphs of every node during its steady part; writes DIR/summary.json, DIR/<tape>.series.csv (one row per
second), DIR/<node>-<tape>-<event>.html and DIR/raw/ (the engine's own outputs). The load comes from k6
(--engine k6, the default) or oha (--engine oha: a fixed rate with coordinated omission corrected, for rates k6
cannot hold). `--help` lists the options.
"""
import argparse
import datetime
import json
import os
import shutil
import signal
import sys

from harness import machine

from . import TAPES, NEEDS_FILL, k6 as k6run, oha as oharun, profiler, series


def log(msg):
    sys.stderr.write("[runner] %s\n" % msg)
    sys.stderr.flush()


def csv_list(text):
    return [x.strip() for x in text.split(",") if x.strip()]


def parse_nodes(text, targets):
    """'name=url,name=url' -> [(name, url)]; empty: the targets, named node0, node1, ..."""
    if not text:
        return [("node%d" % i, u) for i, u in enumerate(targets)]
    if text == "none":
        return []
    out = []
    for item in csv_list(text):
        name, sep, url = item.partition("=")
        if not sep or not name or not url:
            raise argparse.ArgumentTypeError("--nodes takes name=url pairs, comma-separated; got %r" % item)
        out.append((name, url))
    return out


def arguments(argv):
    p = argparse.ArgumentParser(prog="python3 -m runner", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run tapes against a cluster")
    r.add_argument("--targets", required=True, help="base URLs the load goes to, comma-separated")
    r.add_argument("--nodes", default="", help="nodes to profile, name=url comma-separated; default: the "
                   "targets as node0, node1, ...; 'none': no flamegraphs")
    r.add_argument("--out", required=True, help="the run's directory (created)")
    r.add_argument("--run-id", help="default: the name of --out")
    r.add_argument("--tapes", default=",".join(TAPES), help="comma-separated, in order (default: all five)")
    r.add_argument("--profile", choices=("const", "ramp"), default="const")
    r.add_argument("--rate", type=int, default=1000, help="req/s (const) or the ramp's final rate")
    r.add_argument("--start-rate", type=int, default=1, help="the ramp's first rate")
    r.add_argument("--duration", default="45s", help="per tape, e.g. 45s, 5m")
    r.add_argument("--replicas", default="", help="replicas=ack/from on every request, e.g. 2/3")
    r.add_argument("--keys", type=int, default=10000, help="pre-filled keys (GET and overwrite tapes)")
    r.add_argument("--value-size", type=int, default=100)
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--pre-vus", type=int, help="VUs made before the start (default: rate / 10, 50 to 500): "
                   "a VU made during the run costs time that shows as dropped arrivals")
    r.add_argument("--max-vus", type=int, default=2000)
    r.add_argument("--fill-vus", type=int, default=16)
    r.add_argument("--events", default="cpu,alloc", help="profiler events (cpu, alloc, lock, wall); '' for none")
    r.add_argument("--warmup", type=float, help="seconds before the flamegraph captures (default: 20%% of the "
                   "tape, at most 10)")
    r.add_argument("--sat-p99-ms", type=float, default=10.0, help="ramp: saturation when p99 goes above this")
    r.add_argument("--sat-error-rate", type=float, default=0.01,
                   help="ramp: ... or (errors + dropped) / arrivals goes above this")
    r.add_argument("--sat-hold", type=int, default=3, help="ramp: seconds in a row above a threshold")
    r.add_argument("--sat-min-responses", type=int, default=100,
                   help="ramp: a second's p99 counts from this many responses on")
    r.add_argument("--engine", choices=("k6", "oha"), default="k6",
                   help="what sends the load: k6 (default) or oha (fixed rate, --latency-correction: rates k6 "
                   "cannot hold; the ramp is a staircase of %gs steps)" % oharun.STEP_S)
    r.add_argument("--k6", default=os.environ.get("K6", "k6"), help="the k6 binary (default $K6 or k6); the "
                   "pre-fill runs on k6 with either engine")
    r.add_argument("--oha", default=os.environ.get("OHA", "oha"), help="the oha binary (default $OHA or oha)")
    r.add_argument("--commit", help="the commit measured (default: git, when the runner sits in a checkout)")
    r.add_argument("--meta", action="append", default=[], metavar="KEY=VALUE",
                   help="recorded in summary.json's meta (e.g. java=..., node_args=...)")
    return p.parse_args(argv)


def write_json(path, data):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def headline(k6_summary):
    keys = ("rps", "p50_ms", "p90_ms", "p99_ms", "p999_ms", "max_ms", "errors", "dropped", "requests", "avg_ms",
            "vus_max")
    return {k: k6_summary.get(k) for k in keys}


def run(a):
    tapes = csv_list(a.tapes)
    unknown = [t for t in tapes if t not in TAPES]
    if unknown or not tapes:
        raise SystemExit("unknown tapes %s: choose among %s" % (unknown, ", ".join(TAPES)))
    events = csv_list(a.events)
    bad = [e for e in events if e not in profiler.EVENTS]
    if bad:
        raise SystemExit("unknown profiler events %s: choose among %s" % (bad, ", ".join(profiler.EVENTS)))
    targets = csv_list(a.targets)
    nodes = parse_nodes(a.nodes, targets)
    duration_s = k6run.parse_duration(a.duration)
    if a.k6 and os.sep not in a.k6 and shutil.which(a.k6) is None:
        raise SystemExit("k6 not found (%s): pass --k6 or set K6" % a.k6)
    if a.engine == "oha" and os.sep not in a.oha and shutil.which(a.oha) is None:
        raise SystemExit("oha not found (%s): pass --oha or set OHA" % a.oha)
    tape_dir = k6run.k6_dir()
    out = os.path.abspath(a.out)
    raw = os.path.join(out, "raw")
    os.makedirs(raw, exist_ok=True)
    run_id = a.run_id or os.path.basename(out)
    meta = dict(kv.split("=", 1) for kv in a.meta if "=" in kv)
    pre_vus = a.pre_vus or min(500, max(50, a.rate // 10))

    summary = {
        "run_id": run_id,
        "started": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": a.commit or machine.git_commit(os.path.dirname(os.path.abspath(__file__))) or "unknown",
        "machine": machine.machine(),
        "tools": dict({"k6": machine.version(a.k6, "version")},
                      **({"oha": machine.version(a.oha, "--version")} if a.engine == "oha" else {})),
        "meta": meta,
        "params": {"engine": a.engine, "targets": targets, "nodes": [n for n, _ in nodes], "tapes": tapes,
                   "profile": a.profile,
                   "rate": a.rate, "start_rate": a.start_rate, "duration_s": duration_s, "replicas": a.replicas,
                   "keys": a.keys, "value_size": a.value_size, "seed": a.seed, "events": events,
                   "pre_vus": pre_vus, "max_vus": a.max_vus,
                   "saturation": {"p99_ms": a.sat_p99_ms, "error_rate": a.sat_error_rate, "hold_s": a.sat_hold,
                                  "min_responses": a.sat_min_responses}},
        "tapes": {},
        "failures": [],
    }
    summary_path = os.path.join(out, "summary.json")
    write_json(summary_path, summary)
    env = {"TARGETS": ",".join(targets), "REPLICAS": a.replicas, "KEYS": a.keys, "VALUE_SIZE": a.value_size,
           "SEED": a.seed, "RUN": run_id, "FILL": run_id + "-fill", "PROFILE": a.profile, "RATE": a.rate,
           "START_RATE": a.start_rate, "DURATION": a.duration, "PRE_VUS": pre_vus, "MAX_VUS": a.max_vus,
           "FILL_VUS": a.fill_vus}
    current = caps = None
    try:
        if any(t in NEEDS_FILL for t in tapes):
            log("pre-filling %d keys (%d users)" % (a.keys, a.fill_vus))
            current = k6run.Run(a.k6, os.path.join(tape_dir, "fill.js"), env, raw, "fill", csv=False)
            fill = current.wait()
            summary["fill"] = {"requests": fill.get("requests"), "rps": fill.get("rps"), "errors": fill.get("errors"),
                               "p99_ms": fill.get("p99_ms"), "seconds": round(current.elapsed, 1)}
            write_json(summary_path, summary)
            if fill.get("errors"):
                raise RuntimeError("the fill had %s errors of %s requests: the GET tapes would read missing keys"
                                   % (fill.get("errors"), fill.get("requests")))
        for tape in tapes:
            log("tape %s: %s %d req/s for %s against %d target(s), %s" % (
                tape, a.profile, a.rate, a.duration, len(targets), a.engine))
            if a.engine == "oha":
                plan = oharun.Plan(tape, targets, run_id, run_id + "-fill", a.keys, a.replicas, a.seed, raw)
                current = oharun.Run(a.oha, plan, a.profile, a.rate, a.start_rate, duration_s, a.value_size, raw,
                                     log)
                target = current.target()
            else:
                current = k6run.Run(a.k6, os.path.join(tape_dir, tape + ".js"), env, raw, tape)
                target = series.ramp_target(a.profile, a.rate, a.start_rate, duration_s)
            delay, length = profiler.steady_window(duration_s, a.warmup)
            caps = profiler.Captures(nodes, tape, events, delay, length, out, log)
            caps.start()
            try:
                figures = current.run() if a.engine == "oha" else current.wait()
            except RuntimeError as e:
                caps.stop()
                caps.join()
                summary["failures"].append(str(e))
                log(str(e))
                write_json(summary_path, summary)
                continue
            caps.join()
            if a.engine == "oha":
                log(oharun.log_line(figures))
                samples = current.samples
            else:
                samples = series.read_k6_csv(current.csv_path)
            rows = series.per_second(samples, target)
            series.write_series(os.path.join(out, tape + ".series.csv"), rows)
            entry = headline(figures)
            entry["engine"] = a.engine
            entry["target_rps"] = a.rate
            entry["seconds"] = round(current.elapsed, 1)
            entry["spectrum"] = series.spectrum(samples)
            entry["series"] = tape + ".series.csv"
            entry["flamegraphs"] = sorted(r["file"] for r in caps.results if "file" in r)
            entry["profile_errors"] = [r for r in caps.results if "error" in r]
            if a.profile == "ramp":
                entry["saturation"] = series.saturation(rows, a.sat_p99_ms, a.sat_error_rate, a.sat_hold,
                                                        duration_s, a.sat_min_responses)
                log("tape %s: saturation %s" % (tape, entry["saturation"]["reason"]
                                                if not entry["saturation"]["reached"] else
                                                "at %s req/s (%s)" % (entry["saturation"]["rate"],
                                                                      entry["saturation"]["reason"])))
            summary["tapes"][tape] = entry
            write_json(summary_path, summary)
        current = None
    except KeyboardInterrupt:
        summary["failures"].append("interrupted")
        if current is not None:
            current.kill()
        if caps is not None:
            caps.stop()
        raise
    except RuntimeError as e:
        summary["failures"].append(str(e))
        log(str(e))
    finally:
        summary["finished"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        summary["machine"]["load_after"] = machine.loadavg()
        write_json(summary_path, summary)
    log("wrote %s" % summary_path)
    return 1 if summary["failures"] else 0


_interrupted = []


def _terminate(signum, frame):
    # once: a second signal (Ctrl-C reaches both this process and scripts/bench.sh, which then sends SIGTERM)
    # must not interrupt the cleanup of the first
    if not _interrupted:
        _interrupted.append(signum)
        raise KeyboardInterrupt()


def main(argv=None):
    a = arguments(sys.argv[1:] if argv is None else argv)
    # SIGTERM (a Job's end, scripts/bench.sh's cleanup) stops k6 and the captures like Ctrl-C does; so does
    # SIGINT even when the runner was started in the background with it ignored.
    signal.signal(signal.SIGTERM, _terminate)
    signal.signal(signal.SIGINT, _terminate)
    if a.command == "run":
        try:
            return run(a)
        except KeyboardInterrupt:
            log("interrupted")
            return 130
    return 2
