"""What a run records of the machine it ran on, in RAW/env.txt (key=value lines): the load average, the CPU and
memory, the JDK's and load generators' versions, the commit. Standard library only."""
import os
import platform
import subprocess
import time


def describe(tools, root, native):
    """The lines written before a run: date, load, nproc, memory, CPU, the tools' first version line, the commit
    and how many files under node/ and scripts/ differ from it; with native, the kernel and glibc too."""
    java = subprocess.run([tools["java"], "-version"], capture_output=True, text=True).stderr
    oha = subprocess.run([tools["oha"], "--version"], capture_output=True, text=True).stdout
    commit = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--", "node", "scripts"],
                           capture_output=True, text=True).stdout.strip()
    lines = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "load_before": loadavg(),
             "nproc": os.cpu_count(), "memory_kib": memory_kib(), "cpu": cpu_model(), "java": (java.splitlines() or [""])[0],
             "commit": commit, "dirty": len(dirty.splitlines()), "oha": (oha.splitlines() or [""])[0]}
    for tool, flag in (("wrk", "-v"), ("k6", "version")):  # the versions of the other load generators used
        if tools.get(tool):
            p = subprocess.run([tools[tool], flag], capture_output=True, text=True)
            lines[tool] = ((p.stdout + p.stderr).splitlines() or [""])[0]
    if native:
        lines.update({"kernel": platform.release(), "glibc": platform.libc_ver()[1]})
    return lines


def write_env(path, lines, mode):
    with open(path, mode, encoding="utf-8") as f:
        for k, v in lines.items():
            f.write("%s=%s\n" % (k, v))


def loadavg():
    with open("/proc/loadavg", encoding="ascii") as f:
        return " ".join(f.read().split()[:3])


def memory_kib():
    with open("/proc/meminfo", encoding="ascii") as f:
        return next((line.split()[1] for line in f if line.startswith("MemTotal:")), "?")


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()
