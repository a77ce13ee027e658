"""The load and what a window measures: wrk (closed model: a fixed number of connections, each sending its next
request when the last one is answered: the maximum throughput), oha at a fixed rate with --latency-correction
(open model: every request measured from when it was due, so a stall counts for every request it delays), and the
CPU the servers' processes used during the window (from /proc: CPU per request is what a change to the request path
moves, and it is less noisy than either). Their outputs are kept as written and parsed here. Standard library only.
"""
import glob
import json
import math
import os
import re
import subprocess

CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
VALUE = "0123456789" * 10  # the 100-byte value every PUT sends (wrk's scripts send the same)


def percentile(sorted_values, p, rank="round"):
    """The sample of an ascending list at percentile p (0-100), None when empty. Three rank rules, each kept because
    committed reports were computed with it (change one and they stop being comparable with the new ones):
    - "round" (the scenario reports, benchraw.window): rank round(p% of n + 0.5) (1-based, clamped; Python's round,
      half to even): about half a rank above the nearest rank (p99 of 100 samples is the largest);
    - "nearest" (the runner's tapes, k6's and oha's): the nearest rank, ceil(p% of n) (1-based, clamped);
    - "next" (defaults-report.py): index int(n * p / 100) (0-based, clamped): the nearest rank, or the one after it
      when p% of n is whole. (n * p / 100.0 floors as the report's n * 0.999 did for every n below 3,000,000.)"""
    if not sorted_values:
        return None
    n = len(sorted_values)
    if rank == "round":
        i = int(round(p / 100.0 * n + 0.5)) - 1
    elif rank == "nearest":
        i = math.ceil(p / 100.0 * n) - 1
    elif rank == "next":
        i = int(n * p / 100.0)
    else:
        raise ValueError("rank: round, nearest or next, not %r" % rank)
    return sorted_values[min(n - 1, max(0, i))]


def ms(text):
    """wrk's durations: '1.23ms' / '812.00us' / '1.01s' / '2.00m' -> milliseconds, or None."""
    m = re.match(r"([\d.]+)(us|ms|s|m)$", text.strip())
    if not m:
        return None
    v, unit = float(m.group(1)), m.group(2)
    return {"us": v / 1000, "ms": v, "s": v * 1000, "m": v * 60000}[unit]


def parse_wrk(text):
    """wrk's report (with --latency): req/s, p50/p75/p90/p99, max, requests, non-2xx, socket errors, and the
    KEYS_PER_THREAD line the PUT scripts print; None for a report without a rate (wrk failed)."""
    m = re.search(r"Requests/sec:\s*([\d.]+)", text)
    if not m:
        return None
    r = {"rps": float(m.group(1))}
    for p in ("50", "75", "90", "99"):
        m = re.search(r"^\s+%s%%\s+(\S+)" % p, text, re.M)
        r["p%s_ms" % p] = ms(m.group(1)) if m else None
    m = re.search(r"Latency\s+\S+\s+\S+\s+(\S+)", text)
    r["max_ms"] = ms(m.group(1)) if m else None
    m = re.search(r"(\d+) requests in", text)
    r["requests"] = int(m.group(1)) if m else None
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    r["non_2xx"] = int(m.group(1)) if m else 0
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    r["socket_errors"] = sum(int(x) for x in m.groups()) if m else 0
    m = re.search(r"^KEYS_PER_THREAD (\d+)", text, re.M)
    if m:
        r["keys_per_thread"] = int(m.group(1))
    return r


def parse_oha(doc):
    """oha's JSON summary (--output-format json): achieved req/s, p50/p90/p99/p99.9 and max in ms, status codes,
    answers other than 2xx, errors without an answer (the requests still in flight when -z ended are not errors)."""
    lp = doc.get("latencyPercentiles") or {}
    codes = doc.get("statusCodeDistribution") or {}
    errors = dict(doc.get("errorDistribution") or {})
    deadline = errors.pop("aborted due to deadline", 0)

    def pms(key):
        v = lp.get(key)
        return None if v is None else v * 1000

    summary = doc.get("summary") or {}
    return {
        "rps": summary.get("requestsPerSec"),
        "p50_ms": pms("p50"), "p90_ms": pms("p90"), "p99_ms": pms("p99"), "p999_ms": pms("p99.9"),
        "max_ms": summary["slowest"] * 1000 if summary.get("slowest") else None,
        "status": codes, "ok": sum(v for k, v in codes.items() if k.startswith("2")),
        "non_2xx": sum(v for k, v in codes.items() if not k.startswith("2")),
        "errors": sum(errors.values()), "error_kinds": errors, "aborted_at_deadline": deadline,
    }


def wrk_command(binary, url, seconds, script, args=(), threads=2, connections=64):
    return [binary, "-t%d" % threads, "-c%d" % connections, "-d%ds" % seconds, "--latency", "-s", script, url,
            "--", *[str(a) for a in args]]


def wrk(binary, url, seconds, script, args=(), env=None, threads=2, connections=64, out=None):
    """One wrk run; its report is written to out (when given) and returned parsed (None if wrk failed)."""
    cmd = wrk_command(binary, url, seconds, script, args, threads, connections)
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, **(env or {})),
                       timeout=seconds + 60)
    text = p.stdout + p.stderr
    if out:
        with open(out, "w", encoding="utf-8") as f:
            f.write("$ %s\n%s" % (" ".join(cmd), text))
    return parse_wrk(text)


def number(v):
    """A rate or a duration as oha takes it: 1000.0 -> '1000', 333.3333 -> '333.333'."""
    return "%d" % v if float(v) == int(v) else "%g" % v


def fixed_rate(rate, seconds, wait=False):
    """oha's options of an open-model window: RATE req/s for SECONDS with --latency-correction (each request
    measured from when it was due); wait: -w, the requests in flight at the end are awaited, not aborted."""
    return ["-z", "%ss" % number(seconds), "-q", number(rate), "--latency-correction"] + (["-w"] if wait else [])


def oha_command(binary, method, url, connections, extra=(), body=VALUE, urls_file=False, connect_to=(), token=None,
                tls=None):
    """Every oha command line of scripts/bench (the harness's windows and loads, the runner's tapes): options extra
    (fixed_rate, -n, the output) first, then CONNECTIONS, the method (PUTs send body), a bearer token (DHT_TOKEN, a
    cluster with spec.auth: shown() hides it), tls = (CA file, client certificate, its key) for https:// targets
    (each may be None), connect_to = [(host:port, host:port)] (requests to the first address go to the second),
    and the URLs: a regex (--rand-regex-url) or, urls_file, a file of URLs one a line."""
    cmd = [binary, *extra, "-c", str(connections), "--no-tui", "-m", method]
    if method == "PUT":
        cmd += ["-d", body]
    if token:
        cmd += ["-H", "Authorization: Bearer " + token]
    ca, cert, key = tls or (None, None, None)
    if ca:
        cmd += ["--cacert", ca]
    if cert:
        cmd += ["--cert", cert, "--key", key]
    for src, dst in connect_to:
        cmd += ["--connect-to", "%s:%s" % (src, dst)]
    cmd += ["--urls-from-file", url] if urls_file else ["--rand-regex-url", url]
    return cmd


def client_tls():
    """(DHT_CA, DHT_CLIENT_CERT, DHT_CLIENT_KEY) from the environment (a client port with TLS), or None."""
    names = ("DHT_CA", "DHT_CLIENT_CERT", "DHT_CLIENT_KEY")
    values = tuple(os.environ.get(n) or None for n in names)
    return values if any(values) else None


def shown(cmd):
    """The command as a log shows it: a bearer token is not written to the results."""
    return " ".join("Authorization: Bearer ***" if a.startswith("Authorization: Bearer ") else a for a in cmd)


def oha(binary, url_regex, method, rate, seconds, connections=64, out=None):
    """One oha run at a fixed rate with latency correction over the URLs of a regex; PUTs send VALUE. Its JSON is
    written to out (when given) and returned parsed (None if oha wrote none)."""
    cmd = oha_command(binary, method, url_regex, connections,
                      fixed_rate(rate, int(seconds)) + ["--output-format", "json"])
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 60)
    if out:
        with open(out, "w", encoding="utf-8") as f:
            f.write(p.stdout)
        if p.stderr.strip():
            with open(out + ".err", "w", encoding="utf-8") as f:
                f.write(p.stderr)
    try:
        return parse_oha(json.loads(p.stdout))
    except ValueError:
        return None


def ticks(pid, comm_prefix=None):
    """CPU ticks (user + system) so far of a process, or (comm_prefix) of its threads whose name starts so."""
    paths = glob.glob("/proc/%d/task/*/stat" % pid) if comm_prefix else ["/proc/%d/stat" % pid]
    total = 0
    for path in paths:
        try:
            with open(path, encoding="ascii", errors="replace") as f:
                text = f.read()
        except OSError:  # a thread that ended since the glob
            continue
        name, fields = text[text.index("(") + 1:text.rindex(")")], text.rsplit(")", 1)[1].split()
        if comm_prefix is None or name.startswith(comm_prefix):
            total += int(fields[11]) + int(fields[12])
    return total


def cpu_seconds(pids):
    """CPU seconds (user + system) the processes used since they started; a process gone counts nothing."""
    return sum(ticks(pid) for pid in pids) / float(CLOCK_TICKS)


def core_busy_and_total(cores):
    """(busy, total) jiffies so far of the given CPUs (/proc/stat "cpuN" lines; busy: all but idle and iowait): the
    share of a load generator's own cores it kept busy, when the benchmark pins it apart from the servers."""
    busy = total = 0
    with open("/proc/stat", encoding="ascii") as f:
        for line in f:
            name, _, rest = line.partition(" ")
            if name.startswith("cpu") and name[3:].isdigit() and int(name[3:]) in cores:
                v = [int(x) for x in rest.split()[:8]]
                busy += sum(v) - v[3] - v[4]
                total += sum(v)
    return busy, total


def cpu_list(text):
    """A taskset CPU list ('0', '1-3', '0,2-3') as a set of CPU numbers; '' is the empty set."""
    cores = set()
    for part in filter(None, text.split(",")):
        a, _, b = part.partition("-")
        cores.update(range(int(a), int(b or a) + 1))
    return cores


def steal_and_total():
    """(steal, total) jiffies of the machine so far (/proc/stat): a neighbour on the hypervisor shows as steal."""
    with open("/proc/stat", encoding="ascii") as f:
        for line in f:
            if line.startswith("cpu "):
                v = [int(x) for x in line.split()[1:]]
                return v[7], sum(v[:8])
    return 0, 0


def main(argv):
    """python -m harness.load [--cores L] PID...: one line, the CPU seconds the processes used so far
    (cpu_seconds) and the busy and total jiffies of the CPUs of list L: a shell benchmark's samples around a window
    (this module alone, without the reports' plotting: a sample costs a python start, no more)."""
    cores = ""
    if argv[:1] == ["--cores"]:
        cores, argv = argv[1], argv[2:]
    busy, total = core_busy_and_total(cpu_list(cores))
    print("%.2f %d %d" % (cpu_seconds([int(p) for p in argv]), busy, total))


if __name__ == "__main__":
    import sys
    main(sys.argv[1:])
