#!/usr/bin/env python3
"""Turns the raw outputs of make bench-repair (scenarios/repair.json) into docs/benchmarks/repair.json and repair.md.

Usage: repair-report.py RAW_DIR OUT_DIR
       repair-report.py --render OUT_DIR   (repair.md again from OUT_DIR/repair.json)
"""
import json
import os
import sys

from benchraw import env as read_env, factor, load_rows, read, report_main, timeline, window
from harness.judge import NOT_SEPARABLE, over_before, phase_floor

NOISE_WINDOWS = 2  # the phase before anything is repaired, cut into identical windows: the run's own noise floor

MB = 1e6


def phase_stats(rows, start_s, end_s, ok_codes):
    """The window's figures that repair.json keeps, its length rounded to 0.1 s."""
    w = window(rows, start_s, end_s, ok_codes)
    return {"requests": w["requests"], "seconds": round(max(0.0, end_s - start_s), 1),
            "p50_ms": w["p50_ms"], "p99_ms": w["p99_ms"], "p999_ms": w["p999_ms"],
            "unexpected": w["unexpected"], "status": w["status"]}


def statuses(path):
    """The nodes' GET /v0/admin/repair, one JSON per line (node 0, 1, 2)."""
    out = []
    for line in read(path).splitlines():
        line = line.strip()
        out.append(json.loads(line) if line else {})
    return out


def total(status_list, name):
    return sum((s.get("totals") or {}).get(name, 0) or 0 for s in status_list)


def delta(before, after, name):
    return total(after, name) - total(before, name)


def build(raw, out=None):
    env, tl = read_env(raw), timeline(raw)
    t0 = tl["load_start"]

    def at(name):
        return (tl[name] - t0) / 1000.0

    before_round = statuses(os.path.join(raw, "repair-before-round.jsonl"))
    after_round = statuses(os.path.join(raw, "repair-after-round.jsonl"))
    after_idle = statuses(os.path.join(raw, "repair-after-idle-round.jsonl"))
    after_rebuild = statuses(os.path.join(raw, "repair-after-rebuild.jsonl"))

    def round_figures(b, a, start, end):
        secs = max(0.001, (tl[end] - tl[start]) / 1000.0)
        keys = delta(b, a, "keysRepaired")
        size = delta(b, a, "bytesRepaired")
        hashes = delta(b, a, "hashBytes")
        return {"seconds": round(secs, 2), "ranges_compared": delta(b, a, "rangesCompared"),
                "ranges_out_of_sync": delta(b, a, "rangesOutOfSync"), "keys_repaired": keys,
                "bytes_repaired": size, "hash_bytes": hashes, "keys_deferred": delta(b, a, "keysDeferred"),
                "keys_per_s": round(keys / secs, 1), "mb_per_s": round(size / MB / secs, 3),
                "hash_bytes_per_differing_key": round(hashes / keys, 1) if keys else None}

    rb = (after_rebuild[2] if len(after_rebuild) > 2 else {}).get("rebuild") or {}
    with_restart = (tl["rebuild_end"] - tl["rebuild_start"]) / 1000.0
    # the node's own start and end of the rebuild; from the bench's restart when the node does not report its start
    rb_secs = max(0.001, ((rb.get("finishedAt") or 0) - rb["startedAt"]) / 1000.0 if rb.get("startedAt")
                  else with_restart)
    # node 2 restarted empty: its totals count the rebuild alone (the bench asks for no round on it)
    rb_totals = (after_rebuild[2] if len(after_rebuild) > 2 else {}).get("totals") or {}
    rebuild = {"seconds": round(rb_secs, 2),
               "seconds_with_restart": round(with_restart, 2),
               "ranges": rb.get("rangesTotal"), "keys_received": rb.get("keysReceived"),
               "bytes_received": rb.get("bytesReceived"), "hash_bytes": rb_totals.get("hashBytes"),
               "keys_per_s": round((rb.get("keysReceived") or 0) / rb_secs, 1),
               "mb_per_s": round((rb.get("bytesReceived") or 0) / MB / rb_secs, 3)}

    puts = load_rows(os.path.join(raw, "load-put.csv"))
    gets = load_rows(os.path.join(raw, "load-get.csv"))
    # "before" skips the load's first seconds (connections opening, JIT), at most a third of the phase
    phases = [("before", min(5.0, at("diverge_start") / 3), at("diverge_start")),
              ("during the round", at("round_start"), at("round_end")),
              ("during the idle round", at("idle_round_start"), at("idle_round_end")),
              ("during the rebuild", at("rebuild_start"), at("rebuild_end")),
              ("after", at("rebuild_end") + 2.0, at("load_end"))]
    load = [{"phase": name, "put": phase_stats(puts, a, b, {"201"}), "get": phase_stats(gets, a, b, {"200", "404"})}
            for name, a, b in phases]
    # the noise floor of this run: "before" in identical windows with no event, the largest change between them
    start, end = phases[0][1], phases[0][2]
    noise = {"windows": NOISE_WINDOWS, "window_s": round((end - start) / NOISE_WINDOWS, 1)}
    for kind, rows, ok in (("put", puts, {"201"}), ("get", gets, {"200", "404"})):
        noise[kind + "_p99_floor"] = phase_floor(rows, start, end, ok, "p99_ms", NOISE_WINDOWS)
    # the cost to the load: each phase's p99 over the p99 before anything was repaired, judged against the floor
    for p in load:
        for kind in ("put", "get"):
            p[kind]["p99_over_before"], p[kind]["p99_change"] = over_before(
                load[0][kind]["p99_ms"], p[kind]["p99_ms"], noise[kind + "_p99_floor"])
    return {"noise": noise, "env": env, "round": round_figures(before_round, after_round, "round_start", "round_end"),
            "idle_round": round_figures(after_round, after_idle, "idle_round_start", "idle_round_end"),
            "rebuild": rebuild, "load": load}


def judged(p):
    """The ratio cell: the ratio, and "(not separable here)" when it lies inside the run's noise floor."""
    r = factor(p.get("p99_over_before"))
    return r + " (not separable here)" if p.get("p99_change") == NOT_SEPARABLE and r != "-" else r


def ms(v):
    return "-" if v is None else (f"{v:.1f}" if v >= 10 else f"{v:.2f}")


def render(d, out=None):
    e, r, i, b = d["env"], d["round"], d["idle_round"], d["rebuild"]
    lines = [
        "# Repair and rebuild (make bench-repair)", "",
        f"Commit {e.get('commit')} ({e.get('date')}), {e.get('nproc')} CPUs ({e.get('cpu')}), load before "
        f"{e.get('load_before')}, after {e.get('load_after')}, CPU steal {e.get('steal_pct')}%. {e.get('java')}. "
        f"{e.get('label', '')}", "",
        f"Three nodes, RF 3, hints off; {e.get('keys')} PUTs of 100-byte values preloaded on ids from a space of "
        f"10^{e.get('key_digits')}; {e.get('diff')} overwrites missed by node 2 (stopped meanwhile); "
        f"--repair-rate {e.get('repair_rate')}; a fixed load of {e.get('rate')} req/s ({e.get('replicas')}, half PUTs "
        f"of new keys, half GETs of preloaded ids) through nodes 0 and 1 all along.", "",
        "| | repair round | idle round (nothing differs) | rebuild (node 2 wiped) |",
        "|---|---:|---:|---:|",
        f"| duration | {r['seconds']} s | {i['seconds']} s | {b['seconds']} s ({b['seconds_with_restart']} s from the restart) |",
        f"| ranges compared / out of sync | {r['ranges_compared']} / {r['ranges_out_of_sync']} | "
        f"{i['ranges_compared']} / {i['ranges_out_of_sync']} | {b['ranges']} pulled |",
        f"| keys sent | {r['keys_repaired']} | {i['keys_repaired']} | {b['keys_received']} |",
        f"| keys/s | {r['keys_per_s']} | - | {b['keys_per_s']} |",
        f"| MB of records, MB/s | {r['bytes_repaired'] / 1e6:.2f}, {r['mb_per_s']} | {i['bytes_repaired'] / 1e6:.2f} | "
        f"{(b['bytes_received'] or 0) / 1e6:.2f}, {b['mb_per_s']} |",
        f"| hash bytes (queries, hashes, digests) | {r['hash_bytes']} | {i['hash_bytes']} | {b['hash_bytes']} |",
        f"| hash bytes per differing key | {r['hash_bytes_per_differing_key']} | | |",
        f"| keys left to the next round (writes in flight) | {r['keys_deferred']} | {i['keys_deferred']} | |", "",
        "The fixed load's latency (ms), by phase:", "",
        "| phase | PUT p50 | PUT p99 | PUT p99.9 | PUT p99 / before | GET p50 | GET p99 | GET p99.9 | GET p99 / before "
        "| requests | unexpected |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for p in d["load"]:
        u, g = p["put"], p["get"]
        lines.append(f"| {p['phase']} ({u['seconds']} s) | {ms(u['p50_ms'])} | {ms(u['p99_ms'])} | {ms(u['p999_ms'])} "
                     f"| {judged(u)} | {ms(g['p50_ms'])} | {ms(g['p99_ms'])} | {ms(g['p999_ms'])} "
                     f"| {judged(g)} | {u['requests'] + g['requests']} "
                     f"| {u['unexpected'] + g['unexpected']} |")
    n = d.get("noise")
    if n:
        lines += ["", f"Noise floor of this run: the phase before cut into {n['windows']} identical windows of "
                  f"{n['window_s']} s with no event; their p99s differ by up to {factor(n['put_p99_floor'])} (PUT) and "
                  f"{factor(n['get_p99_floor'])} (GET). A ratio inside that floor is not separable here."]
    return "\n".join(lines) + "\n"


def main(argv):
    return report_main(argv, "repair", build, render, __doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
