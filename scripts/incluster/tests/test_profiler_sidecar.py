"""The profiler sidecar against a stand-in for the node's GET /v0/admin/profile on loopback (real HTTP both ways):
it forwards, serialises captures, waits out a busy node for a bounded time, and says why when it gives up."""
import http.client
import http.server
import os
import shutil
import ssl
import subprocess
import tempfile
import sys
import threading
import time
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import profiler_sidecar  # noqa: E402


class FakeNode:
    """Answers GET /v0/admin/profile like the node: 409 while busy (or for the first `busy` requests), else the
    flamegraph after `capture_s`. Records the queries and the most captures it ever saw at once. With
    exclusive=False it takes every capture, overlapping or not, so that the most at once shows what the caller did
    rather than what the stand-in allows."""

    def __init__(self, busy=0, capture_s=0.0, exclusive=True, tls=None):
        self.busy, self.capture_s, self.exclusive = busy, capture_s, exclusive
        self.client_certificates = []
        self.queries, self.running, self.most_at_once = [], 0, 0
        self.lock = threading.Lock()
        node = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                path, _, query = self.path.partition("?")
                with node.lock:
                    node.queries.append(query)
                    if tls:
                        node.client_certificates.append(self.connection.getpeercert())
                    if node.busy > 0 or (node.exclusive and node.running > 0):
                        node.busy -= 1
                        status, body = 409, b"a profile is already being captured; try again when it ends"
                    else:
                        node.running += 1
                        node.most_at_once = max(node.most_at_once, node.running)
                        status, body = 200, None
                if status == 200:
                    time.sleep(node.capture_s)
                    body = ("<html>flamegraph %s</html>" % query).encode()
                    with node.lock:
                        node.running -= 1
                if path != "/v0/admin/profile":
                    status, body = 404, b"no"
                self.send_response(status)
                self.send_header("Content-Type", "text/html" if status == 200 else "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        if tls:
            # as the node's client port with client certificates required: TLS only, a certificate of its CA
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(os.path.join(tls, "tls.crt"), os.path.join(tls, "tls.key"))
            ctx.load_verify_locations(os.path.join(tls, "ca.crt"))
            ctx.verify_mode = ssl.CERT_REQUIRED
            self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
            self.url = "https://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


MEMBER_CERTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tls", "member-certs.sh")


class SidecarTest(unittest.TestCase):
    def start(self, node_url, busy_wait=2.0, tokens_file=None, tls_dir=None):
        server = profiler_sidecar.serve(0, node_url, busy_wait, host="127.0.0.1", tokens_file=tokens_file,
                                        tls_dir=tls_dir)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        return "%s://127.0.0.1:%d" % ("https" if tls_dir else "http", server.server_address[1])

    def get(self, url, token=None, context=None):
        req = urllib.request.Request(url, headers={"Authorization": "Bearer " + token} if token else {})
        try:
            with urllib.request.urlopen(req, timeout=30, context=context) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def node(self, **kw):
        node = FakeNode(**kw)
        self.addCleanup(node.close)
        return node

    def test_forwards_the_request_and_answers_with_the_nodes_flamegraph(self):
        node = self.node()
        sidecar = self.start(node.url)
        status, body = self.get(sidecar + "/v0/admin/profile?event=alloc&duration=1500ms")
        self.assertEqual(200, status)
        self.assertEqual("<html>flamegraph event=alloc&duration=1500ms</html>", body)
        self.assertEqual(["event=alloc&duration=1500ms"], node.queries)

    def test_a_busy_node_is_asked_again_until_it_takes_the_capture(self):
        node = self.node(busy=3)
        sidecar = self.start(node.url, busy_wait=5.0)
        status, body = self.get(sidecar + "/v0/admin/profile?event=cpu&duration=1s")
        self.assertEqual(200, status)
        self.assertEqual(4, len(node.queries))

    def test_a_node_busy_for_longer_than_the_wait_gets_409_with_the_reason(self):
        node = self.node(busy=1000)
        sidecar = self.start(node.url, busy_wait=0.5)
        started = time.monotonic()
        status, body = self.get(sidecar + "/v0/admin/profile?event=cpu&duration=1s")
        self.assertEqual(409, status)
        self.assertIn("node busy for 0.5s", body)
        self.assertIn("a profile is already being captured", body)
        self.assertLess(time.monotonic() - started, 10, "bounded wait")

    def test_captures_through_the_sidecar_never_overlap_on_the_node(self):
        node = self.node(capture_s=0.3, exclusive=False)  # it would take them at once: the sidecar must not
        sidecar = self.start(node.url, busy_wait=10.0)
        results = []
        threads = [threading.Thread(target=lambda e=e: results.append(
            self.get(sidecar + "/v0/admin/profile?event=%s&duration=300ms" % e)[0])) for e in ("cpu", "alloc", "wall")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual([200, 200, 200], results)
        self.assertEqual(1, node.most_at_once)
        self.assertEqual(3, len(node.queries), "the second and third waited in the sidecar, not on the node")
        self.assertEqual(3, len(set(node.queries)), "one capture of each event")

    def test_an_unreachable_node_is_a_502_that_says_so(self):
        sidecar = self.start("http://127.0.0.1:9", busy_wait=0.2)
        status, body = self.get(sidecar + "/v0/admin/profile?event=cpu")
        self.assertEqual(502, status)
        self.assertIn("the node did not answer on http://127.0.0.1:9", body)

    def test_with_a_tokens_file_only_an_admin_token_profiles_and_a_rotation_needs_no_restart(self):
        import tempfile
        node = self.node()
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "tokens")
            with open(path, "w") as f:
                f.write("# rendered\nread-write rw-token-0123456789\nadmin admin-token-0123456789\n")
            sidecar = self.start(node.url, tokens_file=path)
            url = sidecar + "/v0/admin/profile?event=cpu&duration=1s"
            self.assertEqual(401, self.get(url)[0])
            self.assertEqual(401, self.get(url, "guessed-token-0123456789")[0])
            status, body = self.get(url, "rw-token-0123456789")
            self.assertEqual(403, status)
            self.assertIn("admin is needed", body)
            self.assertEqual([], node.queries, "nothing refused reached the node")
            self.assertEqual(200, self.get(url, "admin-token-0123456789")[0])
            # A rotated file (a new admin token, the old one gone) takes effect at once.
            time.sleep(0.01)
            with open(path, "w") as f:
                f.write("admin new-admin-token-0123456789\n")
            self.assertEqual(401, self.get(url, "admin-token-0123456789")[0])
            self.assertEqual(200, self.get(url, "new-admin-token-0123456789")[0])
            self.assertEqual(2, len(node.queries))
            self.assertEqual((200, "ok\n"), self.get(sidecar + "/healthz"), "health needs no token")

    def test_with_client_tls_it_serves_tls_and_calls_the_node_over_tls_with_the_nodes_certificate(self):
        # the node's client-port files as the pod mounts them: a certificate for localhost and 127.0.0.1 of the
        # cluster's client CA, allowing serverAuth and clientAuth (member-certs.sh makes the same shape)
        certs = tempfile.mkdtemp(prefix="sidecar-tls-test")
        self.addCleanup(shutil.rmtree, certs, True)
        p = subprocess.run([MEMBER_CERTS, certs, "1"], capture_output=True, text=True)
        self.assertEqual(0, p.returncode, p.stdout + p.stderr)
        node = self.node(tls=certs)
        sidecar = self.start(node.url, tls_dir=certs)
        trusting = ssl.create_default_context(cafile=os.path.join(certs, "ca.crt"))
        status, body = self.get(sidecar + "/v0/admin/profile?event=cpu&duration=1s", context=trusting)
        self.assertEqual((200, "<html>flamegraph event=cpu&duration=1s</html>"), (status, body))
        self.assertEqual(1, len(node.client_certificates))
        self.assertIn((("commonName", "dht member"),), node.client_certificates[0]["subject"],
                      "the sidecar presented the node's certificate")
        with self.assertRaises((OSError, http.client.HTTPException)):
            self.get(sidecar.replace("https://", "http://") + "/healthz")  # plaintext is not served
        with self.assertRaises(urllib.error.URLError):
            self.get(sidecar + "/healthz")  # nor is a client that does not trust the cluster's CA

    def test_health_and_unknown_paths(self):
        sidecar = self.start(self.node().url)
        self.assertEqual((200, "ok\n"), self.get(sidecar + "/healthz"))
        status, body = self.get(sidecar + "/v0/entity?id=1")
        self.assertEqual(404, status)
        self.assertIn("GET /v0/admin/profile", body)

    def test_the_program_serves_as_the_pod_runs_it(self):
        node = self.node()
        program = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "profiler_sidecar.py")
        proc = subprocess.Popen([sys.executable, program, "--port", "0", "--node", node.url],
                                stderr=subprocess.PIPE, text=True)
        self.addCleanup(proc.stderr.close)
        self.addCleanup(proc.wait, 10)
        self.addCleanup(proc.kill)
        line = proc.stderr.readline()
        self.assertIn("serving /v0/admin/profile of %s on port" % node.url, line)
        port = int(line.rsplit(" ", 1)[1])
        status, body = self.get("http://127.0.0.1:%d/v0/admin/profile?event=lock&duration=1s" % port)
        self.assertEqual((200, "<html>flamegraph event=lock&duration=1s</html>"), (status, body))


if __name__ == "__main__":
    unittest.main()
