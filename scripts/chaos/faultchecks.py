"""The checks of what the faults and the healing left (rules 5-7 of checker.py): replicas converged, full disks
answered and recovered, skewed clocks were refused or counted. They read the final state
and the nemesis's notes, not the clients' operations."""
from __future__ import annotations

from .clocks import FAKETIME_LAG_NS, ClockModel
from .history import Event, Op
from .verdict import CheckResult, FinalState, Violation

REFUSED = "dht_clock_refused_total"  # issue 21's counter of clock readings and timestamps refused as too far ahead


def convergence(final: FinalState, result: CheckResult, finals: list[Op]) -> None:
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


def disk_full(events: list[Event], result: CheckResult) -> None:
    notes = [e for e in events if e.kind == "disk" and e.action == "note"]
    if not any(e.kind == "disk" and e.action == "start" for e in events):
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


def clock_skew(events: list[Event], clock: ClockModel, final: FinalState | None, result: CheckResult) -> None:
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
    begun = {e.fault: e for e in events if e.kind == "clock" and e.action == "start"}
    ended = {e.fault: e for e in events if e.kind == "clock" and e.action == "end"}
    checked = 0
    for fault, s in sorted(begun.items()):
        e = ended.get(fault)
        before, after = s.detail.get("clock_metrics"), e.detail.get("clock_metrics") if e else None
        for node, offset in s.detail.get("offsets", []):
            if abs(offset) <= bound + margin:
                continue
            if not before or not after or _cut_off(events, node, s.t, e.t):
                result.notes.append(f"fault {fault}: n{node} at {offset:+d} s not judged (no counters, or "
                                    "the node was down, paused or partitioned meanwhile)")
                continue
            if offset < 0 and clock.own_lead(node, s.t) > 0:
                result.notes.append(f"fault {fault}: n{node} at {offset:+d} s not judged: its HLC still ran "
                                    "ahead from its own earlier skew, so no reading was ahead of it to refuse")
                continue
            judges = [n for n in before if n in after and (n != str(node)) == (offset > 0)]
            who = "the other members" if offset > 0 else f"n{node} itself"
            if not judges:  # e.g. the node itself, just restarted, did not answer the scrape at the start
                result.notes.append(f"fault {fault}: n{node} at {offset:+d} s not judged: no counters of {who} "
                                    "at both ends")
                continue
            refused = sum(after[n].get(REFUSED, 0) - before[n].get(REFUSED, 0) for n in judges)
            checked += 1
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


def _cut_off(events: list[Event], node: int, t0: int, t1: int) -> bool:
    """Whether the node was down, paused, or cut off from every other member (all its packets to them, or
    all theirs to it, dropped) at some point of [t0, t1]."""
    others = {n for e in events for n in e.detail.get("clock_metrics", {})} - {str(node)}
    for e in events:
        if e.kind in ("pause", "crash", "partition") and e.action == "start" and e.t <= t1:
            d = e.detail
            drops = {tuple(p) for p in d.get("drops", [])}
            deaf = {str(a) for a, b in drops if b == node}
            mute = {str(b) for a, b in drops if a == node}
            hit = node in d.get("nodes", []) or (bool(drops) and (deaf >= others or mute >= others))
            end = next((x.t for x in events if x.fault == e.fault and x.action in ("end", "lift")
                        and x.t >= e.t), 1 << 62)
            if hit and end >= t0:
                return True
        if e.kind == "exit" and e.detail.get("node") == node and t0 <= e.t <= t1:
            return True
    return False
