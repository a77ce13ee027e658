"""benchjob: one run of a DhtBenchmark, in its Job's pod (the operator builds the command line:
operator/.../benchmark/model/BenchmarkJob.java). Standard library only; runs in the load-runner image as

  python3 /opt/dht/py/benchjob.py --benchmark NAME --run-id ID --out /results/NAME/ID
      --tapes put-unique,get-uniform [--engine k6|oha] --profile const --rate 500 | --profile ramp --ramp-to 5000
      --duration 60s [--replicas 2/3] --prefill 10000 --value-size 100 --targets URL[,URL...]
      [--profiler POD=SIDECAR_URL ... --events cpu,alloc --capture 15s]
      --termination-log /dev/termination-log

It runs the bench runner (python3 -m runner run, scripts/bench/runner) over the tapes, with the members' profiler
sidecars as the runner's profiling endpoints, so the runner itself writes everything into --out (the results
volume):
  summary.json                       every tape's figures, the parameters, machine and tool versions
  <tape>.series.csv                  per-second rate and latency
  <pod>-<tape>-<event>.html          flamegraphs, one per member, tape and event
  raw/                               the engine's own outputs (k6, or oha's per-request SQLite and JSON)
Captures of a tape run one event after the other, each --capture long, ending just before the tape's last
seconds (the runner's steady window with the longest warm-up that leaves room for them).

When the runner ends, the headline figures go to --termination-log, where the operator reads them from the pod's
status (at most 4 KiB):
  {"tapes": {"put-unique": {"rps", "p99_ms", "errors", "dropped", "saturation_rps"}, ...},
   "flamegraphs": N, "problems": ["..."]}
and the same JSON is printed on a last line "RESULT {...}". Exit status: the runner's (0 when every tape ran),
1 when it left no summary.
"""
import argparse
import collections
import json
import os
import shlex
import signal
import subprocess
import sys

TERMINATION_LIMIT = 4096


def log(msg):
    sys.stderr.write("[benchjob] %s\n" % msg)
    sys.stderr.flush()


def seconds(text):
    """'30s', '5m', '1h' -> seconds."""
    text = text.strip()
    units = {"s": 1, "m": 60, "h": 3600}
    if not text or text[-1] not in units or not text[:-1].isdigit():
        raise argparse.ArgumentTypeError("a duration is whole seconds, minutes or hours, e.g. 30s; got %r" % text)
    return int(text[:-1]) * units[text[-1]]


def tail_seconds(duration_s):
    """The last seconds of a tape the runner never profiles (its steady window: runner.profiler.steady_window)."""
    try:
        from runner import profiler
        warmup, length = profiler.steady_window(float(duration_s), 0.0)
        return duration_s - warmup - length
    except ImportError:  # outside the image: the runner's rule as documented there
        return min(2.0, duration_s * 0.05)


def warmup_for(duration_s, events, capture_s):
    """Seconds before the first capture, so that the events, capture_s each, end where the steady window ends."""
    return max(0.0, duration_s - tail_seconds(duration_s) - len(events) * capture_s)


def runner_command(a):
    events = [e for e in (a.events or "").split(",") if e]
    cmd = shlex.split(a.runner) + [
        "run",
        "--targets", a.targets,
        "--out", a.out,
        "--run-id", a.run_id,
        "--tapes", a.tapes,
        "--engine", a.engine,
        "--profile", a.profile,
        "--duration", "%ds" % a.duration,
        "--keys", str(a.prefill),
        "--value-size", str(a.value_size),
        "--meta", "benchmark=%s" % a.benchmark,
    ]
    if a.profile == "ramp":
        cmd += ["--rate", str(a.ramp_to), "--start-rate", "1"]
    else:
        cmd += ["--rate", str(a.rate)]
    if a.replicas:
        cmd += ["--replicas", a.replicas]
    if a.profiler and events:
        cmd += ["--nodes", ",".join(a.profiler), "--events", ",".join(events),
                "--warmup", "%g" % warmup_for(a.duration, events, a.capture)]
    else:
        cmd += ["--nodes", "none", "--events", ""]
    return cmd


def headline(summary, order=()):
    """The operator's figures from the runner's summary.json; tapes in the order they ran (the summary's keys are
    sorted)."""
    tapes, problems, flamegraphs = {}, [], 0
    ran = summary.get("tapes", {})
    for name in [t for t in order if t in ran] + sorted(t for t in ran if t not in order):
        t = ran[name]
        saturation = t.get("saturation") or {}
        tapes[name] = {"rps": t.get("rps"), "p99_ms": t.get("p99_ms"), "errors": t.get("errors"),
                       "dropped": t.get("dropped"),
                       "saturation_rps": saturation.get("rate") if saturation.get("reached") else None}
        flamegraphs += len(t.get("flamegraphs") or [])
        for e in t.get("profile_errors") or []:
            problems.append("%s %s %s: %s" % (e.get("node"), name, e.get("event"), e.get("error")))
    problems = [str(f) for f in summary.get("failures") or []] + problems
    return {"tapes": tapes, "flamegraphs": flamegraphs, "problems": [p[:200] for p in problems]}


def fit(result):
    """The headline as JSON within the termination message's limit: problems go first, then the tapes' tail."""
    result = dict(result, problems=list(result["problems"]))
    while True:
        text = json.dumps(result, separators=(",", ":"))
        if len(text.encode()) <= TERMINATION_LIMIT:
            return text
        if result["problems"]:
            result["problems"].pop()
        elif result["tapes"]:
            result["tapes"].pop(list(result["tapes"])[-1])
        else:
            return text


def run_teeing_stderr(cmd, last_lines):
    """Runs cmd with its stderr passed through, keeping its last lines (why it died, when it does)."""
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, errors="replace")
    # The pod's end (a superseded run's Job is suspended, its deadline passes) signals this process only, PID 1:
    # the runner gets it too, stops k6 and its captures and still writes its summary.
    signal.signal(signal.SIGTERM, lambda signum, frame: proc.send_signal(signal.SIGTERM))
    for line in proc.stderr:
        sys.stderr.write(line)
        if line.strip():
            last_lines.append(line.strip()[:200])
    sys.stderr.flush()
    return proc.wait()


def arguments(argv):
    p = argparse.ArgumentParser(prog="benchjob.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--benchmark", required=True)
    p.add_argument("--run-id", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--tapes", required=True)
    p.add_argument("--engine", choices=("k6", "oha"), default="k6", help="what sends the load (the runner's)")
    p.add_argument("--profile", choices=("const", "ramp"), default="const")
    p.add_argument("--rate", type=int, default=1000)
    p.add_argument("--ramp-to", type=int)
    p.add_argument("--duration", type=seconds, default=seconds("60s"))
    p.add_argument("--replicas", default="")
    p.add_argument("--prefill", type=int, default=10000)
    p.add_argument("--value-size", type=int, default=100)
    p.add_argument("--targets", required=True)
    p.add_argument("--profiler", action="append", default=[], metavar="POD=URL")
    p.add_argument("--events", default="")
    p.add_argument("--capture", type=seconds, default=seconds("10s"))
    p.add_argument("--termination-log", default="/dev/termination-log")
    p.add_argument("--runner", default="python3 -m runner", help="the bench runner's command")
    a = p.parse_args(argv)
    if a.profile == "ramp" and not a.ramp_to:
        p.error("--profile ramp needs --ramp-to")
    return a


def main(argv=None):
    a = arguments(sys.argv[1:] if argv is None else argv)
    os.makedirs(a.out, exist_ok=True)
    cmd = runner_command(a)
    log("run %s of %s: %s" % (a.run_id, a.benchmark, " ".join(shlex.quote(c) for c in cmd)))
    last_lines = collections.deque(maxlen=3)
    try:
        rc = run_teeing_stderr(cmd, last_lines)
    except OSError as e:
        rc, why = 127, "the runner did not start: %s" % e
    else:
        why = "the runner exited with %d and wrote no summary" % rc
        if last_lines:
            why += ": " + " | ".join(last_lines)
    try:
        with open(os.path.join(a.out, "summary.json"), encoding="utf-8") as f:
            summary = json.load(f)
    except (OSError, ValueError) as e:
        log("%s (%s)" % (why, e))
        with open(a.termination_log, "w", encoding="utf-8") as f:
            f.write(why + "\n")
        print("RESULT " + json.dumps({"error": why}), flush=True)
        return 1
    result = headline(summary, [t for t in a.tapes.split(",") if t])
    if rc != 0 and not summary.get("failures"):  # it died without saying why in its summary
        result["problems"].insert(0, ("the runner exited with %d: %s" % (rc, " | ".join(last_lines)))[:300])
    text = fit(result)
    with open(a.termination_log, "w", encoding="utf-8") as f:
        f.write(text)
    print("RESULT " + text, flush=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
