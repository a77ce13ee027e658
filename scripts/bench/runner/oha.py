"""The open-model engine: a tape run by oha (the role wrk2 plays in the course's seeds) instead of k6.

oha sends at a fixed rate (-q) from a fixed set of connections and, with --latency-correction, measures each
request from the moment it was due rather than from when a connection was free: coordinated omission corrected, as
wrk2 does. It holds rates k6 cannot reach on the same cores. Each tape becomes one or more oha processes:

  put-unique     PUT  TARGET/v0/entity?id=<run>-put-unique-<16 random hex digits>   (a key never written before)
  put-overwrite  a tenth of the rate PUTs a key of the pre-filled set, uniformly    (a URL file, one line per key),
                 the rest PUTs new keys, as put-unique: two processes at once
  get-uniform    GET  a key of the pre-filled set, uniformly
  get-recent     GET  the pre-filled set skewed toward the newest keys, as k6/lib/tape.js draws them (a URL file
                      of draws with the seed; oha picks a line uniformly)
  mixed          half the rate put-unique, half get-uniform: two processes at once

With several targets every request kind runs once per target at its share of the rate. The ramp is a staircase of
fixed-rate steps (oha has no ramp), each STEP_S long at the rate the linear ramp has in its middle.

Each process writes its per-request results to SQLite (--db-url: due time, duration, status) and its summary as
JSON (the errors that had no answer); series.Samples gets them by wall-clock second, as from k6's CSV. An arrival
oha could not send before the end is "dropped": the rate it was asked for, times the time, less what it sent.
"""
import json
import os
import random
import sqlite3
import subprocess
import sys
import time

from harness import load

from . import series

STEP_S = 3.0
TAPE_KINDS = {
    "put-unique": (("PUT", "unique", 1.0),),
    "put-overwrite": (("PUT", "unique", 0.9), ("PUT", "uniform", 0.1)),
    "get-uniform": (("GET", "uniform", 1.0),),
    "get-recent": (("GET", "recent", 1.0),),
    "mixed": (("PUT", "unique", 0.5), ("GET", "uniform", 0.5)),
}
# Lines of a get-recent URL file: enough draws that the shape of the skew holds.
RECENT_DRAWS = 100000


def value(size):
    """The PUT body of every tape (k6/lib/tape.js's VALUE)."""
    text = "abcdefghijklmnopqrstuvwxyz0123456789"
    return (text * (size // len(text) + 1))[:size]


def recent_index(u, keys):
    """k6/lib/tape.js's recentFilled: an offset u^10 * keys back from the newest key."""
    return keys - 1 - min(keys - 1, int((u ** 10) * keys))


def connections(rate):
    """Connections for a rate: enough that a few ms per answer never leaves a due request waiting for one."""
    return max(32, min(256, int(rate) // 250))


class Plan:
    """What oha runs for one tape: per target and request kind a URL (or URL file), a method and a share."""

    def __init__(self, tape, targets, run_id, fill, keys, replicas, seed, work_dir):
        if tape not in TAPE_KINDS:
            raise ValueError("unknown tape %r" % tape)
        self.tape = tape
        self.parts = []  # (name, method, url-or-file, is_file, share)
        query = "&replicas=" + replicas if replicas else ""
        for ti, target in enumerate(targets):
            for method, keys_kind, share in TAPE_KINDS[tape]:
                name = "%s-%s-%s-t%d" % (tape, method.lower(), keys_kind, ti)
                if keys_kind == "unique":
                    regex = "%s/v0/entity\\?id=%s-%s-[0-9a-f]{16}%s" % (target, run_id, tape, query)
                    self.parts.append((name, method, regex, False, share / len(targets)))
                    continue
                path = os.path.join(work_dir, "%s.urls" % name)
                with open(path, "w", encoding="utf-8") as f:
                    if keys_kind == "uniform":
                        indexes = range(keys)
                    else:
                        rnd = random.Random(seed)
                        indexes = (recent_index(rnd.random(), keys) for _ in range(RECENT_DRAWS))
                    for n in indexes:
                        f.write("%s/v0/entity?id=%s-%d%s\n" % (target, fill, n, query))
                self.parts.append((name, method, path, True, share / len(targets)))


class Step:
    """The oha processes of one step of a tape (every part at once), started now."""

    def __init__(self, oha, plan, rate, seconds, body, raw_dir, label, log_path):
        self.started = time.time()
        self.seconds = seconds
        self.procs = []
        with open(log_path, "a", encoding="utf-8") as log:
            for name, method, url, is_file, share in plan.parts:
                part_rate = rate * share
                stem = os.path.join(raw_dir, "%s.%s" % (name, label))
                for p in (stem + ".db", stem + ".json"):
                    if os.path.exists(p):
                        os.remove(p)
                cmd = load.oha_command(oha, method, url, connections(part_rate),
                                       load.fixed_rate(part_rate, seconds, wait=True) +
                                       ["--output-format", "json", "-o", stem + ".json", "--db-url", stem + ".db"],
                                       body, is_file, token=os.environ.get("DHT_TOKEN"), tls=load.client_tls())
                log.write("$ %s\n" % load.shown(cmd))
                log.flush()
                proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log)
                self.procs.append((name, part_rate, stem, proc))

    def wait(self):
        for name, _, _, proc in self.procs:
            proc.wait()
            if proc.returncode != 0:
                raise RuntimeError("oha %s exited with %d" % (name, proc.returncode))

    def kill(self):
        for _, _, _, proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for _, _, _, proc in self.procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


def read_step(step, samples, counts):
    """Adds a finished step's requests to samples (by wall-clock second of their due time) and counts."""
    for name, rate, stem, _ in step.procs:
        sent = 0
        con = sqlite3.connect(stem + ".db")
        try:
            for due, duration, status in con.execute(
                    "SELECT COALESCE(start_latency_correction, start), duration, status FROM oha"):
                sec = int(step.started + due)
                samples.durations.setdefault(sec, []).append(duration * 1000.0)
                sent += 1
                if not 200 <= status < 400:
                    samples.errors[sec] = samples.errors.get(sec, 0) + 1
                    counts["errors"] += 1
                counts["status"][str(status)] = counts["status"].get(str(status), 0) + 1
        finally:
            con.close()
        with open(stem + ".json", encoding="utf-8") as f:
            no_answer = json.load(f).get("errorDistribution") or {}
        for why, n in no_answer.items():
            counts["errors"] += n
            counts["no_answer"][why] = counts["no_answer"].get(why, 0) + n
            sent += n
        counts["dropped"] += max(0, int(round(rate * step.seconds)) - sent)
        counts["sent"] += sent


class Run:
    """A tape run by oha: const (one step) or ramp (a staircase), then its figures in k6's summary shape."""

    def __init__(self, oha, plan, profile, rate, start_rate, duration_s, value_size, raw_dir, log):
        self.oha, self.plan, self.profile = oha, plan, profile
        self.rate, self.start_rate, self.duration_s = rate, start_rate, duration_s
        self.body = value(value_size)
        self.raw_dir = raw_dir
        self.log = log
        self.log_path = os.path.join(raw_dir, plan.tape + ".oha.log")
        if os.path.exists(self.log_path):
            os.remove(self.log_path)
        self.current = None
        self.started = None
        self.elapsed = 0.0
        self.samples = series.Samples()
        self.counts = {"errors": 0, "dropped": 0, "sent": 0, "status": {}, "no_answer": {}}

    def steps(self):
        """[(rate, seconds)]: one step (const), or the staircase of the ramp."""
        if self.profile != "ramp":
            return [(float(self.rate), self.duration_s)]
        n = max(1, int(round(self.duration_s / STEP_S)))
        length = self.duration_s / n
        return [(self.start_rate + (self.rate - self.start_rate) * (k + 0.5) / n, length) for k in range(n)]

    def target(self):
        """The rate asked for t seconds into the tape (the staircase's, per second)."""
        steps = self.steps()

        def at(t):
            elapsed = 0.0
            for rate, seconds in steps:
                if t < elapsed + seconds:
                    return rate
                elapsed += seconds
            return steps[-1][0]
        return at

    def run(self):
        self.started = time.time()
        for k, (rate, seconds) in enumerate(self.steps()):
            self.current = Step(self.oha, self.plan, rate, seconds, self.body, self.raw_dir, "step%02d" % k,
                                self.log_path)
            self.current.wait()
            read_step(self.current, self.samples, self.counts)
            self.current = None
        self.elapsed = time.time() - self.started
        return self.figures()

    def kill(self):
        if self.current is not None:
            self.current.kill()

    def figures(self):
        d = self.samples.all_durations()
        requests = len(d)
        pct = lambda p: load.percentile(d, p, "nearest")
        return {
            "tape": self.plan.tape, "engine": "oha", "profile": self.profile, "rate": self.rate,
            # per second of sending, as k6 reports it (not counting oha's start-up and result writing)
            "requests": requests, "rps": requests / self.duration_s if self.duration_s else 0,
            "errors": self.counts["errors"], "dropped": self.counts["dropped"],
            "vus_max": sum(connections(self.rate * share) for _, _, _, _, share in self.plan.parts),
            "p50_ms": pct(50), "p90_ms": pct(90), "p99_ms": pct(99), "p999_ms": pct(99.9),
            "max_ms": d[-1] if d else None, "avg_ms": sum(d) / requests if requests else None,
            "status": self.counts["status"], "no_answer": self.counts["no_answer"],
        }


def log_line(figures):
    f = figures
    fix = lambda v: "-" if v is None else "%.3f" % v
    return ("oha %s (%s %s/s): %d requests, %.0f/s, errors %d, dropped %d, p50 %s ms, p99 %s ms, p99.9 %s ms, "
            "max %s ms" % (f["tape"], f["profile"], f["rate"], f["requests"], f["rps"], f["errors"], f["dropped"],
                           fix(f["p50_ms"]), fix(f["p99_ms"]), fix(f["p999_ms"]), fix(f["max_ms"])))


if __name__ == "__main__":
    sys.exit("run through python3 -m runner run --engine oha")
