"""One chaos run, start to end:

  set up   network namespaces + bridge, a tmpfs per node, the node processes (all in the manifest first)
  check    the cluster works before any fault (a 3/3 write through every node)
  load     the clients for CHAOS_DURATION while the nemesis follows its seeded schedule
  heal     every fault undone, every node up
  settle   hints drained, every replica read, every key read at from/from, repairs awaited (settle.py)
  check    the history against the guarantees (checker.py); report.md, timeline.png
  clean    always, in a finally, and by the guardian if this process is killed outright (resources.py)

Returns 0 when no guarantee was violated, 1 when one was, 2 when the run itself could not be carried out.
"""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path

from . import plot, report, resources, settle
from .checker import Checker
from .history import Recorder
from .nemesis import Nemesis
from .network import Network, check_tools
from .nodes import Cluster, NodeFlags
from .placement import Ring
from .schedule import plan
from .workload import Workload, execute


def _seconds(text: str) -> float:
    from .__main__ import _seconds as parse
    return parse(text)

CLOCK_BOUND_FLAGS = ("--max-clock-ahead",)  # issue 21: clocks further ahead are refused and counted


@dataclass
class Config:
    duration: float
    seed: int
    nemesis: list[str]
    nodes: int
    rf: int
    keys: int
    rate: float
    clients: int
    out: Path
    java: str
    jar: Path
    faketime: str | None
    disk_mb: int = 96      # each node's data filesystem (tmpfs: only what is used takes memory)
    timeout: float = 3.0   # a healthy coordinator answers within its 1 s request timeout


def log(msg: str) -> None:
    print(f"[chaos {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def _terminate(signum, _frame):
    raise SystemExit(128 + signum)


def run(cfg: Config) -> int:
    check_tools()
    if os.geteuid() != 0:
        log("needs root (network namespaces, nftables, tmpfs mounts): run it through make chaos, which uses sudo")
        return 2
    signal.signal(signal.SIGTERM, _terminate)
    signal.signal(signal.SIGHUP, _terminate)
    for line in resources.reap_stale():
        log(f"released a stale run's {line}")
    run_id = time.strftime("%Y%m%d-%H%M%S") + f"-s{cfg.seed}"
    out = cfg.out / run_id
    out.mkdir(parents=True)
    latest = cfg.out / "latest"
    latest.unlink(missing_ok=True)
    latest.symlink_to(run_id)
    manifest = resources.Manifest(run_id)
    guardian = resources.start_guardian(manifest, out / "guardian.log")
    log(f"run {run_id}: {cfg.nodes} nodes, RF {cfg.rf}, {cfg.duration:.0f} s, seed {cfg.seed}, nemesis "
        f"{','.join(cfg.nemesis) or 'none'}; results in {out}")
    stop: list = []  # what must stand still before the release: nothing may start a node behind its back
    try:
        return _run(cfg, run_id, out, manifest, stop)
    except (RuntimeError, OSError, subprocess.SubprocessError) as e:
        traceback.print_exc()
        log(f"the run could not be carried out: {e}")
        return 2
    finally:
        for halt in stop:
            halt()
        resources.release(manifest.path)
        guardian.stdin.close()
        guardian.wait(30)
        log(f"cleaned up: namespaces, mounts, rules and processes of {run_id} are gone")


def _run(cfg: Config, run_id: str, out: Path, manifest: resources.Manifest, stop: list) -> int:
    rng = random.Random(f"{cfg.seed}/setup")
    flags = NodeFlags(subprocess.run([cfg.java, "-jar", str(cfg.jar), "--help"], capture_output=True,
                                     text=True, timeout=120).stdout)
    bound_flag = next((f for f in CLOCK_BOUND_FLAGS if flags.has(f)), None)
    clock_bound = _seconds(flags.default(bound_flag)) if bound_flag else None  # the node's default applies
    network = Network(run_id, cfg.nodes, manifest, rng)
    network.create()
    mount_root = resources.STATE_DIR / run_id
    mount_root.mkdir()
    manifest.add("dir", path=str(mount_root))
    faketime = cfg.faketime if "clock" in cfg.nemesis else None  # preloaded only when clocks will move
    cluster = Cluster(network, manifest, out, mount_root, cfg.java, cfg.jar, faketime, cfg.rf, cfg.disk_mb,
                      flags)
    stop.append(cluster.close)
    cluster.prepare()
    ring = Ring([m.url for m in network.members])
    for i in range(cfg.nodes):
        cluster.start(i)
    for i in range(cfg.nodes):
        cluster.await_ready(i)
    log(f"{cfg.nodes} nodes ready on {network.subnet} (bridge {network.bridge})")

    recorder = Recorder(out)
    t_origin = time.monotonic_ns()
    _sanity(cluster, recorder, t_origin, cfg)
    faults = plan(cfg.seed, cfg.duration, cfg.nemesis, cfg.nodes)
    (out / "schedule.json").write_text(json.dumps([{**asdict(f), "what": f.describe()} for f in faults], indent=1))
    params = {"run": run_id, "seed": cfg.seed, "duration_s": cfg.duration, "nemesis": ",".join(cfg.nemesis),
              "nodes": cfg.nodes, "rf": cfg.rf, "keys": cfg.keys, "rate": cfg.rate, "clients": cfg.clients,
              "faults": len(faults), "load_at_start": os.getloadavg()[0], "commit": _commit(),
              "clock_bound": f"{bound_flag} {clock_bound:g} s" if bound_flag else "none",
              "faketime": bool(faketime)}
    workload = Workload(network.members, recorder, t_origin, cfg.seed, cfg.clients, cfg.rate, cfg.keys, cfg.rf,
                        cfg.timeout)
    nemesis = Nemesis(faults, cluster, network, recorder, t_origin, ring, cfg.timeout, clock_bound)
    stop.insert(0, nemesis.stop.set)
    stop.insert(0, workload.stop.set)
    workload.start()
    nemesis.start()
    end = time.monotonic() + cfg.duration
    while time.monotonic() < end:
        time.sleep(min(30.0, max(0.0, end - time.monotonic())))
        done = len(recorder.ops)
        log(f"{(time.monotonic_ns() - t_origin) / 1e9:.0f} s: {done} operations, {len(recorder.events)} fault "
            f"steps, load {os.getloadavg()[0]:.1f}")
    nemesis.stop.set()  # no fault starts once the time is up, however late the schedule runs
    workload.finish()
    log("clients stopped; healing every fault")
    nemesis.heal_all()
    final = settle.settle(cluster, ring, recorder, t_origin, cfg.rf, cfg.timeout, out, clock_bound, log)
    params["load_at_end"] = os.getloadavg()[0]
    cluster.stop_all()
    recorder.close()
    (out / "params.json").write_text(json.dumps(params, indent=1))
    return check(out, final)


def _sanity(cluster: Cluster, recorder: Recorder, t_origin: int, cfg: Config) -> None:
    """Before any fault: a 3/3 write through every node must succeed, or the network is not what we think."""
    deadline = time.monotonic() + 120
    for i in range(cfg.nodes):
        while True:
            op = execute(cluster.members, recorder, t_origin, "setup", i, "put", f"sanity-n{i}",
                         f"sanity-{i}-{time.monotonic_ns()}", (cfg.rf, cfg.rf), cfg.rf, cfg.timeout)
            if op.status == 201:
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"the cluster does not work before any fault: a {cfg.rf}/{cfg.rf} PUT through "
                                   f"n{i} answered {op.status or op.error}; see {cluster.log_dir} (with "
                                   "net.bridge.bridge-nf-call-iptables=1, a FORWARD chain that drops bridged "
                                   "traffic would cut the nodes off from each other)")
            time.sleep(1)


def _commit() -> str:
    p = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                           text=True).stdout.strip()
    return p.stdout.strip() + ("+changes" if dirty else "") if p.returncode == 0 else "unknown"


def check(out: Path, final=None) -> int:
    """Checks a run's files (again) and writes its report; the exit status of the run."""
    from .history import load
    ops, events = load(out)
    if final is None and (out / "final.json").exists():
        final = settle.load(out / "final.json")
    params = json.loads((out / "params.json").read_text()) if (out / "params.json").exists() else {}
    results = Checker(ops, events).run(final)
    faults = json.loads((out / "schedule.json").read_text()) if (out / "schedule.json").exists() else []
    path = report.write(out, params, results, ops, events, faults)
    png = plot.draw(out, ops, events, results, params.get("nodes", 5))
    print(report.console(results))
    log(f"report: {path}" + (f", timeline: {png}" if png else " (no matplotlib: no timeline)"))
    ok, _ = report.verdict(results)
    return 0 if ok else 1
