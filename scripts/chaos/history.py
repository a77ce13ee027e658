"""The history: every operation a client invoked, what it was told and when, one JSON object a line
(history.jsonl), written as the run goes so that even an aborted run leaves what it did. The nemesis writes its
faults to nemesis.jsonl the same way. Times are nanoseconds since the run's start on the monotonic clock (the
machine's, which the clock fault does not move).

An operation's outcome, in Jepsen's terms:
  ok    the store answered with success (PUT 201, DELETE 202, GET 200 or 404): the write is acknowledged
  fail  it certainly did not happen: 503 (refused before anything was written), a refused connection, a 4xx
  info  unknown: 504 (some replicas may have stored it), 500, a timeout or a connection lost mid-request.
        An unknown write may take effect at any moment after its invocation, or never.
"""
from __future__ import annotations

import json
import struct
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path

INF = float("inf")


@dataclass
class Op:
    id: int
    process: str          # which client (or "final" for the reads after healing, "probe" for the nemesis's)
    f: str                # get | put | delete
    key: str
    node: int             # the coordinator the request went to
    ack: int
    frm: int
    t0: int               # invocation, ns since the run's start
    t1: int | None        # completion (None: never answered)
    status: int | None    # HTTP status, or None for a client-side error
    type: str             # ok | fail | info
    value: str | None     # PUT: the value written; GET 200: the value read; else None
    error: str | None = None
    explicit: bool = True  # False: the request carried no `replicas` (the node's default)

    @property
    def write(self) -> bool:
        return self.f in ("put", "delete")

    @property
    def end(self) -> float:
        """Completion time; an unknown write (info) never completes."""
        return INF if self.type == "info" or self.t1 is None else self.t1

    def brief(self) -> str:
        r = f"{self.ack}/{self.frm}" + ("" if self.explicit else " (default)")
        what = {"put": f"PUT {self.value!r}", "delete": "DELETE", "get": "GET"}[self.f]
        got = self.status if self.status is not None else (self.error or "no answer")
        if self.f == "get" and self.type == "ok":
            got = f"200 {self.value!r}" if self.status == 200 else "404"
        t1 = f"{self.t1 / 1e9:.3f}" if self.t1 is not None else "-"
        return (f"#{self.id} {self.process} {what} {self.key} replicas={r} via n{self.node} "
                f"[{self.t0 / 1e9:.3f} s .. {t1} s] -> {got} ({self.type})")


@dataclass(frozen=True)
class Stored:
    """A record as a replica stores it (docs/node.md: version, flags, 8-byte HLC timestamp, value)."""
    ts: int
    tombstone: bool
    value: bytes

    @staticmethod
    def decode(raw: bytes) -> "Stored":
        if len(raw) < 10 or raw[0] != 1:
            raise ValueError(f"not a version-1 record: {raw[:12]!r}")
        (ts,) = struct.unpack_from(">q", raw, 2)
        return Stored(ts, bool(raw[1] & 1), raw[10:])

    @property
    def millis(self) -> int:
        """The physical part of the timestamp: milliseconds since the epoch."""
        return self.ts >> 16

    def describe(self) -> str:
        what = "tombstone" if self.tombstone else repr(self.value.decode(errors="replace"))
        return f"{what} @ {self.millis}.{self.ts & 0xFFFF}"


@dataclass
class Event:
    """One nemesis step: a fault applied or healed, with what it observed (dropped packets, probe answers)."""
    t: int
    action: str           # start | end | note
    kind: str             # partition | pause | crash | clock | disk | heal
    fault: int            # index in the schedule (-1: the final heal)
    detail: dict = field(default_factory=dict)


class Recorder:
    """Appends ops and events to their files (thread-safe) and keeps them in memory for the checker."""

    def __init__(self, directory: Path):
        self.ops: list[Op] = []
        self.events: list[Event] = []
        self._lock = threading.Lock()
        self._ops = open(directory / "history.jsonl", "w")
        self._events = open(directory / "nemesis.jsonl", "w")
        self._next = 0

    def next_id(self) -> int:
        with self._lock:
            self._next += 1
            return self._next

    def op(self, op: Op) -> None:
        with self._lock:
            self.ops.append(op)
            self._ops.write(json.dumps(asdict(op)) + "\n")

    def event(self, event: Event) -> None:
        with self._lock:
            self.events.append(event)
            self._events.write(json.dumps(asdict(event)) + "\n")
            self._events.flush()

    def close(self) -> None:
        with self._lock:
            self._ops.close()
            self._events.close()


def load(directory: Path) -> tuple[list[Op], list[Event]]:
    ops = [Op(**json.loads(line)) for line in (directory / "history.jsonl").read_text().splitlines() if line]
    events = [Event(**json.loads(line)) for line in (directory / "nemesis.jsonl").read_text().splitlines() if line]
    return ops, events
