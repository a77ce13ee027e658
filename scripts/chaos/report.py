"""report.md for a person: the verdict, each guarantee with its first violations (and the operations involved), the
faults and what they did, the operations by outcome and latency. The console gets the verdict and the first
violations."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from .verdict import CheckResult
from .history import Event, Op

SHOWN = 5


def _pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))]


def verdict(results: dict[str, CheckResult]) -> tuple[bool, int]:
    total = sum(len(r.violations) for r in results.values())
    return total == 0, total


def console(results: dict[str, CheckResult]) -> str:
    ok, total = verdict(results)
    lines = [f"chaos: {'PASS' if ok else 'FAIL'}: {total} violations"]
    for r in results.values():
        state = "n/a " if not r.applicable else ("ok  " if r.passed else "FAIL")
        lines.append(f"  [{state}] {r.name:14} {r.title}" + (f": {len(r.violations)}" if r.violations else ""))
        for v in r.violations[:3]:
            lines.append(f"         - {v.key or ''} {v.message}")
            for op in v.ops:
                lines.append(f"             {op.brief()}")
    return "\n".join(lines)


def write(out: Path, params: dict, results: dict[str, CheckResult], ops: list[Op], events: list[Event],
          faults: list[dict]) -> Path:
    ok, total = verdict(results)
    md = [f"# Chaos run {params.get('run', out.name)}", ""]
    md.append(f"**{'PASS' if ok else 'FAIL'}: {total} violations.** "
              + ", ".join(f"{k} {v}" for k, v in params.items() if k != "run"))
    md += ["", "## Guarantees", "", "| check | | violations | |", "|---|---|---:|---|"]
    for r in results.values():
        state = "not applicable" if not r.applicable else ("ok" if r.passed else "**violated**")
        md.append(f"| `{r.name}` | {r.title} | {len(r.violations)} | {state} |")
    for r in results.values():
        if not r.violations and not r.notes and not r.examples:
            continue
        md += ["", f"### {r.name}", ""]
        md += [f"- {n}" for n in r.notes]
        for example in r.examples:  # not `ops`: that is every operation of the run, counted below
            md += ["- allowed, for example:"] + [f"    - `{op.brief()}`" for op in example]
        for v in r.violations[:SHOWN]:
            md += ["", f"- **{v.key or ''}**: {v.message}"]
            md += [f"    - `{op.brief()}`" for op in v.ops]
        if len(r.violations) > SHOWN:
            md.append(f"\n({len(r.violations) - SHOWN} more in violations.json)")
    md += ["", "## Faults", "", "Started at: seconds after the clients started (planned, when the machine was too busy to "
           "keep the plan; each fault still lasts its planned length).", "",
           "| # | started s | length s | fault | observed |", "|---:|---:|---:|---|---|"]
    observed: dict[int, list[str]] = {}
    started: dict[int, float] = {}
    for e in events:
        if e.action == "start":
            started.setdefault(e.fault, e.t / 1e9)
        d = {k: v for k, v in e.detail.items()
             if k not in ("what", "dropped_before", "clock_metrics", "on", "mode", "drops", "nodes", "node", "others",
                          "offsets", "bridge")}
        if d and e.fault >= 0:
            observed.setdefault(e.fault, []).append(json.dumps(d, separators=(",", ":")))
    for f in faults:
        obs = "; ".join(observed.get(f["index"], [])).replace("|", "/")
        at = started.get(f["index"])
        when = "not reached" if at is None else f"{at:.1f}" + (f" ({f['start']:.1f})" if at - f["start"] > 1 else "")
        md.append(f"| {f['index']} | {when} | {f['duration']:.1f} | {f['what']} | {obs[:400]} |")
    md += ["", "## Operations", "", "| op | ok | fail | unknown | p50 ms | p99 ms | max ms |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for f in ("get", "put", "delete"):
        mine = [o for o in ops if o.f == f and o.process.startswith("c")]
        c = Counter(o.type for o in mine)
        lat = [(o.t1 - o.t0) / 1e6 for o in mine if o.t1 is not None]
        md.append(f"| {f} | {c['ok']} | {c['fail']} | {c['info']} | {_pct(lat, .5):.1f} | {_pct(lat, .99):.1f} "
                  f"| {max(lat, default=float('nan')):.1f} |")
    statuses = Counter(str(o.status or (o.error or "").split(":")[0]) for o in ops if o.process.startswith("c"))
    md += ["", "Answers: " + ", ".join(f"{k} x{v}" for k, v in statuses.most_common()), "",
           "Files: `history.jsonl` (every operation), `nemesis.jsonl` (every fault step), `final.json` (every "
           "node's copy of every key after healing), `violations.json`, `timeline.png`, `nodes/n*.log`."]
    (out / "report.md").write_text("\n".join(md) + "\n")
    (out / "violations.json").write_text(json.dumps(
        {name: [{"key": v.key, "message": v.message, "ops": [o.brief() for o in v.ops]} for v in r.violations]
         for name, r in results.items()}, indent=1))
    return out / "report.md"
