"""What the checker reports: one result per guarantee, with its violations (and the operations involved), its
notes and examples; and what the run saw after healing (FinalState), the checker's other input."""
from __future__ import annotations

from dataclasses import dataclass, field

from .history import Op, Stored


@dataclass
class Violation:
    check: str
    key: str | None
    message: str
    ops: list[Op] = field(default_factory=list)


@dataclass
class CheckResult:
    name: str
    title: str
    violations: list[Violation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    applicable: bool = True
    examples: list[list[Op]] = field(default_factory=list)  # allowed, but worth a look (the report shows them)

    @property
    def passed(self) -> bool:
        return not self.violations


@dataclass
class FinalState:
    """What the run saw after healing (run.py collects it): hints left per node after the wait, how many keys
    still differed between replicas before read repair, each node's copy of each key after the final reads
    (None: no record), each key's replicas, and the nodes that stayed up. Probes of the nemesis are in events."""
    hints_left: dict[int, float]
    diverged_before_repair: int
    copies: dict[str, dict[int, Stored | None]]
    replicas: dict[str, list[int]]
    clock_bound: float | None = None  # seconds a clock may run ahead before members refuse it (None: no bound)
    exits: list = field(default_factory=list)   # [node, exit code] of nodes that ended on their own


TITLES = {
    "never-written": "No read returns a value that was never written",
    "stale-read": "A read overlapping an acknowledged write (R + W > N) sees it or newer",
    "delete-kept": "A delete stays deleted unless a newer write followed",
    "lost-write": "No acknowledged write lost: after healing, a from/from read returns the last one or newer",
    "convergence": "Hints and read repair converge every replica once faults stop",
    "disk-full": "A full disk fails writes with a clear 5xx, loses nothing, and recovers",
    "clock-skew": "A member whose clock runs ahead beyond the bound is refused or flagged",
    "nodes-up": "No node exits unless the nemesis kills it",
}
