"""The processes a scenario measures: dht nodes of any build and the reference servers, started, awaited and
stopped by one Fleet, which stops everything it started when the run ends, however it ends. Standard library only.
"""
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

MEMBER_PORT_OFFSET = 10000  # a node's member port is its client port + this (docs/security.md); older nodes have none


class Server:
    """One process: its name, command line, client port, the path that answers once it serves (and whether any
    HTTP answer will do there, as for the reference servers, or only 200, as for a node's /v0/status)."""

    def __init__(self, name, argv, port, ready_path="/v0/status", any_answer=False, data_dir=None):
        self.name, self.argv, self.port = name, list(argv), port
        self.ready_path, self.any_answer, self.data_dir = ready_path, any_answer, data_dir
        self.proc = None
        self.log_path = None

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.port

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def answers(self):
        try:
            with urllib.request.urlopen(self.url + self.ready_path, timeout=2) as r:
                return r.status == 200 or self.any_answer
        except urllib.error.HTTPError:
            return self.any_answer
        except OSError:
            return False


def bindable(port):
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("0.0.0.0", port))
            return True
        except OSError:
            return False


def check_ports(servers):
    """Raises when a server's port or its member port is taken (a node of another run, make run)."""
    busy = [p for s in servers for p in (s.port, s.port + MEMBER_PORT_OFFSET) if not bindable(p)]
    if busy:
        raise RuntimeError("ports in use: %s (another benchmark or make run?)" % ", ".join(map(str, busy)))


class Fleet:
    """Starts servers (their output into log_dir/<name>.log) and stops them all at the end of a with block."""

    def __init__(self, log_dir, log):
        self.log_dir, self.log = log_dir, log
        self.servers = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop_all()
        return False

    def start(self, servers, timeout_s=120):
        """Starts every server, then waits until each answers; raises (naming its log) if one exits or is late."""
        for s in servers:
            s.log_path = os.path.join(self.log_dir, s.name + ".log")
            with open(s.log_path, "w", encoding="utf-8") as out:
                s.proc = subprocess.Popen(s.argv, stdout=out, stderr=subprocess.STDOUT)
            self.servers.append(s)
        deadline = time.monotonic() + timeout_s
        for s in servers:
            await_answer(s, max(0.0, deadline - time.monotonic()))
            self.log("%s serves on %s (pid %d)" % (s.name, s.url, s.pid))

    def stop_all(self):
        """SIGTERM to every server still running, then waits (30 s each, then SIGKILL)."""
        stop(self.servers)
        self.servers = []


def await_answer(s, timeout_s):
    """Until the started server s answers; raises (naming its log) if it exits first or is late."""
    deadline = time.monotonic() + timeout_s
    while not s.answers():
        if s.proc.poll() is not None:
            raise RuntimeError("%s exited with %s during start (log: %s)" % (s.name, s.proc.returncode, s.log_path))
        if time.monotonic() > deadline:
            raise RuntimeError("%s did not answer within %d s (log: %s)" % (s.name, timeout_s, s.log_path))
        time.sleep(0.1)


def stop(servers, timeout_s=30):
    """SIGTERM to each server still running (SIGCONT first: a stopped process never ends on SIGTERM), then waits
    for each (timeout_s, then SIGKILL)."""
    live = [s for s in servers if s.proc and s.proc.poll() is None]
    for s in live:
        s.proc.send_signal(signal.SIGCONT)
        s.proc.send_signal(signal.SIGTERM)
    for s in live:
        try:
            s.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            s.proc.kill()
            s.proc.wait()
