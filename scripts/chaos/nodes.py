"""The node processes: the packaged jar, as users run it, one per network namespace, each with

- its data directory on its own small tmpfs (the disk-full fault fills that filesystem),
- libfaketime preloaded with a per-node offset file (the clock fault rewrites it; the JVM re-reads it within a
  second; only the wall clock moves, the monotonic clock the JVM times with stays true),
- its output appended to nodes/n<i>.log under the run's results.

Also the harness's own view of a node: readiness, /metrics, and a node's local copy of a key read on the member
plane (an internal GET answers the stored record itself, timestamp and tombstone included, without coordinating).
"""
from __future__ import annotations

import http.client
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

from .history import Stored
from .network import PORT, Member, Network, sh
from .resources import Manifest, start_time


class NodeFlags:
    """What the jar offers, read from its --help, so the harness runs against main before and after the member
    plane (issue 21) lands: member port, insecure member plane (the run's own network), a bound on clocks."""

    def __init__(self, help_text: str):
        self.text = help_text

    def has(self, flag: str) -> bool:
        return f"{flag} " in self.text or f"{flag}\n" in self.text

    def default(self, flag: str) -> str | None:
        """The default --help prints for the option ("default: 30s"), or None."""
        lines = self.text.splitlines()
        for n, line in enumerate(lines):
            if line.strip().startswith(flag + " "):
                for follow in lines[n:n + 3]:
                    if "default: " in follow:
                        return follow.split("default: ", 1)[1].split()[0]
        return None


class Cluster:
    def __init__(self, network: Network, manifest: Manifest, run_dir: Path, mount_root: Path, java: str, jar: Path,
                 faketime: str | None, rf: int, disk_mb: int, flags: NodeFlags):
        self.network = network
        self.members: list[Member] = network.members
        self.manifest = manifest
        self.log_dir = run_dir / "nodes"
        self.clock_dir = run_dir / "clocks"
        self.mount_root = mount_root
        self.java = java
        self.jar = jar
        self.faketime = faketime
        self.rf = rf
        self.disk_mb = disk_mb
        self.flags = flags
        self.procs: list[subprocess.Popen | None] = [None] * len(self.members)
        self._entries: list[dict | None] = [None] * len(self.members)
        self.paused: set[int] = set()
        self.closed = False
        self._starting = threading.Lock()
        self.ready = [False] * len(self.members)  # answered /v0/status since it was last started
        # nodes that ended without being told to: [node, exit code, "starting" | "serving", its disk was full]
        self.exits: list[list] = []
        self.offsets = [0] * len(self.members)

    # ---------------------------------------------------------------- set-up
    def mount(self, i: int) -> Path:
        return self.mount_root / f"n{i}"

    def data_dir(self, i: int) -> Path:
        return self.mount(i) / "data"

    def prepare(self) -> None:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.clock_dir.mkdir(parents=True, exist_ok=True)
        for m in self.members:
            mnt = self.mount(m.index)
            mnt.mkdir(parents=True, exist_ok=True)
            self.manifest.add("dir", path=str(mnt))
            self.manifest.add("mount", path=str(mnt))
            sh("mount", "-t", "tmpfs", "-o", f"size={self.disk_mb}m,mode=0700", f"dht-chaos-n{m.index}", str(mnt))
            self.data_dir(m.index).mkdir()
            self.set_clock(m.index, 0)

    def args(self, i: int) -> list[str]:
        members = ",".join(m.url for m in self.members)
        args = ["--port", str(PORT), "--self", self.members[i].url, "--cluster", members,
                "--data-dir", str(self.data_dir(i)), "--replication-factor", str(self.rf),
                # small memtables: flushes and compactions happen during the run (and meet a full disk)
                "--write-buffer", "4MiB", "--block-cache", "32MiB", "--workers", "4"]
        if self.flags.has("--member-insecure"):  # the run's own network (issue 21: else loopback only)
            args += ["--member-insecure", "true"]
        return args

    def command(self, i: int) -> list[str]:
        jvm = ["-Xmx192m", "-XX:+UseSerialGC"]
        if _java_feature(self.java) >= 23:
            jvm.append("--sun-misc-unsafe-memory-access=allow")
        return ["ip", "netns", "exec", self.members[i].ns, self.java, *jvm, "-jar", str(self.jar), *self.args(i)]

    def env(self, i: int) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DHT_", "FAKETIME", "LD_PRELOAD"))}
        if "DHT_CACHE_DIR" in os.environ:
            env["DHT_CACHE_DIR"] = os.environ["DHT_CACHE_DIR"]  # where the native libraries are unpacked once
        if self.faketime:
            # Only the wall clock moves: the JVM times waits and deadlines on CLOCK_MONOTONIC, which stays true.
            # libfaketime's "monotonic fix" (on by default with this glibc) rewrites pthread_cond_timedwait and
            # breaks the JVM's timed waits: a node took 78 s to start and served 15-25 PUT/s, against 11 s and
            # ~600 with the fix off (docs/chaos.md, "Clock skew").
            env.update({"LD_PRELOAD": self.faketime, "FAKETIME_TIMESTAMP_FILE": str(self.clock_file(i)),
                        "FAKETIME_CACHE_DURATION": "1", "FAKETIME_DONT_FAKE_MONOTONIC": "1",
                        "FAKETIME_FORCE_MONOTONIC_FIX": "0"})
        return env

    # ---------------------------------------------------------------- life cycle
    def close(self) -> None:
        """From now on no node starts (the run is being torn down; the release kills what runs). Waits for a
        start in progress, so that every process is in the manifest before the release reads it."""
        with self._starting:
            self.closed = True

    def start(self, i: int) -> None:
        with self._starting:
            if self.closed:
                raise RuntimeError("the run is ending: no node starts any more")
            if self.procs[i] is not None:
                raise RuntimeError(f"node {i} already runs")
            with open(self.log_dir / f"n{i}.log", "ab") as log:
                log.write(f"\n=== {time.strftime('%H:%M:%S')} chaos: starting node {i}\n".encode())
                log.flush()
                p = subprocess.Popen(self.command(i), stdout=log, stderr=subprocess.STDOUT, env=self.env(i),
                                     stdin=subprocess.DEVNULL)
            self.procs[i] = p
            self.ready[i] = False
            self._entries[i] = self.manifest.add("process", pid=p.pid, start=start_time(p.pid), name=f"node {i}")

    def running(self, i: int) -> bool:
        return self.procs[i] is not None and self.procs[i].poll() is None

    def await_ready(self, i: int, timeout: float = 180) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            p = self.procs[i]
            if p is None or p.poll() is not None:
                raise RuntimeError(f"node {i} exited with {p.returncode if p else '?'}: see {self.log_dir}/n{i}.log")
            try:
                if self.request(i, "GET", "/v0/status", timeout=2)[0] == 200:
                    self.ready[i] = True
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"node {i} not ready within {timeout:.0f} s: see {self.log_dir}/n{i}.log")

    def _forget(self, i: int) -> None:
        if self._entries[i] is not None:
            self.manifest.remove(self._entries[i])
        self.procs[i] = None
        self._entries[i] = None
        self.paused.discard(i)

    def ensure_running(self, i: int) -> bool:
        """Starts node i if it is not running (noting an exit nobody asked for); True if it was started."""
        if self.running(i):
            return False
        self.reap(i)
        self.start(i)
        return True

    def reap(self, i: int) -> list | None:
        """If node i ended on its own, notes it (how far it got, whether its disk was full) and forgets it."""
        p = self.procs[i]
        if p is None or p.poll() is None:
            return None
        exit_ = [i, p.returncode, "serving" if self.ready[i] else "starting",
                 (self.mount(i) / "ballast").exists()]
        self.exits.append(exit_)
        self._forget(i)
        return exit_

    def unexpected_exits(self) -> list[list]:
        for i in range(len(self.members)):
            self.reap(i)
        return list(self.exits)

    def kill(self, i: int) -> None:
        """SIGKILL: no shutdown code runs; what RocksDB has not written is lost to it (the WAL is written)."""
        p = self.procs[i]
        if p is None:
            return
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)
        self._forget(i)

    def pause(self, i: int) -> None:
        if self.procs[i] is not None:
            self.procs[i].send_signal(signal.SIGSTOP)
            self.paused.add(i)

    def resume(self, i: int) -> None:
        if self.procs[i] is not None and i in self.paused:
            self.procs[i].send_signal(signal.SIGCONT)
        self.paused.discard(i)

    def stop_all(self, grace: float = 40) -> None:
        """SIGTERM to every node (the graceful stop), SIGKILL to what is left after the grace."""
        for i in range(len(self.members)):
            self.resume(i)
            if self.running(i):
                self.procs[i].send_signal(signal.SIGTERM)
        deadline = time.monotonic() + grace
        for i, p in enumerate(self.procs):
            if p is None:
                continue
            try:
                p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=30)
            self._forget(i)

    # ---------------------------------------------------------------- clocks
    def clock_file(self, i: int) -> Path:
        return self.clock_dir / f"n{i}.rc"

    def set_clock(self, i: int, offset_s: int) -> None:
        """The node's wall clock runs offset_s ahead (or behind, negative) of the machine's from now on."""
        f = self.clock_file(i)
        tmp = f.with_suffix(".tmp")
        tmp.write_text(f"{offset_s:+d}\n")
        tmp.replace(f)
        self.offsets[i] = offset_s

    # ---------------------------------------------------------------- HTTP
    def request(self, i: int, method: str, path: str, body: bytes | None = None, headers: dict | None = None,
                timeout: float = 10, member: bool = False) -> tuple[int, bytes]:
        port = PORT + 10000 if member and self.flags.has("--member-port-offset") else PORT  # the member plane
        conn = http.client.HTTPConnection(self.members[i].ip, port, timeout=timeout)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            r = conn.getresponse()
            return r.status, r.read()
        finally:
            conn.close()

    def metrics(self, i: int, timeout: float = 5) -> dict[str, float]:
        status, body = self.request(i, "GET", "/metrics", timeout=timeout)
        if status != 200:
            raise OSError(f"/metrics answered {status}")
        out = {}
        for line in body.decode().splitlines():
            if line and not line.startswith("#"):
                name, _, value = line.rpartition(" ")
                try:
                    out[name] = float(value)
                except ValueError:
                    pass
        return out

    def local_copy(self, i: int, key: str) -> Stored | None:
        """Node i's own record of the key (an internal read: the store only, no coordination, no repair)."""
        now_hlc = int(time.time() * 1000) << 16
        status, body = self.request(i, "GET", f"/v0/entity?id={key}", member=True, timeout=10,
                                    headers={"X-Dht-Internal": "1", "X-Dht-Clock": str(now_hlc),
                                             "X-Dht-Release": "chaos"})  # level 2 refuses none named
        if status == 404:
            return None
        if status != 200:
            raise OSError(f"internal read of {key} on node {i} answered {status}: {body[:200]!r}")
        return Stored.decode(body)


_FEATURES: dict[str, int] = {}


def _java_feature(java: str) -> int:
    if java not in _FEATURES:
        out = subprocess.run([java, "-XshowSettings:properties", "-version"], capture_output=True, text=True).stderr
        spec = [line.split("=")[1].strip() for line in out.splitlines() if "java.specification.version" in line]
        _FEATURES[java] = int(spec[0].split(".")[0]) if spec else 21
    return _FEATURES[java]
