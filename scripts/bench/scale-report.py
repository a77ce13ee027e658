#!/usr/bin/env python3
"""Turns the raw outputs of make bench-scale (scenarios/scale.json) into docs/benchmarks/scale.json, scale.md and a
plot of the load's latency by phase (scale-latency.svg; matplotlib: run it with the python of scripts/venv.sh).

Usage: scale-report.py RAW_DIR OUT_DIR
       scale-report.py --render OUT_DIR   (scale.md and the plot again from OUT_DIR/scale.json)
"""
import json
import os
import sys

import plots
from benchraw import env as read_env, fmt, load_rows, read, report_head, report_main, timeline, unexpected, window
from harness.judge import over_before, phase_floor

NOISE_WINDOWS = 2  # the phase before the scale-up, cut into identical windows: the run's own noise floor
PHASES = ("before scale-up", "during 3 -> 5", "after scale-up", "during 5 -> 3", "after scale-down")


def watch(path):
    samples = []
    if os.path.exists(path):
        for line in read(path).splitlines():
            if line.strip():
                samples.append(json.loads(line))
    return samples


def move_figures(samples, t_file, t_idle):
    """Records and bytes moved (this move's counters, summed over nodes), and when streaming ran."""
    def total(s, group, key):
        return sum((m or {}).get(group, {}).get(key, 0) or 0 for m in s["nodes"].values())

    first_joint = None
    stream_start = None
    stream_end = None
    last_bytes = 0
    for s in samples:
        stages = [((m or {}).get("topology") or {}).get("stage") for m in s["nodes"].values()]
        if first_joint is None and "joint" in stages:
            first_joint = s["t"]
        b = total(s, "bytes", "sent")
        if b > last_bytes:
            if stream_start is None:
                stream_start = s["t"]
            stream_end = s["t"]
            last_bytes = b
    final = samples[-1] if samples else {"nodes": {}}
    records = total(final, "keys", "sent")
    received = total(final, "keys", "received")
    nbytes = total(final, "bytes", "sent")
    # the first sample with bytes sent shows the end of the first 250 ms of streaming at the latest
    streaming = None if stream_start is None else max(0.25, (stream_end - stream_start) / 1000.0 + 0.25)
    return {
        "duration_s": (t_idle - t_file) / 1000.0,
        "to_joint_s": None if first_joint is None else (first_joint - t_file) / 1000.0,
        "streaming_s": streaming,
        "records_sent": records, "records_received": received, "bytes_sent": nbytes,
        "records_per_s": None if not streaming else records / streaming,
        "mb_per_s": None if not streaming else nbytes / streaming / 1e6,
    }


def main(argv):
    return report_main(argv, "scale", build, render, __doc__)


def build(raw, out=None):
    """The figures of a run (scale.json)."""
    env, tl = read_env(raw), timeline(raw)
    t0 = tl["load_start"]

    def rel(name):
        return (tl[name] - t0) / 1000.0

    phases = [
        ("before scale-up", 0, rel("up_file")),
        ("during 3 -> 5", rel("up_file"), rel("up_idle")),
        ("after scale-up", rel("up_idle"), rel("down_file")),
        ("during 5 -> 3", rel("down_file"), rel("down_stopped")),
        ("after scale-down", rel("down_stopped"), rel("load_end")),
    ]
    put = load_rows(os.path.join(raw, "load-put.csv"))
    get = load_rows(os.path.join(raw, "load-get.csv"))
    load = {}
    for name, a, b in phases:
        load[name] = {"put": window(put, a, b, {"201"}), "get": window(get, a, b, {"200", "404"})}
    # the run's own noise floor: the phase before the scale-up in identical windows with no event; each phase's
    # p99 over the one before is judged against it
    first = PHASES[0]
    noise = {"windows": NOISE_WINDOWS, "window_s": round(rel("up_file") / NOISE_WINDOWS, 1)}
    for op, rows, ok in (("put", put, {"201"}), ("get", get, {"200", "404"})):
        noise[op + "_p99_floor"] = phase_floor(rows, 0, rel("up_file"), ok, "p99_ms", NOISE_WINDOWS)
        for name in load:
            load[name][op]["p99_over_before"], load[name][op]["p99_change"] = over_before(
                load[first][op]["p99_ms"], load[name][op]["p99_ms"], noise[op + "_p99_floor"])
    moves = {
        "3 -> 5": move_figures(watch(os.path.join(raw, "watch-up.jsonl")), tl["up_file"], tl["up_idle"]),
        "5 -> 3": move_figures(watch(os.path.join(raw, "watch-down.jsonl")), tl["down_file"], tl["down_idle"]),
    }
    result = {"env": env, "timeline_ms": tl, "moves": moves, "load": load, "noise": noise}
    return result


def render(result, out):
    """scale.md and its plot, from the figures (scale.json)."""
    env, moves, load = result["env"], result["moves"], result["load"]
    plot = plots.bars(os.path.join(out, "scale-latency.svg"), "The load's latency by phase (oha, corrected)", "ms",
                      [(name, [("%s %s" % (op.upper(), q), load[name][op].get(key)) for op in ("put", "get")
                               for q, key in (("p50", "p50_ms"), ("p99", "p99_ms"))]) for name in PHASES
                       if name in load])
    lines = report_head(
        env, "Scaling under load: 3 -> 5 -> 3",
        "Generated by `make bench-scale` (scripts/bench/scenarios/scale.json); raw figures in scale.json. What "
        "moving data costs while the cluster serves a fixed load (docs/cluster.md, \"Scaling\").")
    lines += [
        "- data: %s PUTs at %s of 100-byte values on ids drawn from 10^%s, before the load; load: %s req/s in all "
        "(half PUTs of new keys, half GETs of the preloaded ids, at %s), open model, spread over the three "
        "original nodes" % (env.get("keys"), env.get("replicas"), env.get("key_digits"), env.get("rate"),
                            env.get("replicas")),
        "",
        "## The moves",
        "",
        "| move | file change -> all idle | -> first joint | streaming | records sent | received | MB sent | "
        "records/s | MB/s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, m in moves.items():
        lines.append("| %s | %s s | %s s | %s s | %d | %d | %.1f | %s | %s |" % (
            name, fmt(m["duration_s"], 1), fmt(m["to_joint_s"], 1), fmt(m["streaming_s"], 1), m["records_sent"],
            m["records_received"], m["bytes_sent"] / 1e6, fmt(m["records_per_s"], 0), fmt(m["mb_per_s"], 1)))
    lines += [
        "",
        "Streaming: from the first to the last movement sample (every 250 ms) in which the bytes sent grew; "
        "records/s and MB/s are over that time, for all senders together. Every old replica sends (a write "
        "acknowledged at 2/3 may miss one of them), so a record crosses the network up to three times; "
        "receivers keep the newest.",
        "",
        "## The load's latency",
        "",
        "| phase | op | seconds | achieved req/s | p50 ms | p99 ms | p99 / before | p99.9 ms | max ms | unexpected "
        "statuses |",
        "|---|---|---:|---:|---:|---:|---|---:|---:|---|",
    ]
    for name in PHASES:
        for op in ("put", "get"):
            x = load[name][op]
            lines.append("| %s | %s | %.0f | %.0f | %s | %s | %s | %s | %s | %s |" % (
                name, op.upper(), x["seconds"], x["rps"], fmt(x["p50_ms"], 2), fmt(x["p99_ms"], 2),
                "-" if x.get("p99_over_before") is None else "%.2fx (%s)" % (x["p99_over_before"], x["p99_change"]),
                fmt(x["p999_ms"], 2), fmt(x["max_ms"], 0),
                unexpected(x["status"], {"201"} if op == "put" else {"200", "404"})))
    lines += [
        "",
        "Every request of the load, by the time it started (oha's per-request CSV, latency corrected for the "
        "open model). GETs of ids never preloaded answer 404: expected.",
        "",
    ]
    noise = result.get("noise")
    if noise:
        lines += ["Noise floor of this run: the phase before the scale-up cut into %d identical windows of %s s with "
                  "no event; their p99s differ by up to %s (PUT) and %s (GET). A p99 / before inside that floor is not "
                  "separable here." % (noise["windows"], noise["window_s"], fmt(noise["put_p99_floor"], 2) + "x",
                                       fmt(noise["get_p99_floor"], 2) + "x"), ""]
    if plot:
        lines += ["![the load's p50 and p99 by phase](scale-latency.svg)", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
