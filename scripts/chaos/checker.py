"""Checks a history against what docs/cluster.md ("Guarantees") promises. Per key, with unique values:

Notation. x -> w (x precedes w): x was acknowledged before w was invoked (x.t1 < w.t0, client times). An unknown
write (history.py: info) never completes, so it precedes nothing: it may take effect at any moment after its
invocation. overlap(a, b): a.ack + b.ack > max(a.from, b.from), i.e. any ack replicas of a's first `from` and any
ack replicas of b's share a member (replicas for a smaller `from` are a prefix of those for a larger one).

What last-write-wins on hybrid-logical-clock timestamps gives, and so what is checked:
  * Two acknowledged writes with x -> w are ordered (w wins) when they overlap: w's quorum must include a replica
    holding x, which answers 409 and makes w's coordinator write again with a newer timestamp. When they do not
    overlap, their order is the order of their coordinators' clocks: guaranteed when w began more than the clock
    window E after x completed. E is 2 ms with the machine's one clock (timestamps are milliseconds; two nodes can
    stamp the same one), plus, while the clock fault runs, the largest lead any clock had (a clock ahead leaks into
    every node's HLC until real time catches up) and the lag of w's coordinator's clock. Pairs inside E are counted,
    not flagged: LWW loses one of two writes that close together by design.
  * Concurrent writes (neither precedes the other) may resolve either way: LWW keeps one, by design.

  1 never-written  every value a read returns was written by a PUT invoked before the read completed, and not by
                   a PUT that certainly failed (503, refused connection)
  2 stale-read     a read that overlaps an acknowledged write w completed before the read began returns w or a
                   write that does not precede w (a 404 needs such a DELETE)
  3 delete-kept    the same rule where the newer write is a DELETE: the deleted value does not come back
  4 lost-write     after the faults are healed, a read of every key at from/from (it meets every copy) returns
                   the last acknowledged write or one that does not precede it
  5 convergence    after hints were delivered and read repair ran, every replica of a key holds the same record,
                   the final read agrees with it, no other node holds a copy, and no hint is left
  6 disk-full      with its disk full a node refuses writes that need it with a 5xx at once, serves reads, stays
                   up, and accepts writes again within a bound once space returns
  7 clock-skew     (builds with a bound on clocks) a member whose clock runs ahead beyond the bound is refused or
                   counted, never silently followed
  8 nodes-up       no node ends unless the nemesis kills it
Rules 1-4 and 8 are here; 5-7 read what the healing left and the nemesis's notes (faultchecks.py), the clock
window is clocks.py, the results and final state verdict.py.
"""
from __future__ import annotations

import bisect
from collections import defaultdict

from . import faultchecks
from .clocks import ClockModel
from .history import Event, Op
from .verdict import TITLES, CheckResult, FinalState, Violation

__all__ = ["Checker", "CheckResult", "FinalState", "Violation", "overlap"]


def overlap(a: Op, b: Op) -> bool:
    return a.ack + b.ack > max(a.frm, b.frm)


class KeyHistory:
    """One key's writes, indexed for the read checks."""

    def __init__(self, ops: list[Op]):
        self.writes = [o for o in ops if o.write and o.type in ("ok", "info")]
        self.by_value = {o.value: o for o in ops if o.f == "put"}
        self.acked = sorted((o for o in self.writes if o.type == "ok"), key=lambda o: o.t1)
        self.acked_ends = [o.t1 for o in self.acked]
        self.deletes = [o for o in self.writes if o.f == "delete"]

    def acked_before(self, t: int) -> list[Op]:
        return self.acked[:bisect.bisect_left(self.acked_ends, t)]


class Checker:
    def __init__(self, ops: list[Op], events: list[Event]):
        self.ops = ops
        self.events = events
        self.clock = ClockModel(events)
        by_key: dict[str, list[Op]] = defaultdict(list)
        for o in ops:
            by_key[o.key].append(o)
        self.keys = {k: KeyHistory(v) for k, v in by_key.items()}
        self.excused: list[list[Op]] = []   # [read, what it returned, the later write] legal only by the clock window

    def _illegal_witness(self, x: Op, witnesses: list[Op]) -> tuple[Op | None, Op | None]:
        """The latest acknowledged write among `witnesses` that x precedes and must have lost to (or None), and
        a write x precedes that the clock window let off (non-overlapping, too close), if any."""
        if x.type != "ok":
            return None, None  # an unknown write may take effect after all of them
        found, excused = None, None
        for w in witnesses:
            if w is x or w.t0 <= x.t1:
                continue
            gap = w.t0 - x.t1
            if overlap(x, w) or gap > self.clock.widest or gap > self.clock.window(x, w):
                if found is None or w.t0 > found.t0:
                    found = w
            elif excused is None or w.t0 > excused.t0:
                excused = w
        return found, excused

    def read_violation(self, r: Op) -> Violation | None:
        """Rules 1-4 for one successful read (a final read is held to rule 4, which is rule 2 at from/from)."""
        kh = self.keys[r.key]
        x = None
        if r.status == 200:
            x = kh.by_value.get(r.value)
            if x is None:
                return Violation("never-written", r.key, f"read returned {r.value!r}, which no PUT of {r.key} "
                                 "wrote", [r])
            if x.t0 > r.t1:
                return Violation("never-written", r.key, "read returned a value whose PUT began after the read "
                                 "completed", [r, x])
            if x.type == "fail":
                return Violation("never-written", r.key, "read returned the value of a PUT that was refused "
                                 f"({x.status or x.error})", [r, x])
        witnesses = [w for w in kh.acked_before(r.t0) if overlap(r, w)]
        if not witnesses:
            return None
        check = "lost-write" if r.process == "final" else "stale-read"
        if x is not None:
            w, excused = self._illegal_witness(x, witnesses)
            if w is None:
                if excused:
                    self.excused.append([r, x, excused])
                return None
            what = "DELETE" if w.f == "delete" else f"PUT {w.value!r}"
            return Violation("delete-kept" if w.f == "delete" else check, r.key,
                             f"read returned {r.value!r}, whose PUT was acknowledged before the {what} that was "
                             "acknowledged before the read began", [r, x, w])
        # 404: some DELETE invoked before the read completed must not precede a write it would have lost to
        candidates = sorted((d for d in kh.deletes if d.t0 < r.t1), key=lambda d: d.end, reverse=True)
        for d in candidates:
            w, excused = self._illegal_witness(d, witnesses)
            if w is None:
                if excused:
                    self.excused.append([r, d, excused])
                return None
        latest = max(witnesses, key=lambda w: w.t0)
        if not candidates:
            return Violation(check, r.key, "read returned 404, but acknowledged writes of the key came before "
                             "it and no DELETE was invoked before the read", [r, latest])
        return Violation(check, r.key, "read returned 404, but every DELETE invoked before it was acknowledged "
                         "before a later acknowledged write (latest shown)", [r, candidates[0], latest])

    def run(self, final: FinalState | None) -> dict[str, CheckResult]:
        results = {name: CheckResult(name, title) for name, title in TITLES.items()}
        for r in self.ops:
            if r.f == "get" and r.type == "ok":
                v = self.read_violation(r)
                if v:
                    results[v.check].violations.append(v)
        finals = [o for o in self.ops if o.process == "final"]
        read_ok = {r.key for r in finals if r.type == "ok"}
        for key in sorted({r.key for r in finals} - read_ok):
            tries = [r for r in finals if r.key == key]
            results["lost-write"].violations.append(Violation(
                "lost-write", key, f"every final read ({len(tries)}) failed after the faults were healed", tries))
        results["lost-write"].notes.append(f"{len({o.key for o in finals})} keys read at from/from after healing")
        results["stale-read"].notes.append(
            f"{len(self.excused)} reads returned a write that an acknowledged, non-overlapping write followed "
            "within the clock window: allowed (LWW orders such writes by their coordinators' clocks)")
        results["stale-read"].examples = self.excused[:3]
        if final is not None:
            faultchecks.convergence(final, results["convergence"], finals)
        else:
            results["convergence"].applicable = False
            results["convergence"].notes.append("no final state (the run did not get that far)")
        if final is not None:
            for node, code, during, disk_full in final.exits:
                if during == "starting" and disk_full:
                    results["nodes-up"].notes.append(f"n{node} could not start on its full disk (exit {code}; "
                                                     "started again once there was room)")
                    continue
                results["nodes-up"].violations.append(Violation(
                    "nodes-up", None, f"n{node} exited with {code} while {during} without being killed"
                    + (" (its disk was full)" if disk_full else "") + f": see nodes/n{node}.log"))
        faultchecks.disk_full(self.events, results["disk-full"])
        faultchecks.clock_skew(self.events, self.clock, final, results["clock-skew"])
        return results
