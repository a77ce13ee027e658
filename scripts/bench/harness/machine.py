"""What a run records of the machine it ran on: for a scenario, RAW/env.txt (key=value lines: describe): the load
average, the CPU and memory, the JDK's and load generators' versions, the commit; for the tapes (runner/, make bench),
summary.json's "machine" and "commit" (machine, git_commit). Standard library only: it runs in the load-runner image
too."""
import os
import platform
import subprocess
import time


def describe(tools, root, native):
    """The lines written before a run: date, load, nproc, memory, CPU, the tools' first version line, the commit
    and how many files under node/ and scripts/ differ from it; with native, the kernel and glibc too."""
    commit = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--", "node", "scripts"],
                           capture_output=True, text=True).stdout.strip()
    lines = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "load_before": loadavg(),
             "nproc": os.cpu_count(), "memory_kib": memory_kib(), "cpu": cpu_model(),
             "java": version(tools["java"], "-version", none=""), "commit": commit, "dirty": len(dirty.splitlines()),
             "oha": version(tools["oha"], "--version", none="")}
    for tool, flag in (("wrk", "-v"), ("k6", "version")):  # the versions of the other load generators used
        if tools.get(tool):
            lines[tool] = version(tools[tool], flag, none="")
    if native:
        lines.update({"kernel": platform.release(), "glibc": platform.libc_ver()[1]})
    return lines


def version(binary, *args, none="unknown"):
    """The first line a tool writes when asked its version (binary ARGS: on stdout, or stderr as java and wrk do),
    or none."""
    try:
        p = subprocess.run([binary, *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return none
    return ((p.stdout + p.stderr).strip().splitlines() or [none])[0]


def write_env(path, lines, mode):
    with open(path, mode, encoding="utf-8") as f:
        for k, v in lines.items():
            f.write("%s=%s\n" % (k, v))


def machine():
    """summary.json's "machine" of a run of the tapes: CPUs, CPU model, memory, kernel, python, the load before."""
    mem = memory_kib()
    return {
        "cpus": os.cpu_count(),
        "cpu": cpu_model(),
        "memory": None if mem == "?" else "%s kB" % mem,
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


def loadavg():
    """The 1, 5 and 15 minute load averages, or None where /proc has none."""
    try:
        with open("/proc/loadavg", encoding="ascii") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return None


def memory_kib():
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            return next((line.split()[1] for line in f if line.startswith("MemTotal:")), "?")
    except OSError:
        return "?"


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()
