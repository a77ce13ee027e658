"""dhtattack: sends the attacks of issue 21 to a dht cluster from wherever it runs, and says what each one got
(make e2e's step 10 runs it in pods of another namespace, in an unlabelled pod of the cluster's namespace and in a
hostNetwork pod). Standard library only: it runs in the load-runner image (python3 /opt/dht/py/dhtattack.py ...).

  attack   --members URL,URL,... [--times N] [--keys K1,K2] [--sidecar-port P] [--listen PORT]
           Every attack below, N times each, on every member: the client port (its URL), the member port (client
           port + 10000) and the profiler sidecar's port if given. Each must be refused: an HTTP answer that is not
           2xx/3xx, or no connection at all (a NetworkPolicy). With DHT_TOKEN in the environment the client-port
           requests carry it (an authenticated client must not reach the member protocol or the admin plane either).
           Members named https:// (a client port with TLS) are attacked over TLS without verifying them, and two
           more attacks try the port itself: plaintext (it must answer 400, TLS only) and, with --client-cert F
           --client-key F, a client certificate of another CA (the handshake must fail).
           --listen serves HTTP on that port and names it in the forged topology headers: a node that followed one
           would call it; the count of calls must stay 0.
  memberport --members URL,... [--times N] [--cert F --key F]
           From a pod that reaches the member port (hostNetwork: NetworkPolicies do not apply to the node's own
           traffic): plaintext HTTP, TLS without a client certificate and TLS with the given certificate (another
           CA's) must each get no HTTP answer.
  served   --members URL,... --member-tls DIR
           Mutual TLS to every member's member port with a member's credentials (tls.crt, tls.key and ca.crt in DIR:
           the cluster's Secret, as dhtcheck read --member-tls): prints the
           SHA-256 fingerprint of the certificate each member serves (a rotation has reached the node when it serves
           the new one).
  snapshot --members URL,...
           Each member's topology (GET /v0/admin/topology: version and members), its clock (the X-Dht-Clock of that
           answer) against this pod's wall clock, and its refusal counters (/metrics). Needs DHT_TOKEN (and for
           https:// members DHT_CA, as dhtcheck).

Every command ends with one line "RESULT {json}" and exits 0 only if nothing was let through (attack, memberport),
or every member answered (served, snapshot).
"""
import argparse
import hashlib
import http.client
import http.server
import json
import os
import socket
import ssl
import sys
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

from dhtcheck import bearer, connection, member_tls, result  # beside this file, in the image as here

MEMBER_PORT_OFFSET = 10000
LOGICAL_BITS = 16
# Just below the end of the clock's range: it once made a node's clock wrap and a worker spin for ever.
END_OF_RANGE = 2 ** 63 - 2
YEARS_AHEAD = (int(time.time() * 1000) + 2173 * 365 * 86_400_000) << LOGICAL_BITS
TIMEOUT = 4.0
# Every connection the member port or the sidecar accepted: where from, to where, when and what came back, so that
# a NetworkPolicy's miss can be traced to a pod address and a moment (kube-router's log, conntrack).
CONNECTED, CONNECTED_LOCK = [], threading.Lock()


def note_connected(s, outcome, data=b""):
    try:
        source, peer = "%s:%d" % s.getsockname()[:2], "%s:%d" % s.getpeername()[:2]
    except OSError:
        source = peer = "?"
    now = time.time()  # one reading: the second and its milliseconds must agree
    with CONNECTED_LOCK:
        CONNECTED.append({"from": source, "to": peer, "outcome": outcome, "first_bytes": data[:8].hex(),
                          "at": time.strftime("%H:%M:%S", time.gmtime(now)) + ".%03dZ" % (now % 1 * 1000)})


def host_port(url, offset=0):
    u = urllib.parse.urlsplit(url)
    return u.hostname, (u.port or 80) + offset


def attacker_tls(cert=None, keyfile=None):
    """TLS as an attacker speaks it to a client port that takes TLS only: any server will do (no verification),
    with no client certificate or with the given one (another CA's)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    if cert:
        ctx.load_cert_chain(cert, keyfile)
    return ctx


def record_frame(key, timestamp, value):
    """One frame of a PUT /v0/internal/records body as a mover sends it: key length, key, record length, record
    (a live record: timestamp then value). The node must refuse it before parsing anyway."""
    k = key.encode()
    record = timestamp.to_bytes(8, "big") + b"\x00" + value
    return len(k).to_bytes(4, "big") + k + len(record).to_bytes(4, "big") + record


def attacks(key, forged_url):
    forged = "99.s.0000000000000000.- " + forged_url
    return [
        ("replica-write", "PUT", "/v0/entity?id=" + key,
         {"X-Dht-Internal": "1", "X-Dht-Timestamp": str(END_OF_RANGE)}, b"forged"),
        ("replica-delete", "DELETE", "/v0/entity?id=" + key,
         {"X-Dht-Internal": "1", "X-Dht-Timestamp": str(END_OF_RANGE)}, None),
        ("clock-read", "GET", "/v0/entity?id=" + key, {"X-Dht-Internal": "1", "X-Dht-Clock": str(YEARS_AHEAD)}, None),
        ("clock-write", "PUT", "/v0/entity?id=" + key, {"X-Dht-Clock": str(YEARS_AHEAD)}, b"forged"),
        ("streamed-records", "PUT", "/v0/internal/records", {"X-Dht-Internal": "1"},
         record_frame(key, END_OF_RANGE, b"forged")),
        ("topology-header", "GET", "/v0/admin/topology", {"X-Dht-Topology": forged}, None),
        ("topology-exchange", "GET", "/v0/internal/topology", {"X-Dht-Internal": "1", "X-Dht-Topology": forged},
         None),
        ("cleanup", "POST", "/v0/admin/cleanup", {}, b""),
        ("profiler", "GET", "/v0/admin/profile?event=cpu&duration=1s&interval=1ms", {}, None),
    ]


def http_once(host, port, method, path, headers, body, note=False, tls=None):
    """'http-<status>', 'blocked:<why>' (no connection), 'tls-refused:<why>' (the handshake failed) or
    'error:<why>' (connected, no answer); with DHT_TOKEN's bearer header, over TLS with the context tls if given.
    note: a connection is recorded in CONNECTED."""
    headers = dict(headers, **bearer())
    conn = http.client.HTTPSConnection(host, port, timeout=TIMEOUT, context=tls) if tls \
        else http.client.HTTPConnection(host, port, timeout=TIMEOUT)
    try:
        conn.connect()
    except ssl.SSLError as e:
        conn.close()
        return "tls-refused:" + (e.reason or type(e).__name__)
    except OSError as e:
        conn.close()
        return "blocked:" + type(e).__name__
    outcome, sock = None, conn.sock
    try:
        conn.request(method, path, body=body, headers=headers)
        resp = conn.getresponse()
        resp.read()
        outcome = "http-%d" % resp.status
    except ssl.SSLError as e:  # TLS 1.3: a refused client certificate is said after the client's handshake
        outcome = "tls-refused:" + (e.reason or type(e).__name__)
    except (OSError, http.client.HTTPException) as e:
        outcome = "error:" + type(e).__name__
    finally:
        if note:
            note_connected(sock, outcome)
        conn.close()
    return outcome


def let_through(outcome):
    return outcome.startswith("http-2") or outcome.startswith("http-3")


def forged_write(s, host, key):
    """A replica write as a member sends it, on a connected socket: 'http-<status>', or None and the bytes that
    came back when no HTTP answer did."""
    s.settimeout(TIMEOUT)
    s.sendall(("PUT /v0/entity?id=%s HTTP/1.1\r\nHost: %s\r\nX-Dht-Internal: 1\r\nX-Dht-Timestamp: %d\r\n"
               "Content-Length: 6\r\nConnection: close\r\n\r\nforged" % (key, host, END_OF_RANGE)).encode())
    data = s.recv(64)
    if data.startswith(b"HTTP/"):
        return "http-" + data.split(b" ")[1].decode("ascii", "replace"), data
    return None, data


def raw_member_port(host, port, key):
    """A replica write in plaintext straight to the member port: blocked, or answered without success."""
    try:
        s = socket.create_connection((host, port), timeout=TIMEOUT)
    except OSError as e:
        return "blocked:" + type(e).__name__
    outcome, data = None, b""
    try:
        status, data = forged_write(s, host, key)
        outcome = status or ("no-http" if data else "closed")
    except OSError as e:
        outcome = "no-http:" + type(e).__name__
    finally:
        note_connected(s, outcome, data)
        s.close()
    return outcome


def tls_member_port(host, port, key, cert=None, keyfile=None):
    """The same write over TLS, with no client certificate or with the given one: the handshake or the request
    must fail (the member port wants a certificate of the cluster's CA)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE  # an attacker does not care who the server is
    if cert:
        ctx.load_cert_chain(cert, keyfile)
    try:
        raw = socket.create_connection((host, port), timeout=TIMEOUT)
    except OSError as e:
        return "blocked:" + type(e).__name__
    try:
        with ctx.wrap_socket(raw, server_hostname=host) as s:
            return forged_write(s, host, key)[0] or "tls-no-answer"
    except ssl.SSLError as e:
        return "tls-refused:" + (e.reason or type(e).__name__)
    except OSError as e:
        return "tls-refused:" + type(e).__name__
    finally:
        raw.close()


class Listener:
    """Counts HTTP requests on a port: a node that followed a forged topology header would call here."""

    def __init__(self, port):
        self.hits = []
        listener = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                listener.hits.append(self.client_address[0] + " " + self.path)
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            do_PUT = do_POST = do_GET

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("0.0.0.0", port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def tally(outcomes):
    by = {}
    for name, outcome in outcomes:
        kind = outcome if outcome.startswith("http-") else outcome.split(":")[0]
        by.setdefault(name, {}).setdefault(kind, 0)
        by[name][kind] += 1
    return by


def cmd_attack(a):
    members = [u for u in a.members.split(",") if u]
    keys = [k for k in a.keys.split(",") if k] or ["e2e-attack"]
    token = bool(bearer())
    listener = None
    forged_url = "http://attacker.invalid:9"
    if a.listen:
        listener = Listener(a.listen)
        forged_url = "http://%s:%d" % (os.environ.get("POD_IP", "127.0.0.1"), a.listen)
    jobs = []
    for m in members:
        host, port = host_port(m)
        # A client port with TLS: the attacks speak TLS as any client can (no certificate: the cluster's clients may
        # send tokens instead), and two more try the port itself: plaintext, and a certificate of another CA.
        tls = attacker_tls() if m.startswith("https://") else None
        for i in range(a.times):
            key = keys[i % len(keys)]
            for name, method, path, headers, body in attacks(key, forged_url):
                jobs.append((name, lambda h=host, p=port, me=method, pa=path, he=headers, b=body, t=tls:
                             http_once(h, p, me, pa, he, b, tls=t)))
            if tls:
                jobs.append(("plaintext-client", lambda h=host, p=port, k=key: http_once(
                    h, p, "PUT", "/v0/entity?id=" + k, {}, b"forged")))
                if a.client_cert:
                    foreign = attacker_tls(a.client_cert, a.client_key)
                    jobs.append(("foreign-cert-client", lambda h=host, p=port, k=key, t=foreign: http_once(
                        h, p, "PUT", "/v0/entity?id=" + k, {}, b"forged", tls=t)))
            jobs.append(("member-port", lambda h=host, p=port + MEMBER_PORT_OFFSET, k=key: raw_member_port(h, p, k)))
            if a.sidecar_port:
                jobs.append(("profiler-sidecar", lambda h=host, p=a.sidecar_port, t=tls: http_once(
                    h, p, "GET", "/v0/admin/profile?event=cpu&duration=1s", {}, None, note=True, tls=t)))
    print("started %d attacks on %d members%s" % (len(jobs), len(members), " with a token" if token else ""),
          flush=True)
    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=a.threads) as pool:
        outcomes = list(pool.map(lambda j: (j[0], j[1]()), jobs))
    through = [(n, o) for n, o in outcomes if let_through(o)]
    hits = []
    if listener:
        time.sleep(5)  # a node that took the bait calls soon after
        hits = list(listener.hits)
    return result({"command": "attack", "sent": len(outcomes), "let_through": len(through),
                   "examples": through[:10], "by_attack": tally(outcomes), "listener_hits": hits,
                   "member_port_connected": CONNECTED[:20],
                   "with_token": token, "seconds": round(time.monotonic() - start, 1)},
                  not through and not hits and len(outcomes) == len(jobs))


def cmd_memberport(a):
    members = [u for u in a.members.split(",") if u]
    outcomes = []
    for m in members:
        host, port = host_port(m, MEMBER_PORT_OFFSET)
        for _ in range(a.times):
            outcomes.append(("plaintext", raw_member_port(host, port, "e2e-attack")))
            outcomes.append(("tls-no-client-cert", tls_member_port(host, port, "e2e-attack")))
            if a.cert:
                outcomes.append(("tls-foreign-cert", tls_member_port(host, port, "e2e-attack", a.cert, a.key)))
    through = [(n, o) for n, o in outcomes if o.startswith("http-")]
    blocked = [(n, o) for n, o in outcomes if o.startswith("blocked")]
    return result({"command": "memberport", "sent": len(outcomes), "answered": len(through),
                   "blocked": len(blocked), "examples": through[:10], "by_attack": tally(outcomes)},
                  not through and not blocked)  # reached (hostNetwork) and refused by TLS each time


def served(host, port, server_name, ctx):
    try:
        with socket.create_connection((host, port), timeout=TIMEOUT) as raw:
            with ctx.wrap_socket(raw, server_hostname=server_name) as s:
                der = s.getpeercert(binary_form=True)
                s.settimeout(TIMEOUT)
                s.sendall(b"GET /v0/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                answer = s.recv(16)
                return {"fingerprint": hashlib.sha256(der).hexdigest(),
                        "answered": answer.startswith(b"HTTP/")}
    except (OSError, ssl.SSLError) as e:
        return {"error": "%s: %s" % (type(e).__name__, e)}


def cmd_served(a):
    out, ctx = {}, member_tls(a.member_tls)
    for m in [u for u in a.members.split(",") if u]:
        host, port = host_port(m, MEMBER_PORT_OFFSET)
        out[m] = served(host, port, host, ctx)
    return result({"command": "served", "members": out},
                  all("fingerprint" in v and v["answered"] for v in out.values()))


def metric_sum(text, name):
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            try:
                total += float(line.rsplit(" ", 1)[1])
            except ValueError:
                pass
    return total


def cmd_snapshot(a):
    headers = bearer()
    out = {}
    for m in [u for u in a.members.split(",") if u]:
        entry = {}
        try:
            conn = connection(m, 10)
            wall = int(time.time() * 1000)
            conn.request("GET", "/v0/admin/topology", headers=headers)
            resp = conn.getresponse()
            body = resp.read()
            entry["status"] = resp.status
            clock = resp.getheader("X-Dht-Clock")
            if clock:
                entry["clock_ahead_ms"] = (int(clock) >> LOGICAL_BITS) - wall
            if resp.status == 200:
                t = json.loads(body)
                entry["topology"] = {k: t.get(k) for k in ("epoch", "version", "phase", "header", "stable", "target")
                                     if k in t}
            conn.request("GET", "/metrics", headers=headers)
            resp = conn.getresponse()
            text = resp.read().decode("utf-8", "replace")
            entry["plane_refused"] = metric_sum(text, "dht_plane_refused_total")
            entry["clock_refused"] = metric_sum(text, "dht_clock_refused_total")
            conn.close()
        except (OSError, http.client.HTTPException, ValueError) as e:
            entry["error"] = "%s: %s" % (type(e).__name__, e)
        out[m] = entry
    return result({"command": "snapshot", "members": out},
                  all(v.get("status") == 200 and "clock_ahead_ms" in v for v in out.values()))


def main(argv):
    p = argparse.ArgumentParser(prog="dhtattack", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    at = sub.add_parser("attack")
    at.add_argument("--members", required=True)
    at.add_argument("--times", type=int, default=20)
    at.add_argument("--keys", default="", help="existing keys to aim the writes at (comma-separated)")
    at.add_argument("--sidecar-port", type=int, default=0)
    at.add_argument("--listen", type=int, default=0)
    at.add_argument("--threads", type=int, default=16)
    at.add_argument("--client-cert", default=None, help="a client certificate of another CA, for the client port")
    at.add_argument("--client-key", default=None)
    mp = sub.add_parser("memberport")
    mp.add_argument("--members", required=True)
    mp.add_argument("--times", type=int, default=10)
    mp.add_argument("--cert", default=None)
    mp.add_argument("--key", default=None)
    se = sub.add_parser("served")
    se.add_argument("--members", required=True)
    se.add_argument("--member-tls", required=True, help="a directory with tls.crt, tls.key and ca.crt")
    sn = sub.add_parser("snapshot")
    sn.add_argument("--members", required=True)
    a = p.parse_args(argv)
    return {"attack": cmd_attack, "memberport": cmd_memberport, "served": cmd_served,
            "snapshot": cmd_snapshot}[a.command](a)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
