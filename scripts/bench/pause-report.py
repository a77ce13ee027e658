#!/usr/bin/env python3
"""Turns the raw outputs of make bench-pause (scenarios/pause.json) into docs/benchmarks/pause.json, pause.md and a
plot of the reads' and writes' throughput and p99 per second across the pause (pause-latency.svg; matplotlib: run it
with the python of scripts/venv.sh).

Usage: pause-report.py RAW_DIR OUT_DIR
       pause-report.py --render OUT_DIR   (pause.md and the plot again from OUT_DIR/pause.json)
"""
import os
import sys

import plots
from benchraw import (env as read_env, factor, fmt, json_lines, load_rows, report_head, report_main, timeline,
                      unexpected, window)
from harness.judge import against, phase_floor

OK = {"get": {"200", "404"}, "put": {"201"}}
PHASES = ("before", "during", "after")
P99_RATIO_TARGET = 2.0
THROUGHPUT_TARGET = 0.8
NOISE_WINDOWS = 2  # the phase before the pause, cut into this many identical windows: the run's own noise floor


def per_second(rows, start_s, end_s, origin_s, ok_codes):
    """One row per second, the seconds counted from the pause (origin_s): t_s (its start), rps, p99_ms, errors
    (unexpected statuses)."""
    out = []
    t = origin_s - int(origin_s - start_s)
    while t + 1 <= end_s:
        x = window(rows, t, t + 1, ok_codes)
        out.append({"t_s": round(t - origin_s, 3), "rps": x["requests"], "p99_ms": x["p99_ms"],
                    "errors": x["unexpected"]})
        t += 1
    return out


def watch_figures(path, pause_ms, resume_ms):
    """For each coordinator: when it first saw the paused peer avoided after the pause, responsive after the
    resume (seconds from each), and its counters over the pause."""
    samples = json_lines(path)
    out = {}
    urls = sorted({u for s in samples for u in s["nodes"]})
    for u in urls:
        seen = [(s["t"], s["nodes"][u]) for s in samples if s["nodes"].get(u)]

        def first(after_ms, state):
            for t, m in seen:
                if t >= after_ms and m.get("state") == state:
                    return (t - after_ms) / 1000.0
            return None

        def at(t_ms):
            before = [m for t, m in seen if t <= t_ms]
            return before[-1] if before else {}

        a, b = at(pause_ms), at(resume_ms)

        def delta(key):
            return None if key not in a or key not in b else b[key] - a[key]

        reads, probes = delta("reads"), delta("probes")
        out[u] = {
            "avoided_after_s": first(pause_ms, "avoided"),
            "responsive_after_resume_s": first(resume_ms, "responsive"),
            "states_during": sorted({m.get("state") for t, m in seen if pause_ms <= t < resume_ms} - {None}),
            "reads_during": None if reads is None or probes is None else reads - probes,
            "probes_during": probes,
            "backups_for_it_during": delta("backups"),
            "backups_sent_during": delta("backups_sent"),
            "backups_won_during": delta("backups_won"),
            "backup_delay_ms_before": a.get("backup_delay_ms"),
        }
    return out


def verdict(targets, name):
    """The judged verdict (met / missed / not separable here); a pause.json from before the noise floor: its
    bare comparison."""
    if name + "_verdict" in targets:
        return targets[name + "_verdict"]
    return "met" if targets[name + "_met"] else "missed"


def main(argv):
    return report_main(argv, "pause", build, render, __doc__)


def build(raw, out=None):
    """The figures of a run (pause.json)."""
    env, tl = read_env(raw), timeline(raw)
    rows = {op: [] for op in ("get", "put")}
    for op in rows:
        for i in (0, 1):
            rows[op] += load_rows(os.path.join(raw, "load-%s%d.csv" % (op, i)), tl["%s%d_start" % (op, i)] / 1000.0)
    warmup = float(env.get("warmup", "5"))
    start_s, pause_s, resume_s, end_s = (tl["load_start"] / 1000.0 + warmup, tl["pause"] / 1000.0,
                                         tl["resume"] / 1000.0, tl["load_end"] / 1000.0)
    bounds = {"before": (start_s, pause_s), "during": (pause_s, resume_s), "after": (resume_s, end_s)}
    load = {p: {op: window(rows[op], a, b, OK[op]) for op in rows} for p, (a, b) in bounds.items()}
    before, during = load["before"]["get"], load["during"]["get"]
    p99_ratio = None if not before["p99_ms"] or during["p99_ms"] is None else during["p99_ms"] / before["p99_ms"]
    rps_ratio = None if not before["rps"] else during["rps"] / before["rps"]
    noise = {"windows": NOISE_WINDOWS, "window_s": round((pause_s - start_s) / NOISE_WINDOWS, 1)}
    for figure in ("p99_ms", "rps"):
        noise["get_%s_floor" % figure.split("_")[0]] = phase_floor(rows["get"], start_s, pause_s, OK["get"], figure,
                                                                    NOISE_WINDOWS)
    result = {
        "env": env, "timeline_ms": tl, "load": load,
        "targets": {"get_p99_during_over_before": p99_ratio, "get_p99_target": P99_RATIO_TARGET,
                    "get_p99_met": p99_ratio is not None and p99_ratio <= P99_RATIO_TARGET,
                    "get_rps_during_over_before": rps_ratio, "get_rps_target": THROUGHPUT_TARGET,
                    "get_rps_met": rps_ratio is not None and rps_ratio >= THROUGHPUT_TARGET,
                    "get_p99_verdict": against(p99_ratio, P99_RATIO_TARGET, noise["get_p99_floor"], False),
                    "get_rps_verdict": against(rps_ratio, THROUGHPUT_TARGET, noise["get_rps_floor"], True)},
        "noise": noise,
        "per_second": {op: per_second(rows[op], start_s, end_s, pause_s, OK[op]) for op in rows},
        "coordinators": watch_figures(os.path.join(raw, "watch.jsonl"), tl["pause"], tl["resume"]),
    }
    return result


def render(result, out):
    """pause.md and its plot, from the figures (pause.json)."""
    env, load, targets = result["env"], result["load"], result["targets"]
    noise = result.get("noise") or {}
    pause_len = (result["timeline_ms"]["resume"] - result["timeline_ms"]["pause"]) / 1000.0
    plot = plots.timeseries(os.path.join(out, "pause-latency.svg"),
                            "Reads and writes at 2/3 through nodes 0 and 1; node 2 paused (SIGSTOP) %.0f s"
                            % pause_len,
                            [("GET", result["per_second"]["get"]), ("PUT", result["per_second"]["put"])],
                            marks=[("pause", 0.0), ("resume", pause_len)], xlabel="seconds from the pause")
    lines = report_head(
        env, "A paused replica under a quorum load",
        "Generated by `make bench-pause` (scripts/bench/scenarios/pause.json); raw figures in pause.json. What one "
        "replica that stops answering (SIGSTOP: its sockets still accept, nothing answers) costs the reads of the "
        "others (docs/cluster.md, \"Choosing replicas\").")
    lines += [
        "- data: %s PUTs at %s of 100-byte values on ids drawn from 10^%s; load through nodes 0 and 1 only, open "
        "model (oha, latency corrected): GETs of those ids at %s req/s over %s connections, PUTs of new keys at "
        "%s req/s, all at %s; node 2 paused %s s after the load started (the first %s s left out as warm-up), "
        "for %s s, then %s s more" % (
            env.get("keys"), env.get("replicas"), env.get("key_digits"), env.get("read_rate"),
            env.get("read_connections"), env.get("write_rate"), env.get("replicas"), env.get("before"),
            env.get("warmup"), env.get("pause"), env.get("after")),
        "",
        "## Targets",
        "",
        "| | before | during the pause | ratio | target | noise floor | |",
        "|---|---:|---:|---:|---:|---:|---|",
        "| GET p99 | %s ms | %s ms | %sx | <= %.0fx | %s | %s |" % (
            fmt(load["before"]["get"]["p99_ms"], 2), fmt(load["during"]["get"]["p99_ms"], 2),
            fmt(targets["get_p99_during_over_before"], 2), targets["get_p99_target"],
            factor(noise.get("get_p99_floor")), verdict(targets, "get_p99")),
        "| GET throughput | %.0f req/s | %.0f req/s | %s%% | >= %.0f%% | %s | %s |" % (
            load["before"]["get"]["rps"], load["during"]["get"]["rps"],
            fmt(None if targets["get_rps_during_over_before"] is None
                else 100 * targets["get_rps_during_over_before"], 0),
            100 * targets["get_rps_target"], factor(noise.get("get_rps_floor")), verdict(targets, "get_rps")),
        "",
        "The noise floor is this run's own: the phase before the pause cut into %s identical windows of %s s with "
        "no event, the largest change of the figure between them. A target is met or missed only when the ratio "
        "is beyond it by more than that floor; otherwise it is not separable here." % (
            noise.get("windows", "-"), noise.get("window_s", "-")),
        "",
        "## The load by phase",
        "",
        "| phase | op | seconds | achieved req/s | p50 ms | p99 ms | p99.9 ms | max ms | unexpected statuses |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name in PHASES:
        for op in ("get", "put"):
            x = load[name][op]
            lines.append("| %s | %s | %.0f | %.0f | %s | %s | %s | %s | %s |" % (
                name, op.upper(), x["seconds"], x["rps"], fmt(x["p50_ms"], 2), fmt(x["p99_ms"], 2),
                fmt(x["p999_ms"], 2), fmt(x["max_ms"], 0),
                unexpected(x["status"], OK[op])))
    lines += [
        "",
        "Every request of the load, by the time it started (oha's per-request CSVs, latency corrected for the "
        "open model: a request that waited for a connection counts its wait). GETs of ids never preloaded "
        "answer 404: expected.",
        "",
    ]
    if plot:
        lines += ["![GET and PUT throughput and p99 per second across the pause](pause-latency.svg)", ""]
    lines += [
        "## How the coordinators saw node 2",
        "",
        "| coordinator | avoided after the pause | responsive after the resume | reads that waited for it "
        "(a backup delay each) | probes | other calls that asked it (backups of reads whose other replica was "
        "slow) | backups sent / won (all peers) | its backup delay before |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for u, c in sorted(result["coordinators"].items()):
        lines.append("| %s | %s s | %s s | %s | %s | %s | %s / %s | %s ms |" % (
            u, fmt(c["avoided_after_s"], 1), fmt(c["responsive_after_resume_s"], 1), fmt(c["backups_for_it_during"], 0),
            fmt(c["probes_during"], 0),
            fmt(None if c["reads_during"] is None or c["backups_for_it_during"] is None
                else c["reads_during"] - c["backups_for_it_during"], 0), fmt(c["backups_sent_during"], 0),
            fmt(c["backups_won_during"], 0), fmt(c["backup_delay_ms_before"], 1)))
    lines += [
        "",
        "From each coordinator's /metrics, sampled every 0.5 s (so the times are within half a second): "
        "`dht_replica_state`, `dht_replica_reads_total`, `dht_replica_probes_total`, `dht_replica_backups_total` "
        "for node 2, and `dht_read_backups_sent_total` / `dht_read_backups_won_total`.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
