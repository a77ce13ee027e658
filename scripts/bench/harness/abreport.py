"""The A/B report: ab.json (every window the scenario measured) -> NAME.json (the figures per round, each judged),
NAME.md and NAME.svg (each figure's ratio per round against its noise floor). Judged by judge.py; plotted by
plots.py (matplotlib: run with the python of scripts/venv.sh).
"""
import json
import os

import benchraw
import plots

from . import judge, profiles

SHAPES = {"single": "one node", "cluster": "3 members at 2/3, one entry node"}
CASES = {"put-closed": ("PUT", "closed"), "get-closed": ("GET", "closed"), "put-rate": ("PUT", "rate"),
         "get-rate": ("GET", "rate")}
# figure: (label, unit format, higher is better)
FIGURES = {"rps": ("throughput", "%.0f req/s", True), "p99_ms": ("p99", "%.2f ms", False),
           "p999_ms": ("p99.9", "%.2f ms", False), "cpu_us_per_req": ("CPU per request", "%.1f us", False)}
MODEL_FIGURES = {"closed": ("rps", "cpu_us_per_req"), "rate": ("p99_ms", "p999_ms", "cpu_us_per_req")}
# Issue 52's targets: (text, numerator, denominator, target, higher is better, rule); a side of a figure is
# (side, shape, case, figure). Rule "not worse": met unless the A/B finds it worse beyond the noise.
TARGETS = (
    ("PUT through one node against the base", ("head", "single", "put-closed", "rps"),
     ("base", "single", "put-closed", "rps"), 1.0, True, "not worse"),
    ("PUT through one node / one-nio + RocksDB doing nothing else", ("head", "single", "put-closed", "rps"),
     ("rocks", "single", "put-closed", "rps"), 1.0, True, "at least"),
    ("3 members at 2/3 through one entry node / one node, PUT", ("head", "cluster", "put-closed", "rps"),
     ("head", "single", "put-closed", "rps"), 0.42, True, "at least"),
    ("3 members at 2/3 through one entry node / one node, GET", ("head", "cluster", "get-closed", "rps"),
     ("head", "single", "get-closed", "rps"), 0.50, True, "at least"),
    ("one node's PUT p99 at the fixed rate / the bare one-nio server's", ("head", "single", "put-rate", "p99_ms"),
     ("bare", "single", "put-rate", "p99_ms"), 1.5, False, "at most"),
)
# Ratios of each node build to the reference servers, shown for both builds.
REFERENCE_RATIOS = (
    ("closed-model PUT / one-nio + RocksDB", "single", "put-closed", "rps", "rocks", True),
    ("closed-model GET / one-nio + RocksDB", "single", "get-closed", "rps", "rocks", True),
    ("closed-model PUT / bare one-nio", "single", "put-closed", "rps", "bare", True),
    ("closed-model GET / bare one-nio", "single", "get-closed", "rps", "bare", True),
    # what the node adds to a write's latency beyond RocksDB's own write (WAL, memtable) at the same rate
    ("PUT p99 at the fixed rate / one-nio + RocksDB's", "single", "put-rate", "p99_ms", "rocks", False),
    ("PUT p99 at the fixed rate / bare one-nio's", "single", "put-rate", "p99_ms", "bare", False),
    ("PUT p99.9 at the fixed rate / bare one-nio's", "single", "put-rate", "p999_ms", "bare", False),
    ("GET p99 at the fixed rate / bare one-nio's", "single", "get-rate", "p99_ms", "bare", False),
    ("cluster / one node, closed-model PUT", "cluster", "put-closed", "rps", None, True),
    ("cluster / one node, closed-model GET", "cluster", "get-closed", "rps", None, True),
)


def rounds_of(raw, side, shape, case, figure):
    """The figure of one side, shape and case in every round (None where a round measured nothing)."""
    n = raw["params"]["rounds"]
    out = [None] * n
    for w in raw["windows"]:
        if (w["side"], w["shape"], w["case"]) == (side, shape, case) and 1 <= w["round"] <= n:
            out[w["round"] - 1] = w["figures"].get(figure)
    return out


def present(raw, shape):
    return shape in raw["params"]["shapes"]


def summarise(raw):
    """The judged figures: A/B rows, targets, reference ratios, WAL, profile breakdowns."""
    out = {"meta": raw["meta"], "params": raw["params"], "load": raw.get("load", {}), "ab": [], "targets": [],
           "references": [], "wal": raw.get("wal", {}), "profiles": {}}
    if raw.get("runs"):
        out["runs"] = raw["runs"]
    steal = [w["steal_pct"] for w in raw["windows"] if w.get("steal_pct") is not None]
    out["steal_pct"] = {"median": judge.median(steal), "max": max(steal) if steal else None}
    errors = sum(w["figures"].get("non_2xx", 0) + w["figures"].get("socket_errors", 0) + w["figures"].get("errors", 0)
                 for w in raw["windows"])
    out["errors"] = errors
    for shape in SHAPES:
        if not present(raw, shape):
            continue
        for case, (_method, model) in CASES.items():
            for fig in MODEL_FIGURES[model]:
                hib = FIGURES[fig][2]
                base, head = rounds_of(raw, "base", shape, case, fig), rounds_of(raw, "head", shape, case, fig)
                if all(v is None for v in base + head):
                    continue  # a case this run left out (BENCH_CASES): no row, not a "not separable" one
                j = judge.judge(head, base, hib)
                out["ab"].append(dict(j, shape=shape, case=case, figure=fig, base=base, head=head,
                                      base_median=judge.median(base), head_median=judge.median(head)))
    for text, num, den, target, hib, rule in TARGETS:
        if not (present(raw, num[1]) and present(raw, den[1])):
            continue
        n, d = rounds_of(raw, *num), rounds_of(raw, *den)
        if not any(d):
            continue
        j = judge.judge(n, d, hib, target)
        tv = judge.target_verdict(j, hib)
        if rule == "not worse":
            tv = {"verdict": "missed" if j["verdict"] == judge.WORSE else "met", "median_meets": tv["median_meets"]}
        out["targets"].append(dict(j, text=text, rule=rule, **tv))
    for text, shape, case, fig, ref, hib in REFERENCE_RATIOS:
        if not present(raw, shape) or (ref is None and not present(raw, "single")):
            continue
        row = {"text": text}
        for side in ("base", "head"):
            n = rounds_of(raw, side, shape, case, fig)
            d = rounds_of(raw, ref or side, "single", case, fig)
            if any(d):
                row[side] = judge.judge(n, d, hib)
        if "base" in row or "head" in row:
            out["references"].append(row)
    for p in raw.get("profiles", []):
        path = os.path.join(raw.get("raw_dir", ""), p["file"])
        if p["event"] == "cpu" and os.path.exists(path):
            cats = profiles.CATEGORIES if p["shape"] == "single" else profiles.cluster_categories()
            b = profiles.breakdown(path, cats) or {}
            if b and p.get("requests_captured"):
                # a cpu sample is 1 ms of CPU: shares become microseconds of this node's CPU per request
                b["us_per_request"] = 1000.0 * b["samples"] / p["requests_captured"]
            out["profiles"][p["node"]] = dict(b, side=p["side"], shape=p["shape"])
    return out


def fmt(fig, v):
    return "-" if v is None else FIGURES[fig][1] % v


def span(fig, values):
    vs = [v for v in values if v is not None]
    if not vs:
        return "-"
    unit = FIGURES[fig][1]
    return "%s (%s-%s)" % (unit % judge.median(vs), (unit % min(vs)).split(" ")[0], (unit % max(vs)).split(" ")[0])


def ratio_text(j):
    if j["ratio"] is None:
        return "-"
    rounds = ", ".join("-" if r is None else "%.3f" % r for r in j["ratios"])
    return "**%.3f** (%s)" % (j["ratio"], rounds)


def floor_text(j):
    return judge.plus_minus(j["floor"], none="-")


def render(s, out_dir, name):
    """NAME.md and NAME.svg from a summary."""
    m, p = s["meta"], s["params"]
    lines = [
        "# A/B: %s against %s" % (m.get("head", "head"), m.get("base", "base")),
        "",
        "Generated by `make bench-ab BASE=%s` (scripts/bench-ab.sh, scenario scripts/bench/harness/ab.py); every "
        "window's figures in [%s.json](%s.json). Method: [the harness](../../../scripts/bench/harness/judge.py) and "
        "\"How to read it\" below." % (m.get("base_ref", m.get("base", "")), name, name),
        "",
        "| | |",
        "|---|---|",
        "| date | %s |" % m.get("date", "-"),
        "| machine | %s CPUs, %s; load before %s, after %s; CPU steal per window: median %s%%, max %s%% |" % (
            m.get("nproc", "-"), m.get("cpu", "-"), s["load"].get("before", "-"), s["load"].get("after", "-"),
            benchraw.fmt(s["steal_pct"]["median"], 1), benchraw.fmt(s["steal_pct"]["max"], 1)),
        "| base | `%s` %s |" % (m.get("base", "-"), m.get("base_subject", "")),
        "| head | `%s` %s |" % (m.get("head", "-"), m.get("head_subject", "")),
        "| rounds | %d rounds of %d-s windows after a warm-up round of %d-s windows; sides alternate, reversed "
        "every other round%s |" % (p["rounds"], p["window_s"], p["warmup_window_s"], _runs(s)),
        "| load | wrk %d threads x %d connections (closed model); oha at %d req/s (one node) and %d req/s (3 "
        "members), %d connections, `--latency-correction`; %d preloaded keys (GETs read them, fixed-rate PUTs "
        "overwrite them, closed-model PUTs write new keys), 100-byte values |" % (
            p["threads"], p["connections"], p["single_rate"], p["cluster_rate"], p["connections"], p["keys"]),
        "| JVM, node options | `%s`; `%s`%s |" % (p["java_flags"], p["node_args"], _repair(p)),
        "| errors | %d non-2xx answers or socket errors over every window |" % s["errors"],
        "",
        "![each figure's head/base ratio per round against its noise floor](%s.svg)" % name,
        "",
        "## Head against base",
        "",
        "| shape | case | figure | base: median (rounds) | head: median (rounds) | head/base: median (rounds) | "
        "noise floor | verdict |",
        "|---|---|---|---:|---:|---:|---:|---|",
    ]
    for r in s["ab"]:
        method, model = CASES[r["case"]]
        lines.append("| %s | %s, %s | %s | %s | %s | %s | %s | %s |" % (
            SHAPES[r["shape"]], method, "closed model" if model == "closed" else "fixed rate",
            FIGURES[r["figure"]][0], span(r["figure"], r["base"]), span(r["figure"], r["head"]), ratio_text(r),
            floor_text(r), _verdict(r["verdict"])))
    if s["targets"]:
        lines += ["", "## Targets (issue 52)", "",
                  "| target | median (rounds) | goal | noise floor | verdict |", "|---|---:|---|---:|---|"]
        for t in s["targets"]:
            goal = "not worse than the base" if t["rule"] == "not worse" else "%s %.2f" % (t["rule"], t["target"])
            verdict = t["verdict"] if t["verdict"] != judge.NOT_SEPARABLE else \
                "not separable here (the median %s)" % ("meets it" if t["median_meets"] else "misses it")
            lines.append("| %s | %s | %s | %s | %s |" % (t["text"], ratio_text(t), goal, floor_text(t),
                                                          _verdict(verdict)))
    if s["references"]:
        lines += ["", "## Both builds against the references", "",
                  "Each round's ratio is paired: the node and the reference ran one after the other in that round. "
                  "The noise floor is that of the two series in the ratio.", "",
                  "| ratio | base: median (rounds) | noise floor | head: median (rounds) | noise floor |",
                  "|---|---:|---:|---:|---:|"]
        for row in s["references"]:
            cells = []
            for side in ("base", "head"):
                j = row.get(side)
                cells += [ratio_text(j), floor_text(j)] if j else ["-", "-"]
            lines.append("| %s | %s |" % (row["text"], " | ".join(cells)))
    if s["wal"]:
        lines += ["", "## The write in RocksDB", "",
                  "From each node's write-ahead log after the rounds (harness/walstats.py reads it: every write batch "
                  "and its entries); per record write, over the batches that hold one. Batches without a record "
                  "(the node's own bookkeeping) are counted apart.", "",
                  "| node | record writes read | RocksDB writes (batches) per record write | memtable inserts per "
                  "record write | WAL bytes per record write | entries per column family (id: count) | other "
                  "batches |", "|---|---:|---:|---:|---:|---|---:|"]
        for node, w in sorted(s["wal"].items()):
            fams = ", ".join("%s: %d" % kv for kv in w["entries_per_family"].items())
            lines.append("| %s | %d | %.3f | %.3f | %.1f | %s | %d |" % (
                node, w["record_writes"], w["batches_per_write"], w["memtable_inserts_per_write"],
                w["wal_bytes_per_write"], fams, w["other_batches"]))
    if s["profiles"]:
        nodes = sorted(s["profiles"])
        cats = [c for c, _ in profiles.cluster_categories()] + ["other"]
        per_req = all(s["profiles"][n].get("us_per_request") for n in nodes)
        lines += ["", "## Where the CPU goes in a closed-model PUT window", "",
                  "cpu profiles (async-profiler through each node's `/v0/admin/profile`, 1 ms of CPU per sample) "
                  "during one more window each, not counted above; %s" % (
                      "microseconds of each node's CPU per client request (its samples over the requests the window "
                      "answered while the capture ran), what the flush and compaction threads did meanwhile included."
                      if per_req else "shares of each node's samples."), "",
                  "| category | %s |" % " | ".join(nodes), "|---|%s" % ("---:|" * len(nodes))]
        lines.append("| samples | %s |" % " | ".join(str(s["profiles"][n].get("samples", "-")) for n in nodes))
        if per_req:
            lines.append("| **all** | %s |" % " | ".join("**%.1f**" % s["profiles"][n]["us_per_request"]
                                                         for n in nodes))
        for c in cats:
            shares = [s["profiles"][n].get("share", {}).get(c) for n in nodes]
            if any(shares):
                cells = ["-" if v is None else ("%.2f" % (v * s["profiles"][n]["us_per_request"]) if per_req
                                                else "%.1f%%" % (100 * v)) for v, n in zip(shares, nodes)]
                lines.append("| %s | %s |" % (c, " | ".join(cells)))
    lines += ["", "## How to read it", "",
              "- In each round every case ran on each side one right after the other, the order reversed every other "
              "round; a round's **ratio** pairs the two windows of that round, so what drifts slowly (the "
              "neighbours on the hypervisor, stores that grow) cancels out.",
              "- The **noise floor** of a figure is the largest change between two identical windows: the same "
              "build under the same load in two consecutive rounds, of either side.",
              "- **better / worse**: the median ratio is beyond the noise floor and every round is on the same side; "
              "anything else is **not separable here**: this machine cannot tell the two apart with this run.",
              "- CPU per request is the CPU time the side's processes (all three members in a cluster) used from the "
              "start of the window until they were idle again (its writes' flushes and compactions included), over "
              "the requests answered in it. The next window starts only then, so none inherits another's "
              "background work.", ""]
    with open(os.path.join(out_dir, name + ".md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    rows = [("%s %s %s" % (SHAPES[r["shape"]].split(",")[0], r["case"], FIGURES[r["figure"]][0]), r["ratios"],
             r["ratio"], r["floor"], r["verdict"], FIGURES[r["figure"]][2]) for r in s["ab"]]
    plots.ab_ratios(os.path.join(out_dir, name + ".svg"), "head / base, per round (band: noise floor)", rows)


def _runs(s):
    runs = s.get("runs")
    if not runs:
        return ""
    return "; one run per shape, the machine's lock released between them: %s" % "; ".join(
        "%s from %s (load before %s, after %s)" % (" and ".join(SHAPES[x] for x in r["shapes"]), r["date"] or "-",
                                                  r["load"].get("before", "-"), r["load"].get("after", "-"))
        for r in runs)


def _repair(p):
    off = [side for side, yes in p.get("repair_off", {}).items() if yes]
    return "; `--repair-interval 0s` on %s (a first repair round starts at a random minute of the first ten)" % \
        " and ".join(off) if off else ""


def _verdict(v):
    return "**%s**" % v if v in (judge.BETTER, judge.WORSE, "met", "missed") else v


def merge(raws):
    """One scenario's raw figures from its runs, one shape each (scripts/bench-ab.sh runs each shape on its own, so
    that a machine's lock is released between them): the same parameters but the shapes, every window, WAL and
    profile (profile files with their run's directory), the load before the first run and after the last."""
    first = raws[0]
    for r in raws[1:]:
        differ = [k for k in first["params"] if k != "shapes" and r["params"].get(k) != first["params"][k]]
        if differ:
            raise ValueError("the runs differ in %s: not one scenario" % ", ".join(differ))
    out = dict(first, params=dict(first["params"], shapes=[x for r in raws for x in r["params"]["shapes"]]),
               windows=[w for r in raws for w in r["windows"]], warmup=[w for r in raws for w in r["warmup"]],
               wal={k: v for r in raws for k, v in r["wal"].items()},
               profiles=[dict(p, file=os.path.join(r.get("raw_dir", ""), p["file"]))
                         for r in raws for p in r["profiles"]],
               load={"before": first["load"].get("before"), "after": raws[-1]["load"].get("after")})
    if len(raws) > 1:
        out["runs"] = [{"shapes": r["params"]["shapes"], "date": r["meta"].get("date"), "load": r["load"]}
                       for r in raws]
    return out


def write(raw_paths, out_dir, name):
    raws = []
    for path in raw_paths:
        with open(path, encoding="utf-8") as f:
            raw = json.load(f)
        raw["raw_dir"] = os.path.join(os.path.dirname(os.path.abspath(path)), "raw")
        raws.append(raw)
    raw = merge(raws)
    s = summarise(raw)
    keep = ("shape", "case", "side", "round", "figures", "cpu_s", "cpu_during_s", "settle_s", "steal_pct", "started")
    s["windows"] = [{k: w[k] for k in keep if k in w} for w in raw["windows"]]
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, name + ".json"), "w", encoding="utf-8") as f:
        json.dump(s, f, indent=1, sort_keys=True)
        f.write("\n")
    render(s, out_dir, name)
    return s
