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
"""
from __future__ import annotations

import bisect
from collections import defaultdict
from dataclasses import dataclass, field

from .history import Event, Op, Stored

EPS_NS = 2_000_000           # two nodes may stamp the same millisecond
REFUSED = "dht_clock_refused_total"  # issue 21's counter of clock readings and timestamps refused as too far ahead
FAKETIME_LAG_NS = 2_500_000_000   # a node re-reads its clock file within about a second (FAKETIME_CACHE_DURATION=1)


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


def overlap(a: Op, b: Op) -> bool:
    return a.ack + b.ack > max(a.frm, b.frm)


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
            self._convergence(final, results["convergence"], finals)
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
        self._disk(results["disk-full"])
        self._clock_skew(final, results["clock-skew"])
        return results

    @staticmethod
    def _convergence(final: FinalState, result: CheckResult, finals: list[Op]) -> None:
        last_read = {r.key: r for r in finals if r.type == "ok"}
        for node, left in sorted(final.hints_left.items()):
            if left:
                result.violations.append(Violation("convergence", None, f"n{node} still holds {left:.0f} hints "
                                                   "after the wait"))
        for key, copies in sorted(final.copies.items()):
            replicas = final.replicas[key]
            held = {copies.get(n) for n in replicas}
            show = "; ".join(f"n{n}: {copies[n].describe() if copies.get(n) else 'nothing'}" for n in replicas)
            if len(held) > 1:
                result.violations.append(Violation("convergence", key, f"replicas differ: {show}"))
                continue
            stray = [n for n, c in copies.items() if n not in replicas and c is not None]
            if stray:
                result.violations.append(Violation("convergence", key, f"a copy outside the key's replicas "
                                                   f"{replicas} on {stray}"))
            record = held.pop()
            r = last_read.get(key)
            if r is not None:
                expect = None if record is None or record.tombstone else record.value.decode()
                if r.value != expect:
                    result.violations.append(Violation("convergence", key, f"the final read answered "
                                                       f"{r.value!r} but the replicas hold {show}", [r]))
        result.notes.append(f"{len(final.copies)} keys compared on every node; {final.diverged_before_repair} "
                            "differed between replicas before the final reads (writes at from < RF reach only "
                            "their first `from` replicas: read repair at from/from brings the others)")

    def _disk(self, result: CheckResult) -> None:
        notes = [e for e in self.events if e.kind == "disk" and e.action == "note"]
        if not any(e.kind == "disk" and e.action == "start" for e in self.events):
            result.applicable = False
            result.notes.append("no disk fault in this run")
            return
        refused = 0
        for e in notes:
            d = e.detail
            refused += sum(1 for a in d.get("full_disk_writes", []) if a["status"] and a["status"] >= 500)
            for a in d.get("full_disk_writes", []):
                if a["status"] is None or not (200 <= a["status"] < 300 or 500 <= a["status"] < 600):
                    result.violations.append(Violation("disk-full", None, f"n{d['node']} with a full disk answered "
                                                       f"a write with {a['status'] or a['error']}"))
                elif a["status"] >= 500 and not (a.get("error") or "").strip():
                    result.violations.append(Violation("disk-full", None, f"n{d['node']} answered {a['status']} "
                                                       "with no reason"))
            if "full_disk_read" in d and d["full_disk_read"] not in (200, 404):
                result.violations.append(Violation("disk-full", None, f"n{d['node']} with a full disk answered a "
                                                   f"read with {d['full_disk_read']}"))
            if "recovered_after_s" in d and d["recovered_after_s"] is None:
                result.violations.append(Violation("disk-full", None, f"n{d['node']} did not accept writes within "
                                                   f"{d.get('bound_s')} s of its disk having room ({d.get('last')})"))
            statuses = [a["status"] for a in d.get("full_disk_writes", [])]
            if statuses:
                result.notes.append(f"n{d['node']} full: probe writes answered {statuses}")
            if d.get("recovered_after_s") is not None:
                result.notes.append(f"n{d['node']} accepted writes {d['recovered_after_s']} s after space returned")
        if not refused and not result.violations:
            result.applicable = False
            result.notes.append("not exercised: no probe met a full disk (a node was down, or the fault too short)")

    def _clock_skew(self, final: FinalState | None, result: CheckResult) -> None:
        """Each clock fault beyond the bound must show in the refusal counters between its start and its end: the
        other members' when the clock ran ahead (they refuse its readings), the node's own when it ran behind (it
        refuses everyone's). Skipped for a fault whose node could not talk: down, paused or partitioned."""
        if final is None or final.clock_bound is None:
            result.applicable = False
            result.notes.append("this build has no bound on clocks: a skewed member is followed by every HLC "
                                "(rules 2-4 still hold it to losing no acknowledged write)")
            return
        bound = final.clock_bound
        margin = FAKETIME_LAG_NS / 1e9
        begun = {e.fault: e for e in self.events if e.kind == "clock" and e.action == "start"}
        ended = {e.fault: e for e in self.events if e.kind == "clock" and e.action == "end"}
        checked = 0
        for fault, s in sorted(begun.items()):
            e = ended.get(fault)
            before, after = s.detail.get("clock_metrics"), e.detail.get("clock_metrics") if e else None
            for node, offset in s.detail.get("offsets", []):
                if abs(offset) <= bound + margin:
                    continue
                if not before or not after or self._cut_off(node, s.t, e.t):
                    result.notes.append(f"fault {fault}: n{node} at {offset:+d} s not judged (no counters, or "
                                        "the node was down, paused or partitioned meanwhile)")
                    continue
                if offset < 0 and self.clock.own_lead(node, s.t) > 0:
                    result.notes.append(f"fault {fault}: n{node} at {offset:+d} s not judged: its HLC still ran "
                                        "ahead from its own earlier skew, so no reading was ahead of it to refuse")
                    continue
                judges = [n for n in before if n in after and (n != str(node)) == (offset > 0)]
                refused = sum(after[n].get(REFUSED, 0) - before[n].get(REFUSED, 0) for n in judges)
                checked += 1
                who = "the other members" if offset > 0 else f"n{node} itself"
                if refused <= 0:
                    result.violations.append(Violation("clock-skew", None, f"n{node}'s clock ran {abs(offset)} s "
                                                       f"{'ahead' if offset > 0 else 'behind'} (bound {bound:g} s) "
                                                       f"and {who} refused nothing ({REFUSED} unchanged)"))
                else:
                    result.notes.append(f"fault {fault}: n{node} at {offset:+d} s: {who} refused {refused:.0f} "
                                        "clock readings or timestamps")
        if not checked and not result.violations:
            result.applicable = False
            result.notes.append(f"no clock fault beyond the bound ({bound:g} s) could be judged in this run")

    def _cut_off(self, node: int, t0: int, t1: int) -> bool:
        """Whether the node was down, paused, or cut off from every other member (all its packets to them, or
        all theirs to it, dropped) at some point of [t0, t1]."""
        others = {n for e in self.events for n in e.detail.get("clock_metrics", {})} - {str(node)}
        for e in self.events:
            if e.kind in ("pause", "crash", "partition") and e.action == "start" and e.t <= t1:
                d = e.detail
                drops = {tuple(p) for p in d.get("drops", [])}
                deaf = {str(a) for a, b in drops if b == node}
                mute = {str(b) for a, b in drops if a == node}
                hit = node in d.get("nodes", []) or (bool(drops) and (deaf >= others or mute >= others))
                end = next((x.t for x in self.events if x.fault == e.fault and x.action in ("end", "lift")
                            and x.t >= e.t), 1 << 62)
                if hit and end >= t0:
                    return True
            if e.kind == "exit" and e.detail.get("node") == node and t0 <= e.t <= t1:
                return True
        return False

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
