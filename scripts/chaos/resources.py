"""Everything a run creates on the machine (node processes, mounts, network namespaces, links) is written to a
manifest *before* it is created, and removed from the machine by one function, `release`, whoever calls it:

- the run itself, in a `finally` (normal end, an exception, Ctrl-C, SIGTERM);
- its guardian: a small process in its own session that waits on a pipe from the run and releases the manifest when
  the pipe closes, so a run killed with SIGKILL is cleaned up within a second;
- the next run, which releases manifests whose run and guardian are both gone (a machine-wide kill -9).

Manifests live in /run/dht-chaos (a tmpfs: a reboot drops them together with what they describe). Processes are
killed only by pid *and* start time, so a recycled pid is never hit.
"""
from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

STATE_DIR = Path(os.environ.get("DHT_CHAOS_STATE", "/run/dht-chaos"))


def start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (field 22 of /proc/PID/stat), or None if it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2:].split()[19]


def alive(pid: int, started: str | None) -> bool:
    return started is not None and start_time(pid) == started


class Manifest:
    """The run's list of resources, rewritten atomically on every change."""

    def __init__(self, run_id: str):
        STATE_DIR.mkdir(parents=True, exist_ok=True)
        self.path = STATE_DIR / f"{run_id}.json"
        self.data = {"run": run_id, "owner": os.getpid(), "owner_start": start_time(os.getpid()),
                     "guardian": None, "guardian_start": None, "resources": []}
        self._save()

    def _save(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.data, indent=1))
        tmp.replace(self.path)

    def add(self, kind: str, **info) -> dict:
        entry = {"kind": kind, **info}
        self.data["resources"].append(entry)
        self._save()
        return entry

    def update(self, entry: dict, **info) -> None:
        entry.update(info)
        self._save()

    def remove(self, entry: dict) -> None:
        if entry in self.data["resources"]:
            self.data["resources"].remove(entry)
            self._save()

    def set_guardian(self, pid: int) -> None:
        self.data["guardian"] = pid
        self.data["guardian_start"] = start_time(pid)
        self._save()


def _quiet(cmd: list[str]) -> bool:
    return subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


def _kill_process(entry: dict) -> None:
    pid, started = entry["pid"], entry.get("start")
    if not alive(pid, started):
        return
    try:
        os.kill(pid, signal.SIGKILL)  # a stopped (SIGSTOPped) process dies of SIGKILL too
    except ProcessLookupError:
        return
    for _ in range(100):
        if not alive(pid, started):
            return
        time.sleep(0.05)


def _unmount(path: str) -> None:
    if not _quiet(["mountpoint", "-q", path]):
        return
    if not _quiet(["umount", path]):
        _quiet(["umount", "-l", path])


def release(path: Path) -> list[str]:
    """Removes everything the manifest lists, in reverse order of creation; returns what it removed. Idempotent."""
    if not path.exists():
        return []
    lock = path.with_suffix(".lock")
    with open(lock, "w") as lf:
        fcntl.flock(lf, fcntl.LOCK_EX)
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            data = {}
        done = []
        entries = data.get("resources", [])
        # processes first (they hold the mounts and live in the namespaces), then the rest newest first
        for entry in [e for e in entries if e["kind"] == "process"]:
            _kill_process(entry)
            done.append(f"process {entry['pid']} ({entry.get('name', '')})")
        for entry in reversed([e for e in entries if e["kind"] != "process"]):
            kind = entry["kind"]
            if kind == "mount":
                _unmount(entry["path"])
            elif kind == "netns":
                _quiet(["ip", "netns", "delete", entry["name"]])
            elif kind == "link":
                _quiet(["ip", "link", "delete", entry["name"]])
            elif kind == "dir":
                try:
                    os.rmdir(entry["path"])
                except OSError:
                    pass
            done.append(f"{kind} {entry.get('name') or entry.get('path')}")
        path.unlink(missing_ok=True)
    lock.unlink(missing_ok=True)
    return done


def reap_stale() -> list[str]:
    """Releases the manifests of runs that ended without cleaning up (run and guardian both gone)."""
    released = []
    if not STATE_DIR.is_dir():
        return released
    for path in sorted(STATE_DIR.glob("*.json")):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if alive(data["owner"], data.get("owner_start")):
            continue
        if data.get("guardian") and alive(data["guardian"], data.get("guardian_start")):
            continue
        released += [f"{data['run']}: {r}" for r in release(path)]
    return released


def start_guardian(manifest: Manifest, log: Path) -> subprocess.Popen:
    """A process that releases the manifest when this one goes away, however it goes."""
    with open(log, "ab") as out:
        guardian = subprocess.Popen(
            [sys.executable, "-m", "chaos", "guard", str(manifest.path)],
            stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            cwd=str(Path(__file__).resolve().parent.parent))
    manifest.set_guardian(guardian.pid)
    return guardian


def guard(path: Path) -> None:
    """The guardian's body: block until the run's end of the pipe closes, then release what is left."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the run, which cleans up itself
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    while sys.stdin.buffer.read(4096):
        pass
    done = release(path)
    if done:
        print(f"guardian released {len(done)} resources of {path.name}: {', '.join(done)}", flush=True)
