"""One real node for the e2e tools' tests: the packaged jar (DHT_NODE_JAR, run by JAVA, a JDK 21 or newer) on a free
loopback port, started with the given extra arguments and stopped by stop()."""
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

MEMBER_PORT_OFFSET = 10000  # the node's member port is its client port + this (docs/security.md)


def bindable(port):
    with socket.socket() as s:
        try:
            s.bind(("0.0.0.0", port))
            return True
        except OSError:
            return False


def free_port():
    """A free client port whose member port is free too, both below the ephemeral range."""
    rng = random.SystemRandom()
    for _ in range(1000):
        port = rng.randrange(12000, 32000 - MEMBER_PORT_OFFSET)
        if bindable(port) and bindable(port + MEMBER_PORT_OFFSET):
            return port
    raise AssertionError("no free port pair")


def outside_address():
    """An IPv4 address of this machine that is not loopback: the node lets loopback peers use its admin plane, so
    an attacker must come from elsewhere."""
    out = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=10).stdout.split()
    for a in out:
        if "." in a and not a.startswith("127."):
            return a
    raise AssertionError("no IPv4 address other than loopback on this machine (hostname -I: %r)" % out)


CLIENT_CERTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tls", "client-certs.sh")


def client_certs(directory):
    """make run TLS=1's files (scripts/tls/client-certs.sh): ca.crt, the node's tls.crt/tls.key for localhost and
    127.0.0.1, a read-write client.crt/client.key."""
    p = subprocess.run([CLIENT_CERTS, directory, "1"], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise AssertionError("client-certs.sh failed:\n" + p.stdout + p.stderr)
    return directory


class Node:
    def __init__(self, *args, host="127.0.0.1", tls=None):
        """tls: a client-certs.sh directory: the client port takes TLS only with its files (client certificates
        required), and readiness is asked over TLS with its client certificate."""
        jar = os.environ.get("DHT_NODE_JAR", "")
        if not os.path.isfile(jar):
            raise AssertionError(f"DHT_NODE_JAR must name the packaged node jar (got {jar!r})")
        self.dir = tempfile.mkdtemp(prefix="dht-e2e-tools-test")
        self.port = free_port()
        self.host = host
        self.url = f"{'https' if tls else 'http'}://{host}:{self.port}"
        context = None
        if tls:
            args = ("--client-tls-cert", os.path.join(tls, "tls.crt"), "--client-tls-key", os.path.join(tls, "tls.key"),
                    "--client-tls-ca", os.path.join(tls, "ca.crt")) + args
            import ssl
            context = ssl.create_default_context(cafile=os.path.join(tls, "ca.crt"))
            context.load_cert_chain(os.path.join(tls, "client.crt"), os.path.join(tls, "client.key"))
        env = {k: v for k, v in os.environ.items() if not k.startswith("DHT_")}
        self.log = open(os.path.join(self.dir, "node.log"), "w")
        self.proc = subprocess.Popen([os.environ.get("JAVA", "java"), "-Xmx128m", "-jar", jar, "--port", str(self.port),
                                      "--data-dir", os.path.join(self.dir, "data"), *args],
                                     stdout=self.log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 60
        while True:
            try:
                # over TLS the certificate names 127.0.0.1, not an outside address the node is reached at
                ready = f"https://127.0.0.1:{self.port}" if tls else self.url
                with urllib.request.urlopen(ready + "/v0/status", timeout=2, context=context) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                text = open(os.path.join(self.dir, "node.log")).read()
                self.stop()
                raise AssertionError("the node did not start:\n" + text)
            time.sleep(0.2)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(30)
        self.log.close()
        if self.proc.returncode not in (0, 143, -15):
            print(open(os.path.join(self.dir, "node.log")).read(), file=sys.stderr)
        shutil.rmtree(self.dir, ignore_errors=True)
