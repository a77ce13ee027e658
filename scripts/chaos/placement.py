"""Where a key's copies live: the node's consistent-hash ring (dev.dht.node.ring.Ring), rebuilt here so that the
harness can name a key's replicas (to read each copy, and to aim a probe at one node) without asking a node.

The ring: every member (canonical base URL) owns 1024 points, point i at XXH64(utf8(member), seed=i); a key sits
at XXH64(utf8(key), seed=0); its replicas are the first `from` distinct members clockwise from the key (the first
point at or after it, wrapping). Points that collide are ordered by (member, vnode). docs/placement.md.
"""
from __future__ import annotations

import bisect
import struct

_M = (1 << 64) - 1
P1, P2, P3, P4, P5 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x85EBCA77C2B2AE63,
                      0x27D4EB2F165667C5)
VNODES = 1024


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _M


def _round(acc: int, lane: int) -> int:
    return (_rotl((acc + lane * P2) & _M, 31) * P1) & _M


def _merge(acc: int, val: int) -> int:
    return ((acc ^ _round(0, val)) * P1 + P4) & _M


def xxh64(data: bytes, seed: int = 0) -> int:
    """XXH64 as the xxHash specification defines it (unsigned 64-bit result)."""
    seed &= _M
    n = len(data)
    i = 0
    if n >= 32:
        v1, v2, v3, v4 = (seed + P1 + P2) & _M, (seed + P2) & _M, seed, (seed - P1) & _M
        while i + 32 <= n:
            a, b, c, d = struct.unpack_from("<4Q", data, i)
            v1, v2, v3, v4 = _round(v1, a), _round(v2, b), _round(v3, c), _round(v4, d)
            i += 32
        h = (_rotl(v1, 1) + _rotl(v2, 7) + _rotl(v3, 12) + _rotl(v4, 18)) & _M
        for v in (v1, v2, v3, v4):
            h = _merge(h, v)
    else:
        h = (seed + P5) & _M
    h = (h + n) & _M
    while i + 8 <= n:
        (k,) = struct.unpack_from("<Q", data, i)
        h = ((_rotl(h ^ _round(0, k), 27) * P1) + P4) & _M
        i += 8
    if i + 4 <= n:
        (k,) = struct.unpack_from("<I", data, i)
        h = ((_rotl(h ^ ((k * P1) & _M), 23) * P2) + P3) & _M
        i += 4
    while i < n:
        h = (_rotl(h ^ ((data[i] * P5) & _M), 11) * P1) & _M
        i += 1
    h ^= h >> 33
    h = (h * P2) & _M
    h ^= h >> 29
    h = (h * P3) & _M
    h ^= h >> 32
    return h


class Ring:
    """The replicas of any key for a member set (order of `members` does not matter)."""

    def __init__(self, members: list[str], vnodes: int = VNODES):
        self.members = sorted(set(members))
        points = []
        for m, name in enumerate(self.members):
            raw = name.encode()
            for v in range(vnodes):
                points.append((xxh64(raw, v), m, v))
        points.sort()
        self._points = [p[0] for p in points]
        self._owners = [p[1] for p in points]

    def replicas(self, key: str, count: int) -> list[str]:
        """The first `count` distinct members clockwise from the key."""
        start = bisect.bisect_left(self._points, xxh64(key.encode(), 0))
        found: list[str] = []
        total = len(self._points)
        for step in range(total):
            name = self.members[self._owners[(start + step) % total]]
            if name not in found:
                found.append(name)
                if len(found) == min(count, len(self.members)):
                    break
        return found
