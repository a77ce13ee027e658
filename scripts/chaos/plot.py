"""timeline.png: what happened when. Top: every client operation's latency (log scale) by outcome, with the
operations of violations circled. Middle: operations per second by outcome. Bottom: the faults, one lane per
node (partitions on the nodes that lost packets, pauses, crashes, clock offsets, full disks)."""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from .verdict import CheckResult
from .history import Event, Op

COLORS = {"partition": "#4c72b0", "pause": "#8c8c8c", "crash": "#222222", "clock": "#8172b2", "disk": "#937860"}


def _intervals(events: list[Event]) -> list[tuple[str, int, float, float, str]]:
    """(kind, node, start s, end s, label) for every fault, from the nemesis's steps."""
    open_: dict[int, Event] = {}
    out = []
    last = max((e.t for e in events), default=0) / 1e9

    def close(s: Event, end: float) -> None:
        d = s.detail
        if s.kind == "partition":
            for node in sorted({b for _, b in d.get("drops", [])}):
                deaf = sorted(a for a, b in d["drops"] if b == node)
                out.append((s.kind, node, s.t / 1e9, end, "x " + ",".join(map(str, deaf))))
        elif s.kind == "clock":
            for node, off in d.get("offsets", []):
                out.append((s.kind, node, s.t / 1e9, end, f"{off:+d}s"))
        else:
            for node in d.get("nodes", [d.get("node")]):
                if node is not None:
                    out.append((s.kind, node, s.t / 1e9, end, ""))

    for e in events:
        if e.action == "start":
            open_[e.fault] = e
        elif e.action in ("end", "lift") and e.fault in open_:
            close(open_.pop(e.fault), e.t / 1e9)
    for s in open_.values():
        close(s, last)
    return out


def draw(out: Path, ops: list[Op], events: list[Event], results: dict[str, CheckResult], nodes: int) -> Path | None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    client = [o for o in ops if o.t1 is not None and o.process.startswith("c")]
    fig, (ax1, ax2, ax3) = plt.subplots(3, 1, figsize=(16, 10), sharex=True,
                                        gridspec_kw={"height_ratios": [3, 1.3, 1.6]})
    styles = {("ok", False): ("read ok", "#1f77b4", "."), ("ok", True): ("write ok", "#2ca02c", "."),
              ("fail", False): ("failed", "#ff7f0e", "."), ("fail", True): ("failed", "#ff7f0e", "."),
              ("info", True): ("write unknown", "#d62728", "x"), ("info", False): ("unknown", "#d62728", "x")}
    groups: dict[tuple, list[Op]] = defaultdict(list)
    for o in client:
        groups[(o.type, o.write)].append(o)
    seen = set()
    for key, group in sorted(groups.items()):
        label, color, marker = styles[key]
        ax1.scatter([o.t0 / 1e9 for o in group], [max(0.05, (o.t1 - o.t0) / 1e6) for o in group], s=4, c=color,
                    marker=marker, label=None if label in seen else label, alpha=0.6, linewidths=0.6)
        seen.add(label)
    bad = [op for r in results.values() for v in r.violations for op in v.ops if op.t1 is not None]
    if bad:
        ax1.scatter([o.t0 / 1e9 for o in bad], [max(0.05, (o.t1 - o.t0) / 1e6) for o in bad], s=60,
                    facecolors="none", edgecolors="black", label="in a violation")
    ax1.set_yscale("log")
    ax1.set_ylabel("latency ms")
    ax1.legend(loc="upper left", fontsize=8, ncol=6)
    ax1.grid(alpha=0.3)

    end = int(max((o.t1 for o in client), default=0) / 1e9) + 1
    for kind, color in (("ok", "#2ca02c"), ("fail", "#ff7f0e"), ("info", "#d62728")):
        counts = [0] * end
        for o in client:
            if o.type == kind:
                counts[min(end - 1, int(o.t0 / 1e9))] += 1
        ax2.plot(range(end), counts, color=color, label=kind, lw=1)
    ax2.set_ylabel("ops/s")
    ax2.legend(loc="upper left", fontsize=8, ncol=3)
    ax2.grid(alpha=0.3)

    for kind, node, s, e, label in _intervals(events):
        ax3.barh(node, e - s, left=s, height=0.6, color=COLORS.get(kind, "red"), alpha=0.85)
        if label:
            ax3.text(s, node, " " + label, va="center", fontsize=7, color="white")
    for kind, color in COLORS.items():
        ax3.barh(-10, 0, color=color, label=kind)
    ax3.set_yticks(range(nodes), [f"n{i}" for i in range(nodes)])
    ax3.set_ylim(-0.6, nodes - 0.4)
    ax3.invert_yaxis()
    ax3.set_xlabel("seconds since the clients started")
    ax3.legend(loc="upper left", fontsize=8, ncol=5)
    ax3.grid(alpha=0.3, axis="x")
    fig.tight_layout()
    path = out / "timeline.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
