"""The clock faults as the checker needs them: how far any HLC may run ahead of real time, and how far a node's
wall clock may run behind, at any moment of the run, from the offsets the nemesis applied (nemesis.jsonl). Last
write wins orders two writes that do not overlap by their coordinators' timestamps; this is how far apart those may
be (checker.py, "clock window")."""
from __future__ import annotations

from .history import Event, Op

EPS_NS = 2_000_000           # two nodes may stamp the same millisecond
FAKETIME_LAG_NS = 2_500_000_000   # a node re-reads its clock file within about a second (FAKETIME_CACHE_DURATION=1)


class ClockModel:
    """The clock offsets the nemesis applied, as intervals per node (from nemesis.jsonl)."""

    def __init__(self, events: list[Event]):
        begun: dict[int, Event] = {}
        self.intervals: list[tuple[int, int, int, int]] = []   # (node, offset s, from ns, to ns)
        for e in events:
            if e.kind != "clock" or e.action not in ("start", "end"):
                continue
            if e.action == "start":
                begun[e.fault] = e
            elif e.fault in begun:
                s = begun.pop(e.fault)
                for node, offset in s.detail.get("offsets", []):
                    self.intervals.append((node, offset, s.t, e.t + FAKETIME_LAG_NS))
        for s in begun.values():  # never ended (an aborted run): in effect to the end
            for node, offset in s.detail.get("offsets", []):
                self.intervals.append((node, offset, s.t, 1 << 62))
        # no window is ever wider than this: pairs further apart need no closer look
        self.widest = EPS_NS + 1_000_000_000 * (max([o for _, o, _, _ in self.intervals if o > 0], default=0)
                                                + max([-o for _, o, _, _ in self.intervals if o < 0], default=0))

    def lead(self, t0: int, t1: int) -> int:
        """The largest amount (ns) by which any node's HLC may run ahead of real time during [t0, t1]."""
        best = 0
        for _, offset, s, e in self.intervals:
            if offset <= 0:
                continue
            f = offset * 1_000_000_000
            if t1 < s:
                continue
            if t0 <= e:
                best = max(best, f)                       # the offset itself is in effect
            elif t0 <= e + f:
                best = max(best, f - (t0 - e))            # after it: HLCs keep the lead until real time catches up
        return best

    def lag(self, node: int, t0: int, t1: int) -> int:
        """How far (ns) the node's wall clock may run behind real time during [t0, t1]."""
        best = 0
        for n, offset, s, e in self.intervals:
            if n == node and offset < 0 and t1 >= s and t0 <= e:
                best = max(best, -offset * 1_000_000_000)
        return best

    def own_lead(self, node: int, t: int) -> int:
        """How far (ns) the node's own HLC may still run ahead at t after its own clock ran ahead earlier (an HLC
        never goes back: it keeps the lead until real time catches up)."""
        best = 0
        for n, offset, s, e in self.intervals:
            f = offset * 1_000_000_000
            if n == node and offset > 0 and s <= t <= e + f:
                best = max(best, f - max(0, t - e))
        return best

    def window(self, x: Op, w: Op) -> int:
        return EPS_NS + self.lead(x.t0, x.t1 if x.t1 is not None else x.t0) + \
            self.lag(w.node, w.t0, w.t1 if w.t1 is not None else w.t0)
