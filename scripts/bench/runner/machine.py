"""What a run was measured on: the machine, its load, the commit, the tools."""
import os
import platform
import subprocess


def _first(path, prefix):
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith(prefix):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def loadavg():
    try:
        with open("/proc/loadavg", encoding="utf-8") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return None


def machine():
    mem = _first("/proc/meminfo", "MemTotal")
    return {
        "cpus": os.cpu_count(),
        "cpu": _first("/proc/cpuinfo", "model name") or platform.processor() or platform.machine(),
        "memory": mem,
        "kernel": "%s %s" % (platform.system(), platform.release()),
        "python": platform.python_version(),
        "load_before": loadavg(),
    }


def git_commit(path):
    """Short commit of the repository holding path (+ "-dirty" with uncommitted changes), or None."""
    try:
        c = subprocess.run(["git", "-C", path, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                           timeout=10)
        if c.returncode != 0:
            return None
        d = subprocess.run(["git", "-C", path, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True, timeout=10)
        return c.stdout.strip() + ("-dirty" if d.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return None
