"""dhtcheck: writes and reads back keys of a dht cluster and says exactly what it saw (make e2e's Jobs).

Standard library only: it runs in the load-runner image (python3 /opt/dht/py/dhtcheck.py ...) and on a laptop.

  write  --target URL --prefix P --count N --run R PUT P-0 .. P-(N-1) (value: "<P>-<i>:<R>"); prints the
                                                  acknowledged (201) keys as ranges on an "ACKED" line, and in
                                                  its RESULT how many were acknowledged in each second (wall
                                                  clock), failures by cause
  read   --target URL --prefix P --keys RANGES --run R
                                                  GET every key once, checks status 200 and the value "<key>:<R>"
                                                  (a value an earlier run left is wrong); with --local, from
                                                  that member's own store only (an internal GET on its member
                                                  port: the URL given), no other replica asked
  watch  --target URL --prefix P --keys RANGES --run R --stop-key K
                                                  GETs the keys round and round until key K exists, on kept-alive
                                                  connections (--new-connections: one per request); every failed
                                                  or wrong read is counted (a rolling update must cause none)
  put    --target URL --key K --value V           one PUT (make e2e's stop signal)
  idle   --members URL,URL,... --max-seconds S     polls every member's GET /v0/admin/movement until each says
                                                  "idle", on a stable topology whose members are exactly URL,...
  metric --members URL,URL,... --name SAMPLE      each member's value of one sample of GET /metrics (SAMPLE as
                                                  printed there, labels included: jvm_memory_max_bytes{area="heap"})

write --stop-key K ends the writes early once key K exists (a writer that runs while the cluster scales).

With DHT_TOKEN in the environment (a cluster with client tokens: the Jobs get it from the cluster's Secret) every
request carries "Authorization: Bearer $DHT_TOKEN". An https:// URL (a cluster whose client port speaks TLS) is
called trusting the CA bundle at $DHT_CA and, with $DHT_CLIENT_CERT and $DHT_CLIENT_KEY, presenting that client
certificate (a DhtUser's Secret); the files are read again when they change, for the next connection, as a client
must during a certificate renewal or a CA replacement.

Every command ends with one line "RESULT {json}" and exits 0 only if nothing failed (write: if every write
was acknowledged, unless --allow-failures). A failure's cause is its HTTP status or, when no answer came, the
error (ConnectionRefusedError, ConnectionResetError, RemoteDisconnected, TimeoutError, ...). Requests use the cluster's default replicas (quorum) unless
--replicas is given. RANGES: "0-9999,12000-12999" or @FILE holding that text.
"""
import argparse
import http.client
import json
import os
import ssl
import sys
import threading
import time
import urllib.parse


def parse_ranges(text):
    if text.startswith("@"):
        with open(text[1:], encoding="ascii") as f:
            text = f.read()
    keys = []
    for part in text.strip().split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        keys.extend(range(int(lo), int(hi or lo) + 1))
    return keys


def format_ranges(indexes):
    out, start, prev = [], None, None
    for i in sorted(indexes):
        if start is None:
            start = prev = i
        elif i == prev + 1:
            prev = i
        else:
            out.append(f"{start}-{prev}" if prev != start else str(start))
            start = prev = i
    if start is not None:
        out.append(f"{start}-{prev}" if prev != start else str(start))
    return ",".join(out)


def bearer():
    """The Authorization header of DHT_TOKEN (a cluster with client tokens), or none."""
    token = os.environ.get("DHT_TOKEN")
    return {"Authorization": "Bearer " + token} if token else {}


class ClientTls:
    """The client port's TLS as a Job holds it: the CA bundle, maybe a client certificate; the context is made
    again when one of the files changed (the kubelet delivers a renewed certificate or a new bundle to the mount)."""

    def __init__(self, ca, cert=None, key=None):
        self.files = [f for f in (ca, cert, key) if f]
        self.ca, self.cert, self.key = ca, cert, key
        self.lock = threading.Lock()
        self.seen, self.ctx = None, None

    def context(self):
        with self.lock:
            stamp = tuple((st.st_mtime_ns, st.st_size, st.st_ino) for st in map(os.stat, self.files))
            if stamp != self.seen:
                ctx = ssl.create_default_context(cafile=self.ca)
                if self.cert:
                    ctx.load_cert_chain(self.cert, self.key)
                self.ctx, self.seen = ctx, stamp
            return self.ctx


CLIENT_TLS = None


def client_tls():
    """DHT_CA (and DHT_CLIENT_CERT, DHT_CLIENT_KEY) as one ClientTls per process, or None."""
    global CLIENT_TLS
    if CLIENT_TLS is None and os.environ.get("DHT_CA"):
        CLIENT_TLS = ClientTls(os.environ["DHT_CA"], os.environ.get("DHT_CLIENT_CERT") or None,
                               os.environ.get("DHT_CLIENT_KEY") or None)
    return CLIENT_TLS


def connection(base, timeout, tls=None):
    """An HTTP connection to a base URL: https:// over TLS (the context given, else the Job's client TLS)."""
    u = urllib.parse.urlsplit(base)
    if u.scheme == "https" or tls is not None:
        holder = tls or client_tls()
        ctx = holder.context() if isinstance(holder, ClientTls) else holder
        return http.client.HTTPSConnection(u.hostname, u.port or 443, timeout=timeout, context=ctx)
    return http.client.HTTPConnection(u.hostname, u.port or 80, timeout=timeout)


class Client:
    """One HTTP/1.1 connection, kept alive until the server says Connection: close (or a request fails), then
    reopened; never retried: a failure counts. keep_alive=False opens one per request, as a client that does not
    pool would."""

    def __init__(self, base, timeout, keep_alive=True, tls=None):
        self.base = base
        self.timeout, self.keep_alive, self.conn, self.tls = timeout, keep_alive, None, tls

    def request(self, method, path, body=None, extra=None):
        if self.conn is None:
            try:
                self.conn = connection(self.base, self.timeout, self.tls)
            except (OSError, ssl.SSLError) as e:  # the CA or certificate files cannot be read
                return None, type(e).__name__
        headers = {} if self.keep_alive else {"Connection": "close"}
        headers.update(bearer())
        headers.update(extra or {})
        try:
            self.conn.request(method, path, body=body, headers=headers)
            resp = self.conn.getresponse()
            data = resp.read()
            if not self.keep_alive or resp.will_close:
                self.close()
            return resp.status, data
        except (OSError, http.client.HTTPException) as e:
            self.close()
            return None, type(e).__name__

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def cause_of(status, body):
    """What a failed request met: its HTTP status, or the error when no answer came."""
    return str(status) if status is not None else str(body)


def acked_after(result, t):
    """Writes of a write RESULT acknowledged in the wall-clock seconds wholly after time t (a lower bound)."""
    return sum(n for s, n in result.get("acked_per_second", {}).items() if int(s) > t)


def entity_path(key, replicas):
    path = "/v0/entity?id=" + urllib.parse.quote(key, safe="")
    return path + ("&replicas=" + replicas if replicas else "")


def key_of(prefix, i):
    return f"{prefix}-{i}"


class Pacer:
    """Spreads calls evenly at `rate` per second over all threads (0: no limit)."""

    def __init__(self, rate):
        self.interval = 1.0 / rate if rate > 0 else 0.0
        self.next = time.monotonic()
        self.lock = threading.Lock()

    def wait(self):
        if not self.interval:
            return
        with self.lock:
            slot = max(self.next, time.monotonic())
            self.next = slot + self.interval
        delay = slot - time.monotonic()
        if delay > 0:
            time.sleep(delay)


def run_parallel(n_threads, items, work):
    """Splits items over threads; work(client_index, item) runs for each."""
    chunks = [items[t::n_threads] for t in range(n_threads)]
    threads = [threading.Thread(target=lambda c=c, t=t: [work(t, x) for x in c]) for t, c in enumerate(chunks)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()


def result(payload, ok):
    print("RESULT " + json.dumps(payload, sort_keys=True), flush=True)
    return 0 if ok else 1


def cmd_write(a):
    run = a.run
    clients = [Client(a.target, a.timeout) for _ in range(a.threads)]
    acked, failures, lock, done = [], {}, threading.Lock(), [0]
    timeline, failed_at = {}, {}  # wall-clock second -> acknowledged / failed writes in it

    pace = Pacer(a.rate)
    stop = threading.Event()
    if a.stop_key:
        threading.Thread(target=watch_stop_key, args=(a, stop), daemon=True).start()

    def work(t, i):
        if stop.is_set():
            return
        pace.wait()
        status, body = clients[t].request("PUT", entity_path(key_of(a.prefix, i), a.replicas),
                                          f"{key_of(a.prefix, i)}:{run}".encode())
        second = str(int(time.time()))
        with lock:
            if status == 201:
                acked.append(i)
                timeline[second] = timeline.get(second, 0) + 1
            else:
                cause = cause_of(status, body)
                failures[cause] = failures.get(cause, 0) + 1
                failed_at[second] = failed_at.get(second, 0) + 1
            done[0] += 1
            if done[0] % a.progress == 0:
                print(f"progress {done[0]}", flush=True)

    print("started", flush=True)
    start = time.monotonic()
    run_parallel(a.threads, list(range(a.count)), work)
    elapsed = time.monotonic() - start
    print("ACKED " + format_ranges(acked), flush=True)
    written = done[0]
    return result({"command": "write", "prefix": a.prefix, "run": run, "written": written, "acked": len(acked),
                   "failed": written - len(acked), "failures": failures, "seconds": round(elapsed, 1),
                   "acked_per_second": timeline, "failed_per_second": failed_at,
                   "stopped_by": "stop-key" if stop.is_set() else "count"},
                  a.allow_failures or len(acked) == written)


def watch_stop_key(a, stop):
    """Sets `stop` once the key a.stop_key reads 200 (checked every second)."""
    client = Client(a.target, a.timeout, keep_alive=False)
    while not stop.is_set():
        status, _ = client.request("GET", "/v0/entity?id=" + urllib.parse.quote(a.stop_key, safe=""))
        if status == 200:
            stop.set()
            return
        time.sleep(1)


def member_tls(directory):
    """The TLS context of a member's own certificate (tls.crt, tls.key, ca.crt in directory: the cluster's member
    Secret), for --local reads from a member port that speaks mutual TLS; None without a directory."""
    if not directory:
        return None
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_cert_chain(os.path.join(directory, "tls.crt"), os.path.join(directory, "tls.key"))
    ctx.load_verify_locations(os.path.join(directory, "ca.crt"))
    return ctx


def stored_value(record):
    """The value of a record as a member stores it (internal answers): version 1, flags (bit 0: tombstone),
    8 bytes of timestamp, the value. None for a tombstone."""
    if len(record) < 10 or record[0] != 1:
        raise ValueError("not a stored record")
    return None if record[1] & 1 else record[10:]


def check_read(client, a, i):
    """'ok', 'missing' (404, or a tombstone), 'wrong' (another value) or 'failed:<status or error>'."""
    if getattr(a, "local", False):
        # the member protocol names its sender's release: a cluster at feature level 2 refuses requests naming none
        status, body = client.request("GET", entity_path(key_of(a.prefix, i), ""), extra={"X-Dht-Internal": "1", "X-Dht-Release": "dhtcheck"})
        if status == 200:
            try:
                body = stored_value(body)
            except ValueError:
                return "failed:garbled"
            if body is None:
                return "missing"
    else:
        status, body = client.request("GET", entity_path(key_of(a.prefix, i), a.replicas))
    if status == 200:
        value = body.decode("utf-8", "replace")
        return "ok" if value == f"{key_of(a.prefix, i)}:{a.run}" else "wrong"
    if status == 404:
        return "missing"
    return f"failed:{cause_of(status, body)}"


def cmd_read(a):
    keys = parse_ranges(a.keys)
    clients = [Client(a.target, a.timeout, tls=member_tls(a.member_tls)) for _ in range(a.threads)]
    counts, bad, lock, retried = {}, [], threading.Lock(), []

    def work(t, i):
        # A read back asks whether the key is there: a request that failed (a 504 when a starved member answers
        # late) is asked again, at most twice; a missing or wrong value never is. The watch command stays strict.
        outcome = check_read(clients[t], a, i)
        for _ in range(2):
            if not outcome.startswith("failed"):
                break
            with lock:
                retried.append(f"{key_of(a.prefix, i)}={outcome}")
            outcome = check_read(clients[t], a, i)
        with lock:
            counts[outcome] = counts.get(outcome, 0) + 1
            if outcome != "ok" and len(bad) < 20:
                bad.append(f"{key_of(a.prefix, i)}={outcome}")

    start = time.monotonic()
    run_parallel(a.threads, keys, work)
    ok = counts.get("ok", 0)
    return result({"command": "read", "target": a.target, "keys": len(keys), "ok": ok, "outcomes": counts,
                   "examples": bad, "retried": len(retried), "retried_examples": retried[:5],
                   "seconds": round(time.monotonic() - start, 1)}, ok == len(keys))


def cmd_watch(a):
    keys = parse_ranges(a.keys)
    stop_client = Client(a.target, a.timeout, keep_alive=False)
    clients = [Client(a.target, a.timeout, keep_alive=not a.new_connections) for _ in range(a.threads)]
    counts, bad, lock, stop = {}, [], threading.Lock(), threading.Event()
    deadline = time.monotonic() + a.max_seconds

    def reader(t):
        n = t
        while not stop.is_set():
            i = keys[n % len(keys)]
            n += a.threads
            outcome = check_read(clients[t], a, i)
            with lock:
                counts[outcome] = counts.get(outcome, 0) + 1
                if outcome != "ok" and len(bad) < 50:
                    bad.append(f"{time.strftime('%H:%M:%S')} {key_of(a.prefix, i)}={outcome}")

    threads = [threading.Thread(target=reader, args=(t,)) for t in range(a.threads)]
    print("started", flush=True)
    start = time.monotonic()
    for th in threads:
        th.start()
    stopped_by = "deadline"
    while time.monotonic() < deadline:
        status, _ = stop_client.request("GET", "/v0/entity?id=" + urllib.parse.quote(a.stop_key, safe=""))
        if status == 200:
            stopped_by = "stop-key"
            break
        time.sleep(1)
    stop.set()
    for th in threads:
        th.join()
    total = sum(counts.values())
    ok = counts.get("ok", 0)
    return result({"command": "watch", "target": a.target, "reads": total, "ok": ok, "outcomes": counts,
                   "examples": bad, "stopped_by": stopped_by, "seconds": round(time.monotonic() - start, 1)},
                  stopped_by == "stop-key" and total > 0 and ok == total)


def movement(url, timeout):
    """A member's GET /v0/admin/movement as a dict, or {"error": ...}."""
    status, body = Client(url, timeout, keep_alive=False).request("GET", "/v0/admin/movement")
    if status != 200:
        return {"error": f"status {status if status is not None else body}"}
    try:
        return json.loads(body)
    except ValueError as e:
        return {"error": f"not JSON: {e}"}


def host_port(url):
    """A member URL without its scheme: the topology names members http://host:port (docs/security.md) while a
    client of a TLS client port calls them https://host:port."""
    return url.split("://", 1)[-1]


def idle_on(m, members):
    """Whether a movement answer says: nothing left to move, on the stable topology `members`."""
    t = m.get("topology") or {}
    return (m.get("state") == "idle" and t.get("phase") == "stable"
            and sorted(host_port(u) for u in t.get("members") or []) == sorted(host_port(u) for u in members))


def cmd_idle(a):
    members = sorted(u for u in a.members.split(",") if u)
    deadline = time.monotonic() + a.max_seconds
    start = time.monotonic()
    while True:
        seen = {u: movement(u, a.timeout) for u in members}
        waiting = {u: m for u, m in seen.items() if not idle_on(m, members)}
        if not waiting or time.monotonic() >= deadline:
            break
        time.sleep(1)
    brief = {u: m.get("error") or f"{m.get('state')}/{(m.get('topology') or {}).get('phase')}"
                                     f" members={len((m.get('topology') or {}).get('members') or [])}"
                                     f" keys_left={(m.get('keys') or {}).get('left')}"
             for u, m in waiting.items()}
    return result({"command": "idle", "members": len(members), "idle": len(members) - len(waiting),
                   "waiting": brief, "seconds": round(time.monotonic() - start, 1)}, not waiting)


def sample(text, name):
    """The value of the sample printed exactly as `name` (labels included) in Prometheus text, or None."""
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line[len(name) + 1:].split()[0])
    return None


def cmd_metric(a):
    members = [u for u in a.members.split(",") if u]
    values, problems = {}, {}
    for u in members:
        status, body = Client(u, a.timeout, keep_alive=False).request("GET", "/metrics")
        v = sample(body.decode("utf-8", "replace"), a.name) if status == 200 else None
        if v is None:
            problems[u] = f"status {status}" if status != 200 else f"no sample {a.name}"
        else:
            values[u] = v
    return result({"command": "metric", "name": a.name, "values": values, "problems": problems},
                  not problems and len(values) == len(members) > 0)


def cmd_put(a):
    status, body = Client(a.target, a.timeout).request("PUT", entity_path(a.key, a.replicas), a.value.encode())
    return result({"command": "put", "key": a.key, "status": status}, status == 201)


def main(argv):
    p = argparse.ArgumentParser(prog="dhtcheck", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)

    def common(sp):
        sp.add_argument("--target", required=True, help="base URL of a member or of the client Service")
        sp.add_argument("--replicas", default="", help="ack/from (default: the cluster's quorum)")
        sp.add_argument("--timeout", type=float, default=5.0, help="seconds per request")
        sp.add_argument("--threads", type=int, default=8)

    w = sub.add_parser("write"); common(w)
    w.add_argument("--prefix", required=True); w.add_argument("--count", type=int, required=True)
    w.add_argument("--run", required=True, help="written into every value; reads expect it")
    w.add_argument("--progress", type=int, default=1000, help="print a progress line every N writes")
    w.add_argument("--rate", type=float, default=0, help="writes per second at most (0: as fast as answered)")
    w.add_argument("--allow-failures", action="store_true", help="exit 0 even if some writes failed")
    w.add_argument("--stop-key", default="", help="stop writing once this key exists")
    r = sub.add_parser("read"); common(r)
    r.add_argument("--prefix", required=True); r.add_argument("--keys", required=True)
    r.add_argument("--run", required=True, help="the run the values were written by")
    r.add_argument("--local", action="store_true",
                   help="read the member's own store only (--target is its member port: client port + 10000)")
    r.add_argument("--member-tls", default="",
                   help="with --local: a directory with the member certificate (tls.crt, tls.key, ca.crt) for a"
                        " member port with mutual TLS (--target https://<its name in the certificate>:port)")
    wa = sub.add_parser("watch"); common(wa)
    wa.add_argument("--prefix", required=True); wa.add_argument("--keys", required=True)
    wa.add_argument("--run", required=True, help="the run the values were written by")
    wa.add_argument("--stop-key", required=True); wa.add_argument("--max-seconds", type=float, default=600)
    wa.add_argument("--new-connections", action="store_true",
                    help="a new connection per request (default: kept alive, reopened only when the server closes)")
    pu = sub.add_parser("put"); common(pu)
    pu.add_argument("--key", required=True); pu.add_argument("--value", default="1")
    i = sub.add_parser("idle")
    i.add_argument("--members", required=True, help="every member's base URL, comma-separated")
    i.add_argument("--timeout", type=float, default=5.0, help="seconds per request")
    i.add_argument("--max-seconds", type=float, default=600)
    m = sub.add_parser("metric")
    m.add_argument("--members", required=True, help="every member's base URL, comma-separated")
    m.add_argument("--name", required=True, help='a sample as /metrics prints it: jvm_memory_max_bytes{area="heap"}')
    m.add_argument("--timeout", type=float, default=5.0, help="seconds per request")
    a = p.parse_args(argv)
    return {"write": cmd_write, "read": cmd_read, "watch": cmd_watch, "put": cmd_put, "idle": cmd_idle,
            "metric": cmd_metric}[a.command](a)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
