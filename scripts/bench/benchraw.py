"""Readers of a benchmark's raw outputs, shared by every report of the local benchmarks (node, cluster, defaults,
scale, repair, pause, backup): env.txt and timeline.txt (key=value lines), wrk's report and oha's JSON summary of a
window (parsed by harness/load.py), oha's per-request CSV, the latency figures of the requests that started within a
window of time, the nodes' metrics and logs. Standard library only."""
import csv
import json
import os
import re
import sys

from harness.load import percentile  # noqa: F401 (the reports take it from here)


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


def load_json(path):
    return json.loads(read(path))


def json_lines(path):
    """A file of one JSON document a line (a watcher's samples) as a list, blank lines skipped; a missing file has
    none."""
    if not os.path.exists(path):
        return []
    return [json.loads(line) for line in read(path).splitlines() if line.strip()]


def write_json(path, data):
    """A report's figures: indented, keys sorted, a final newline (as every committed one is)."""
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, sort_keys=True)
        f.write("\n")


def env(raw):
    """RAW/env.txt: the machine, the settings and what the run derived."""
    return kv(os.path.join(raw, "env.txt"))


def timeline(raw):
    """RAW/timeline.txt: the moments of the run's events, in ms on the wall clock."""
    return {k: int(v) for k, v in kv(os.path.join(raw, "timeline.txt")).items()}


def wrk(raw, name):
    """RAW/wrk-NAME.txt's figures (harness/load.py reads wrk's report), or None if the window did not run."""
    from harness import load
    path = os.path.join(raw, "wrk-%s.txt" % name)
    if not os.path.exists(path):
        return None
    r = load.parse_wrk(read(path))
    if r is None:
        raise SystemExit("no throughput in %s" % path)
    r.pop("keys_per_thread", None)  # the PUT scripts' own line: the launcher reads it, the reports do not
    return r


def oha(raw, name):
    """RAW/oha-NAME.json's figures (harness/load.py reads oha's summary), or None if the window did not run."""
    from harness import load
    path = os.path.join(raw, "oha-%s.json" % name)
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return None
    return load.parse_oha(json.loads(read(path)))


def profile(raw, name, categories=None):
    """RAW/profile-NAME-cpu-collapsed.txt broken down by where the CPU went (harness/profiles.py; categories: its
    CATEGORIES unless given), or None if the run captured no such profile."""
    from harness import profiles
    path = os.path.join(raw, "profile-%s-cpu-collapsed.txt" % name)
    return profiles.breakdown(path, categories) if os.path.exists(path) else None


def metric_sum(raw, nodes, pattern, prefix=""):
    """The sum over the nodes' metrics files that exist (RAW/PREFIXnode<i>-metrics.txt, i < nodes) of every sample
    whose line matches pattern (a regex)."""
    total = 0.0
    for path in (os.path.join(raw, "%snode%d-metrics.txt" % (prefix, i)) for i in range(nodes)):
        if os.path.exists(path):
            for line in read(path).splitlines():
                if re.match(pattern, line):
                    total += float(line.rsplit(" ", 1)[1])
    return total


def onenio_native(raw):
    """Whether the node served on one-nio's native sockets (its log says so when it falls back to JDK NIO); None
    without a log."""
    path = os.path.join(raw, "node0.log")
    return None if not os.path.exists(path) else "sockets: JDK NIO" not in read(path)


def unexpected(status, ok_codes):
    """The statuses of a window (window()'s "status") outside ok_codes, as a table cell: "404: 3, error: 1", or
    "none"."""
    return ", ".join("%s: %d" % (k, v) for k, v in sorted(status.items()) if k not in ok_codes) or "none"


def report_head(e, title, about):
    """The first lines of a scenario's report: title, what it measures, the run's label, a warning when the machine
    was busy at the start, the machine and the build (e: RAW/env.txt's settings)."""
    lines = ["# " + title, "", about, ""]
    if e.get("label"):
        lines += ["**%s**" % e["label"], ""]
    if float(e.get("load_before", "0").split()[0] or 0) > 1.0:
        lines += ["**Taken on a busy machine** (load %s before the run): the figures are distorted; re-run on a "
                  "quiet machine." % e.get("load_before"), ""]
    return lines + [
        "- %s, %s CPUs (%s); %s; CPU steal during the run %s%%; load before %s, after %s" % (
            e.get("date"), e.get("nproc"), e.get("cpu"), e.get("java"), e.get("steal_pct"),
            e.get("load_before"), e.get("load_after")),
        "- commit %s%s; oha %s; nodes: `%s`, JVM `%s`" % (
            e.get("commit"), " (uncommitted changes)" if e.get("dirty", "0") != "0" else "",
            e.get("oha", "").replace("oha ", ""), e.get("node_args"), e.get("java_opts")),
    ]


def fmt(v, digits=2, none="-"):
    return none if v is None else ("%.*f" % (digits, v))


def factor(v):
    """A ratio or a noise floor as the reports print it: '1.81x'; None as '-'."""
    return "-" if v is None else "%.2fx" % v


def errors(x):
    """Errors without an answer of an oha window (a count; reports written before this reader kept the kinds)."""
    e = x.get("errors") or 0
    return sum(e.values()) if isinstance(e, dict) else e


def oha_row(name, rate, x):
    """One Markdown table row of an oha window: | run | rate | achieved | p50 | p90 | p99 | p99.9 | max | non-2xx |
    errors |."""
    if x is None:
        return "| %s | %s | (no result) | | | | | | | |" % (name, rate)
    return "| %s | %s | %.0f | %s | %s | %s | %s | %s | %d | %s |" % (
        name, rate, x["rps"], fmt(x["p50_ms"], 3), fmt(x["p90_ms"], 3), fmt(x["p99_ms"], 3), fmt(x["p999_ms"], 3),
        fmt(x["max_ms"]), x["non_2xx"], errors(x))


def report_main(argv, name, build, render, usage):
    """Every report's command line: `NAME-report.py RAW OUT` writes OUT/NAME.json (build(RAW, OUT): the figures; OUT
    for files a report copies there) and OUT/NAME.md (render(figures, OUT): the Markdown, after any charts it draws
    into OUT); `NAME-report.py --render OUT` writes NAME.md and the charts again from OUT/NAME.json. Returns the
    exit code."""
    if len(argv) != 3:
        print(usage, file=sys.stderr)
        return 2
    out = argv[-1]
    if argv[1] == "--render":
        d = load_json(os.path.join(out, name + ".json"))
    else:
        os.makedirs(out, exist_ok=True)
        d = build(argv[1], out)
        write_json(os.path.join(out, name + ".json"), d)
    md = render(d, out)
    with open(os.path.join(out, name + ".md"), "w", encoding="utf-8") as f:
        f.write(md)
    return 0
