#!/usr/bin/env python3
"""Turns the raw outputs of the node scenario (make bench-node: scenarios/node.json) into docs/benchmarks/node.json
and node.md.

usage: node-report.py RAW_DIR OUT_DIR
       node-report.py --render OUT_DIR      (node.md and the plots again from OUT_DIR/node.json)
Reads wrk text, oha JSON (benchraw.py), k6 JSON, async-profiler collapsed stacks; plots with matplotlib (plots.py):
run it with the python of scripts/venv.sh.
"""
import json
import os
import shutil
import sys

import plots
from benchraw import env, errors, fmt, oha, oha_row, onenio_native, read, wrk  # noqa: F401 (read: cluster-tls)
from harness import judge, profiles

TARGET_PUT = 0.75   # node/ceiling, wrk closed model
TARGET_GET = 0.85
TARGET_P99_MS = 3.0  # at 70% load, issue 2
TARGET_P999_MS = 10.0

# Where CPU time goes: harness/profiles.py (one table for every report).
CATEGORIES = profiles.CATEGORIES


def k6(raw, name):
    path = os.path.join(raw, "k6-%s.json" % name)
    if not os.path.exists(path):
        return None
    return json.loads(read(path))


def profile_breakdown(raw, name):
    path = os.path.join(raw, "profile-%s-cpu-collapsed.txt" % name)
    return profiles.breakdown(path, CATEGORIES) if os.path.exists(path) else None


REF = ("node-put-ref", "bare-put-ref", "node-get-ref", "bare-get-ref")


def in_rounds(names, rounds):
    """The windows of names measured in rounds: NAME-1 .. NAME-<rounds> each."""
    return ["%s-%d" % (n, r) for n in names for r in range(1, rounds + 1)]


def main():
    if sys.argv[1] == "--render":
        out = sys.argv[2]
        with open(os.path.join(out, "node.json"), encoding="utf-8") as fh:
            render(json.load(fh), out)
        return
    raw, out = sys.argv[1], sys.argv[2]
    e = env(raw)
    native = onenio_native(raw)
    if native is not None:
        e.setdefault("onenio_native", str(native).lower())
    rounds = int(e.get("rounds", "1"))
    smoke = int(e.get("duration", "30")) < 30 or int(e.get("round", "10")) < 10
    per_round = in_rounds(("bare-put", "node-put", "bare-get", "node-get"), rounds)
    ref = in_rounds(REF, rounds)
    result = {
        "smoke_run": smoke,
        "environment": e,
        "rounds": rounds,
        "targets": {"put_vs_ceiling": TARGET_PUT, "get_vs_ceiling": TARGET_GET,
                    "p99_ms_at_70pct": TARGET_P99_MS, "p999_ms_at_70pct": TARGET_P999_MS},
        "wrk": {n: wrk(raw, n) for n in per_round},
        "oha": {n: oha(raw, n) for n in ("node-put", "bare-put", "node-get", "bare-get", *ref)},
        "k6": {n: k6(raw, n) for n in ("node-put", "node-get")},
        "profiles": {n: profile_breakdown(raw, n) for n in ("node-put", "node-get")},
    }
    result["judged"] = judge.side_by_side(result, "node", "bare", {"put": TARGET_PUT, "get": TARGET_GET})
    result["ratios"] = {op: result["judged"][op]["ratio"] for op in ("put", "get")}
    o = result["oha"]
    p99_ratio = {op + "-ref": result["judged"][op + "-ref"]["ratio"] for op in ("put", "get")}
    for op in ("put", "get"):
        n, b = o.get("node-" + op), o.get("bare-" + op)
        if n and b and b.get("p99_ms"):
            p99_ratio[op] = n["p99_ms"] / b["p99_ms"]
    result["p99_ratio_vs_bare"] = p99_ratio

    os.makedirs(out, exist_ok=True)
    flames = []
    for f in sorted(os.listdir(raw)):
        if f.startswith("profile-") and f.endswith(".html"):
            target = "node-" + f[len("profile-node-"):] if f.startswith("profile-node-") else f
            shutil.copyfile(os.path.join(raw, f), os.path.join(out, target))
            flames.append(target)
    result["flamegraphs"] = flames
    with open(os.path.join(out, "node.json"), "w", encoding="utf-8") as fh:
        json.dump(result, fh, indent=2, sort_keys=True)
        fh.write("\n")
    render(result, out)


def render(result, out):
    """node.md and its two plots (throughput against the ceiling, latency by percentile at fixed rates)."""
    w, o, n = result["wrk"], result["oha"], result["rounds"]
    result["plots"] = []
    if plots.bars(os.path.join(out, "node-throughput.svg"), "Maximum throughput, wrk 2 threads x 64 connections "
                  "(median of %d rounds)" % n, "req/s",
                  [(op.upper(), [(who, judge.median(judge.in_rounds(w, who + "-" + op, n, "rps")))
                                 for who in ("bare", "node")]) for op in ("put", "get")]):
        result["plots"].append(("node-throughput.svg", "throughput: node against the bare one-nio server"))
    lat = []
    for name in REF:
        q = {p: judge.median(judge.in_rounds(o, name, n, f)) for p, f in PERCENTILES}
        if None not in q.values():
            lat.append((name, q))
    if plots.percentiles(os.path.join(out, "node-latency.svg"), "Latency at %s req/s (oha, corrected)"
                           % result["environment"].get("reference_rate"), lat):
        result["plots"].append(("node-latency.svg", "latency by percentile at the reference rate"))
    with open(os.path.join(out, "node.md"), "w", encoding="utf-8") as fh:
        fh.write(markdown(result))


def result_plots(r):
    return r.get("plots") or []


# A node/bare p99 ratio judged against 1 (harness/judge.py: lower is better).
P99_WORDS = {judge.BETTER: "the node's lower, beyond the floor", judge.WORSE: "the node's higher, beyond the floor",
             judge.NOT_SEPARABLE: judge.NOT_SEPARABLE}
PERCENTILES = ((50, "p50_ms"), (90, "p90_ms"), (99, "p99_ms"), (99.9, "p999_ms"))


def markdown(r):
    e = r["environment"]
    w, o, k = r["wrk"], r["oha"], r["k6"]
    L = []
    L.append("# Benchmark: one node vs the bare one-nio ceiling")
    L.append("")
    L.append("Generated by `make bench-node` (scripts/bench/scenarios/node.json); raw figures in "
             "[node.json](node.json). Design and analysis: [docs/node.md](../node.md).")
    L.append("")
    if r["smoke_run"]:
        L.append("> **Smoke run** (%s-s windows in rounds, %s-s otherwise): a check that the benchmark works, not "
                 "figures to quote. The committed figures come from a full default run (10-s rounds, 30-s windows)."
                 % (e.get("round"), e.get("duration")))
        L.append("")
    L.append("| | |")
    L.append("|---|---|")
    L.append("| date | %s |" % e.get("date"))
    L.append("| machine | %s CPUs, %s |" % (e.get("nproc"), e.get("cpu")))
    L.append("| load (1/5/15 min) before / after | %s / %s |" % (e.get("load_before"), e.get("load_after")))
    L.append("| JDK | %s |" % e.get("java"))
    L.append("| one-nio native sockets | %s (glibc %s; one-nio 2.0.0's library needs >= 2.38, otherwise both "
             "servers run on its JDK NIO fallback) |" % (e.get("onenio_native"), e.get("glibc")))
    L.append("| commit | %s%s |" % (e.get("commit"), " (+%s uncommitted files)" % e.get("dirty")
                                     if e.get("dirty") not in (None, "0") else ""))
    L.append("| load generators | %s; %s; %s |" % (e.get("wrk"), e.get("oha"), e.get("k6")))
    L.append("| runs | judged figures (wrk, the reference rate): %s rounds of %ss windows, node and bare server one "
             "right after the other, the first alternating by round; the 70%% and k6 runs: one %ss window each; "
             "%ss warm-up; wrk %s threads x %s connections; fixed rate = %s x the node's median max |"
             % (r.get("rounds"), e.get("round"), e.get("duration"), e.get("warmup"), e.get("threads"),
                e.get("connections"), e.get("fraction")))
    L.append("| JVM options (both servers) | `%s` |" % e.get("java_opts"))
    if e.get("node_args"):
        L.append("| node options | `%s` |" % e.get("node_args"))
    if e.get("label"):
        L.append("| label | %s |" % e.get("label"))
    L.append("| noise floor | of each judged ratio: the largest change of either server's figure between two "
             "consecutive rounds of this run (harness/judge.py); a ratio whose median and every round are not beyond "
             "it on one side of the target: not separable here. The 70% and k6 runs are one window each: no floor |")
    L.append("")

    for f, alt in result_plots(r):
        L.append("![%s](%s)" % (alt, f))
        L.append("")
    L.append("## 1. Maximum throughput (wrk, closed model)")
    L.append("")
    L.append("PUT of unique keys (100-byte values), then GET of random keys among those written.")
    L.append("")
    L.append("| run | req/s | p50 ms | p90 ms | p99 ms | max ms | non-2xx | socket errors |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    for n in ("bare-put", "node-put", "bare-get", "node-get"):
        for rnd in range(1, r["rounds"] + 1):
            name = "%s-%d" % (n, rnd)
            x = w.get(name)
            if x:
                L.append("| %s | %.0f | %s | %s | %s | %s | %d | %d |" % (
                    name, x["rps"], fmt(x["p50_ms"]), fmt(x["p90_ms"]), fmt(x["p99_ms"]), fmt(x["max_ms"]),
                    x["non_2xx"], x["socket_errors"]))
            else:
                L.append("| %s | (no result) | | | | | | |" % name)
    L.append("")
    L.append("node/ceiling, round by round (node-OP-r / bare-OP-r):")
    L.append("")
    L += judge.JUDGED_HEAD
    for op, target in (("put", TARGET_PUT), ("get", TARGET_GET)):
        j = r["judged"][op]
        L.append(judge.judged_row(op.upper(), j, lambda x: "%.1f%%" % (x * 100), ">= %.0f%%" % (target * 100),
                                  judge.target_words(j)))
    L.append("")

    rates = {"put": e.get("rate_put"), "get": e.get("rate_get"), "put-ref": e.get("reference_rate"),
             "get-ref": e.get("reference_rate")}

    def oha_table(names):
        L.append("| run | rate req/s | achieved | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | non-2xx | errors |")
        L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for n in names:
            x = o.get(n)
            if x or n.split("-")[-1].isdigit():
                L.append(oha_row(n, rates[n.split("-", 1)[1].rstrip("-0123456789")], x))
        L.append("")

    def verdicts(ops):
        for op in ops:
            x = o.get("node-" + op)
            if not x:
                continue
            ratio = r["p99_ratio_vs_bare"].get(op)
            line = "- **%s** at %s req/s: p99 %s ms, p99.9 %s ms, errors %d; node p99 / bare p99 at the same rate = " \
                   "**%s**" % (op.upper(), rates[op], fmt(x["p99_ms"], 3), fmt(x["p999_ms"], 3),
                               x["non_2xx"] + errors(x),
                               "%.2fx" % ratio if ratio else "-")
            ok99 = x["p99_ms"] is not None and x["p99_ms"] <= TARGET_P99_MS
            ok999 = x["p999_ms"] is not None and x["p999_ms"] <= TARGET_P999_MS
            line += " (issue targets p99 <= %.0f ms: %s, p99.9 <= %.0f ms: %s; one window: no noise floor)" % (
                TARGET_P99_MS, "met" if ok99 else "missed", TARGET_P999_MS, "met" if ok999 else "missed")
            L.append(line)
        L.append("")

    L.append("## 2. Latency at 70% of the maximum (oha, open model, `--latency-correction`)")
    L.append("")
    L.append("Rate = %s x the node's median wrk maximum above; the bare server gets the same rate. Latency is "
             "corrected for coordinated omission (measured from when each request was due). oha needs about twice "
             "wrk's CPU per request, on the same 2 cores: where `achieved` is below the rate, the machine (server + "
             "generator) was saturated and the latency is queueing in the generator." % e.get("fraction"))
    L.append("")
    oha_table(("node-put", "bare-put", "node-get", "bare-get"))
    verdicts(("put", "get"))
    L.append("## 3. Latency at the reference rate (oha)")
    L.append("")
    L.append("The same runs at %s req/s, a rate this machine sustains with the generator beside the server, in %s "
             "rounds of %s s (node and bare server one after the other, the first alternating): the node/bare p99 "
             "ratio here measures what the node adds, not CPU starvation." % (e.get("reference_rate"), r["rounds"],
                                                                              e.get("round")))
    L.append("")
    oha_table(in_rounds(REF, r["rounds"]))
    L.append("node p99 / bare p99 at the same rate, round by round:")
    L.append("")
    L += judge.JUDGED_HEAD
    for op in ("put-ref", "get-ref"):
        j = r["judged"][op]
        L.append(judge.judged_row("%s p99" % op[:3].upper(), j, lambda x: "%.2fx" % x, "the bare server's (1x)",
                                  P99_WORDS[j["verdict"]]))
    L.append("")

    L.append("## 4. k6 at the same fixed rate (constant-arrival-rate)")
    L.append("")
    L.append("| run | target req/s | achieved req/s | dropped iterations | failed | p50 ms | p90 ms | p99 ms | "
             "p99.9 ms | max ms |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in ("node-put", "node-get"):
        x = k.get(n)
        if x:
            lat = x["latency_ms"]
            L.append("| %s | %s | %.0f | %d | %.3f%% | %s | %s | %s | %s | %s |" % (
                n, x["rate_target"], x["achieved_rps"], x["dropped_iterations"], x["failed_rate"] * 100,
                fmt(lat.get("p50"), 3), fmt(lat.get("p90"), 3), fmt(lat.get("p99"), 3), fmt(lat.get("p999"), 3),
                fmt(lat.get("max"))))
    L.append("")
    L.append("k6 runs one JavaScript VU per in-flight request and tops out near 8-10k req/s on these 2 cores "
             "(shared with the node): where the achieved rate is below the target, the difference is k6's own "
             "limit (dropped iterations), and its latencies include its own queueing. oha's figures above are "
             "the node's latency at the full rate.")
    L.append("")

    L.append("## 5. Where the time goes (node CPU during the fixed-rate runs)")
    L.append("")
    for op in ("put", "get"):
        p = r["profiles"].get("node-" + op)
        if not p:
            continue
        L.append("**%s** (%d cpu samples):" % (op.upper(), p["samples"]))
        L.append("")
        L.append("| where | share |")
        L.append("|---|---:|")
        order = {c: i for i, (c, _) in enumerate(CATEGORIES + [("other", None)])}  # ties: in rule order
        for cat, share in sorted(p["share"].items(), key=lambda kv: (-kv[1], order.get(kv[0], len(order)))):
            L.append("| %s | %.1f%% |" % (cat, share * 100))
        L.append("")
    L.append("Flamegraphs (async-profiler, taken through the node's `/v0/admin/profile` during the oha runs):")
    L.append("")
    for f in r["flamegraphs"]:
        L.append("- [%s](%s)" % (f, f))
    L.append("")
    return "\n".join(L)


if __name__ == "__main__":
    main()
