#!/usr/bin/env python3
"""Turns the raw outputs of make bench-backup (scenarios/backup.json) into docs/benchmarks/backup.json and backup.md:
backup and restore MB/s (checkpoint bytes / wall time) and records/s, bytes uploaded, the load's p50/p99/p99.9
before, during and after the backup, the CPU of the nodes, the store and the load and the nodes' JIT and
flush/compaction work in each phase. Targets: restore >= 15 MB/s; the load's p99 during the backup <= 1.5x its p99
before, judged against the run's own noise floor: the p99s of the whole windows as long as the backup in "before"
and "after" (no backup in them), the largest change between consecutive ones; a ratio inside it is "not separable
here".

Usage: backup-report.py RAW_DIR OUT_DIR
       backup-report.py --render OUT_DIR   (backup.md again from OUT_DIR/backup.json)
"""
import os
import sys

from benchraw import env as read_env, fmt, kv, load_json, load_rows, report_main, timeline, window
from harness.judge import against, beyond, noise_floor

LOADS = (("PUT", {"201"}), ("GET", {"200", "404"}))  # each load and the statuses it expects
RESTORE_TARGET_MBS = 15.0
P99_TARGET_RATIO = 1.5
MB = 1e6
# the phases between marks: (name, first mark, last mark)
PHASES = (("before", "before_start", "backup_start"), ("during backup", "backup_start", "backup_done"),
          ("after", "backup_done", "load_end"))


def stats(rows, start_s, end_s, ok):
    w = window(rows, start_s, end_s, ok)
    return {"requests": w["requests"], "rps": round(w["rps"], 1), "p50_ms": w["p50_ms"], "p99_ms": w["p99_ms"],
            "p999_ms": w["p999_ms"], "unexpected": w["unexpected"]}


def windows_p99(rows, start_s, end_s, length, ok):
    """The p99 of each whole window of length seconds from start_s on, up to end_s."""
    out = []
    while length > 0 and start_s + length <= end_s:
        out.append(window(rows, start_s, start_s + length, ok)["p99_ms"])
        start_s += length
    return out


def transfer(seconds, size, records):
    return {"seconds": round(seconds, 1), "bytes": size, "mb_per_s": round(size / MB / seconds, 1),
            "records_per_s": round(records / seconds)}


def build(raw, out=None):
    env, t = read_env(raw), timeline(raw)

    def at(mark):  # seconds since the load started, as the load's rows count them
        return (t[mark] - t["load_start"]) / 1000.0

    manifest = load_json(os.path.join(raw, "backup-manifest.json"))
    nodes = [load_json(os.path.join(raw, "backup-node%d.json" % i)) for i in range(3)]
    restores = [load_json(os.path.join(raw, "restore-node%d.json" % i)) for i in (3, 4, 5)]
    backup_s = at("backup_done") - at("backup_start")
    backup = dict(transfer(backup_s, manifest["bytes"], manifest["records"]), records=manifest["records"],
                  uploaded_bytes=sum(n["bytes"]["uploaded"] for n in nodes))
    sent = sum(r["records"]["sent"] for r in restores)
    restore = dict(transfer(at("restore_done") - at("restore_start"), sum(r["bytes"]["total"] for r in restores), sent),
                   records_sent=sent, copies_sent=sum(r["records"]["copies"] for r in restores),
                   sending_seconds=round(at("restore_streamed") - at("restore_start"), 1),
                   loading_seconds=round(at("restore_done") - at("restore_streamed"), 1),
                   loaded_records=sum(r.get("load", {}).get("records", 0) for r in restores))
    load, noise, p99 = {}, {"window_s": round(backup_s, 1)}, {}
    for name, ok in LOADS:
        rows = load_rows(os.path.join(raw, "load-%s.csv" % name.lower()))
        load[name] = {phase: stats(rows, at(a), at(b), ok) for phase, a, b in PHASES}
        # the noise floor: windows as long as the backup with no backup in them, consecutive ones compared
        quiet = [windows_p99(rows, at(a), at(b), backup_s, ok) for phase, a, b in PHASES if phase != "during backup"]
        floor = noise_floor(*quiet)
        noise[name] = {"p99_ms": quiet, "floor": None if floor is None else round(floor, 2)}
        before, during = load[name]["before"]["p99_ms"], load[name]["during backup"]["p99_ms"]
        ratio = round(during / before, 2) if before and during else None
        p99[name] = {"during_over_before": ratio, "change": beyond(ratio, floor),
                     "verdict": against(ratio, P99_TARGET_RATIO, floor, higher_is_better=False)}
    return {"env": env, "backup": backup, "restore": restore, "load": load, "noise": noise, "p99": p99,
            "cpu_cores": cpu_cores(raw, t), "targets": {"restore_mb_per_s": RESTORE_TARGET_MBS,
                                                       "p99_ratio": P99_TARGET_RATIO},
            "met": {"restore": restore["mb_per_s"] >= RESTORE_TARGET_MBS}}


def cpu_cores(raw, t):
    """Per phase: cores used by the nodes, their selector threads, the object store and the load generators, and
    per second the nodes' JIT seconds and the MB their flushes and compactions wrote (RAW/sample-MARK.txt)."""
    samples = {}
    for _, a, b in PHASES:
        for mark in (a, b):
            path = os.path.join(raw, "sample-%s.txt" % mark)
            if os.path.exists(path):
                samples[mark] = {k: float(v) for k, v in kv(path).items()}
    out = {}
    for phase, a, b in PHASES:
        if a in samples and b in samples:
            secs, s, e = (t[b] - t[a]) / 1000.0, samples[a], samples[b]
            cores = {k: (e[k] - s[k]) / s["clk_tck"] / secs for k in s if k in e and k not in ("clk_tck", "jit",
                                                                                                   "written")}
            out[phase] = {"nodes": round(sum(v for k, v in cores.items() if k.startswith("node")), 2),
                          "selectors": round(cores["selectors"], 3), "store": round(cores.get("store", 0), 2),
                          "load": round(cores["load"], 2), "jit_s_per_s": round((e["jit"] - s["jit"]) / secs, 3),
                          "written_mb_per_s": round((e["written"] - s["written"]) / MB / secs, 2)}
    return out


def ratio_cell(p):
    """'1.81x (target <= 1.5x: not separable here)'."""
    if p["during_over_before"] is None:
        return "-"
    return "%.2fx (target <= %sx: %s)" % (p["during_over_before"], P99_TARGET_RATIO, p["verdict"])


def warmup(e):
    steady = e.get("steady_wait")
    if steady is None:
        return "%s s" % e.get("warmup")
    head = "%d s (%s s, then %s s more" % (int(e["warmup"]) + int(steady), e["warmup"], steady)
    quiet, want = e.get("steady_quiet_steps"), e.get("steady_quiet_wanted")
    if int(quiet) < int(want):
        return head + ": the nodes were NOT steady, only %s quiet steps of %s at the end)" % (quiet, want)
    return head + " until the nodes' JIT was quiet and no flush or compaction wrote in %s steps in a row)" % quiet


def render(r, out=None):
    e, b, s, n = r["env"], r["backup"], r["restore"], r["noise"]
    store = "under SCHED_IDLE" if "chrt" in e.get("store_priority", "") else "at nice 19"
    where = "in memory" if e.get("store_objects", "").startswith("/dev/shm") else "on disk"
    lines = [
        "# Backup and restore (make bench-backup)", "",
        "Run %s on commit %s (%s, %s CPUs, load before %s, after %s, CPU steal %s%%); %s PUTs preloaded at %s on 3 "
        "nodes (%s; JVM %s; no scheduled repair round: --repair-interval 0s); a fixed load of %s req/s (half PUT "
        "of new keys, half GET of preloaded ones) through the backup, measured after %s of it (\"before\" is the %s s"
        " after that); the members' backup status polled every 0.5 s all along, as the operator polls them. The "
        "object store (versitygw) ran on this machine %s with its objects %s. %s"
        % (e.get("date"), e.get("commit"), e.get("cpu"), e.get("nproc"), e.get("load_before"), e.get("load_after"),
           e.get("steal_pct"), e.get("keys"), e.get("replicas"), e.get("node_args"), e.get("java_opts"), e.get("rate"), warmup(e), e.get("phase"), store, where, e.get("label", "")), "",
        "| | seconds | bytes | MB/s | records | records/s | target |",
        "|---|---:|---:|---:|---:|---:|---|",
        "| backup (3 members at once, checkpoint bytes) | %s | %s | %s | %s | %s | |"
        % (b["seconds"], b["bytes"], b["mb_per_s"], b["records"], b["records_per_s"]),
        "| restore (3 fresh members, every share) | %s | %s | %s | %s | %s | >= %s MB/s: %s |"
        % (s["seconds"], s["bytes"], s["mb_per_s"], s["records_sent"], s["records_per_s"],
           r["targets"]["restore_mb_per_s"], "met" if r["met"]["restore"] else "missed"), "",
        "Bytes uploaded by the backup: %s (a first backup uploads everything; later ones only the files that are new)."
        " Record copies the restore sent to their owners: %s. The restore sent its shares in %s s; the members then "
        "loaded what they received (%s records, the newest copy of each key) and served after %s s more."
        % (b["uploaded_bytes"], s["copies_sent"], s["sending_seconds"], s["loaded_records"], s["loading_seconds"]), "",
        "| load | phase | requests | req/s | p50 ms | p99 ms | p99.9 ms | unexpected |",
        "|---|---|---:|---:|---:|---:|---:|---:|"]
    for name, _ in LOADS:
        for phase, _, _ in PHASES:
            st = r["load"][name][phase]
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                name, phase, st["requests"], st["rps"], fmt(st["p50_ms"], 1), fmt(st["p99_ms"], 1),
                fmt(st["p999_ms"], 1), st["unexpected"]))
    lines += ["", "p99 during the backup / p99 before: " + ", ".join(
        "%s %s" % (name, ratio_cell(r["p99"][name])) for name, _ in LOADS) + ".", "",
        "Noise floor of this run: the p99 of each whole %s-s window (the backup's length) of \"before\" and \"after\","
        " with no backup in them: %s ms; consecutive windows differ by up to %s. A ratio inside that floor is not "
        "separable here: the target is met or missed only when the ratio is beyond the floor on that side of it."
        % (n["window_s"], "; ".join("%s %s" % (name, " / ".join(", ".join(fmt(v, 1) for v in part)
                                                                for part in n[name]["p99_ms"]))
                                    for name, _ in LOADS),
           ", ".join("%s %s" % (name, "not measured (fewer than two windows)" if n[name]["floor"] is None
                                else "%.2fx" % n[name]["floor"]) for name, _ in LOADS))]
    c = r.get("cpu_cores")
    if c:
        present = [p for p, _, _ in PHASES if p in c]
        lines += ["", "CPU in cores (of %s), %s: the three nodes %s (their selector threads, which serve the requests,"
                  " %s), the object store %s, the load generators %s (all on this machine; a deployment's object store"
                  " is not). Beside requests, per second, the nodes' JIT compiled %s s and their flushes and "
                  "compactions wrote %s MB." % (e.get("nproc"), " / ".join(present),
                                                *(" / ".join(str(c[p][k]) for p in present)
                                                  for k in ("nodes", "selectors", "store", "load", "jit_s_per_s",
                                                            "written_mb_per_s")))]
    return "\n".join(lines) + "\n"


def main(argv):
    return report_main(argv, "backup", build, render, __doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
