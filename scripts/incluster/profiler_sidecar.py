"""profiler_sidecar: the profiler sidecar of a dht member's pod (DhtCluster spec.profiler.enabled).

Standard library only; runs in the load-runner image as
    python3 /opt/dht/py/profiler_sidecar.py --port 8079 --node http://127.0.0.1:8080

It serves the node's own profiling API on its port, so that anything that can profile a node (the bench runner of a
DhtBenchmark Job, a person with kubectl port-forward) can profile it through the sidecar:

  GET /v0/admin/profile?event=cpu|alloc|lock|wall&duration=30s[&interval=1ms][&format=html|collapsed]
      -> the node's answer to the same request made on localhost: the HTML flamegraph (or collapsed stacks)
         when the capture ends, or the node's error (400 bad parameters, 503 no profiler)
  GET /healthz -> 200 "ok"

With --tokens FILE (the node's tokens file, mounted from the cluster's Secret when its client tokens are on), a
profile request needs "Authorization: Bearer <token>" of scope admin in that file: 401 without a token or with an
unknown one, 403 with one of a lower scope. Profiling costs the node CPU, so it is the admin plane's. The file is
read again when it changes (token rotation); the request to the node goes over localhost, where the node needs none.

With --tls DIR (the node's client-port certificate, mounted when the cluster's client port speaks TLS: tls.crt,
tls.key, ca.crt), the sidecar serves its port over TLS with that certificate (the admin token never crosses the pod
network in the clear), and calls the node over https://, trusting ca.crt and presenting the same certificate (the
node asks for one when client certificates are required; a loopback peer has admin rights whatever its scope). The
files are read again when they change (a renewal, a CA replacement).

The node profiles its own JVM with async-profiler (it ships in the node image): the sidecar needs no shared
process namespace, no ptrace and no capabilities. One capture at a time: a request that arrives while another runs
waits for it, and a 409 from the node (a capture started elsewhere, or the previous one not yet released) is
retried, both for at most --busy-wait seconds; after that the answer is 409 with the reason. So a capture never
stops the node, and a benchmark never costs it more than one capture at a time.
"""
import argparse
import hmac
import http.server
import os
import ssl
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

PROFILE_PATH = "/v0/admin/profile"
# The node accepts captures of up to 10 minutes; its answer comes when the capture ends.
NODE_TIMEOUT_S = 11 * 60


def log(msg):
    sys.stderr.write("[profiler-sidecar] %s\n" % msg)
    sys.stderr.flush()


class TlsFiles:
    """TLS contexts from the client-port certificate directory, made again when a file changes."""

    def __init__(self, directory):
        self.cert, self.key, self.ca = (os.path.join(directory, f) for f in ("tls.crt", "tls.key", "ca.crt"))
        self.lock = threading.Lock()
        self.seen, self.server, self.client = None, None, None

    def _stamp(self):
        return tuple((st.st_mtime_ns, st.st_size, st.st_ino) for st in map(os.stat, (self.cert, self.key, self.ca)))

    def contexts(self):
        """(server context, client context) for the files as they are now."""
        with self.lock:
            try:
                stamp = self._stamp()
                if stamp != self.seen:
                    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                    server.minimum_version = ssl.TLSVersion.TLSv1_2
                    server.load_cert_chain(self.cert, self.key)
                    client = ssl.create_default_context(cafile=self.ca)
                    client.load_cert_chain(self.cert, self.key)
                    self.server, self.client, self.seen = server, client, stamp
            except (OSError, ssl.SSLError) as e:
                if self.server is None:
                    raise
                log("cannot load the TLS files again (%s): keeping the ones loaded before" % e)
            return self.server, self.client


class Sidecar:
    """Forwards profile requests to the node, one at a time, waiting out a busy profiler for a bounded time."""

    def __init__(self, node, busy_wait_s, tls=None):
        self.node = node.rstrip("/")
        self.busy_wait_s = busy_wait_s
        self.lock = threading.Lock()
        self.tls = tls

    def profile(self, query):
        """-> (status, content type, body) for GET /v0/admin/profile?<query>."""
        give_up = time.monotonic() + self.busy_wait_s
        if not self.lock.acquire(timeout=self.busy_wait_s):
            return 409, "text/plain; charset=utf-8", (
                "another capture through this sidecar is still running after %gs; try again when it ends"
                % self.busy_wait_s).encode()
        try:
            attempts = 0
            while True:
                attempts += 1
                status, ctype, body = self._ask(query)
                if status == 409 and time.monotonic() < give_up:
                    time.sleep(0.2)
                    continue
                if status == 409:
                    body = ("node busy for %gs (%d attempts): " % (self.busy_wait_s, attempts)).encode() + body
                return status, ctype, body
        finally:
            self.lock.release()

    def _ask(self, query):
        url = self.node + PROFILE_PATH + ("?" + query if query else "")
        context = self.tls.contexts()[1] if self.tls else None
        try:
            with urllib.request.urlopen(url, timeout=NODE_TIMEOUT_S, context=context) as r:
                return r.status, r.headers.get("Content-Type", "text/html"), r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("Content-Type", "text/plain"), e.read()
        except (urllib.error.URLError, OSError) as e:
            return 502, "text/plain; charset=utf-8", ("the node did not answer on %s: %s" % (self.node, e)).encode()


class Tokens:
    """The admin tokens of a node's tokens file ('<scope> <token>' lines, '#' comments), re-read when it changes."""

    def __init__(self, path):
        self.path, self.seen, self.scopes = path, None, {}
        self.lock = threading.Lock()

    def scope_of(self, token):
        with self.lock:
            try:
                st = os.stat(self.path)
                key = (st.st_mtime_ns, st.st_size, st.st_ino)
                if key != self.seen:
                    scopes = {}
                    with open(self.path, encoding="utf-8") as f:
                        for line in f:
                            parts = line.split()
                            if len(parts) == 2 and not parts[0].startswith("#"):
                                scopes[parts[1]] = parts[0]
                    self.scopes, self.seen = scopes, key
            except OSError as e:
                log("cannot read the tokens file %s: %s (keeping the tokens read before)" % (self.path, e))
            # Compare every token in constant time: no early exit that says how close a guess came.
            found = None
            for known, scope in self.scopes.items():
                if hmac.compare_digest(known.encode(), token.encode()):
                    found = scope
            return found


def check_token(tokens, header):
    """None if the request may profile, else (status, reason)."""
    if tokens is None:
        return None
    if not header or not header.startswith("Bearer "):
        return 401, "a bearer token of scope admin is needed (Authorization: Bearer <token>)"
    scope = tokens.scope_of(header[len("Bearer "):].strip())
    if scope is None:
        return 401, "unknown token"
    if scope != "admin":
        return 403, "a token of scope %s may not profile: admin is needed" % scope
    return None


def handler_for(sidecar, tokens=None):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            path, _, query = self.path.partition("?")
            if path == "/healthz":
                self._send(200, "text/plain; charset=utf-8", b"ok\n")
            elif path == PROFILE_PATH:
                refused = check_token(tokens, self.headers.get("Authorization"))
                if refused:
                    log("refused %s: %d %s" % (urllib.parse.unquote(query), refused[0], refused[1]))
                    self._send(refused[0], "text/plain; charset=utf-8", (refused[1] + "\n").encode(),
                               {"WWW-Authenticate": "Bearer"} if refused[0] == 401 else {})
                    return
                started = time.monotonic()
                status, ctype, body = sidecar.profile(query)
                log("%s -> %d, %d bytes in %.1fs" % (urllib.parse.unquote(query) or "(defaults)", status, len(body),
                                                     time.monotonic() - started))
                self._send(status, ctype, body)
            else:
                self._send(404, "text/plain; charset=utf-8",
                           b"not found: GET /v0/admin/profile?event=...&duration=... or GET /healthz\n")

        def do_POST(self):
            self._send(405, "text/plain; charset=utf-8", b"only GET\n")

        do_PUT = do_DELETE = do_POST

        def _send(self, status, ctype, body, headers=None):
            self.send_response(status)
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, fmt, *args):  # one line per capture is logged above; no access log
            pass

    return Handler


class TlsServer(http.server.ThreadingHTTPServer):
    """Wraps each accepted connection in TLS with the certificate of the moment (a renewed one is used at once)."""

    def __init__(self, address, handler, tls):
        self.tls = tls
        tls.contexts()  # fail at start, not at the first caller, if the files cannot be used
        super().__init__(address, handler)

    def get_request(self):
        sock, addr = self.socket.accept()
        sock.settimeout(30)  # a handshake that never comes must not hold a thread
        return self.tls.contexts()[0].wrap_socket(sock, server_side=True, do_handshake_on_connect=False), addr

    def finish_request(self, request, client_address):
        try:
            request.do_handshake()
            request.settimeout(None)
        except (ssl.SSLError, OSError) as e:
            log("TLS handshake with %s failed: %s" % (client_address[0], e))
            return
        super().finish_request(request, client_address)


def serve(port, node, busy_wait_s, host="0.0.0.0", tokens_file=None, tls_dir=None):
    tokens = Tokens(tokens_file) if tokens_file else None
    tls = TlsFiles(tls_dir) if tls_dir else None
    handler = handler_for(Sidecar(node, busy_wait_s, tls), tokens)
    server = TlsServer((host, port), handler, tls) if tls else http.server.ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server


def main(argv=None):
    p = argparse.ArgumentParser(prog="profiler_sidecar.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", type=int, default=8079)
    p.add_argument("--node", default="http://127.0.0.1:8080", help="the node's base URL (localhost in the pod)")
    p.add_argument("--busy-wait", type=float, default=5.0,
                   help="seconds a request waits for a busy profiler before it gets 409 (default 5)")
    p.add_argument("--tokens", default=None,
                   help="the node's tokens file: profiling needs a bearer token of scope admin from it")
    p.add_argument("--tls", default=None,
                   help="the node's client-port certificate directory (tls.crt, tls.key, ca.crt): serve TLS with it"
                        " and call the node with it")
    a = p.parse_args(argv)
    server = serve(a.port, a.node, a.busy_wait, tokens_file=a.tokens, tls_dir=a.tls)
    log("serving %s of %s on port %d%s" % (PROFILE_PATH, a.node, server.server_address[1],
                                            " over TLS" if a.tls else ""))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
