"""The nemesis's plan: which faults, on which nodes, when and for how long, drawn from the seed alone, so that a
seed names the same faults every time (the interleaving with the clients still depends on timing).

Kinds, and what each one does to the nodes (nemesis.py carries them out):
  partition  packets really dropped between namespaces; modes:
               one-way  one node's packets to some others are dropped, theirs to it still arrive
               halves   a majority and a minority that cannot reach each other (both ways)
               isolate  one node cut off from all others (both ways)
               bridge   two halves that only one node in the middle can reach both of
               flap     halves or isolate, switched on and off every 0.5-3 s
  pause      SIGSTOP one or two nodes, SIGCONT at the end
  crash      SIGKILL one or two nodes, start them again on their data at the end
  clock      one node's wall clock seconds to minutes ahead or behind (a second node the other way, sometimes)
  disk       one node's data filesystem filled to the last byte, freed at the end

Faults follow each other with short quiet gaps; every kind (and every partition mode) comes once before any comes
again, and now and then a second fault of another class overlaps the first (a partition with a node fault, or two
node faults on different nodes). At most two nodes are paused or down at any moment.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

KINDS = ("partition", "pause", "crash", "clock", "disk")
PARTITION_MODES = ("one-way", "halves", "isolate", "bridge", "flap")
NODE_KINDS = ("pause", "crash", "clock", "disk")
# seconds, at scale 1 (a 5-minute run or longer)
DURATION = {"partition": (5, 20), "pause": (3, 15), "crash": (3, 15), "clock": (10, 30), "disk": (10, 25)}


@dataclass
class Fault:
    index: int
    kind: str
    start: float           # seconds after the clients started
    duration: float
    params: dict = field(default_factory=dict)

    @property
    def end(self) -> float:
        return self.start + self.duration

    def nodes(self) -> set[int]:
        p = self.params
        return set(p.get("nodes", [])) | ({p["node"]} if "node" in p else set()) | set(p.get("others", []))

    def describe(self) -> str:
        p = self.params
        if self.kind == "partition":
            cut = ", ".join(f"{a}->{b}" for a, b in sorted(map(tuple, p["drops"])))
            return f"partition {p['mode']} (dropped: {cut})"
        if self.kind == "clock":
            return "clock " + ", ".join(f"n{n} {o:+d} s" for n, o in p["offsets"])
        return f"{self.kind} " + ", ".join(f"n{n}" for n in sorted(self.nodes()))


def scale_for(duration: float) -> float:
    """Shorter runs get shorter faults so that every kind still fits, several times."""
    return min(1.0, max(0.4, duration / 300))


def _two_way(a: list[int], b: list[int]) -> list[list[int]]:
    return [[x, y] for x in a for y in b] + [[y, x] for x in a for y in b]


class Deck:
    """Deals the items in a shuffled order, each once before any comes twice (a random pick per partition left a
    10-minute run with twelve partitions and no one-way among them)."""

    def __init__(self, rng: random.Random, items: tuple[str, ...] | list[str]):
        self.rng, self.items, self.left = rng, sorted(items), []

    def deal(self) -> str:
        if not self.left:
            self.left = list(self.items)
            self.rng.shuffle(self.left)
        return self.left.pop()


def _partition(rng: random.Random, mode: str, n: int, duration: float) -> dict:
    nodes = list(range(n))
    rng.shuffle(nodes)
    if mode == "one-way":
        src, others = nodes[0], nodes[1:rng.randint(2, n)]
        if rng.random() < 0.5:
            drops = [[src, o] for o in others]   # src's packets never arrive
        else:
            drops = [[o, src] for o in others]   # src hears nothing from them
        return {"mode": mode, "drops": drops}
    if mode == "bridge":
        half = (n - 1) // 2
        a, mid, b = nodes[:half], nodes[half], nodes[half + 1:]
        return {"mode": mode, "drops": _two_way(a, b), "bridge": mid}
    if mode == "isolate":
        return {"mode": mode, "drops": _two_way(nodes[:1], nodes[1:])}
    if mode == "halves":
        return {"mode": mode, "drops": _two_way(nodes[:n // 2], nodes[n // 2:])}
    inner = _partition_fixed(rng, nodes, rng.choice(("halves", "isolate")))
    toggles, t, on = [], 0.0, True
    while t < duration:
        toggles.append([round(t, 2), on])
        t += rng.uniform(0.5, 3.0)
        on = not on
    return {"mode": mode, "drops": inner, "toggles": toggles}


def _partition_fixed(rng: random.Random, nodes: list[int], mode: str) -> list[list[int]]:
    if mode == "isolate":
        return _two_way(nodes[:1], nodes[1:])
    return _two_way(nodes[:len(nodes) // 2], nodes[len(nodes) // 2:])


def _node_fault(rng: random.Random, kind: str, candidates: list[int]) -> dict:
    rng.shuffle(candidates)
    if kind in ("pause", "crash"):
        count = 2 if len(candidates) >= 2 and rng.random() < 0.3 else 1
        return {"nodes": sorted(candidates[:count])}
    if kind == "disk":
        return {"node": candidates[0]}
    # clock: log-uniform 5 s .. 3 min, ahead or behind; sometimes a second node the other way
    magnitude = round(math.exp(rng.uniform(math.log(5), math.log(180))))
    sign = rng.choice((1, -1))
    offsets = [[candidates[0], sign * magnitude]]
    if len(candidates) >= 2 and rng.random() < 0.3:
        offsets.append([candidates[1], -sign * round(math.exp(rng.uniform(math.log(5), math.log(180))))])
    return {"node": candidates[0], "others": [o[0] for o in offsets[1:]], "offsets": offsets}


def plan(seed: int, duration: float, kinds: list[str], n: int, warmup: float = 5.0, tail: float = 5.0) -> list[Fault]:
    rng = random.Random(f"{seed}/nemesis")
    scale = scale_for(duration)
    faults: list[Fault] = []
    t = warmup
    bag = Deck(rng, kinds)
    modes = Deck(random.Random(f"{seed}/partition-modes"), PARTITION_MODES)
    while kinds:
        kind = bag.deal()
        lo, hi = DURATION[kind]
        d = round(rng.uniform(lo, hi) * scale, 1)
        if t + d > duration - tail:
            break
        main = _make(rng, modes, len(faults), kind, t, d, n, list(range(n)))
        faults.append(main)
        extra_kinds = [k for k in kinds if (k == "partition") != (kind == "partition")] or \
                      [k for k in kinds if k != "partition" and kind != "partition"]
        if extra_kinds and rng.random() < 0.3:
            k2 = rng.choice(extra_kinds)
            start2 = round(t + rng.uniform(0, d / 2), 1)
            lo2, hi2 = DURATION[k2]
            d2 = round(min(rng.uniform(lo2, hi2) * scale, t + d - start2), 1)
            free = [i for i in range(n) if i not in main.nodes()]
            if d2 >= 1 and free:
                extra = _make(rng, modes, len(faults), k2, start2, d2, n, free)
                if k2 in ("pause", "crash") and kind in ("pause", "crash"):  # at most two nodes stopped at once
                    extra.params["nodes"] = extra.params["nodes"][:2 - len(main.nodes())]
                if extra.nodes() or k2 == "partition":
                    faults.append(extra)
        t = round(t + d + rng.uniform(2, 6) * scale, 1)
    return faults


def _make(rng: random.Random, modes: Deck, index: int, kind: str, start: float, duration: float, n: int,
          candidates: list[int]) -> Fault:
    if kind == "partition":
        return Fault(index, kind, start, duration, _partition(rng, modes.deal(), n, duration))
    return Fault(index, kind, start, duration, _node_fault(rng, kind, candidates))


def parse_kinds(text: str) -> list[str]:
    """CHAOS_NEMESIS: 'all' or a comma list of kinds."""
    if text.strip() in ("", "all"):
        return list(KINDS)
    kinds = [k.strip() for k in text.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in KINDS and k != "none"]
    if unknown:
        raise ValueError(f"unknown nemesis {unknown}: choose from {', '.join(KINDS)}, 'all' or 'none'")
    return [k for k in kinds if k != "none"]
