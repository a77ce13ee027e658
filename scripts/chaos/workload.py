"""The clients: a mixed workload of GET, PUT and DELETE over a bounded key space (so keys are overwritten, deleted
and written again, by several clients at once), through every node, at the node's default quorum and at other
ack/from. Every value is unique (client, sequence, random), so a read names the one write it saw.

Each request goes on a connection of its own: a failure to connect means the request was never sent (a definite
failure), anything after that leaves the outcome unknown (history.py). Each client paces itself to its share of
the rate and never has more than one request in flight, so a paused node holds up one client, not the run.
"""
from __future__ import annotations

import http.client
import random
import threading
import time

from .history import Op, Recorder
from .network import PORT, Member

# (ack, from) a request asks for, with weights; None = no `replicas` parameter (the node's default, 2/3 at RF 3).
# Reads and writes draw from the same mix, so some pairs overlap (R + W > N) and some do not.
REPLICAS = [(None, 34), ((2, 3), 14), ((3, 3), 12), ((1, 3), 16), ((1, 1), 8), ((2, 2), 8), ((1, 2), 8)]
OPS = [("get", 50), ("put", 38), ("delete", 12)]
CONNECT_TIMEOUT = 2.0


def _pick(rng: random.Random, table):
    return rng.choices([t[0] for t in table], weights=[t[1] for t in table])[0]


def execute(members: list[Member], recorder: Recorder, t_origin: int, process: str, node: int, f: str, key: str,
            value: str | None, replicas: tuple[int, int] | None, rf: int, timeout: float) -> Op:
    """Sends one request and records it."""
    ack, frm = replicas if replicas else (rf // 2 + 1, rf)
    path = f"/v0/entity?id={key}" + (f"&replicas={ack}/{frm}" if replicas else "")
    method = {"get": "GET", "put": "PUT", "delete": "DELETE"}[f]
    body = value.encode() if f == "put" else None
    op = Op(id=recorder.next_id(), process=process, f=f, key=key, node=node, ack=ack, frm=frm, t0=0, t1=None,
            status=None, type="info", value=value if f == "put" else None, explicit=replicas is not None)
    conn = http.client.HTTPConnection(members[node].ip, PORT, timeout=CONNECT_TIMEOUT)
    op.t0 = time.monotonic_ns() - t_origin
    try:
        try:
            conn.connect()
        except OSError as e:
            op.t1, op.type, op.error = time.monotonic_ns() - t_origin, "fail", f"connect: {e}"
            return op
        conn.sock.settimeout(timeout)
        try:
            conn.request(method, path, body=body, headers={"Connection": "close"})
            r = conn.getresponse()
            data = r.read()
        except (OSError, http.client.HTTPException) as e:
            op.t1, op.error = time.monotonic_ns() - t_origin, f"{type(e).__name__}: {e}"
            op.type = "info" if op.write else "fail"
            return op
        op.t1, op.status = time.monotonic_ns() - t_origin, r.status
        if r.status >= 300:
            op.error = data[:200].decode(errors="replace").strip()
        if f == "get":
            op.type = "ok" if r.status in (200, 404) else "fail"
            op.value = data.decode() if r.status == 200 else None
        elif r.status == (201 if f == "put" else 202):
            op.type = "ok"
        elif r.status == 503 or 400 <= r.status < 500:
            op.type = "fail"  # refused before anything was written (docs/cluster.md, "Failure behaviour")
        else:
            op.type = "info"  # 504: some replicas may hold it; 500: the local write may or may not have applied
        return op
    finally:
        conn.close()
        recorder.op(op)


class Workload:
    def __init__(self, members: list[Member], recorder: Recorder, t_origin: int, seed: int, clients: int,
                 rate: float, keys: int, rf: int, timeout: float):
        self.members = members
        self.recorder = recorder
        self.t_origin = t_origin
        self.seed = seed
        self.clients = clients
        self.rate = rate
        self.keys = keys
        self.rf = rf
        self.timeout = timeout
        self.stop = threading.Event()
        self.threads: list[threading.Thread] = []

    def start(self) -> None:
        for c in range(self.clients):
            t = threading.Thread(target=self._client, args=(c,), name=f"client-{c}", daemon=True)
            t.start()
            self.threads.append(t)

    def finish(self) -> None:
        """Stops the clients after their current request (each is bounded by the client timeout)."""
        self.stop.set()
        for t in self.threads:
            t.join(self.timeout + CONNECT_TIMEOUT + 5)

    def _client(self, c: int) -> None:
        rng = random.Random(f"{self.seed}/client/{c}")
        interval = self.clients / self.rate
        seq = 0
        due = time.monotonic() + rng.random() * interval
        while not self.stop.is_set():
            delay = due - time.monotonic()
            if delay > 0 and self.stop.wait(delay):
                break
            due = max(due + interval, time.monotonic() - 1.0)  # catch up after a stall, but by at most 1 s
            f = _pick(rng, OPS)
            key = f"k{rng.randrange(self.keys):04d}"
            seq += 1
            value = f"c{c}-{seq}-{rng.getrandbits(32):08x}" if f == "put" else None
            execute(self.members, self.recorder, self.t_origin, f"c{c}", rng.randrange(len(self.members)), f, key,
                    value, _pick(rng, REPLICAS), self.rf, self.timeout)

