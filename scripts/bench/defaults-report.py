#!/usr/bin/env python3
"""The node at its defaults against the bare one-nio server (make bench-defaults: scenarios/defaults-node.json and
defaults-cluster.json). Standard library only.

    defaults-report.py node RAW OUT      -> OUT/defaults-node.json from the node part's raw outputs, then defaults.md
    defaults-report.py cluster RAW OUT   -> OUT/defaults-cluster.json from the cluster part's raw outputs, then
                                            defaults.md
    defaults-report.py render OUT        -> OUT/defaults.md from whichever of the two exist
"""
import glob
import os
import sys

import benchraw
from benchraw import env as read_env, load_json, load_rows, profile, write_json
from harness import judge, profiles

# The goals (docs/benchmarks/defaults.md states them beside each figure).
GOALS = {
    "put_p99": 1.5, "put_p999": 2.0, "get_p99": 1.5, "get_p999": 2.0,  # node/bare at the fixed rate, at most
    "wrk_put": 0.75, "wrk_get": 0.85,  # node/bare throughput, at least
    "one_entry_put": 0.5, "one_entry_get": 0.5,  # cluster through one node / one node, at least
}


def percentile(sorted_values, p):
    """This report's percentiles: the rank rule the committed defaults.md was computed with."""
    return round(benchraw.percentile(sorted_values, p, rank="next"), 3)


def oha_stats(paths):
    """Latencies (ms) of the given oha CSV runs, pooled; the p99 of each run too."""
    pooled, per_run, per_run_999, non2xx = [], [], [], 0
    for path in paths:
        rows = load_rows(path)
        lat = sorted(duration * 1e3 for _, duration, _ in rows)
        non2xx += sum(not status.startswith("2") for _, _, status in rows)
        if lat:
            per_run.append(percentile(lat, 99))
            per_run_999.append(percentile(lat, 99.9))
        pooled += lat
    pooled.sort()
    if not pooled:
        return None
    return {
        "requests": len(pooled), "non2xx": non2xx,
        "p50": percentile(pooled, 50), "p90": percentile(pooled, 90), "p99": percentile(pooled, 99),
        "p999": percentile(pooled, 99.9), "max": round(pooled[-1], 3), "rounds_p99": per_run,
        "rounds_p999": per_run_999,
    }


def oha_pooled(raw, method, server):
    """Every measured round of one method on one server, pooled."""
    stats = oha_stats(sorted(glob.glob(os.path.join(raw, f"oha-{method}-*-{server}.csv"))))
    if stats is None:
        raise SystemExit(f"no oha results for {method} {server} in {raw}")
    return stats


def warmup(raw, env):
    """The warm-up's length and its first step (the seconds after start) on each server; None if not recorded."""
    if "warmup_steps" not in env:
        return None
    first = {server: {m: first_step(raw, server, m) for m in ("PUT", "GET")} for server in ("node", "bare")}
    return {"steps": int(env["warmup_steps"]), "flush_step": int(env.get("warmup_flush_step", "0")),
            "step_seconds": int(env.get("warmup_step", "5")), "first_step": first}


def first_step(raw, server, method):
    """The first warm-up step of one method on one server, or None if its CSV is missing."""
    path = os.path.join(raw, f"warmup-1-{server}-{method.lower()}.csv")
    return oha_stats([path]) if os.path.exists(path) else None


def wrk_rounds(raw, name, rounds):
    """The wrk windows NAME-1 .. NAME-<rounds> (None for a round that did not run); none at all is an error."""
    runs = [wrk(benchraw.wrk(raw, f"{name}-{r}")) for r in range(1, rounds + 1)]
    if not any(runs):
        raise SystemExit(f"no wrk-{name}-<round>.txt in {raw}")
    return runs


def rps(runs):
    return [r and r["rps"] for r in runs]


def wrk(r):
    """A wrk window (benchraw.wrk's figures) in this report's rounding and field names; None stays None."""
    if r is None:
        return None
    return {"rps": round(r["rps"], 1), "p99_ms": None if r["p99_ms"] is None else round(r["p99_ms"], 3),
            "non2xx": r["non_2xx"], "socket_errors": r["socket_errors"]}


def node_part(raw, out):
    result = {"env": read_env(raw), "fixed_rate": {}, "wrk": {}}
    result["warmup"] = warmup(raw, result["env"])
    for method in ("PUT", "GET"):
        node, bare = oha_pooled(raw, method, "node"), oha_pooled(raw, method, "bare")
        result["fixed_rate"][method] = {
            "node": node, "bare": bare,
            "p99_ratio": round(node["p99"] / bare["p99"], 2), "p999_ratio": round(node["p999"] / bare["p999"], 2),
        }
    rounds = int(result["env"].get("rounds", "1"))
    for method in ("put", "get"):
        node, bare = wrk_rounds(raw, f"{method}-node", rounds), wrk_rounds(raw, f"{method}-bare", rounds)
        j = judge.judged(rps(node), rps(bare), True, GOALS["wrk_" + method])
        result["wrk"][method] = {"node": node, "bare": bare, "judged": j, "ratio": rounded(j["ratio"])}
    result["profile"] = {m: profile(raw, m) for m in ("PUT", "GET")}
    write_json(os.path.join(out, "defaults-node.json"), result)


def cluster_part(raw, out):
    result = {"env": read_env(raw), "wrk": {}}
    rounds = int(result["env"].get("rounds", "1"))
    for method in ("put", "get"):
        runs = {name: wrk_rounds(raw, f"{method}-{name}", rounds) for name in ("single", "one-entry", "spread")}
        one = judge.judged(rps(runs["one-entry"]), rps(runs["single"]), True, GOALS["one_entry_" + method])
        spread = judge.judged(rps(runs["spread"]), rps(runs["single"]), True)
        result["wrk"][method] = {"runs": runs, "one_entry": one, "spread": spread,
                                 "one_entry_ratio": rounded(one["ratio"]), "spread_ratio": rounded(spread["ratio"])}
    # the entry node's profile in the tuned report's categories, with the replica calls as one more
    result["profile"] = {m: profile(raw, m, profiles.cluster_categories()) for m in ("put", "get")}
    write_json(os.path.join(out, "defaults-cluster.json"), result)


def as_rounds(d):
    """A part written before its wrk windows ran in rounds (one window each) as one round, so that defaults.md still
    renders it beside a part of this version (each ratio's floor: not measured)."""
    d["env"].setdefault("rounds", "1")
    for method, r in d["wrk"].items():
        if isinstance(r.get("node"), dict):
            r["node"], r["bare"] = [r["node"]], [r["bare"]]
            r["judged"] = judge.judged(rps(r["node"]), rps(r["bare"]), True, GOALS["wrk_" + method])
        if "runs" in r and "one_entry" not in r:
            r["runs"] = {k: [v] for k, v in r["runs"].items()}
            r["one_entry"] = judge.judged(rps(r["runs"]["one-entry"]), rps(r["runs"]["single"]), True,
                                          GOALS["one_entry_" + method])
            r["spread"] = judge.judged(rps(r["runs"]["spread"]), rps(r["runs"]["single"]), True)
    return d


def rounded(ratio):
    return None if ratio is None else round(ratio, 3)


def warmup_text(d):
    w = d.get("warmup")
    if not w:
        return "a fill of PUTs"
    flush = (f"the node's first memtable flush came in step {w['flush_step']}, then one step more" if w["flush_step"]
             else "the node did not flush within the warm-up")
    return (f"PUTs at the rate with GETs at a quarter of it, {w['steps']} steps of {w['step_seconds']} s: {flush}, "
            "so that the JIT has compiled both methods and the write path after a flush before anything is measured")


def warmup_lines(w):
    """The first warm-up step: the seconds after a cold start, which the rounds leave out."""
    if not w:
        return []
    lines = ["", f"Just after start (the first {w['step_seconds']} s of the warm-up, the JIT still compiling; not in "
             "the figures above):", "",
             "| method | server | requests | non-2xx | p50 ms | p99 ms | max ms |", "|---|---|---:|---:|---:|---:|---:|"]
    for method in ("PUT", "GET"):
        for server in ("node", "bare"):
            s = w["first_step"][server].get(method)
            if s:
                lines.append(f"| {method} | {server} | {s['requests']} | {s['non2xx']} | {s['p50']} | {s['p99']} | "
                             f"{s['max']} |")
    return lines + ["", "GETs of the first step include keys not written yet (404s on the node)."]


def profile_lines(title, breakdown):
    if not breakdown:
        return [f"{title}: no profile was captured.", ""]
    rows = sorted(breakdown["share"].items(), key=lambda kv: -kv[1])
    lines = [f"{title} ({breakdown['samples']} cpu samples, 1 ms of CPU each):", "", "| where | share |", "|---|---:|"]
    lines += [f"| {k} | {v * 100:.1f}% |" for k, v in rows if v >= 0.005]
    lines += ["", "Hottest frames (self time): " + ", ".join(
        f"`{t['frame'][:70]}` {t['share'] * 100:.1f}%" for t in breakdown["top_self"][:6]), ""]
    return lines


def verdict(value, goal, at_most):
    ok = value <= goal if at_most else value >= goal
    return f"{'meets' if ok else 'misses'} ({'<=' if at_most else '>='} {goal})"


WRK_FLOOR = ("Noise floor of a throughput ratio: the largest change of either side's req/s between two consecutive "
             "rounds (harness/judge.py); met or missed only when the median and every round are beyond it on one "
             "side of the goal, else not separable here.")


def runs_text(runs):
    """A window's req/s round by round ('-': the round did not run)."""
    return " ".join("-" if r is None else str(r["rps"]) for r in runs)


def ratios_text(j):
    return " ".join("-" if x is None else "%.3f" % x for x in j["ratios"])


def machine(env):
    return (f"{env.get('date', '?')}, {env.get('nproc', '?')} CPUs ({env.get('cpu', '?')}), "
            f"load before {env.get('load_before', '?')} / after {env.get('load_after', '?')}, "
            f"CPU stolen by the hypervisor: {stolen(env)}, commit {env.get('commit', '?')}"
            + (f" (+{env['dirty']} uncommitted files)" if env.get("dirty", "0") not in ("", "0") else ""))


def stolen(env):
    """The launcher records steal as a share of all CPU time; runs before it as ticks."""
    return f"{env['steal_pct']}%" if "steal_pct" in env else f"{env.get('steal_ticks', '?')} ticks"


def render(out):
    lines = [
        "# Benchmark: the node at its defaults",
        "",
        "Generated by `make bench-defaults` (scripts/bench/scenarios/defaults-*.json; `make bench-node` and "
        "`make bench-cluster` run their part too); raw figures in [defaults-node.json](defaults-node.json) and "
        "[defaults-cluster.json](defaults-cluster.json). The node runs exactly as a user starts it: "
        "`java -jar dht-node.jar --port P --data-dir D` (and `--cluster` for the 3 nodes), no JVM options, no tuning. "
        "The tuned runs are [node.md](node.md) and [cluster.md](cluster.md); what changed and why: "
        "[docs/node.md](../node.md#defaults).",
        "",
    ]
    node_path, cluster_path = os.path.join(out, "defaults-node.json"), os.path.join(out, "defaults-cluster.json")
    if os.path.exists(node_path):
        d = as_rounds(load_json(node_path))
        env = d["env"]
        lines += [
            "## One node against the bare one-nio server",
            "",
            f"Machine: {machine(env)}. {env.get('java', '')}; block cache at its default: "
            f"{env.get('block_cache_default', '?')}.",
            "",
            f"### Fixed rate (oha, {env.get('rate')} req/s, 64 connections, `--latency-correction`)",
            "",
            f"Ids drawn from 20,000 keys (every PUT overwrites), after a warm-up of each server ({warmup_text(d)}). "
            f"Node and bare server alternate in {env.get('rounds')} rounds of {env.get('round')} s; the percentiles "
            "pool every round (single 10-s runs of the bare server alone moved its p99 by 2x on this VM).",
            "",
            "| method | server | requests | non-2xx | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | p99 per round |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---|",
        ]
        for method, r in d["fixed_rate"].items():
            for server in ("node", "bare"):
                s = r[server]
                lines.append(f"| {method} | {server} | {s['requests']} | {s['non2xx']} | {s['p50']} | {s['p90']} | "
                             f"{s['p99']} | {s['p999']} | {s['max']} | {' '.join(str(x) for x in s['rounds_p99'])} |")
        lines.append("")
        for method, r in d["fixed_rate"].items():
            key = method.lower()
            parts = []
            for q, name in (("p99", "p99"), ("p999", "p99.9")):
                # the spread of identical rounds: the same server at the same rate in consecutive rounds
                floor = judge.noise_floor(r["node"].get("rounds_" + q, []), r["bare"].get("rounds_" + q, []))
                ratio, goal = r[q + "_ratio"], GOALS[key + "_" + q]
                parts.append(f"{name} **{ratio}x** ({verdict(ratio, goal, True)}), noise floor "
                             f"{judge.plus_minus(floor)}"
                             + (": not separable here" if judge.inside(ratio, goal, floor) else ""))
            lines.append(f"- **{method}**: node/bare " + "; ".join(parts))
        lines += ["", "The noise floor of a ratio is the largest change of that percentile between two consecutive "
                  "rounds of the same server at the same rate (node or bare), as in the A/B reports "
                  "(scripts/bench/harness/judge.py)."]
        lines += warmup_lines(d.get("warmup"))
        lines += [
            "",
            "### Closed model (wrk, 2 threads x 64 connections)",
            "",
            f"PUT of unique keys (100-byte values), then GET of random keys among those written; {env.get('rounds')} "
            f"rounds of {env.get('duration')} s, node and bare server one right after the other, the first "
            "alternating.",
            "",
            "| run | node req/s per round | bare req/s per round | node/bare per round | median | noise floor | goal "
            "| verdict | non-2xx |",
            "|---|---|---|---|---:|---:|---|---|---:|",
        ]
        for method, r in d["wrk"].items():
            j = r["judged"]
            bad = sum(x["non2xx"] for x in r["node"] + r["bare"] if x)
            lines.append(f"| {method.upper()} | {runs_text(r['node'])} | {runs_text(r['bare'])} | {ratios_text(j)} | "
                         f"**{r['ratio']}** | {judge.plus_minus(j['floor'])} | >= {GOALS['wrk_' + method]} | "
                         f"{judge.target_words(j)} | {bad} |")
        lines += ["", WRK_FLOOR, ""]
        lines += ["### Where the node's CPU goes at the fixed rate", "",
                  "One more round of each method, profiled through `/v0/admin/profile` and not counted above.", ""]
        for m in ("PUT", "GET"):
            lines += profile_lines(f"**{m}**", d.get("profile", {}).get(m))
    if os.path.exists(cluster_path):
        d = as_rounds(load_json(cluster_path))
        env = d["env"]
        lines += [
            "## Three nodes at replicas=2/3 against one node",
            "",
            f"Machine: {machine(env)}.",
            "",
            "wrk 2 threads x 64 connections. *one entry*: every connection on the first node (a client that knows one "
            "address, or a Service that keeps its connections); *spread*: the threads on different nodes. The GETs of "
            "both cluster runs read the keys of the first round's one-entry PUTs. "
            f"{env.get('rounds')} rounds of {env.get('duration')} s, the three one right after the other, in reverse "
            "order in even rounds.",
            "",
            "| run | req/s per round: single node / one entry / spread | one entry / single per round | median | "
            "noise floor | goal | verdict | spread / single per round | median | noise floor |",
            "|---|---|---|---:|---:|---|---|---|---:|---:|",
        ]
        for method, r in d["wrk"].items():
            runs, one, spread = r["runs"], r["one_entry"], r["spread"]
            lines.append(f"| {method.upper()} | {runs_text(runs['single'])} / {runs_text(runs['one-entry'])} / "
                         f"{runs_text(runs['spread'])} | {ratios_text(one)} | **{r['one_entry_ratio']}** | "
                         f"{judge.plus_minus(one['floor'])} | >= {GOALS['one_entry_' + method]} | "
                         f"{judge.target_words(one)} | {ratios_text(spread)} | {r['spread_ratio']} | "
                         f"{judge.plus_minus(spread['floor'])} |")
        bad = sum(run["non2xx"] for r in d["wrk"].values() for rs in r["runs"].values() for run in rs if run)
        lines += ["", WRK_FLOOR, "", f"Non-2xx answers over all cluster runs: {bad}.", "",
                  "### Where the entry node's CPU goes", "",
                  "One more 12-s run of each through the entry node, profiled, not counted above.", ""]
        for m in ("put", "get"):
            lines += profile_lines(f"**{m.upper()}** through one entry node", d.get("profile", {}).get(m))
    with open(os.path.join(out, "defaults.md"), "w") as f:
        f.write("\n".join(lines))


def main(argv):
    if len(argv) == 4 and argv[1] in ("node", "cluster"):
        (node_part if argv[1] == "node" else cluster_part)(argv[2], argv[3])
        render(argv[3])
    elif len(argv) == 3 and argv[1] == "render":
        render(argv[2])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
