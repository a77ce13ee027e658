#!/usr/bin/env python3
"""Turns the raw outputs of scripts/bench-backup.sh into docs/benchmarks/backup.json and backup.md.

Usage: backup-report.py RAW_DIR OUT_DIR       (standard library only)
       backup-report.py --rounds OUT_DIR ROUND_OUT_DIR...  (one report over rounds, each reported on its own before)
"""
import json
import os
import sys

from benchraw import kv, load_rows, median, window

PHASES = ("before", "during backup", "after", "during 2nd backup")
# the two loads and the statuses each expects
LOADS = (("PUT", {"201"}), ("GET", {"200", "404"}))
RESTORE_TARGET_MBS = 15.0
P99_TARGET_RATIO = 1.5


def load_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def stats(rs, start, end, ok):
    w = window(rs, start, end, ok)
    return {"requests": w["requests"], "rps": round(w["rps"], 1), "p50_ms": w["p50_ms"],
            "p99_ms": w["p99_ms"], "p999_ms": w["p999_ms"], "unexpected": w["unexpected"]}


def main():
    if sys.argv[1] == "--rounds":
        result = over_rounds([load_json(os.path.join(d, "backup.json")) for d in sys.argv[3:]])
        write(result, sys.argv[2])
        return
    write(one_run(sys.argv[1]), sys.argv[2])


def write(result, out):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "backup.json"), "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2, sort_keys=True)
    with open(os.path.join(out, "backup.md"), "w", encoding="utf-8") as f:
        f.write(render(result))


def over_rounds(results):
    """The rounds' medians are judged; the detailed tables are those of the round whose judged p99 ratio (the
    larger of PUT's and GET's: the paired windows' pooled one, or the first backup's in runs without pairs) is the
    median one."""
    judged = [judged_ratios(r["p99_during_over_before"], r.get("paired")) for r in results]

    def worst(i):
        return max(v for v in judged[i].values() if v is not None)
    ranked = sorted(range(len(results)), key=worst)
    shown = ranked[(len(ranked) - 1) // 2]
    result = dict(results[shown])
    ratios = {name: two_places(median([j.get(name) for j in judged])) for name in judged[0]}
    first = {name: two_places(median([r["p99_during_over_before"].get(name) for r in results]))
             for name in results[0]["p99_during_over_before"]}
    restore_mbs = median([r["restore"]["mb_per_s"] for r in results])
    result["shown_round"] = shown + 1
    result["rounds"] = [{
        "round": i + 1, "date": r["env"].get("date"), "commit": r["env"].get("commit"),
        "backup_s": r["backup"]["seconds"], "backup_mb_per_s": r["backup"]["mb_per_s"],
        "restore_mb_per_s": r["restore"]["mb_per_s"],
        "p99_before_ms": {k: v["before"]["p99_ms"] for k, v in r["load"].items()},
        "p99_during_ms": {k: v["during backup"]["p99_ms"] for k, v in r["load"].items()},
        "p99_during_over_before": r["p99_during_over_before"],
        "second_p99_during_over_before": (r.get("second_backup") or {}).get("p99_during_over_before"),
        "p99_during_over_after": r.get("p99_during_over_after"),
        "quiet_windows": r.get("quiet_windows"),
        "paired": r.get("paired"),
    } for i, r in enumerate(results)]
    result["median"] = {"p99_judged": ratios, "p99_during_over_before": first, "restore_mb_per_s": restore_mbs,
                        "paired": all(r.get("paired") for r in results)}
    if all(r.get("p99_during_over_after") for r in results):
        result["median"]["p99_during_over_after"] = {
            name: two_places(median([r["p99_during_over_after"].get(name) for r in results]))
            for name in results[0]["p99_during_over_after"]}
    result["met"] = {"restore": restore_mbs is not None and restore_mbs >= RESTORE_TARGET_MBS,
                     "p99": all(v is not None and v <= P99_TARGET_RATIO for v in ratios.values())}
    return result


def two_places(v):
    return None if v is None else round(v, 2)


def one_run(raw):
    env = kv(os.path.join(raw, "env.txt"))
    t = {k: int(v) for k, v in kv(os.path.join(raw, "timeline.txt")).items()}
    manifest = load_json(os.path.join(raw, "backup-manifest.json"))
    nodes = [load_json(os.path.join(raw, f"backup-node{i}.json")) for i in range(3)]
    restores = [load_json(os.path.join(raw, f"restore-node{i}.json")) for i in (3, 4, 5)]
    backup_s = (t["backup_done"] - t["backup_start"]) / 1000
    restore_s = (t["restore_done"] - t["restore_start"]) / 1000
    restored_bytes = sum(r["bytes"]["total"] for r in restores)
    restored_records = sum(r["records"]["sent"] for r in restores)
    backup = {"seconds": round(backup_s, 1), "bytes": manifest["bytes"],
              "uploaded_bytes": sum(n["bytes"]["uploaded"] for n in nodes),
              "records": manifest["records"], "mb_per_s": round(manifest["bytes"] / backup_s / 1e6, 1),
              "records_per_s": round(manifest["records"] / backup_s)}
    restore = {"seconds": round(restore_s, 1), "bytes": restored_bytes, "records_sent": restored_records,
               "copies_sent": sum(r["records"]["copies"] for r in restores),
               "mb_per_s": round(restored_bytes / restore_s / 1e6, 1),
               "records_per_s": round(restored_records / restore_s)}
    if "restore_streamed" in t:  # runs since the members load what they received after the shares are sent
        restore["sending_seconds"] = round((t["restore_streamed"] - t["restore_start"]) / 1000, 1)
        restore["loading_seconds"] = round((t["restore_done"] - t["restore_streamed"]) / 1000, 1)
        restore["loaded_records"] = sum(r.get("load", {}).get("records", 0) for r in restores)
    origin = t["load_start"] / 1000
    second = "backup2_start" in t  # runs from before the second backup have three phases
    # "before" starts after the load's warm-up (runs before before_start: 5 s after the load started)
    before = t["before_start"] / 1000 if "before_start" in t else t["load_start"] / 1000 + 5
    bounds = [(before - origin, t["backup_start"] / 1000 - origin),
              (t["backup_start"] / 1000 - origin, t["backup_done"] / 1000 - origin),
              (t["backup_done"] / 1000 - origin, t["backup2_start" if second else "load_end"] / 1000 - origin)]
    if second:
        bounds.append((t["backup2_start"] / 1000 - origin, t["backup2_done"] / 1000 - origin))
    rows = {name: load_rows(os.path.join(raw, f"load-{name.lower()}.csv")) for name, _ in LOADS}
    load = {name: {phase: stats(rows[name], a, b, ok) for phase, (a, b) in zip(PHASES, bounds)}
            for name, ok in LOADS}
    ratios = p99_ratio(load, "during backup", "before")
    quiet = quiet_windows(rows, [bounds[0], bounds[2]], backup_s,
                          {name: phases["before"]["p99_ms"] for name, phases in load.items()})
    backup2 = None
    if second:
        nodes2 = [load_json(os.path.join(raw, f"backup2-node{i}.json")) for i in range(3)]
        manifest2 = load_json(os.path.join(raw, "backup2-manifest.json"))
        backup2 = {"seconds": round((t["backup2_done"] - t["backup2_start"]) / 1000, 1),
                   "bytes": manifest2["bytes"], "uploaded_bytes": sum(n["bytes"]["uploaded"] for n in nodes2),
                   "p99_during_over_before": p99_ratio(load, "during 2nd backup", "before")}
    samples = cpu_samples(raw)
    cpu = cpu_cores(samples, t)
    pairs = paired(rows, t, origin, samples)
    result = {"env": env, "backup": backup, "restore": restore, "load": load, "p99_during_over_before": ratios,
              "p99_during_over_after": p99_ratio(load, "during backup", "after"),
              "cpu_cores": cpu, "node_work": node_work(raw, t), "second_backup": backup2, "quiet_windows": quiet,
              "paired": pairs,
              "targets": {"restore_mb_per_s": RESTORE_TARGET_MBS, "p99_ratio": P99_TARGET_RATIO},
              "met": {"restore": restore["mb_per_s"] >= RESTORE_TARGET_MBS,
                      "p99": all(r is not None and r <= P99_TARGET_RATIO
                                 for r in judged_ratios(ratios, pairs).values())}}
    return result


def judged_ratios(first, pairs):
    """The p99 ratios the target is judged on: the paired windows' pooled ratio where the run made them, else (runs
    from before them) the first backup's."""
    if pairs:
        return {name: pairs[name]["ratio"] for name, _ in LOADS}
    return first


def paired(rows, t, origin, samples):
    """The backups and the quiet windows before them, pooled (bench-backup.sh, "paired windows"): pair 0 is the first
    backup and the last stretch of "before" as long as it; pair k the k-th full backup and the quiet window before
    it. Per load: the p99 of every request in the quiet windows and of every request during the backups, their
    ratio (judged), and each pair's own ratio (shown). None for runs without pairs."""
    if "quiet1_start" not in t:
        return None
    first = (t["backup_done"] - t["backup_start"]) / 1000
    start = t.get("before_start", t["load_start"]) / 1000
    quiet = [(max(start, t["backup_start"] / 1000 - first), t["backup_start"] / 1000)]
    backups = [(t["backup_start"] / 1000, t["backup_done"] / 1000)]
    marks = []  # (quiet start, backup start, backup done) of the full backups
    k = 1
    while f"full{k}_done" in t:
        marks.append((f"quiet{k}_start", f"full{k}_start", f"full{k}_done"))
        quiet.append((t[f"quiet{k}_start"] / 1000, t[f"full{k}_start"] / 1000))
        backups.append((t[f"full{k}_start"] / 1000, t[f"full{k}_done"] / 1000))
        k += 1
    quiet = [(a - origin, b - origin) for a, b in quiet]
    backups = [(a - origin, b - origin) for a, b in backups]
    out = {"pairs": len(backups), "quiet_s": [round(b - a, 1) for a, b in quiet],
           "backup_s": [round(b - a, 1) for a, b in backups]}
    for name, ok in LOADS:
        q, b = pooled(rows[name], quiet, ok), pooled(rows[name], backups, ok)
        per_pair = []
        for qw, bw in zip(quiet, backups):
            under, over = window(rows[name], *qw, ok)["p99_ms"], window(rows[name], *bw, ok)["p99_ms"]
            per_pair.append(round(over / under, 2) if under and over else None)
        out[name] = {"quiet": q, "backups": b, "per_pair": per_pair,
                     "ratio": round(b["p99_ms"] / q["p99_ms"], 2) if q["p99_ms"] and b["p99_ms"] else None}
    # the selector threads' cores in the quiet windows and during the backups (pair 0's quiet window has no sample
    # of its own: "before" stands for it)
    if marks and all("selectors" in samples.get(m, {}) for triple in marks for m in triple):
        tck = samples[marks[0][0]]["clk_tck"]

        def cores(spans):
            ticks = sum(samples[b]["selectors"] - samples[a]["selectors"] for a, b in spans)
            return round(ticks / tck / sum((t[b] - t[a]) / 1000 for a, b in spans), 3)
        out["selector_cores"] = {"quiet": cores([(q, f) for q, f, _ in marks]),
                                 "backups": cores([(f, d) for _, f, d in marks])}
    return out


def pooled(rows, spans, ok):
    """The requests that started in any of spans, as window() reports them (count, p50/p99/p99.9, unexpected)."""
    sel = [r for r in rows if any(a <= r[0] < b for a, b in spans)]
    w = window(sel, float("-inf"), float("inf"), ok)
    return {"requests": w["requests"], "p50_ms": w["p50_ms"], "p99_ms": w["p99_ms"], "p999_ms": w["p999_ms"],
            "unexpected": w["unexpected"]}


def cpu_samples(raw):
    """Every cpu-*.txt of the run, by mark."""
    out = {}
    for f in os.listdir(raw):
        if f.startswith("cpu-") and f.endswith(".txt"):
            out[f[4:-4]] = {k: int(v) for k, v in kv(os.path.join(raw, f)).items()}
    return out


def quiet_windows(rows, bounds, length, before_p99):
    """How far the judged ratio moves with no backup at all: the p99 of every whole window as long as the backup
    inside bounds ("before" and "after", both without a backup), over the same "before" p99 as the backup's ratio.
    A p99 of some thousand requests on a shared 2-CPU machine moves with nothing changed; this is its spread in the
    same run. rows: each load's requests (load_rows); before_p99: each load's p99 before the backup."""
    if length <= 0:
        return None
    out = {"seconds": round(length, 1)}
    starts = []
    for a, b in bounds:
        start = a
        while start + length <= b:
            starts.append(start)
            start += length
    for name, ok in LOADS:
        p99s = (window(rows[name], start, start + length, ok)["p99_ms"] for start in starts)
        base = before_p99[name]
        out[name] = [round(p99 / base, 2) for p99 in p99s if p99 and base]
    return out


def quiet_range(q):
    """'PUT 0.8x-1.6x / GET ...' from quiet_windows' ratios, or None."""
    if not q or not any(q.get(k) for k, _ in LOADS):
        return None
    return " / ".join(f"{k} {min(q[k])}x-{max(q[k])}x" for k, _ in LOADS if q.get(k))


def p99_ratio(load, phase, base):
    """Per load (PUT, GET): the p99 in phase over the p99 in base, or None when either is missing."""
    out = {}
    for name, phases in load.items():
        under, over = phases[base]["p99_ms"], phases[phase]["p99_ms"]
        out[name] = round(over / under, 2) if under and over else None
    return out


# the phases between samples: (name, first mark, last mark)
WORK_PHASES = (("before", "before_start", "backup_start"), ("during backup", "backup_start", "backup_done"),
               ("after", "backup_done", "backup2_start"), ("during 2nd backup", "backup2_start", "backup2_done"))


def node_work(raw, t):
    """What the three nodes did beside requests in each phase: seconds of JIT compiling per second, and MB per second
    their flushes and compactions wrote (None for runs that did not sample it). A "before" busier than "after" is
    no steady baseline."""
    paths = {mark: os.path.join(raw, f"work-{mark}.txt") for _, a, b in WORK_PHASES for mark in (a, b)}
    samples = {mark: {k: float(v) for k, v in kv(path).items()} for mark, path in paths.items()
               if os.path.exists(path)}
    out = {}
    for phase, a, b in WORK_PHASES:
        if a in samples and b in samples:
            secs = (t[b] - t[a]) / 1000
            out[phase] = {"jit_s_per_s": round((samples[b]["jit"] - samples[a]["jit"]) / secs, 3),
                          "written_mb_per_s": round((samples[b]["written"] - samples[a]["written"]) / secs / 1e6, 2)}
    return out or None


def cpu_cores(samples, t):
    """Cores used by the nodes, the object store and the load generators before and during the backup (None when
    the run recorded no samples). samples: cpu_samples()."""
    if any(m not in samples for m in ("load_start", "backup_start", "backup_done")):
        return None
    tck = samples["load_start"]["clk_tck"]
    out = {}
    first = "before_start" if "before_start" in samples else "load_start"
    phases = [("before", (first, "backup_start")), ("during backup", ("backup_start", "backup_done"))]
    if "backup2_done" in samples:
        phases += [("after", ("backup_done", "backup2_start")),
                   ("during 2nd backup", ("backup2_start", "backup2_done"))]
    for phase, (a, b) in phases:
        secs = (t[b] - t[a]) / 1000
        used = {k: (samples[b][k] - samples[a][k]) / tck / secs for k in samples[a] if k != "clk_tck"}
        out[phase] = {"nodes": round(sum(v for k, v in used.items() if k.startswith("node")), 2),
                      "store": round(used["store"], 2), "load": round(used["load"], 2)}
        if "selectors" in used:  # runs from before they were sampled have none
            out[phase]["selectors"] = round(used["selectors"], 3)
    return out


def store_note(e):
    d = e.get("store_dir")
    if not d:
        return ""  # runs from before the store was set apart
    prio = "under SCHED_IDLE" if "chrt" in e.get("store_priority", "") else "at nice 19"
    return f" The store ran {prio} with its objects {'in memory' if d.startswith('/dev/shm') else 'on disk'} ({d})."


def warmup(e):
    steady = e.get("steady_wait")
    if steady is None:
        return f"{e['load_warmup']} s"
    head = f"{int(e['load_warmup']) + int(steady)} s ({e['load_warmup']} s, then {steady} s more"
    quiet = e.get("steady_quiet_steps")
    if quiet is None:  # runs from before steady_load asked for quiet steps in a row
        return head + " until the nodes' JIT was quiet and no flush or compaction wrote)"
    want = e["steady_quiet_wanted"]
    if int(quiet) < int(want):
        steps = "step" if quiet == "1" else "steps"
        return head + f": the nodes were NOT steady, only {quiet} quiet {steps} of {want} at the end)"
    return head + f", until the nodes' JIT was quiet and no flush or compaction wrote in {quiet} steps in a row)"


def in_order(phases):
    """The phases present, in the run's order (a report read back from JSON has them sorted by name)."""
    return [p for p in PHASES if p in phases] + [p for p in phases if p not in PHASES]


def ms(v):
    return "-" if v is None else f"{v:.1f}"


def rounds_section(r):
    rounds = r.get("rounds")
    if not rounds:
        return []
    m, t = r["median"], r["targets"]

    def pair(x, key):
        return " / ".join(f"{k} {ms(v)}" for k, v in x[key].items())

    def ratio(d):
        return " / ".join(f"{k} {v}x" for k, v in (d or {}).items()) or "-"
    lines = [f"{len(rounds)} rounds, one after the other, each on fresh nodes, a fresh store and fresh data; the"
             " targets are judged on the medians of the rounds. The tables after this one are round "
             f"{r['shown_round']}'s (the median round by its larger judged p99 ratio).", "",
             "| round | started | backup s | backup MB/s | restore MB/s | p99 before ms | p99 during backup ms | "
             "p99 during / before | same, 2nd backup | no backup: windows as long, same 'before' | "
             "p99 during / after (shown) | paired: p99 during the backups / quiet before them | each pair |",
             "|---|---|---:|---:|---:|---|---|---|---|---|---|---|---|"]
    for x in rounds:
        lines.append(f"| {x['round']} | {x['date']} | {x['backup_s']} | {x['backup_mb_per_s']} | "
                     f"{x['restore_mb_per_s']} | {pair(x, 'p99_before_ms')} | {pair(x, 'p99_during_ms')} | "
                     f"{ratio(x['p99_during_over_before'])} | {ratio(x['second_p99_during_over_before'])} | "
                     f"{quiet_range(x.get('quiet_windows')) or '-'} | {ratio(x.get('p99_during_over_after'))} | "
                     f"{paired_cell(x.get('paired'))} | {per_pair_cell(x.get('paired'))} |")
    if m.get("paired"):
        judged = (f"p99 during the backups / p99 in the quiet windows before them, every pair's requests pooled "
                  f"{ratio(m['p99_judged'])} (target <= {t['p99_ratio']}x: {'met' if r['met']['p99'] else 'missed'});"
                  f" the first backup alone over its \"before\" (shown) {ratio(m['p99_during_over_before'])}")
    else:
        judged = (f"p99 during the first backup / p99 before {ratio(m['p99_during_over_before'])} (target <= "
                  f"{t['p99_ratio']}x: {'met' if r['met']['p99'] else 'missed'})")
    lines += ["", f"Medians: restore {m['restore_mb_per_s']} MB/s (target >= {t['restore_mb_per_s']} MB/s: "
              f"{'met' if r['met']['restore'] else 'missed'}); " + judged
              + (f"; the first backup over the p99 after it (shown, not judged) {ratio(m['p99_during_over_after'])}"
                 if m.get("p99_during_over_after") else "") + ".", ""]
    return lines


def paired_cell(p):
    """'GET 3.1 / 2.9 ms = 1.07x, PUT ...' for a round's paired windows, or '-'."""
    if not p:
        return "-"
    return ", ".join(f"{k} {ms(p[k]['backups']['p99_ms'])} / {ms(p[k]['quiet']['p99_ms'])} ms = {p[k]['ratio']}x"
                     for k, _ in LOADS)


def per_pair_cell(p):
    if not p:
        return "-"
    return "; ".join(f"{k} " + " ".join(f"{v}x" for v in p[k]["per_pair"]) for k, _ in LOADS)


def render(r):
    e, b, s = r["env"], r["backup"], r["restore"]
    lines = [
        "# Backup and restore (make bench-backup)", "",
        f"Run {e.get('date')} on commit {e.get('commit')} ({e.get('cpu')}, {e.get('nproc')} CPUs, load before "
        f"{e.get('load_before')}, after {e.get('load_after')}); {e.get('keys')} PUTs preloaded at "
        f"{e.get('replicas')} on 3 nodes ({e.get('node_args')}"
        + (f"; JVM {e.get('java_flags')}" if e.get("java_flags") else "")
        + ("; no scheduled repair round: --repair-interval 0s" if e.get("scheduled_repair") == "off" else "")
        + f"); a fixed load of {e.get('rate')} req/s (half PUT "
        f"of new keys, half GET of preloaded ones) through the backup"
        + (f", measured after {warmup(e)} of it (\"before\" is the {e.get('phase')} s after that); the"
           f" members' backup status polled every 0.5 s all along, as the operator polls them"
           if e.get("load_warmup") else "")
        + f". {e.get('label', '')}", "",
    ] + rounds_section(r) + [
        "| | seconds | bytes | MB/s | records | records/s | target |",
        "|---|---:|---:|---:|---:|---:|---|",
        f"| backup (3 members at once, checkpoint bytes) | {b['seconds']} | {b['bytes']} | {b['mb_per_s']} | "
        f"{b['records']} | {b['records_per_s']} | |",
        f"| restore (3 fresh members, every share) | {s['seconds']} | {s['bytes']} | {s['mb_per_s']} | "
        f"{s['records_sent']} | {s['records_per_s']} | >= {r['targets']['restore_mb_per_s']} MB/s"
        + (" (judged on the rounds' median, above) |" if "rounds" in r
           else f": {'met' if r['met']['restore'] else 'missed'} |"), "",
        f"Bytes uploaded by the backup: {b['uploaded_bytes']} (a first backup uploads everything; later ones only"
        f" the files that are new). Record copies the restore sent to their owners: {s['copies_sent']}."
        + (f" The restore sent its shares in {s['sending_seconds']} s; the members then loaded what they received"
           f" ({s['loaded_records']} records, the newest copy of each key) and served after {s['loading_seconds']} s"
           f" more." if "sending_seconds" in s else ""), "",
        "| load | phase | requests | req/s | p50 ms | p99 ms | p99.9 ms | unexpected |",
        "|---|---|---:|---:|---:|---:|---:|---:|"]
    for name, phases in r["load"].items():
        for phase in in_order(phases):
            st = phases[phase]
            lines.append(f"| {name} | {phase} | {st['requests']} | {st['rps']} | {ms(st['p50_ms'])} | "
                         f"{ms(st['p99_ms'])} | {ms(st['p999_ms'])} | {st['unexpected']} |")
    c = r.get("cpu_cores")
    if c:
        lines += ["", "CPU in cores (of " + str(e.get("nproc")) + "), before / during the backup: the three nodes "
                  f"{c['before']['nodes']} / {c['during backup']['nodes']}, the object store "
                  f"{c['before']['store']} / {c['during backup']['store']}, the load generators "
                  f"{c['before']['load']} / {c['during backup']['load']} (all on this machine; a deployment's object"
                  " store is not)."
                  + (f" After the backup, the nodes used {c['after']['nodes']}." if "after" in c else "")
                  + (" Of the nodes' cores, their selector threads (which serve the requests) used "
                     + " / ".join(f"{c[p]['selectors']} {p}" for p in in_order(c) if "selectors" in c[p]) + "."
                     if "selectors" in c.get("before", {}) else "")
                  + store_note(e)]
    w = r.get("node_work")
    if w:
        lines += ["", "Beside requests, per second, the nodes' JIT compiling (s) and what their flushes and compactions"
                  " wrote (MB): " + ", ".join(f"{phase} {w[phase]['jit_s_per_s']} s / {w[phase]['written_mb_per_s']} MB"
                                              for phase, _, _ in WORK_PHASES if phase in w) + "."]
    lines += ["", "p99 during the backup / p99 before: " + ", ".join(
        f"{k} {v}x" for k, v in r["p99_during_over_before"].items())
        + (" (shown: the target is judged on the paired windows, below)." if r.get("paired")
           else " in this round (the target is judged on the rounds' median, above)." if "rounds" in r
           else f" (target <= {r['targets']['p99_ratio']}x: {'met' if r['met']['p99'] else 'missed'}).")
        + (" Over the p99 after it (shown, not judged): " + ", ".join(
            f"{k} {v}x" for k, v in r["p99_during_over_after"].items()) + "."
           if r.get("p99_during_over_after") else "")]
    q = r.get("quiet_windows")
    if quiet_range(q):
        lines += ["", f"The same ratio with no backup at all: the p99 of each whole {q['seconds']}-s window (the"
                  " backup's length) of \"before\" and \"after\" over the same \"before\" p99: "
                  + ", ".join(f"{k} {', '.join(f'{v}x' for v in q[k])}" for k, _ in LOADS if q.get(k))
                  + ". How far a p99 of this many requests moves on this machine with nothing changed: the backup's"
                  " ratio is read against it (shown, not judged)."]
    p = r.get("paired")
    if p:
        sel = p.get("selector_cores")
        lines += ["", f"Paired windows (judged): {p['pairs']} backups, each after a quiet window as long as the first"
                  " backup: the first backup after the last stretch of \"before\", then "
                  f"{p['pairs'] - 1} full ones (the store's files set aside before each, so that every file was"
                  f" uploaded again) of {', '.join(str(v) for v in p['backup_s'][1:])} s after quiet windows of "
                  f"{', '.join(str(v) for v in p['quiet_s'][1:])} s, {r['env'].get('pair_gap', '?')} s after each"
                  " backup not measured. Every request of the quiet windows pooled against every request of the"
                  " backups:", "",
                  "| load | requests quiet / during | p50 ms quiet / during | p99 ms quiet / during | "
                  "p99.9 ms quiet / during | p99 ratio | each pair's p99 ratio | unexpected |",
                  "|---|---:|---:|---:|---:|---:|---|---:|"]
        for k, _ in LOADS:
            q, b = p[k]["quiet"], p[k]["backups"]
            lines.append(f"| {k} | {q['requests']} / {b['requests']} | {ms(q['p50_ms'])} / {ms(b['p50_ms'])} | "
                         f"{ms(q['p99_ms'])} / {ms(b['p99_ms'])} | {ms(q['p999_ms'])} / {ms(b['p999_ms'])} | "
                         f"{p[k]['ratio']}x | {' '.join(f'{v}x' for v in p[k]['per_pair'])} | "
                         f"{q['unexpected'] + b['unexpected']} |")
        if sel:
            lines += ["", f"The nodes' selector threads used {sel['quiet']} cores in the quiet windows of the full"
                      f" backups and {sel['backups']} during them."]
    b2 = r.get("second_backup")
    if b2:
        c2 = (c or {}).get("during 2nd backup")
        lines += ["", f"A second backup under the same load, as a schedule runs them (warm JVMs; it uploads only the"
                  f" files that are new): {b2['seconds']} s, {b2['uploaded_bytes']} bytes uploaded of "
                  f"{b2['bytes']}; p99 during it / p99 before: " + ", ".join(
                      f"{k} {v}x" for k, v in b2["p99_during_over_before"].items())
                  + (f"; CPU during it: nodes {c2['nodes']}, object store {c2['store']}, load generators "
                     f"{c2['load']} cores" if c2 else "") + ". The target is judged on the paired windows"
                  + (" (above)." if p else ", or in runs without them on the first backup.")]
    lines += [""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
