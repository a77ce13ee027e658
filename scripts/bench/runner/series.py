"""k6's CSV output (--out csv=FILE[.gz], one line per sample) -> per-second figures of a tape, the latency
spectrum over the whole tape, and the saturation point of a ramp.

k6 writes the sample's time in whole Unix seconds (its default time format), so a second is a bucket as is.
Per request it writes http_reqs, http_req_duration, http_req_failed and more; dropped_iterations when an
arrival could not start for want of a VU.
"""
import csv
import gzip

from harness.load import percentile

SERIES_COLUMNS = ("t_s", "epoch_s", "target_rps", "rps", "errors", "dropped", "p50_ms", "p90_ms", "p99_ms",
                  "max_ms")
SPECTRUM = (0, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 100)


def _open(path):
    if path.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8", newline="")
    return open(path, encoding="utf-8", newline="")


class Samples:
    """What one tape's CSV holds, by second: request durations, failed requests, dropped arrivals."""

    def __init__(self):
        self.durations = {}  # epoch second -> [ms]
        self.errors = {}
        self.dropped = {}

    def seconds(self):
        keys = set(self.durations) | set(self.errors) | set(self.dropped)
        return range(min(keys), max(keys) + 1) if keys else range(0)

    def all_durations(self):
        out = []
        for v in self.durations.values():
            out.extend(v)
        out.sort()
        return out


def read_k6_csv(path):
    """Reads k6's CSV output into Samples (only the metrics the runner uses)."""
    s = Samples()
    with _open(path) as f:
        header = next(csv.reader([f.readline()]), None)
        if not header or header[:3] != ["metric_name", "timestamp", "metric_value"]:
            raise ValueError("%s: not k6 CSV output (header %r)" % (path, header))
        # 13 lines per request: pick the three metrics by prefix and split only their first (never quoted)
        # columns, several times faster than a csv reader over every line.
        for line in f:
            if line.startswith("http_req_duration,"):
                _, ts, value, _ = line.split(",", 3)
                s.durations.setdefault(int(float(ts)), []).append(float(value))
            elif line.startswith("http_req_failed,"):
                _, ts, value, _ = line.split(",", 3)
                if float(value) != 0:
                    sec = int(float(ts))
                    s.errors[sec] = s.errors.get(sec, 0) + 1
            elif line.startswith("dropped_iterations,"):
                _, ts, value, _ = line.split(",", 3)
                sec = int(float(ts))
                s.dropped[sec] = s.dropped.get(sec, 0) + int(float(value))
    return s


def ramp_target(profile, rate, start_rate, duration_s):
    """The arrival rate k6 aims at t seconds into the tape: constant, or linear from start_rate to rate."""
    if profile == "ramp":
        return lambda t: start_rate + (rate - start_rate) * min(1.0, max(0.0, (t + 0.5) / duration_s))
    return lambda t: float(rate)


def per_second(samples, target=None):
    """One row per second from the first sample to the last (seconds without samples have rps 0)."""
    rows = []
    seconds = samples.seconds()
    for sec in seconds:
        d = sorted(samples.durations.get(sec, ()))
        t = sec - seconds.start
        rows.append({
            "t_s": t, "epoch_s": sec,
            "target_rps": None if target is None else round(target(t), 1),
            "rps": len(d), "errors": samples.errors.get(sec, 0), "dropped": samples.dropped.get(sec, 0),
            "p50_ms": percentile(d, 50, "nearest"), "p90_ms": percentile(d, 90, "nearest"),
            "p99_ms": percentile(d, 99, "nearest"),
            "max_ms": d[-1] if d else None,
        })
    return rows


def spectrum(samples):
    """Latency by percentile over the whole tape: [[percentile, ms], ...]."""
    d = samples.all_durations()
    return [[p, percentile(d, p, "nearest")] for p in SPECTRUM] if d else []


def saturation(rows, p99_ms, error_rate, hold=3, duration_s=None, min_responses=100):
    """The saturation point of a ramp: the first second, of `hold` in a row, whose p99 is above p99_ms or whose
    error rate ((errors + dropped arrivals) / arrivals) is above error_rate. `hold` keeps a lone pause (a GC, a
    flush) from counting. The p99 of a second counts once it has min_responses responses (below 100 it is the
    slowest one: at the ramp's first few req/s, a connection's first request). Seconds past duration_s (k6's
    graceful stop) are not looked at."""
    thresholds = {"p99_ms": p99_ms, "error_rate": error_rate, "hold_s": hold, "min_responses": min_responses}
    run = []
    for row in rows:
        if duration_s is not None and row["t_s"] >= duration_s:
            break
        arrivals = row["rps"] + row["dropped"]
        rate = (row["errors"] + row["dropped"]) / arrivals if arrivals else 0.0
        reasons = []
        if row["p99_ms"] is not None and row["rps"] >= min_responses and row["p99_ms"] > p99_ms:
            reasons.append("p99 %.2f ms > %g ms" % (row["p99_ms"], p99_ms))
        if rate > error_rate:
            reasons.append("error rate %.2f%% > %g%%" % (rate * 100, error_rate * 100))
        if reasons:
            run.append((row, reasons))
            if len(run) >= hold:
                first, why = run[0]
                return {"reached": True, "rate": first["target_rps"], "achieved_rps": first["rps"],
                        "t_s": first["t_s"], "reason": "; ".join(why), "thresholds": thresholds}
        else:
            run = []
    top = max((r["target_rps"] or 0 for r in rows), default=None)
    return {"reached": False, "rate": None, "max_target_rps": top,
            "reason": "neither threshold crossed for %d s in a row up to %s req/s" % (hold, top),
            "thresholds": thresholds}


def write_series(path, rows):
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(SERIES_COLUMNS)
        for r in rows:
            w.writerow(["" if r[c] is None else (round(r[c], 3) if isinstance(r[c], float) else r[c])
                        for c in SERIES_COLUMNS])


def read_series(path):
    """A series file back into rows (numbers as float/int, empty cells as None)."""
    rows = []
    with open(path, encoding="utf-8", newline="") as f:
        for r in csv.DictReader(f):
            row = {}
            for c in SERIES_COLUMNS:
                v = r.get(c, "")
                row[c] = None if v == "" else (int(v) if c in ("t_s", "epoch_s", "rps", "errors", "dropped")
                                                else float(v))
            rows.append(row)
    return rows
