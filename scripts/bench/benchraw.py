"""Readers of a benchmark's raw outputs, shared by the reports of the local-cluster benchmarks (scale, repair,
pause, backup): env.txt and timeline.txt (key=value lines), oha's per-request CSV, and the latency figures of the
requests that started within a window of time. Standard library only."""
import csv
import os


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def kv(path):
    """A key=value file (env.txt, timeline.txt) as a dict; lines without '=' are skipped."""
    out = {}
    for line in read(path).splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            out[k] = v
    return out


def percentile(sorted_values, p):
    """The sample of an ascending list at rank round(p% of n + 0.5) (1-based, clamped; Python's round, half to
    even): about half a rank above the nearest rank (p99 of 100 samples is the largest). None when empty. The
    committed reports were computed so: keep it, or they stop being comparable."""
    if not sorted_values:
        return None
    i = min(len(sorted_values) - 1, max(0, int(round(p / 100.0 * len(sorted_values) + 0.5)) - 1))
    return sorted_values[i]


def median(values):
    """The median of the values that are not None (the mean of the middle two for an even count), or None."""
    values = sorted(v for v in values if v is not None)
    if not values:
        return None
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def load_rows(path, offset_s=0.0):
    """oha's per-request CSV as (start, duration, status) tuples: start in seconds since oha started plus offset_s
    (its start on the wall clock, to pool several ohas), duration in seconds. A missing file has no rows."""
    rows = []
    if not os.path.exists(path):
        return rows
    with open(path, encoding="utf-8") as f:
        for r in csv.DictReader(f):
            try:
                rows.append((offset_s + float(r["request-start"]), float(r["request-duration"]), r.get("status", "")))
            except (KeyError, ValueError):
                continue
    return rows


def window(rows, start_s, end_s, ok_codes):
    """The requests that started in [start_s, end_s): count, rate, p50/p99/p99.9/max (ms), statuses (no status:
    "error") and how many had a status outside ok_codes."""
    sel = [r for r in rows if start_s <= r[0] < end_s]
    lat = sorted(r[1] * 1000 for r in sel)
    codes = {}
    for r in sel:
        codes[r[2] or "error"] = codes.get(r[2] or "error", 0) + 1
    secs = max(0.001, end_s - start_s)
    return {
        "requests": len(sel), "rps": len(sel) / secs, "seconds": secs,
        "p50_ms": percentile(lat, 50), "p99_ms": percentile(lat, 99), "p999_ms": percentile(lat, 99.9),
        "max_ms": lat[-1] if lat else None,
        "status": codes, "unexpected": sum(v for k, v in codes.items() if k not in ok_codes),
    }
