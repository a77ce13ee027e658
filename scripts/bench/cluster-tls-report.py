#!/usr/bin/env python3
"""Turns the raw outputs of make bench-cluster-tls (scripts/bench/scenario.sh cluster-tls: the scenario
scripts/bench/scenarios/cluster-tls.json; before it, scripts/bench-cluster-tls.sh, whose raw files it writes the
same) into docs/benchmarks/cluster-tls.json and cluster-tls.md:
the cluster's maximum throughput and its p99 at a fixed rate, with the member plane in plaintext and in mutual TLS,
and with TLS on the client port (mode "client", when the run had it), per round and on average, and each TLS
cost against the targets, beside the noise floor of identical windows ("cost": the member plane's, against plaintext;
"client_cost": the client port's, against the cluster that differs from it only by that (client_base in env.txt: the
member-TLS one; plaintext in runs before it); "both_cost": member and client TLS together against plaintext;
"cert_cost": client certificates, the client-TLS cluster's fixed-rate slices with one against its slices without,
paired slice by slice).

Usage: cluster-tls-report.py RAW_DIR OUT_DIR   (the readers are benchraw.py's)
       cluster-tls-report.py --render OUT_DIR  (cluster-tls.md again from OUT_DIR/cluster-tls.json)
"""
import os
import re
import sys

from benchraw import (env as read_env, fmt as fmt_or_dash, load_rows, median, metric_sum, percentile, read,
                      report_main)
from harness.judge import against, beyond, noise_floor

MODES = ("plain", "tls")  # a run before the client port had TLS; a later one names its modes in env.txt
LABELS = {"plain": "plaintext", "tls": "member TLS", "client": "client TLS",
          "cert": "client TLS, client certificates"}
# Targets of issue 21: TLS may cost at most 15% of the maximum throughput and 1.2x the p99 at a fixed rate.
MAX_THROUGHPUT_LOSS = 0.15
MAX_P99_RATIO = 1.2


def mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def numbers(raw, name):
    """The numbers of a small file the bench wrote (.flush, .warm, .jit), or None when the run did not write it."""
    path = os.path.join(raw, name)
    return [float(v) for v in read(path).split()] if os.path.exists(path) else None


def flushed(raw, name):
    """Whether the cluster's members wrote flushed tables during slice name (the bench's .flush file: the bytes
    before and after); None when the run did not record it."""
    counter = numbers(raw, "oha-%s.flush" % name)
    return None if counter is None else counter[1] > counter[0]


def window_run(raw, name):
    """A maximum run (one wrk process: a warm-up, then two identical halves; the bench's wrk-NAME.marks, a line "wall
    time, the cluster's compile seconds, node CPU seconds, the load generator's CPUs' busy and total jiffies" at wrk's
    start, the window's start, its middle and its end, and wrk's "SECOND <epoch s> <requests issued>" lines):
    {"halves": [{"rps", "requests", "cpu_s", "load_busy"}...], "warmup_s", "warmup_jit_s", "window_jit_s"}, or None
    when the run did not record it. A second's requests count in a half by the share of the second inside it."""
    path = os.path.join(raw, "wrk-%s.marks" % name)
    if not os.path.exists(path):
        return None
    marks = [[float(v) for v in line.split()] for line in read(path).splitlines() if line.strip()]
    if len(marks) < 4:
        return None
    text = read(os.path.join(raw, "wrk-%s.txt" % name))
    per_second = {int(a): int(b) for a, b in re.findall(r"^SECOND (\d+) (\d+)$", text, re.M)}

    def requests(a, b):
        return sum(n * max(0.0, min(s + 1, b) - max(s, a)) for s, n in per_second.items())
    halves = []
    for a, b in zip(marks[1:], marks[2:]):
        busy, total = b[3] - a[3], b[4] - a[4]
        n = requests(a[0], b[0])
        halves.append({"rps": n / (b[0] - a[0]), "requests": n, "cpu_s": b[2] - a[2],
                       "load_busy": busy / total if total > 0 else None})
    return {"halves": halves, "warmup_s": marks[1][0] - marks[0][0], "warmup_jit_s": marks[1][1] - marks[0][1],
            "window_jit_s": marks[-1][1] - marks[1][1]}


def cpu_of(raw, name):
    """The CPU samples around a window (the bench's NAME.cpu: node CPU seconds, the load generator's CPUs' busy and
    total jiffies, before and after): (the loaded cluster's CPU seconds in the window, the share of the load
    generator's CPUs it kept busy, or None when they were not apart), or None when the run did not record it."""
    v = numbers(raw, name + ".cpu")
    if not v or len(v) != 6:
        return None
    busy, total = v[4] - v[1], v[5] - v[2]
    return v[3] - v[0], busy / total if total > 0 else None


def cpu_per_request(cpus, requests):
    """Microseconds of the nodes' CPU per request over windows (CPU seconds and requests each), or None."""
    pairs = [(c, n) for c, n in zip(cpus, requests) if c is not None and n]
    return 1e6 * sum(c for c, _ in pairs) / sum(n for _, n in pairs) if pairs else None


def slices(raw, tag, op, count, settle=0.0):
    """Every request of the fixed-rate slices of op in a round's cluster that started settle seconds or more into its
    slice (each slice is a new oha: its first moments open its connections, TLS handshakes on the client port):
    (latencies in ms, sorted; requests that did not get the expected status, all of them; each slice's p99; whether
    a member flushed during each slice; latencies in ms of every request, the first moments included; each slice's
    node CPU per request in microseconds, every request of the slice counted, when the run sampled it)."""
    ok = "201" if op == "put" else "200"
    lat, failed, p99s, flushes, every, cpus = [], 0, [], [], [], []
    for k in range(1, count + 1):
        name = "%s-%s-rate-s%d" % (tag, op, k)
        rows = load_rows(os.path.join(raw, "oha-%s.csv" % name))
        cpu = cpu_of(raw, "oha-" + name)
        if cpu and rows:
            cpus.append(1e6 * cpu[0] / len(rows))
        one = sorted(duration * 1000 for start, duration, _ in rows if start >= settle)
        if one:
            p99s.append(percentile(one, 99))
            flushes.append(flushed(raw, name))
        lat.extend(one)
        every.extend(duration * 1000 for _, duration, _ in rows)
        failed += sum(status != ok for _, _, status in rows)
    lat.sort()
    every.sort()
    return lat, failed, p99s, flushes, every, cpus


def modes_of(env):
    """The run's clusters (commas in env.txt of the shell driver, words in the scenario's)."""
    return tuple(env.get("modes", ",".join(MODES)).replace(",", " ").split())


def rate_modes_of(env):
    """The run's fixed-rate slices: the clusters', and "cert", the client-TLS cluster's with a client certificate."""
    return tuple(env.get("rate_modes", ",".join(modes_of(env))).split(","))


def collect(raw, out=None):
    env = read_env(raw)
    modes = rate_modes_of(env)
    nodes = int(env.get("nodes", "3"))
    count = int(env.get("slices", "1"))
    settle = float(env.get("slice_settle", "0"))  # runs before it judged every request of a slice
    rounds, pooled = [], {(m, op): [] for m in modes for op in ("put", "get")}
    slice_p99s = {(m, op): [] for m in modes for op in ("put", "get")}
    slice_flushes = {(m, op): [] for m in modes for op in ("put", "get")}
    every = {(m, op): [] for m in modes for op in ("put", "get")}
    for n in range(1, int(env.get("rounds", "1")) + 1):
        for mode in modes:
            tag = "r%d-%s" % (n, mode)
            row = {"round": n, "mode": mode}
            for op in ("put", "get"):
                # the measured window, in two halves: identical windows (none with a client certificate: wrk
                # cannot present one)
                run = window_run(raw, "%s-%s" % (tag, op))
                halves = run["halves"] if run else []
                windows = [h["rps"] for h in halves]
                row[op + "_rps"] = mean(windows)
                row[op + "_rps_windows"] = windows
                # the nodes' CPU per request in each half, and how busy the load generator's own CPUs were
                row[op + "_cpu_us_windows"] = [cpu_per_request([h["cpu_s"]], [h["requests"]]) for h in halves]
                row[op + "_cpu_us_per_req"] = cpu_per_request([h["cpu_s"] for h in halves],
                                                              [h["requests"] for h in halves])
                row[op + "_load_cpu_busy"] = mean([h["load_busy"] for h in halves])
                for key in ("warmup_s", "warmup_jit_s", "window_jit_s"):
                    row[op + "_" + key] = run[key] if run else None
                lat, failed, p99s, flushes, all_of, rate_cpus = slices(raw, tag, op, count, settle)
                row[op + "_rate_cpu_us_slices"] = rate_cpus
                row[op + "_rate_cpu_us_per_req"] = mean(rate_cpus)
                row[op + "_slice_p99s_ms"] = p99s
                pooled[(mode, op)].extend(lat)
                every[(mode, op)].extend(all_of)
                slice_p99s[(mode, op)].extend(p99s)
                slice_flushes[(mode, op)].extend(flushes)
                row.update({op + "_p50_ms": percentile(lat, 50), op + "_p99_ms": percentile(lat, 99),
                            op + "_rate_requests": len(lat), op + "_rate_failed": failed})
            if mode in modes_of(env):  # a cluster's counters (the cert slices' are the client-TLS cluster's)
                row.update({
                    "handshake_failures": metric_sum(
                        raw, nodes, r"dht_(member|client)_tls_handshake_failures_total ", tag + "-"),
                    "replica_call_errors": metric_sum(
                        raw, nodes, r'dht_replica_calls_total\{outcome="(error|timeout)"\}', tag + "-"),
                })
            rounds.append(row)
    overall = {}
    for (mode, op), lat in pooled.items():
        lat.sort()
        overall.setdefault(mode, {})[op + "_p99_ms"] = percentile(lat, 99)
        overall[mode][op + "_requests"] = len(lat)
        overall[mode][op + "_p99_with_setup_ms"] = percentile(sorted(every[(mode, op)]), 99)
        overall[mode][op + "_slice_p99s_ms"] = slice_p99s[(mode, op)]
        overall[mode][op + "_slice_p99_median_ms"] = median(slice_p99s[(mode, op)])
        overall[mode][op + "_slice_flushed"] = slice_flushes[(mode, op)]
        quiet = [p for p, f in zip(slice_p99s[(mode, op)], slice_flushes[(mode, op)]) if f is False]
        overall[mode][op + "_quiet_slice_p99_median_ms"] = median(quiet)
    means = {mode: {k: mean([r[k] for r in rounds if r["mode"] == mode])
                    for k in ("put_rps", "get_rps", "put_cpu_us_per_req", "get_cpu_us_per_req",
                              "put_rate_cpu_us_per_req", "get_rate_cpu_us_per_req")}
             for mode in modes}
    result = {"env": env, "rounds": rounds, "means": means, "overall": overall,
              "targets": {"max_throughput_loss": MAX_THROUGHPUT_LOSS, "max_p99_ratio": MAX_P99_RATIO}}
    for key, mode, base in costs(env):
        result[key] = cost_of(mode, base, rounds, means, overall)
    if "cert_cost" in result:
        paired = pairing(raw)
        result["cert_cost"]["pairing"] = paired
        if paired is None or not paired["fair"]:  # judged only as two sides of the same moments
            for op in ("put", "get"):
                result["cert_cost"][op]["p99_verdict"] = NOT_PAIRED
    return result


NOT_PAIRED = "not judged: the slices with and without a certificate were not run in alternating pairs"


def pairing(raw):
    """How the client-TLS cluster's slices with a certificate ("cert") ran beside its slices without one ("client"),
    from the order the bench ran its slices in (slices.order, a slice name a line): {"adjacent": every cert slice
    right before or after the client slice of its round, operation and number; "cert_first": for each pair, in the
    order run, whether the certificate went first; "fair": adjacent, and which goes first alternating within each
    round and operation}, or None when the run did not record its order."""
    path = os.path.join(raw, "slices.order")
    if not os.path.exists(path):
        return None
    names = [line.strip() for line in read(path).splitlines() if line.strip()]
    where = {}
    for i, name in enumerate(names):
        m = re.match(r"^r(\d+)-(\w+)-(put|get)-rate-s(\d+)$", name)
        if m:
            where[(int(m.group(1)), m.group(3), int(m.group(4)), m.group(2))] = i
    adjacent, firsts, fair = True, [], True
    runs = {}
    for (n, op, k, mode), i in sorted(where.items(), key=lambda kv: kv[1]):
        if mode != "cert":
            continue
        j = where.get((n, op, k, "client"))
        adjacent &= j is not None and abs(i - j) == 1
        first = j is None or i < j
        firsts.append(first)
        runs.setdefault((n, op), []).append(first)
    for seq in runs.values():
        fair &= all(a != b for a, b in zip(seq, seq[1:]))
    return {"adjacent": adjacent, "cert_first": firsts, "fair": adjacent and fair and bool(firsts)}


def costs(env):
    """(key, mode, base) of each cost the run measured: a mode against the cluster it differs from."""
    modes = rate_modes_of(env)
    client_base = env.get("client_base", "plain")
    found = [("cost", "tls", "plain"), ("client_cost", "client", client_base)]
    if client_base != "plain":
        found.append(("both_cost", "client", "plain"))
    found.append(("cert_cost", "cert", "client"))
    return [(k, m, b) for k, m, b in found if m in modes and b in modes]


def cost_of(mode, base, rounds, means, overall):
    """What TLS of this mode costs against the cluster base, by operation, with the noise floors of the two clusters'
    identical windows: throughput, the halves of each measured run; p99, consecutive slices of a round."""
    cost = {"base": base}
    for op in ("put", "get"):
        rps = op + "_rps"
        p99 = op + "_p99_ms"
        ratios = round_ratios(rounds, p99, mode, base)
        pairs = slice_ratios(rounds, op, mode, base)
        mine = [x for x in rounds if x["mode"] in (mode, base)]
        rps_floor = noise_floor(*[x.get(rps + "_windows") or [] for x in mine])
        p99_floor = noise_floor(*[x.get(op + "_slice_p99s_ms") or [] for x in mine])
        kept = quotient(means[mode][rps], means[base][rps])
        if kept is None:
            rps_floor = None  # no maximum runs of this mode (cert): no floor of its own either
        p99_ratio = quotient(overall[mode][p99], overall[base][p99])
        cost[op] = {
            "throughput_loss": 1 - kept if kept else None,
            "throughput_floor": rps_floor,
            # the loss target judged beside the floor: kept throughput against 1 - the loss allowed
            "throughput_verdict": against(kept, 1 - MAX_THROUGHPUT_LOSS, rps_floor, True) if kept
            else "not measured",
            # over every request of every round: one round's slow minute weighs as its requests do
            "p99_ratio": p99_ratio,
            "p99_floor": p99_floor,
            "p99_verdict": against(p99_ratio, MAX_P99_RATIO, p99_floor, False),
            "p99_ratios_by_round": ratios,
            # every request, each slice's first moments included (shown, not judged): what opening the load
            # generator's connections at once adds, 64 TLS handshakes on the client port
            "p99_ratio_with_setup": quotient(overall[mode][op + "_p99_with_setup_ms"],
                                             overall[base][op + "_p99_with_setup_ms"]),
            "p99_ratio_median": median(ratios),
            # slice k of mode over slice k of base, round by round (shown, not judged): for the client
            # certificates, the two slices of a pair on the same cluster, one right after the other
            "slice_p99_ratios": pairs,
            "slice_p99_ratio_median": median(pairs),
            # the typical slice: a few slices hold most requests above p99 (a flush, a pause), in either mode
            "slice_p99_median_ratio": quotient(overall[mode][op + "_slice_p99_median_ms"],
                                               overall[base][op + "_slice_p99_median_ms"]),
            # the same over the slices in which no member flushed (shown, not judged: it says what the flushes of
            # three co-located replicas add, which fall on either mode)
            "quiet_slice_p99_median_ratio": quotient(overall[mode][op + "_quiet_slice_p99_median_ms"],
                                                     overall[base][op + "_quiet_slice_p99_median_ms"]),
        }
        # the nodes' own CPU per request (no budget of its own: what the throughput and p99 figures come from),
        # beside the floor of identical windows: the halves of the maximum runs, consecutive slices at the rate
        for key, windows in (("cpu", "_cpu_us_windows"), ("rate_cpu", "_rate_cpu_us_slices")):
            ratio = quotient(means[mode].get(op + "_" + key + "_us_per_req"),
                             means[base].get(op + "_" + key + "_us_per_req"))
            floor = noise_floor(*[x.get(op + windows) or [] for x in mine])
            cost[op].update({key + "_ratio": ratio, key + "_floor": floor, key + "_change": beyond(ratio, floor)})
    return cost


def slice_ratios(rounds, op, mode, base):
    """Each slice's p99 of mode over the same slice's (the same round, the same number) of base."""
    by_round = {}
    for x in rounds:
        by_round.setdefault(x["round"], {})[x["mode"]] = x.get(op + "_slice_p99s_ms") or []
    ratios = (quotient(a, b) for _, v in sorted(by_round.items())
              for a, b in zip(v.get(mode) or [], v.get(base) or []))
    return [q for q in ratios if q is not None]


def quotient(a, b):
    """a / b, or None when either is missing (or b is 0)."""
    return a / b if a and b else None


def round_ratios(rounds, key, mode="tls", base="plain"):
    """mode (TLS) over base (plaintext) of key, round by round (a round's clusters ran one after the other): one slow
    round weighs on a ratio of means as much as all the others together."""
    by_round = {}
    for x in rounds:
        by_round.setdefault(x["round"], {})[x["mode"]] = x[key]
    ratios = (quotient(v.get(mode), v.get(base)) for _, v in sorted(by_round.items()))
    return [q for q in ratios if q is not None]


def fmt(v, digits=2):
    return fmt_or_dash(v, digits, none="")  # this report's tables leave a missing figure empty


def verdict(value, limit, ratio):
    if value is None:
        return "no result"
    ok = value <= limit
    shown = ("%.2fx" % value) if ratio else ("%.1f%%" % (100 * value))
    return "%s (target %s: %s)" % (shown, ("<= %.1fx" % limit) if ratio else ("<= %d%%" % (100 * limit)),
                                   "met" if ok else "**missed**")


def settled(env):
    """The header's words for the part of each slice the p99 leaves out (none in runs before slice_settle)."""
    settle = env.get("slice_settle")
    if not settle or not float(settle):
        return ""
    return ("; the p99s are over the requests from %s s into each slice on, in every mode: each slice is a new oha, "
            "whose first moments open its %s connections at once (on the client-TLS cluster, %s TLS handshakes while "
            "requests queue at the rate); the p99 of every request is shown beside as \"with each slice's first %s s\""
            % (settle, env.get("connections"), env.get("connections"), settle))


def client_cluster(env):
    """The header's words for the client-TLS clusters."""
    both = env.get("client_base", "plain") != "plain"
    words = (", one with %sTLS 1.3 on its client port (the same code; the load generators speak it over kept-alive "
             "connections and present no client certificate)" % ("its member plane in mutual TLS too and " if both
                                                                  else ""))
    if "cert" in rate_modes_of(env):
        words = words.replace("present no client certificate", "present no client certificate, though the port "
                              "asks for one (--client-tls-ca, --client-auth=%s)" % env.get("client_auth", "optional"))
        words += ("; that cluster's fixed-rate slices come in pairs, one with oha presenting a read-write client "
                  "certificate (\"client certificates\") and one without, which goes first alternating slice by "
                  "slice, so both see the same warm-up, data and JIT (a connection's certificate is checked once, in "
                  "its handshake; the bench's loopback requests need no credential, so those without one are served "
                  "alike; wrk cannot present a certificate: no maximum-throughput run with one)")
    return words


def beside(cost):
    """'; noise floor: throughput +-x% (beside the floor: verdict), p99 y.yyx (...)' for a cost's floors; a figure
    without a floor (an older run, a single window) says so."""
    def one(figure, shown):
        floor = cost.get(figure + "_floor")
        return "%s %s (beside the floor: %s)" % (figure, "not measured" if floor is None else shown(floor),
                                                 cost.get(figure + "_verdict"))
    return "; noise floor: %s, %s" % (one("throughput", lambda f: "+-%.1f%%" % ((f - 1) * 100)),
                                      one("p99", lambda f: "%.2fx" % f))


def pairing_words(paired):
    """'; pairs: ...' for the client certificates' line: how their slices ran beside those without a certificate."""
    if paired is None:
        return "; pairs: the run recorded no slice order (%s)" % NOT_PAIRED
    firsts = paired["cert_first"]
    return "; pairs: %d, %s, the certificate first in %d of them%s" % (
        len(firsts), "each right beside its slice without a certificate" if paired["adjacent"] else "**not adjacent**",
        sum(firsts), ", alternating" if paired["fair"] else " (**not alternating**: %s)" % NOT_PAIRED)


def pinned(env):
    """The header's words for where the nodes and the load generators ran (nothing in runs that did not pin them)."""
    if not env.get("node_cpus"):
        return ""
    return (" The nodes ran on CPU %s, the load generators (wrk, oha: their TLS too) and the bench on CPU %s "
            "(taskset): a throughput is what the nodes do on their own CPU, and their CPU per request is theirs "
            "alone (their JVMs see that CPU only and size themselves to it)." % (env["node_cpus"], env["load_cpus"]))


def cpu_table(r):
    """The nodes' CPU per request and the load generator's CPU, by round and mode (empty for a run without samples)."""
    if not any(x.get("put_cpu_us_per_req") or x.get("put_rate_cpu_us_per_req") for x in r["rounds"]):
        return []
    rate = r["env"].get("reference_rate")
    lines = ["", "The nodes' CPU per request (user and system CPU of the loaded cluster's three nodes over the "
             "window, /proc, over its requests; at the maximum, both halves; at the rate, every request of the "
             "slices) and how busy the load generator's own CPU was during the maximum runs (near 100%: the load "
             "generator, not the nodes, may have set the maximum):", "",
             "| round | TLS | PUT µs/req at max | GET µs/req at max | PUT µs/req at %s/s | GET µs/req at %s/s | "
             "load CPU busy, PUT / GET max |" % (rate, rate), "|---|---|---:|---:|---:|---:|---:|"]
    for x in r["rounds"]:
        busy = [x.get(op + "_load_cpu_busy") for op in ("put", "get")]
        lines.append("| %d | %s | %s | %s | %s | %s | %s |" % (
            x["round"], LABELS.get(x["mode"], x["mode"]), fmt(x.get("put_cpu_us_per_req"), 1),
            fmt(x.get("get_cpu_us_per_req"), 1), fmt(x.get("put_rate_cpu_us_per_req"), 1),
            fmt(x.get("get_rate_cpu_us_per_req"), 1),
            " / ".join("-" if b is None else "%.0f%%" % (100 * b) for b in busy)))
    return lines


def cpu_words(c):
    """'; the nodes' CPU per request ...' of a cost, or '' for a run without samples."""
    parts = []
    for key, what in (("cpu", "at the maximum"), ("rate_cpu", "at the fixed rate")):
        if c.get(key + "_ratio") is not None:
            floor = c.get(key + "_floor")
            parts.append("%s %.2fx (floor %s: %s)" % (what, c[key + "_ratio"],
                                                      "not measured" if floor is None else "%.2fx" % floor,
                                                      c.get(key + "_change")))
    return "; the nodes' CPU per request %s" % ", ".join(parts) if parts else ""


def markdown(r, out=None):
    env = r["env"]
    clusters = modes_of(env)
    modes = rate_modes_of(env)
    rate = env.get("reference_rate")
    lines = [
        "# TLS on the member plane and on the client port: what it costs a 3-node cluster",
        "",
        "Written by `make bench-cluster-tls` (%s) on %s, commit %s%s, "
        "%s CPUs (%s), %s. %s 3-node clusters side by side on one machine at replicas=%s, one in plaintext (its member "
        "plane on loopback), one with its member plane in mutual TLS 1.3 (the JDK's SSLEngine, EC P-256 "
        "certificates)%s, all started fresh for each of %s rounds; one is loaded at a time. Maximum throughput: wrk, %s threads, %s connections "
        "spread over the nodes, %s s (in two halves) after a warm-up of %s s (PUT; GET half of it) in the same wrk process "
        "(its connections, TLS handshakes included, opened once, before the warm-up; the window counted from wrk's "
        "own per-second counts), PUT of unique keys then GET over them, one cluster after the other. Latency: oha at %s req/s (open model, "
        "--latency-correction), PUT then GET, in %s slices of %s s per cluster, the clusters taking turns, after %s s "
        "at the rate unrecorded on each%s.%s Load before/after: %s / %s."
        % (env.get("driver", "scripts/bench-cluster-tls.sh"), env.get("date"), env.get("commit"), " (uncommitted changes)" if env.get("dirty", "0") != "0" else "",
           env.get("nproc"), env.get("cpu"), env.get("java"), "Three" if "client" in clusters else "Two",
           env.get("replicas"), client_cluster(env) if "client" in clusters else "", env.get("rounds"),
           env.get("threads"), env.get("connections"), env.get("duration"), env.get("warmup"), rate,
           env.get("slices"), env.get("slice"), env.get("rate_warmup", "0"),
           ("; before them every member of both clusters flushed its memtables and finished its compactions"
           if env.get("flushed_before_rate") == "1" else "") + settled(env), pinned(env),
           env.get("load_before"), env.get("load_after")),
        "",
        "| round | TLS | PUT req/s | GET req/s | PUT p50 / p99 ms at %s/s | GET p50 / p99 ms at %s/s | "
        "failed at the rate | replica call errors | TLS handshake failures |" % (rate, rate),
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for x in r["rounds"]:  # the cert slices' cluster counters are the client-TLS cluster's line
        lines.append("| %d | %s | %s | %s | %s / %s | %s / %s | %d | %s | %s |" % (
            x["round"], LABELS.get(x["mode"], x["mode"]), fmt(x["put_rps"], 0), fmt(x["get_rps"], 0), fmt(x["put_p50_ms"]),
            fmt(x["put_p99_ms"]), fmt(x["get_p50_ms"]), fmt(x["get_p99_ms"]),
            x["put_rate_failed"] + x["get_rate_failed"], fmt(x.get("replica_call_errors"), 0),
            fmt(x.get("handshake_failures"), 0)))
    for mode in modes:
        m, o = r["means"][mode], r["overall"][mode]
        lines.append("| all | %s | %s (mean) | %s (mean) | %s (%d requests) | %s (%d requests) | | | |" % (
            LABELS.get(mode, mode), fmt(m["put_rps"], 0), fmt(m["get_rps"], 0), fmt(o["put_p99_ms"]), o["put_requests"],
            fmt(o["get_p99_ms"]), o["get_requests"]))
    if any(x.get("put_warmup_s") is not None for x in r["rounds"]):
        lines += ["", "The JIT around the maximum runs: seconds of compiling over the cluster's three nodes (the JVM's "
                  "compilation time, which on a shared CPU includes the compiler threads' waits), in the warm-up and "
                  "in the measured window of %s s." % env.get("duration"), "",
                  "| round | TLS | PUT warm-up s | JIT s in it | JIT s in the PUT window | GET warm-up s | JIT s in it "
                  "| JIT s in the GET window |", "|---|---|---:|---:|---:|---:|---:|---:|"]
        for x in r["rounds"]:
            if x.get("put_warmup_s") is None:
                continue
            lines.append("| %d | %s | %s | %s | %s | %s | %s | %s |" % (
                x["round"], LABELS.get(x["mode"], x["mode"]), fmt(x.get("put_warmup_s"), 0),
                fmt(x.get("put_warmup_jit_s")), fmt(x.get("put_window_jit_s")), fmt(x.get("get_warmup_s"), 0),
                fmt(x.get("get_warmup_jit_s")), fmt(x.get("get_window_jit_s"))))
    lines += cpu_table(r)
    t = r["targets"]
    lines += ["", "Each slice's p99 (ms), all rounds, in the order run:", ""]
    for op in ("put", "get"):
        for mode in modes:
            o = r["overall"][mode]
            marks = o.get(op + "_slice_flushed") or []
            lines.append("- %s %s: %s (median %s%s)" % (op.upper(), LABELS.get(mode, mode), ", ".join(
                fmt(v) + ("*" if i < len(marks) and marks[i] else "")
                for i, v in enumerate(o.get(op + "_slice_p99s_ms", []))), fmt(o.get(op + "_slice_p99_median_ms")),
                "" if o.get(op + "_quiet_slice_p99_median_ms") is None
                else "; without the * slices %s" % fmt(o.get(op + "_quiet_slice_p99_median_ms"))))
    if any(any(r["overall"][m].get(op + "_slice_flushed") or []) for m in modes for op in ("put", "get")):
        lines += ["", "\\* a member of the loaded cluster flushed a memtable during the slice (its flush counter "
                  "moved). The three replicas get the same writes and flush within a second of each other: about a "
                  "core of the machine's two, in either mode."]
    lines += ["", "TLS cost: throughput over the rounds' means. The p99 three ways: over every request of every round; "
              "round by round (TLS against the cluster it is compared with, of the same round) and the median of "
              "those; the median slice's p99 of each mode (a few slices, in either mode, hold most requests above "
              "p99: a flush, a pause). The p99 target counts as met only when all three are within it. Beside each, "
              "the noise floor of identical windows of the two clusters compared, in this run: throughput, the "
              "largest change between the two halves of a measured run; p99, between consecutive slices of a "
              "round (%s-s windows: wider than the pooled p99's own spread). \"Beside the floor\": the ratio "
              "judged against the target only when it is further from it than the floor (else not separable here)."
              % env.get("slice", "10"), ""]
    for key, what in (("cost", "member TLS"), ("client_cost", "client TLS"), ("both_cost", "member and client TLS"),
                      ("cert_cost", "client certificates")):
        if key not in r:
            continue
        for op in ("put", "get"):
            c = r[key][op]
            by_round = c.get("p99_ratios_by_round") or []
            lines.append("- **%s, %s** (against %s): throughput %s; p99 at the fixed rate "
                         "%s; by round %s, median %s; median slice %s" % (
                             what, op.upper(), LABELS.get(r[key].get("base", "plain")),
                             "not measured" if c["throughput_loss"] is None else "lost %s (negative: gained)"
                             % verdict(c["throughput_loss"], t["max_throughput_loss"], False),
                             verdict(c["p99_ratio"], t["max_p99_ratio"], True),
                             ", ".join("%.2fx" % v for v in by_round) or "none",
                             verdict(c.get("p99_ratio_median"), t["max_p99_ratio"], True),
                             verdict(c.get("slice_p99_median_ratio"), t["max_p99_ratio"], True))
                         + ("" if not c.get("slice_p99_ratios") or key != "cert_cost" else
                            "; slice by slice (each slice over its pair's without a certificate) %s, median %.2fx "
                            "(shown, not judged)" % (", ".join("%.2fx" % v for v in c["slice_p99_ratios"]),
                                                     c["slice_p99_ratio_median"]))
                         + ("" if c.get("quiet_slice_p99_median_ratio") is None else
                            "; median slice without a flush %.2fx (shown, not judged)"
                            % c["quiet_slice_p99_median_ratio"])
                         + ("" if not float(env.get("slice_settle", "0")) or c.get("p99_ratio_with_setup") is None
                            else "; with each slice's first %s s %.2fx (shown, not judged)"
                            % (env.get("slice_settle"), c["p99_ratio_with_setup"]))
                         + beside(c) + cpu_words(c) + (pairing_words(r[key].get("pairing")) if key == "cert_cost"
                                                       else ""))
    lines += ["", "Member connections are pooled and pipelined, so handshakes are rare (one per connection) and a TLS "
              "record carries many requests; what remains is the encryption of every byte between members and the "
              "SSLEngine's copies. The client port's connections are the load generators' own, kept alive (one "
              "handshake each): what the client TLS costs is the encryption of every request and answer at the "
              "coordinator. The TLS handshake failures of a client-TLS cluster are the bench's own plaintext "
              "readiness polls (one per node, answered 400).", ""]
    return "\n".join(lines)


def main(argv):
    return report_main(argv, "cluster-tls", collect, markdown, __doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
