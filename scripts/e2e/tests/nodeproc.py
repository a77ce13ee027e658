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


class Node:
    def __init__(self, *args, host="127.0.0.1"):
        jar = os.environ.get("DHT_NODE_JAR", "")
        if not os.path.isfile(jar):
            raise AssertionError(f"DHT_NODE_JAR must name the packaged node jar (got {jar!r})")
        self.dir = tempfile.mkdtemp(prefix="dht-e2e-tools-test")
        self.port = free_port()
        self.host = host
        self.url = f"http://{host}:{self.port}"
        env = {k: v for k, v in os.environ.items() if not k.startswith("DHT_")}
        self.log = open(os.path.join(self.dir, "node.log"), "w")
        self.proc = subprocess.Popen([os.environ.get("JAVA", "java"), "-Xmx128m", "-jar", jar, "--port", str(self.port),
                                      "--data-dir", os.path.join(self.dir, "data"), *args],
                                     stdout=self.log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(self.url + "/v0/status", timeout=2) as r:
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
