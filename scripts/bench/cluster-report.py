#!/usr/bin/env python3
"""Turns the raw outputs of the cluster scenario (make bench-cluster: scenarios/cluster.json) into
docs/benchmarks/cluster.json, cluster.md and two plots (cluster-throughput.svg, cluster-latency.svg; matplotlib: run
it with the python of scripts/venv.sh).

Usage: cluster-report.py RAW_DIR OUT_DIR   (the readers are benchraw.py's)
       cluster-report.py --render OUT_DIR  (cluster.md and the plots again from OUT_DIR/cluster.json)
"""
import json
import os
import sys

import plots
from benchraw import env as read_env, fmt, metric_sum as summed, oha, oha_row, wrk
from harness import floors


def metric_sum(raw, nodes, pattern):
    return summed([os.path.join(raw, "node%d-metrics.txt" % i) for i in range(nodes)], pattern)


def main():
    if sys.argv[1] == "--render":
        with open(os.path.join(sys.argv[2], "cluster.json"), encoding="utf-8") as f:
            render(json.load(f), sys.argv[2])
        return
    raw, out = sys.argv[1], sys.argv[2]
    env = read_env(raw)
    nodes = int(env.get("nodes", "3"))
    w = {n: wrk(raw, n) for n in ("single-put", "single-get", "cluster-put", "cluster-get")}
    o = {n: oha(raw, n) for n in ("cluster-put", "cluster-get", "cluster-put-ref", "single-put-ref",
                                      "cluster-get-ref", "single-get-ref")
         if os.path.exists(os.path.join(raw, "oha-%s.json" % n))}
    ratios = {op: w["cluster-" + op]["rps"] / w["single-" + op]["rps"] for op in ("put", "get")}
    metrics = {
        "replica_calls_ok": metric_sum(raw, nodes, r'dht_replica_calls_total\{outcome="ok"\}'),
        "replica_calls_error": metric_sum(raw, nodes, r'dht_replica_calls_total\{outcome="error"\}'),
        "replica_calls_timeout": metric_sum(raw, nodes, r'dht_replica_calls_total\{outcome="timeout"\}'),
        "hints_stored": metric_sum(raw, nodes, r"dht_hints_stored_total "),
        "read_repairs": metric_sum(raw, nodes, r"dht_read_repairs_total "),
        "rejected_503": metric_sum(raw, nodes, r"dht_requests_rejected_total "),
        "write_groups": metric_sum(raw, nodes, r"dht_write_groups_total "),
        "grouped_writes": metric_sum(raw, nodes, r"dht_grouped_writes_total "),
        "worker_requests": metric_sum(raw, nodes, r"dht_worker_requests_total "),
        "selector_passes": metric_sum(raw, nodes, r"dht_selector_passes_total "),
    }
    result = {"env": env, "wrk": w, "oha": o, "ratios": ratios, "metrics": metrics}
    with open(os.path.join(out, "cluster.json"), "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2, sort_keys=True)
    render(result, out)


def render(result, out):
    """cluster.md and its plots: throughput of the cluster against one node, latency at the reference rate."""
    w, o = result["wrk"], result["oha"]
    result["plots"] = []
    if plots.bars(os.path.join(out, "cluster-throughput.svg"), "Maximum throughput (wrk, closed model)", "req/s",
                     [(op.upper(), [(who, (w.get(who + "-" + op) or {}).get("rps")) for who in ("single", "cluster")])
                      for op in ("put", "get")]):
        result["plots"].append(("cluster-throughput.svg", "throughput: the cluster against one node"))
    lat = [(n, {50: x["p50_ms"], 90: x["p90_ms"], 99: x["p99_ms"], 99.9: x["p999_ms"]})
           for n, x in ((n, o.get(n)) for n in ("cluster-put-ref", "single-put-ref", "cluster-get-ref",
                                                  "single-get-ref")) if x]
    if plots.percentiles(os.path.join(out, "cluster-latency.svg"), "Latency at %s req/s (oha, corrected)"
                            % result["env"].get("reference_rate"), lat):
        result["plots"].append(("cluster-latency.svg", "latency by percentile at the reference rate"))
    commit = result["env"].get("commit")
    noise = {shape: floors.from_ab(out, commit, shape) for shape in ("single", "cluster")}
    with open(os.path.join(out, "cluster.md"), "w", encoding="utf-8") as f:
        f.write(markdown(result, noise))


def ab_floor(noise, shape, case, figure):
    """The floor of this build's figure in the A/B's shape (harness/floors.py), None when not measured."""
    return noise[shape][1].get(("head", case, figure)) if noise.get(shape) else None


def noise_lines(noise):
    """What this report can say of its noise floor: it measures each figure in one window; the A/B of the same
    build measured the closest cases in rounds (its 3 members take every connection on one entry node)."""
    if not noise.get("cluster"):
        return ["Noise floor: not measured (this script runs each figure in one window; `make bench-ab` measures "
                "3 members at 2/3 and one node in rounds: docs/benchmarks/ab/).", ""]
    name = noise["cluster"][0]
    f = {k: floors.plus_minus(ab_floor(noise, *k)) for k in (
        ("cluster", "put-closed", "rps"), ("cluster", "get-closed", "rps"), ("single", "put-closed", "rps"),
        ("single", "get-closed", "rps"), ("cluster", "put-rate", "p99_ms"), ("cluster", "get-rate", "p99_ms"))}
    return ["Noise floor: this script measures each figure in one window and cannot state the spread between "
            "identical windows. The A/B of this build, [ab/%s.md](ab/%s.md), ran 3 members at 2/3 (every connection "
            "on one entry node, wrk 2x64) and one node in rounds on this machine; between identical windows of "
            "this build: 3 members PUT %s, GET %s; one node PUT %s, GET %s (a cluster / one node ratio moves by "
            "the larger of its two); p99 of 3 members at 5000 req/s PUT %s, GET %s." % (
                name, name, f[("cluster", "put-closed", "rps")], f[("cluster", "get-closed", "rps")],
                f[("single", "put-closed", "rps")], f[("single", "get-closed", "rps")],
                f[("cluster", "put-rate", "p99_ms")], f[("cluster", "get-rate", "p99_ms")]), ""]


def markdown(r, noise=None):
    noise = noise or {}
    env, w, o, ratios, m = r["env"], r["wrk"], r["oha"], r["ratios"], r["metrics"]
    lines = [
        "# Cluster benchmark",
        "",
        "Generated by `make bench-cluster` (scripts/bench/scenarios/cluster.json); do not edit by hand.",
        "",
        "%s nodes on one machine (%s CPUs, %s), replicas=%s, wrk %s threads x %s connections spread over the "
        "nodes; the single node measured in the same run. Load before: %s, after: %s; CPU stolen by the "
        "hypervisor during the run: %s. Commit %s%s. %s" % (
            env.get("nodes"), env.get("nproc"), env.get("cpu"), env.get("replicas"), env.get("threads"),
            env.get("connections"), env.get("load_before"), env.get("load_after"),
            env["steal_pct"] + "%" if env.get("steal_pct") else "not recorded", env.get("commit"),
            " (dirty)" if env.get("dirty", "0") != "0" else "", env.get("label", "")),
        "",
    ]
    for f, alt in r.get("plots") or []:
        lines += ["![%s](%s)" % (alt, f), ""]
    lines += [
        "## Closed model (wrk): maximum throughput",
        "",
        "| run | req/s | p50 ms | p90 ms | p99 ms | non-2xx | socket errors |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for n in ("single-put", "cluster-put", "single-get", "cluster-get"):
        x = w[n]
        lines.append("| %s | %.0f | %s | %s | %s | %d | %d |" % (
            n, x["rps"], fmt(x["p50_ms"]), fmt(x["p90_ms"]), fmt(x["p99_ms"]), x["non_2xx"], x["socket_errors"]))
    lines += [
        "",
        "| | cluster / single node | target |",
        "|---|---:|---:|",
        "| PUT | **%.0f%%** | >= 40%% |" % (100 * ratios["put"]),
        "| GET | **%.0f%%** | >= 40%% |" % (100 * ratios["get"]),
        "",
    ] + noise_lines(noise) + [
        "## Open model (oha, --latency-correction) at %s of the cluster maximum" % env.get("fraction"),
        "",
        "| run | target req/s | achieved req/s | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | non-2xx | errors |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    rates = {"cluster-put": env.get("rate_put"), "cluster-get": env.get("rate_get")}
    for n in ("cluster-put", "cluster-get"):
        lines.append(oha_row(n, rates[n], o.get(n)))
    lines += [
        "",
        "Target: p99 <= 10 ms at 70% load. oha needs about twice wrk's CPU per request and shares the two cores "
        "with the three nodes: where `achieved` is below the target rate, the machine is saturated and the latency "
        "is queueing, on both sides of the loopback.",
        "",
        "## Latency at the reference rate: the cluster against one node (oha)",
        "",
        "The same open-model runs at %s req/s, a rate this machine sustains with oha beside the nodes; the ratio "
        "cluster p99 / single-node p99 at the same rate is what replication adds." % env.get("reference_rate"),
        "",
        "| run | target req/s | achieved req/s | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | non-2xx | errors |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n in ("cluster-put-ref", "single-put-ref", "cluster-get-ref", "single-get-ref"):
        if o.get(n) is not None:
            lines.append(oha_row(n, env.get("reference_rate"), o[n]))
    lines.append("")
    for op in ("put", "get"):
        c, s1 = o.get("cluster-%s-ref" % op), o.get("single-%s-ref" % op)
        if c and s1 and s1["p99_ms"]:
            lines.append("- **%s**: cluster p99 %s ms, p99.9 %s ms; cluster / single node p99 = **%.2fx**" % (
                op.upper(), fmt(c["p99_ms"], 3), fmt(c["p999_ms"], 3), c["p99_ms"] / s1["p99_ms"]))
    groups = m.get("write_groups", 0)
    lines += [
        "",
        "## Replication during the run (all nodes)",
        "",
        "| replica calls ok | errors | timeouts | hints stored | read repairs | 503 rejected |",
        "|---:|---:|---:|---:|---:|---:|",
        "| %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |" % (
            m["replica_calls_ok"], m["replica_calls_error"], m["replica_calls_timeout"], m["hints_stored"],
            m["read_repairs"], m["rejected_503"]),
        "",
        "| selector passes | write groups | writes per group | requests handed to workers |",
        "|---:|---:|---:|---:|",
        "| %.0f | %.0f | %s | %.0f |" % (
            m.get("selector_passes", 0), groups,
            "%.1f" % (m.get("grouped_writes", 0) / groups) if groups else "-", m.get("worker_requests", 0)),
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
